// The cluster reader's JSON fast path (cluster_json_reader.cpp) against its document path (the
// authority for what is accepted, every message and every limit), differentially: over every
// cluster file of the tests, the examples and the Kafka golden corpus (tests/data/kafka-golden),
// over generated files of every shape (scenarios, racks, tags, weights, non-logged stores,
// previous_by_thread, unknown end offsets, unicode ids), each also written back with other
// layouts, key orders and escapes, and over thousands of mutations of them (bytes and structure),
// under the default limits and under tight ones. For every text:
//  - when the fast path accepts it, the document path accepts it too and builds the same cluster
//    (every field; tests/host/formats/cluster_difference.hpp), and the DocumentBudget the fast
//    path kept equals the one of the document the document path built (so it is refused by the
//    document's memory budget exactly when the document is);
//  - parse_cluster (which tries the fast path first) gives what the document path gives: the same
//    cluster, or the same message;
//  - a well-formed file in the writer's layout (tasks before clients) never falls back: the fast
//    path must not decline what it was built for.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/formats/document.hpp"
#include "assignor/scenario.hpp"
#include "cluster_difference.hpp"
#include "cluster_file.hpp"

namespace assignor::host::detail {
namespace {

// ---- a small JSON value, to write a file back in other layouts and to mutate its structure ------

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  std::string text;  // Bool, Number: as written; String: unescaped
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;
};

bool looks_like_json_number(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i == s.size() || s[i] < '0' || s[i] > '9') return false;
  if (s[i] == '0' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') return false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i == s.size() || s[i] < '0' || s[i] > '9') return false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i == s.size() || s[i] < '0' || s[i] > '9') return false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  }
  return i == s.size();
}

Json from_document(const DocNode& node) {
  Json j;
  switch (node.Type()) {
    case DocType::Undefined:
    case DocType::Null: break;
    case DocType::Scalar: {
      const std::string_view s = node.Scalar();
      j.text = std::string(s);
      if (node.IsQuoted())
        j.kind = Json::String;
      else if (s == "true" || s == "false")
        j.kind = Json::Bool;
      else if (looks_like_json_number(s))
        j.kind = Json::Number;
      else
        j.kind = Json::String;  // a plain YAML string
      break;
    }
    case DocType::Sequence:
      j.kind = Json::Array;
      for (const auto& item : node) j.items.push_back(from_document(item));
      break;
    case DocType::Map:
      j.kind = Json::Object;
      for (auto it = node.begin(); it != node.end(); ++it)
        j.fields.emplace_back(std::string(it->first.Scalar()), from_document(it->second));
      break;
  }
  return j;
}

// How to write a value back: compact or one entry a line; keys in order, rotated or reversed;
// strings and keys with some ASCII letters written as \u escapes (the fast path then unescapes).
struct Layout {
  bool pretty = false;
  int key_order = 0;  // 0 as read, 1 rotated by one (the root keeps tasks before clients), 2 reversed
  bool escapes = false;
};

void write_string(std::string& out, std::string_view s, bool escapes) {
  out.push_back('"');
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20 || (escapes && (ch == 'a' || ch == '_' || ch == 'i'))) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('"');
}

