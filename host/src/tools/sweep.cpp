#include "assignor/host/tools/sweep.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "assignor/errors.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/formats/yaml_json_reader.hpp"
#include "assignor/host/process/parallel.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/printable.hpp"

namespace assignor::host {

namespace {

// FNV-1a, 64 bits: the same on every machine that runs a shard (std::hash is not).
std::uint64_t fnv1a(std::string_view text, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string base_text(const SweepSpec& spec) {
  return detail::read_text_file(detail::source_name(spec.config_path), spec.config_path, "config file");
}

std::vector<std::vector<std::string>> combinations_of(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> out{{}};
  for (const auto& axis : axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : out)
      for (const auto& v : axis.values) {
        auto c = prefix;
        c.push_back(v);
        next.push_back(std::move(c));
      }
    out = std::move(next);
  }
  return out;
}

// A scenario with settings of its own (a rebalance of an import): those, except the assignment
// keys the sweep varies, which keep the combination's value.
void with_scenario_settings(Config& config, const AssignmentSettings& own, const std::vector<std::string>& keys) {
  const AssignmentSettings varied = config.settings;
  config.settings = own;
  for (const auto& key : keys) {
    if (key == "assignment.acceptable_recovery_lag")
      config.settings.acceptable_recovery_lag = varied.acceptable_recovery_lag;
    else if (key == "assignment.max_warmup_replicas")
      config.settings.max_warmup_replicas = varied.max_warmup_replicas;
    else if (key == "assignment.num_standby_replicas")
      config.settings.num_standby_replicas = varied.num_standby_replicas;
    else if (key == "assignment.probing_rebalance_interval_ms")
      config.settings.probing_rebalance_interval_ms = varied.probing_rebalance_interval_ms;
    else if (key.rfind("assignment.rack_aware", 0) == 0)
      config.settings.rack_aware = varied.rack_aware;
    else if (key == "assignment")
      config.settings = varied;
  }
}

std::string label(const std::vector<std::string>& keys, const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) out += fmt::format("{}{}={}", i ? ", " : "", keys[i], values[i]);
  return out.empty() ? "the config as it is" : out;
}

}  // namespace

Config sweep_config(const SweepSpec& spec, const std::vector<std::string>& keys,
                    const std::vector<std::string>& values) {
  const std::string text = base_text(spec);
  const std::string what = label(keys, values);
  YAML::Node root;
  try {
    root = YAML::Load(text);  // the base was read and checked by read_config_file already
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}: {}", spec.config_path.string(), e.what()));
  }
  if (!root.IsMap()) throw InputError(fmt::format("{}: the config is not a map", spec.config_path.string()));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::vector<std::string> path;
    for (std::size_t start = 0; start <= keys[i].size();) {
      const std::size_t dot = std::min(keys[i].find('.', start), keys[i].size());
      path.push_back(keys[i].substr(start, dot - start));
      start = dot + 1;
    }
    if (std::any_of(path.begin(), path.end(), [](const std::string& p) { return p.empty(); }))
      throw InputError(
          fmt::format("--vary {}: not a dotted path from the config's root (e.g. "
                      "assignment.max_warmup_replicas)",
                      printable(keys[i])));
    // Walk down, creating maps; the last part gets the value (a YAML scalar, read as the config reads it).
    std::vector<YAML::Node> chain{root};
    for (std::size_t k = 0; k + 1 < path.size(); ++k) {
      YAML::Node child = chain.back()[path[k]];
      if (child.IsDefined() && !child.IsNull() && !child.IsMap())
        throw InputError(fmt::format("--vary {}: '{}' in the config is not a map", printable(keys[i]), path[k]));
      if (!child.IsDefined() || child.IsNull()) {
        chain.back()[path[k]] = YAML::Node(YAML::NodeType::Map);
        child = chain.back()[path[k]];
      }
      chain.push_back(child);
    }
    chain.back()[path.back()] = YAML::Load(values[i]);
  }
  YAML::Emitter out;
  out << root;
  std::error_code ec;
  std::filesystem::path base = std::filesystem::absolute(spec.config_path, ec).parent_path();
  try {
    Config config = parse_config(out.c_str(), fmt::format("{} (with {})", spec.config_path.string(), what), base);
    config.source = spec.config_path;
    return config;
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("--vary {}: {}", what, e.what()));
  } catch (const InputError& e) {
    throw InputError(fmt::format("--vary {}: {}", what, e.what()));
  }
}