void write(std::string& out, const Json& j, const Layout& layout, int depth) {
  const std::string newline = layout.pretty ? "\n" + std::string(2 * (depth + 1), ' ') : "";
  switch (j.kind) {
    case Json::Null: out += "null"; return;
    case Json::Bool:
    case Json::Number: out += j.text; return;
    case Json::String: write_string(out, j.text, layout.escapes); return;
    case Json::Array:
      out.push_back('[');
      for (std::size_t i = 0; i < j.items.size(); ++i) {
        out += (i ? "," : "") + newline;
        write(out, j.items[i], layout, depth + 1);
      }
      out += layout.pretty && !j.items.empty() ? "\n" + std::string(2 * depth, ' ') + "]" : "]";
      return;
    case Json::Object: {
      std::vector<std::size_t> order(j.fields.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      if (layout.key_order == 1 && depth > 0 && !order.empty())
        std::rotate(order.begin(), order.begin() + 1, order.end());
      if (layout.key_order == 2) std::reverse(order.begin(), order.end());
      out.push_back('{');
      for (std::size_t i = 0; i < order.size(); ++i) {
        out += (i ? "," : "") + newline;
        write_string(out, j.fields[order[i]].first, layout.escapes);
        out += layout.pretty ? ": " : ":";
        write(out, j.fields[order[i]].second, layout, depth + 1);
      }
      out += layout.pretty && !order.empty() ? "\n" + std::string(2 * depth, ' ') + "}" : "}";
      return;
    }
  }
}

std::string write(const Json& j, const Layout& layout = {}) {
  std::string out;
  write(out, j, layout, 0);
  return out + "\n";
}

// ---- the property --------------------------------------------------------------------------------

InputLimits tight_limits() {
  InputLimits limits;
  limits.max_file_bytes = 6000;
  limits.max_tasks = 40;
  limits.max_clients = 6;
  limits.max_threads_per_client = 3;
  limits.max_total_threads = 12;
  limits.max_id_length = 10;
  return limits;
}

struct Tally {
  int both_accept = 0;     // the fast path took it, and the document path agrees
  int declined_valid = 0;  // the fast path declined a file the document path accepts
  int refused = 0;         // both refuse (the fast path declined, the document path says why)
};

std::optional<Cluster> document_path(const std::string& text, const InputLimits& limits, std::string& error) {
  try {
    return parse_cluster_document(text, "c.json", limits);
  } catch (const InputError& e) {
    error = e.what();
    return std::nullopt;
  }
}

// Checks the property on one text; true when the fast path took it.
bool check(const std::string& text, const std::string& name, const InputLimits& limits, Tally& tally) {
  SCOPED_TRACE(name);
  DocumentBudget fast_cost(0);
  const std::optional<Cluster> fast = read_cluster_json(text, text.size(), limits, &fast_cost);
  std::string error;
  const std::optional<Cluster> slow = document_path(text, limits, error);
  if (fast) {
    EXPECT_TRUE(slow.has_value()) << "the fast path accepted what the document path refuses: " << error << "\n"
                                  << text.substr(0, 2000);
    if (!slow) return true;
    EXPECT_EQ(testing::cluster_difference(*fast, *slow), "") << text.substr(0, 2000);
    const auto document = parse_json_document(text, "c.json");
    EXPECT_NE(document, nullptr);
    if (document) {
      const DocumentBudget& kept = document->cost();
      EXPECT_TRUE(kept == fast_cost) << "budget: nodes " << fast_cost.size(DocumentBudget::kNodes) << " vs "
                                     << kept.size(DocumentBudget::kNodes) << ", text "
                                     << fast_cost.size(DocumentBudget::kText) << " vs "
                                     << kept.size(DocumentBudget::kText) << ", peak " << fast_cost.peak() << " vs "
                                     << kept.peak();
    }
    ++tally.both_accept;
  } else if (slow) {
    ++tally.declined_valid;
  } else {
    ++tally.refused;
  }
  // What users get: the same cluster, or the same message.
  try {
    const Cluster read = parse_cluster(text, "c.json", limits);
    EXPECT_TRUE(slow.has_value()) << "parse_cluster accepted, the document path refused: " << error;
    if (slow) {
      EXPECT_EQ(testing::cluster_difference(read, *slow), "");
    }
  } catch (const InputError& e) {
    EXPECT_FALSE(slow.has_value()) << "parse_cluster refused: " << e.what();
    EXPECT_EQ(std::string(e.what()), error);
  }
  return fast.has_value();
}

// ---- the corpus ---------------------------------------------------------------------------------

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CorpusFile {
  std::string name;
  std::string text;
};

// Every cluster file the repository's tests and examples hold, and the Kafka golden corpus.
std::vector<CorpusFile> corpus_files() {
  std::vector<CorpusFile> files;
  const std::filesystem::path source(ASSIGNOR_SOURCE_DIR);
  const std::vector<std::filesystem::path> dirs = {source / "examples",
                                                   source / "examples/scenarios",
                                                   source / "tests/cli/bad_clusters",
                                                   source / "tests/cli/data",
                                                   source / "tests/fuzz/regressions/cluster_reader",
                                                   source / "tests/fuzz/regressions/assign"};
  for (const auto& dir : dirs)
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      const std::string text = read_file(entry.path());
      // Cluster files only (not configs, assignments or events).
      if (text.find("clients") == std::string::npos || text.find("tasks") == std::string::npos) continue;
      files.push_back({entry.path().lexically_relative(source).string(), text});
    }
  const std::filesystem::path golden = source / "tests/data/kafka-golden";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(golden))
    if (entry.is_regular_file() && entry.path().string().ends_with(".cluster.json"))
      files.push_back({entry.path().lexically_relative(golden).string(), read_file(entry.path())});
  return files;
}

// The golden corpus's cluster files, counted from its cases (one NAME.kafka.json each, whose input
// is NAME.cluster.json or NAME.cluster.yaml): Kafka ran on every one, so each is a valid file.
std::size_t golden_json_clusters() {
  std::size_t n = 0;
  const std::filesystem::path golden = std::filesystem::path(ASSIGNOR_SOURCE_DIR) / "tests/data/kafka-golden";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(golden)) {
    const std::string path = entry.path().string();
    if (!path.ends_with(".kafka.json")) continue;
    n +=
        std::filesystem::exists(path.substr(0, path.size() - std::string_view(".kafka.json").size()) + ".cluster.json");
  }
  return n;
}

// Generated clusters of every shape the generator makes, then decorated with what it does not
// write: tags, previous_by_thread, weights, partitions with racks, unicode ids.
std::vector<CorpusFile> generated_files() {
  std::vector<CorpusFile> files;
  const auto add = [&](const std::string& name, const ScenarioSpec& spec) {
    files.push_back({name, cluster_to_json(generate_cluster(spec))});
  };
  ScenarioSpec base;
  base.clients = 6;
  base.threads = 2;
  base.subtopologies = 4;
  base.partitions = 5;
  for (const ScenarioKind kind :
       {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in, ScenarioKind::rolling_restart}) {
    ScenarioSpec spec = base;
    spec.kind = kind;
    add("generated-" + std::to_string(static_cast<int>(kind)), spec);
  }
  ScenarioSpec racks = base;
  racks.kind = ScenarioKind::scale_out;
  racks.racks = 3;
  add("generated-racks", racks);
  ScenarioSpec unknown = base;
  unknown.kind = ScenarioKind::rolling_restart;
  unknown.end_offsets_known = false;
  unknown.nonlogged_fraction = 0.5;
  unknown.stateful_fraction = 1.0;
  add("generated-unknown-end-offsets", unknown);
  ScenarioSpec weights = base;
  weights.kind = ScenarioKind::scale_out;
  weights.weights = WeightDistribution::zipf;
  weights.threads_max = 5;
  weights.standbys = 2;
  add("generated-weights-uneven-threads", weights);

  // Decorated: tags, previous_by_thread, weights, partitions with racks, unicode ids.
  ScenarioSpec spec = base;
  spec.kind = ScenarioKind::rolling_restart;
  spec.threads = 3;
  Cluster cluster = generate_cluster(spec);
  cluster.racks = {"az-1", "az-2", "zone-\xc3\xa9"};
  for (std::size_t t = 0; t < cluster.tasks.size(); ++t) {
    Task& task = cluster.tasks[t];
    if (t % 3 == 0) task.weight = 0.25 * static_cast<double>(t + 1);
    if (t % 4 == 1) task.partitions.push_back({"orders", static_cast<std::int32_t>(t), {0, 2}});
    if (t % 4 == 2) task.partitions.push_back({"\xe6\xb3\xa8\xe6\x96\x87", 0, {}});
    if (t % 5 == 0) task.stores.push_back({"scratch-\xc3\xbc", false, 0});
  }
  for (std::size_t c = 0; c < cluster.clients.size(); ++c) {
    Client& client = cluster.clients[c];
    client.id = (c % 2 ? "\xd0\xba\xd0\xbb\xd0\xb8\xd0\xb5\xd0\xbd\xd1\x82-" : "client-\xc3\xa9-") + std::to_string(c);
    client.rack = static_cast<RackIndex>(c % 3);
    client.tags = {{"zone", "z" + std::to_string(c % 2)}, {"h\xc3\xb4te", ""}, {"quote\"d", "back\\slash"}};
    ThreadHistory a{"thread-1", {}, {}}, b{"thread-\xce\xb2", {}, {}}, idle{"idle", {}, {}};
    for (std::size_t i = 0; i < client.previous_active.size(); ++i)
      (i % 2 ? b : a).previous_active.push_back(client.previous_active[i]);
    for (std::size_t i = 0; i < client.previous_standby.size(); ++i)
      (i % 2 ? a : b).previous_standby.push_back(client.previous_standby[i]);
    client.threads_history = {a, b, idle};
  }
  cluster.finalize();
  files.push_back({"decorated", cluster_to_json(cluster)});
  return files;
}