Sweep sweep_plan(const SweepSpec& spec) {
  Sweep out;
  for (const auto& a : spec.axes) {
    if (a.values.empty()) throw InputError(fmt::format("--vary {}: no values", printable(a.key)));
    if (std::count_if(spec.axes.begin(), spec.axes.end(), [&](const SweepAxis& b) { return b.key == a.key; }) > 1)
      throw InputError(fmt::format("--vary {}: given twice", printable(a.key)));
    out.keys.push_back(a.key);
  }
  out.combinations = combinations_of(spec.axes);
  for (const auto& s : spec.scenarios) out.scenarios.push_back(s.name);
  if (out.scenarios.empty()) throw InputError("sweep: no scenario (--cluster FILE or --scenarios DIR)");
  std::string identity = base_text(spec);
  for (const auto& a : spec.axes) {
    identity += "\n#axis " + a.key;
    for (const auto& v : a.values) identity += "\n#value " + v;
  }
  for (const auto& s : spec.scenarios) identity += "\n#scenario " + s.name + " " + s.source;
  identity += fmt::format("\n#events {}\n#max_rounds {}", spec.events_source, spec.max_rounds);
  out.fingerprint = fmt::format("{:016x}", fnv1a(identity));
  return out;
}

Sweep run_sweep(const PluginRegistry& registry, const SweepSpec& spec, const SweepOptions& options) {
  Sweep out = sweep_plan(spec);

  // Every combination's config, checked before any work; its strategy loaded.
  std::vector<Config> configs;
  for (const auto& values : out.combinations) {
    configs.push_back(sweep_config(spec, out.keys, values));
    if (configs.back().strategy.empty())
      throw InputError(fmt::format("no strategy to sweep: give --strategies a,b,... or add 'strategy: NAME' to {}",
                                   spec.config_path.string()));
    (void)registry.require(configs.back().strategy);
    check_strategy_sections(registry, configs.back());
  }

  out.shard = options.shard;

  const std::size_t n_scenarios = spec.scenarios.size();
  const std::size_t total = out.combinations.size() * n_scenarios;
  std::vector<std::size_t> mine;  // the jobs of this shard
  for (std::size_t i = 0; i < total; ++i)
    if (!options.shard || i % options.shard->count == options.shard->index - 1) mine.push_back(i);

  std::optional<std::pair<std::size_t, Cluster>> cached;
  auto job = [&](std::size_t k) -> std::string {
    const std::size_t i = mine[k];
    const std::size_t c = i / n_scenarios, si = i % n_scenarios;
    if (!cached || cached->first != si) cached.emplace(si, spec.scenarios[si].load());
    const Config& config = configs[c];
    Config plain = config;
    plain.fallback.reset();
    if (spec.scenarios[si].settings) with_scenario_settings(plain, *spec.scenarios[si].settings, out.keys);
    SimulationOptions simulation = simulation_options(config);
    simulation.strategy = config.strategy;
    simulation.max_rounds = spec.max_rounds;
    simulation.events = spec.events;
    nlohmann::json j;
    j["combination"] = c;
    j["scenario"] = si;
    const QuietLog quiet;  // a thousand runs would repeat every warning (stalls are in the summaries)
    try {
      const SimulationResult r = simulate(registry, plain, cached->second, simulation);
      j["summary"] = nlohmann::ordered_json(r.summary);
    } catch (const AssignmentFailed& e) {
      j["error"] = e.what();
    }
    return j.dump();
  };
  const auto results = process::run_jobs(mine.size(), process::worker_count(options.jobs), job, [&](std::size_t done) {
    if (options.progress) options.progress(done, mine.size());
  });
  for (const auto& text : results) {
    const auto j = nlohmann::json::parse(text);
    SweepRun run;
    run.combination = j["combination"].get<std::size_t>();
    run.scenario = j["scenario"].get<std::size_t>();
    if (j.contains("summary")) run.summary = j["summary"].get<SimulationSummary>();
    if (j.contains("error")) run.error = j["error"].get<std::string>();
    out.runs.push_back(std::move(run));
  }
  return out;
}