// ---- mutations ----------------------------------------------------------------------------------

const std::vector<std::string> kTokens = {"-2",
                                          "-1",
                                          "0",
                                          "-0",
                                          "1e400",
                                          "1.5",
                                          "01",
                                          "9223372036854775807",
                                          "9223372036854775808",
                                          "-9223372036854775809",
                                          "4294967295",
                                          "4294967296",
                                          "null",
                                          "nul",
                                          "true",
                                          "tru",
                                          "\"\"",
                                          "\"0_0\"",
                                          "\"0_1\"",
                                          "\"9_9\"",
                                          "\"00_01\"",
                                          "\"2147483647_0\"",
                                          "\"0_2147483648\"",
                                          "\"\\u0000\"",
                                          "\"\\ud800\"",
                                          "\"\\q\"",
                                          "\"x\"",
                                          "\"\xc3\xa9\"",
                                          "\"\xff\"",
                                          "[]",
                                          "{}",
                                          "[\"0_0\"]",
                                          "{\"0_0\": -2}",
                                          "[[[]]]",
                                          ",",
                                          ":",
                                          "{",
                                          "}",
                                          "[",
                                          "]",
                                          "\"",
                                          "\\",
                                          " ",
                                          "\n",
                                          "#",
                                          "0_1"};

const std::vector<std::string> kKeys = {"id",
                                        "idd",
                                        "threads",
                                        "tasks",
                                        "clients",
                                        "stores",
                                        "name",
                                        "logged",
                                        "weight",
                                        "rack",
                                        "tags",
                                        "active",
                                        "standby",
                                        "x",
                                        "",
                                        "offset_sums",
                                        "previous_active",
                                        "previous_standby",
                                        "previous_by_thread",
                                        "changelog_end_offset",
                                        "partitions",
                                        "racks"};

Json token_value(const std::string& token) {
  const auto doc = parse_json_document("{\"v\": " + token + "}", "token.json");
  if (doc) return from_document(doc->root().begin()->second);
  Json j;
  j.kind = Json::Number;  // written raw: not JSON, so the text goes to YAML
  j.text = token;
  return j;
}

void collect(Json& j, std::vector<Json*>& all) {
  all.push_back(&j);
  for (auto& item : j.items) collect(item, all);
  for (auto& field : j.fields) collect(field.second, all);
}

// One mutation of `text` (or of its structure `json`), drawn from `rng`.
std::string mutate(const std::string& text, const Json* json, std::mt19937_64& rng) {
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  if (json == nullptr || rng() % 3 == 0) {  // bytes
    std::string out = text;
    const std::size_t at = pick(out.size());
    const std::size_t len = 1 + pick(16);
    switch (rng() % 5) {
      case 0: out.erase(at, len); break;
      case 1: out.insert(at, out.substr(at, len)); break;
      case 2: out.insert(at, kTokens[pick(kTokens.size())]); break;
      case 3:
        if (!out.empty()) out[at] = "[]{}:,-\"\\ 0_.e\x00\xff"[pick(16)];
        break;
      default: out.resize(at); break;
    }
    return out;
  }
  Json copy = *json;
  std::vector<Json*> all;
  collect(copy, all);
  Json& j = *all[pick(all.size())];
  switch (rng() % 4) {
    case 0:  // another value
      j = token_value(kTokens[pick(kTokens.size())]);
      break;
    case 1:  // a key removed, renamed or given twice; an item removed or given twice
      if (j.kind == Json::Object && !j.fields.empty()) {
        const std::size_t i = pick(j.fields.size());
        switch (rng() % 3) {
          case 0: j.fields.erase(j.fields.begin() + static_cast<std::ptrdiff_t>(i)); break;
          case 1: j.fields[i].first = kKeys[pick(kKeys.size())]; break;
          default: j.fields.push_back(j.fields[i]); break;
        }
      } else if (j.kind == Json::Array && !j.items.empty()) {
        const std::size_t i = pick(j.items.size());
        if (rng() % 2)
          j.items.erase(j.items.begin() + static_cast<std::ptrdiff_t>(i));
        else
          j.items.push_back(j.items[i]);
      } else {
        j.kind = Json::Null;
      }
      break;
    case 2:  // a key added with any value
      if (j.kind == Json::Object)
        j.fields.emplace_back(kKeys[pick(kKeys.size())], token_value(kTokens[pick(kTokens.size())]));
      else
        j = Json{};
      break;
    default: {  // two values swapped
      Json& other = *all[pick(all.size())];
      if (&other != &j && !(other.kind == Json::Object || other.kind == Json::Array) &&
          !(j.kind == Json::Object || j.kind == Json::Array))
        std::swap(j, other);
      else if (j.kind == Json::Number)
        j.text = "-" + j.text;
      break;
    }
  }
  Layout layout;
  layout.pretty = rng() % 2 == 0;
  return write(copy, layout);
}

std::optional<Json> structure(const std::string& text) {
  try {
    if (auto doc = parse_json_document(text, "c.json")) return from_document(doc->root());
    return from_document(parse_yaml_document(text, "c.yaml", "a cluster")->root());
  } catch (const InputError&) {
    return std::nullopt;
  }
}

bool tasks_first(const Json& root) {
  for (const auto& [key, value] : root.fields) {
    if (key == "tasks") return true;
    if (key == "clients") return false;
  }
  return false;
}

// ---- the tests ----------------------------------------------------------------------------------

// Every corpus and generated file as written, and written back in five layouts (files over 64 KB,
// most of the Kafka golden corpus, in one of them each, in turn: the suite runs under the
// sanitizers too): wherever the document path accepts one with tasks before clients, the fast path
// takes it too.
TEST(ClusterJsonFastPath, AgreesWithTheDocumentPathOnEveryCorpusFileInEveryLayout) {
  std::vector<CorpusFile> files = corpus_files();
  for (auto& generated : generated_files()) files.push_back(std::move(generated));
  ASSERT_GE(files.size(), 40u);
  const Layout layouts[] = {{false, 0, false}, {true, 0, false}, {false, 1, false}, {true, 0, true}, {false, 2, false}};
  constexpr std::size_t kLayouts = std::size(layouts);
  Tally tally;
  std::size_t golden = 0;
  std::size_t golden_taken = 0;  // golden files the fast path took as written, under the default limits
  for (std::size_t f = 0; f < files.size(); ++f) {
    const CorpusFile& file = files[f];
    const bool is_golden = file.name.ends_with(".cluster.json");
    golden += is_golden ? 1 : 0;
    const std::optional<Json> json = structure(file.text);
    const bool large = file.text.size() > 64 * 1024;
    const InputLimits limit_sets[] = {InputLimits{}, tight_limits()};
    for (const InputLimits& limits : limit_sets) {
      const bool taken_as_written = check(file.text, file.name, limits, tally);
      // Kafka ran on every golden file, and each is in the writer's layout (tasks before clients).
      if (is_golden && &limits == &limit_sets[0]) golden_taken += taken_as_written ? 1 : 0;
      // Under the tight limits (6,000 bytes at most) only small files get past the size check.
      if (!json || (limits.max_file_bytes < file.text.size() + 1000)) continue;
      for (std::size_t l = 0; l < kLayouts; ++l) {
        if (large && l != f % kLayouts) continue;
        const Layout& layout = layouts[l];
        const std::string text = write(*json, layout);
        const std::string name = file.name + " (layout " + std::to_string(l) + ")";
        const bool taken = check(text, name, limits, tally);
        // The writer's order (tasks before clients) is what the fast path is for: it must not
        // decline a file the document path accepts.
        if (layout.key_order != 2 && tasks_first(*json) && !taken) {
          std::string error;
          EXPECT_FALSE(document_path(text, limits, error).has_value())
              << name << ": the fast path declined a valid file";
        }
      }
    }
  }
  std::cout << "[ tally    ] both accept " << tally.both_accept << ", declined valid " << tally.declined_valid
            << ", both refuse " << tally.refused << " (" << files.size() << " files, " << golden << " golden)\n";
  // The corpus holds every golden case's cluster file, and the fast path took each one.
  const std::size_t golden_cases = golden_json_clusters();
  ASSERT_GT(golden_cases, 0u);
  EXPECT_EQ(golden, golden_cases);
  EXPECT_EQ(golden_taken, golden_cases);
  EXPECT_GT(static_cast<std::size_t>(tally.both_accept), golden_cases);
  EXPECT_GT(tally.refused, 100);
  EXPECT_GT(tally.declined_valid, 10);  // reversed key orders: clients before tasks
}