nlohmann::ordered_json sweep_json(const Sweep& s) {
  nlohmann::ordered_json out;
  out["sweep"] = {
      {"fingerprint", s.fingerprint}, {"keys", s.keys}, {"combinations", s.combinations}, {"scenarios", s.scenarios}};
  if (s.shard) out["shard"] = fmt::format("{}/{}", s.shard->index, s.shard->count);
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const auto& r : s.runs) {
    nlohmann::ordered_json j;
    j["scenario"] = s.scenarios[r.scenario];
    for (std::size_t k = 0; k < s.keys.size(); ++k) j[s.keys[k]] = s.combinations[r.combination][k];
    j["combination"] = r.combination;
    j["summary"] = r.summary ? nlohmann::ordered_json(*r.summary) : nlohmann::ordered_json(nullptr);
    j["error"] = r.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.error);
    runs.push_back(std::move(j));
  }
  out["runs"] = std::move(runs);
  return out;
}

namespace {

// "K/N" with 1 <= K <= N, digits only.
std::optional<SweepShard> shard_label(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  SweepShard shard;
  auto number = [](std::string_view t, std::size_t& v) {
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return !t.empty() && ec == std::errc() && ptr == t.data() + t.size() && t[0] != '0';
  };
  if (!number(text.substr(0, slash), shard.index) || !number(text.substr(slash + 1), shard.count) ||
      shard.index > shard.count)
    return std::nullopt;
  return shard;
}

// The summary line of simulate, checked field by field (simulation.hpp, SimulationSummary): types
// and ranges, with the place of each. Unknown keys are left to its from_json.
void check_summary(const detail::FieldReader& r, const detail::Node& node, const std::string& place,
                   std::uint32_t max_rounds) {
  using detail::Node;
  r.expect_map(node, place);
  std::optional<std::int64_t> rounds;
  auto field = [&](const char* key) -> std::optional<Node> {
    for (auto it = node.begin(); it != node.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
    return std::nullopt;
  };
  auto required = [&](const char* key) {
    auto value = field(key);
    if (!value) r.fail_at(node, place, fmt::format("missing required key '{}'", key));
    return *value;
  };
  const auto at = [&](const char* key) { return detail::join_place(place, key); };
  for (const char* key : {"converged", "stalled", "max_rounds_reached"}) (void)r.boolean(required(key), at(key));
  rounds = r.integer_in(required("rounds"), at("rounds"), 0, max_rounds);
  (void)r.integer_in(required("probing_rounds"), at("probing_rounds"), 0, *rounds);
  if (const auto first = field("first_balanced_round"); first && !first->IsNull())
    (void)r.integer_in(*first, at("first_balanced_round"), 1, std::max<std::int64_t>(*rounds, 1));
  // Counts: non-negative (restore_offsets saturates at 2^64 - 1: read as a decimal, never signed).
  for (const char* key : {"active_moves", "restore_offsets", "warmups", "replayed_offsets", "peak_restoring_copies"}) {
    const Node value = required(key);
    std::uint64_t v = 0;
    const std::string_view text = value.IsScalar() ? value.Scalar() : std::string_view();
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!value.IsScalar() || value.IsQuoted() || text.empty() || ec != std::errc() || ptr != text.data() + text.size())
      r.fail_at(value, at(key), fmt::format("expected a count (an integer >= 0), got {}", detail::describe(value)));
  }
  for (const char* key : {"time_to_balanced_ms", "time_to_converged_ms", "restoring_task_ms"})
    if (const auto value = field(key); value && !value->IsNull()) (void)r.integer_in(*value, at(key), 0);
  (void)r.integer_in(required("under_replicated_task_ms"), at("under_replicated_task_ms"), 0);
  (void)r.string(required("strategy"), at("strategy"));
}

}  // namespace