// Mutations of the small files, by bytes and by structure, under both sets of limits.
TEST(ClusterJsonFastPath, AgreesWithTheDocumentPathOnMutatedFiles) {
  std::vector<CorpusFile> files = corpus_files();
  for (auto& generated : generated_files()) files.push_back(std::move(generated));
  std::mt19937_64 rng(20261202);
  Tally tally;
  int cases = 0;
  for (const CorpusFile& file : files) {
    if (file.text.size() > 40'000) continue;
    const std::optional<Json> json = structure(file.text);
    const std::string base = json ? write(*json) : file.text;
    for (int i = 0; i < 24; ++i) {
      const std::string text = mutate(base, json ? &*json : nullptr, rng);
      const InputLimits limits = i % 4 == 3 ? tight_limits() : InputLimits{};
      check(text, file.name + " mutation " + std::to_string(i), limits, tally);
      ++cases;
      if (::testing::Test::HasFailure()) return;  // one failing text is enough to look at
    }
  }
  std::cout << "[ tally    ] " << cases << " mutations: both accept " << tally.both_accept << ", declined valid "
            << tally.declined_valid << ", both refuse " << tally.refused << "\n";
  EXPECT_GT(tally.both_accept, cases / 10);
  EXPECT_GT(tally.refused, cases / 4);
}

// Large files: the document's arrays are no longer reserved up front (past about 15 MB) and grow
// by doubling; the fast path's budget must follow every growth (the peak included).
TEST(ClusterJsonFastPath, KeepsTheDocumentsBudgetOnAFileTooLargeToReserve) {
  ScenarioSpec spec;
  spec.kind = ScenarioKind::scale_out;
  spec.clients = 200;
  spec.threads = 4;
  spec.subtopologies = 40;
  spec.partitions = 5000;
  spec.standbys = 1;
  const std::string text = cluster_to_json(generate_cluster(spec));
  ASSERT_GT(text.size(), 16u << 20);
  Tally tally;
  EXPECT_TRUE(check(text, "large.json", InputLimits{}, tally));
  const auto document = parse_json_document(text, "large.json");
  ASSERT_NE(document, nullptr);
  const DocumentBudget& cost = document->cost();
  EXPECT_NE(cost.capacity(DocumentBudget::kNodes), text.size() / 6 + 64) << "the arrays were reserved";
  EXPECT_GT(cost.peak(), 0u);
  EXPECT_LE(cost.peak(), cost.limit());
}

// The budget refuses what does not fit, as the builder did before the budget was a model of its own.
TEST(ClusterJsonFastPath, TheBudgetRefusesAGrowthPastItsLimit) {
  DocumentBudget budget(0);  // 64 MiB
  const std::uint64_t mark = budget.stack_size();
  ASSERT_EQ(budget.open(), DocumentBudget::Step::grew);
  DocumentBudget::Step step = DocumentBudget::Step::fits;
  std::uint64_t scalars = 0;
  while ((step = budget.scalar(1)) != DocumentBudget::Step::over_budget) ++scalars;
  // 1 MiB nodes of 20 bytes, and their entries and text, fill 64 MiB at the doubling to 2 Mi nodes.
  EXPECT_GT(scalars, 1'000'000u);
  EXPECT_LT(scalars, 3'000'000u);
  EXPECT_GT(budget.peak(), budget.limit());
  (void)mark;
  DocumentBudget text(0);
  EXPECT_EQ(text.scalar(std::uint64_t{5} << 30), DocumentBudget::Step::text_over_4gib);
}

// The cases the fast path leaves to the document path, each with what the user gets.
TEST(ClusterJsonFastPath, DeclinesWhatItLeavesToTheDocumentPath) {
  const std::string valid =
      "{\"tasks\": [{\"id\": \"0_0\", \"stores\": [{\"name\": \"s\", \"changelog_end_offset\": 5}]}],"
      " \"clients\": [{\"id\": \"c\", \"threads\": 1, \"previous_active\": [\"0_0\"]}]}";
  ASSERT_TRUE(read_cluster_json(valid, valid.size(), {}).has_value());
  const auto declines = [](const std::string& text) { return !read_cluster_json(text, text.size(), {}).has_value(); };
  // Clients before tasks: valid, read by the document path.
  EXPECT_TRUE(declines("{\"clients\": [{\"id\": \"c\", \"threads\": 1}], \"tasks\": []}"));
  EXPECT_NO_THROW(parse_cluster("{\"clients\": [{\"id\": \"c\", \"threads\": 1}], \"tasks\": []}", "c.json"));
  // An unquoted task id in a list: not JSON, but the document path reads it (as YAML would).
  EXPECT_TRUE(
      declines("{\"tasks\": [{\"id\": \"0_0\"}], \"clients\": [{\"id\": \"c\", \"threads\": 1, "
               "\"previous_active\": [0_0]}]}"));
  // `nul` is not null: the document path reads the file as YAML, where it is a string.
  EXPECT_TRUE(declines("{\"tasks\": [], \"clients\": [{\"id\": \"c\", \"threads\": 1, \"rack\": nul}]}"));
  EXPECT_EQ(
      parse_cluster("{\"tasks\": [], \"clients\": [{\"id\": \"c\", \"threads\": 1, \"rack\": nul}]}", "c.json").racks,
      std::vector<std::string>{"nul"});
  // Each error: declined, and the document path's message is the one users see.
  for (const std::string bad : {
           "{\"tasks\": [{\"id\": \"0_0\", \"idd\": 1}], \"clients\": [{\"id\": \"c\", \"threads\": 1}]}",
           "{\"tasks\": [{\"id\": \"0_0\"}, {\"id\": \"0_0\"}], \"clients\": [{\"id\": \"c\", \"threads\": 1}]}",
           "{\"tasks\": [], \"clients\": [{\"id\": \"c\", \"threads\": 0}]}",
           "{\"tasks\": [], \"clients\": [{\"id\": \"c\", \"threads\": 1, \"threads\": 1}]}",
           "{\"tasks\": [], \"clients\": []}",
           "{\"tasks\": [{\"id\": \"0_0\", \"weight\": 0}], \"clients\": [{\"id\": \"c\", \"threads\": 1}]}",
           "{\"tasks\": [{\"id\": \"0_0\", \"stores\": [{\"name\": \"s\"}]}], \"clients\": [{\"id\": \"c\", "
           "\"threads\": 1}]}",
           "{\"tasks\": [], \"clients\": [{\"id\": \"c\", \"threads\": 1}]} x",
       }) {
    EXPECT_TRUE(declines(bad)) << bad;
    std::string error;
    EXPECT_FALSE(document_path(bad, {}, error).has_value()) << bad;
    try {
      parse_cluster(bad, "c.json");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), error);
    }
  }
}

}  // namespace
}  // namespace assignor::host::detail