Sweep read_sweep_json(std::string_view text, const std::string& source) {
  using detail::FieldReader;
  using detail::Fields;
  using detail::Node;
  const auto doc = detail::load_document(text, source, "a sweep's JSON (sweep --shard K/N --format json)");
  const FieldReader r(source);
  const Node root = doc.root();
  r.expect_map(root, "");
  static const std::vector<std::string> kTop = {"sweep", "shard", "runs", "recommendation"};
  const Fields top(r, root, "", kTop);
  static const std::vector<std::string> kHead = {"fingerprint", "keys", "combinations", "scenarios"};
  const Node& head_node = top.require(0, "");
  const Fields head(r, head_node, "sweep", kHead);
  Sweep s;
  const Node& fingerprint = head.require(0, "sweep");
  s.fingerprint = r.string(fingerprint, "sweep.fingerprint");
  if (s.fingerprint.size() != 16 || s.fingerprint.find_first_not_of("0123456789abcdef") != std::string::npos)
    r.fail_at(fingerprint, "sweep.fingerprint", "expected 16 hexadecimal digits (what sweep writes)");
  const Node& keys = head.require(1, "sweep");
  r.expect_list(keys, "sweep.keys");
  for (std::size_t i = 0; i < keys.size(); ++i) s.keys.push_back(r.string(keys[i], fmt::format("sweep.keys[{}]", i)));
  const Node& combinations = head.require(2, "sweep");
  r.expect_list(combinations, "sweep.combinations");
  for (std::size_t i = 0; i < combinations.size(); ++i) {
    const std::string place = fmt::format("sweep.combinations[{}]", i);
    r.expect_list(combinations[i], place);
    if (combinations[i].size() != s.keys.size())
      r.fail_at(combinations[i], place, fmt::format("{} values for {} keys", combinations[i].size(), s.keys.size()));
    auto& values = s.combinations.emplace_back();
    for (std::size_t k = 0; k < combinations[i].size(); ++k)
      values.push_back(r.string(combinations[i][k], fmt::format("{}[{}]", place, k)));
  }
  const Node& scenarios = head.require(3, "sweep");
  r.expect_list(scenarios, "sweep.scenarios");
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    std::string name = r.string(scenarios[i], fmt::format("sweep.scenarios[{}]", i));
    if (std::find(s.scenarios.begin(), s.scenarios.end(), name) != s.scenarios.end())
      r.fail_at(scenarios[i], fmt::format("sweep.scenarios[{}]", i), fmt::format("scenario '{}' listed twice", name));
    s.scenarios.push_back(std::move(name));
  }
  if (top.has(1)) {
    const std::string label = r.string(top.value(1), "shard");
    s.shard = shard_label(label);
    if (!s.shard) r.fail_at(top.value(1), "shard", fmt::format("'{}' is not K/N with 1 <= K <= N", label));
  }

  // The runs: each one's labels are its combination's values, and it belongs to its shard.
  std::vector<std::string> run_keys = {"scenario", "combination", "summary", "error"};
  for (const auto& k : s.keys)
    if (std::find(run_keys.begin(), run_keys.end(), k) == run_keys.end()) run_keys.push_back(k);
  const Node& runs = top.require(2, "");
  r.expect_list(runs, "runs");
  const nlohmann::json json = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (json.is_discarded() || !json.contains("runs"))
    throw InputError(fmt::format("{}: not a sweep's JSON", source));  // the document read it: not reached
  const std::uint32_t max_rounds = 1'000'000;                         // sweep --max-rounds' range
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string place = fmt::format("runs[{}]", i);
    const Fields f(r, runs[i], place, run_keys);
    SweepRun run;
    run.combination = static_cast<std::size_t>(
        r.integer_in(f.require(1, place), place + ".combination", 0,
                     std::max<std::int64_t>(static_cast<std::int64_t>(s.combinations.size()) - 1, 0)));
    if (s.combinations.empty()) r.fail_at(runs[i], place, "a run, but the sweep has no combination");
    const std::string scenario = r.string(f.require(0, place), place + ".scenario");
    const auto at = std::find(s.scenarios.begin(), s.scenarios.end(), scenario);
    if (at == s.scenarios.end())
      r.fail_at(f.value(0), place + ".scenario", fmt::format("'{}' is not one of the sweep's scenarios", scenario));
    run.scenario = static_cast<std::size_t>(at - s.scenarios.begin());
    for (std::size_t k = 0; k < s.keys.size(); ++k) {
      const std::size_t field =
          static_cast<std::size_t>(std::find(run_keys.begin(), run_keys.end(), s.keys[k]) - run_keys.begin());
      const std::string key_place = detail::join_place(place, s.keys[k]);
      const std::string value = r.string(f.require(field, place), key_place, true);
      if (value != s.combinations[run.combination][k])
        r.fail_at(f.value(field), key_place,
                  fmt::format("'{}', but combination {} has {}={}: the run contradicts its index", value,
                              run.combination, s.keys[k], s.combinations[run.combination][k]));
    }
    if (s.shard && (run.combination * s.scenarios.size() + run.scenario) % s.shard->count != s.shard->index - 1)
      r.fail_at(runs[i], place,
                fmt::format("the run of combination {} on {} is not shard {}/{}'s (job {} belongs to shard {})",
                            run.combination, scenario, s.shard->index, s.shard->count,
                            run.combination * s.scenarios.size() + run.scenario,
                            (run.combination * s.scenarios.size() + run.scenario) % s.shard->count + 1));
    const bool has_summary = f.has(2), has_error = f.has(3);
    if (has_summary == has_error)
      r.fail_at(runs[i], place, "expected a summary or an error (one of them, the other null)");
    if (has_summary) {
      check_summary(r, f.value(2), place + ".summary", max_rounds);
      run.summary = json["runs"][i]["summary"].get<SimulationSummary>();
    } else {
      run.error = r.string(f.value(3), place + ".error", true);
    }
    s.runs.push_back(std::move(run));
  }
  return s;
}

Sweep merge_sweeps(const std::vector<Sweep>& parts, const std::optional<Sweep>& expected) {
  if (parts.empty()) throw InputError("--merge: no shard files (*.json written by sweep --shard K/N --format json)");
  Sweep out = expected ? *expected : parts.front();
  out.shard.reset();
  out.runs.clear();
  const std::size_t total = out.combinations.size() * out.scenarios.size();
  std::vector<std::optional<SweepRun>> slots(total);
  std::optional<std::size_t> count;  // N of the shards
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Sweep& p = parts[k];
    if (p.fingerprint != out.fingerprint)
      throw InputError(fmt::format(
          "--merge: shards of two different sweeps (fingerprints {} and {}){}", out.fingerprint, p.fingerprint,
          expected ? ": the sweep given by --config, the scenarios and --vary is the first" : ""));
    if (p.keys != out.keys || p.combinations != out.combinations || p.scenarios != out.scenarios)
      throw InputError(
          fmt::format("--merge: shard {} has the sweep's fingerprint {} but other keys, combinations or "
                      "scenarios: it was edited",
                      k + 1, p.fingerprint));
    if (p.shard) {
      if (count && *count != p.shard->count)
        throw InputError(
            fmt::format("--merge: shards of {} and of {} slices: one sweep has one N", *count, p.shard->count));
      count = p.shard->count;
    }
    for (const auto& r : p.runs) {
      const std::size_t i = r.combination * out.scenarios.size() + r.scenario;
      if (slots[i])
        throw InputError(fmt::format("--merge: the run of {} on {} is in two shards",
                                     label(out.keys, out.combinations[r.combination]), out.scenarios[r.scenario]));
      slots[i] = r;
    }
  }
  for (std::size_t i = 0; i < total; ++i) {
    if (!slots[i])
      throw InputError(fmt::format("--merge: no shard has the run of {} on {} (a shard is missing)",
                                   label(out.keys, out.combinations[i / out.scenarios.size()]),
                                   out.scenarios[i % out.scenarios.size()]));
    out.runs.push_back(std::move(*slots[i]));
  }
  return out;
}

}  // namespace assignor::host
