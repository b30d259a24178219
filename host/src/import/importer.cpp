#include "assignor/host/import/importer.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <system_error>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/formats/record_json.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/import/kafka_log.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/support/temporary_files.hpp"
#include "assignor/host/support/utf8.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/validation.hpp"
#include "log_lines.hpp"

namespace assignor::host {

namespace fs = std::filesystem;

namespace {

using ordered_json = nlohmann::ordered_json;

using record_json::field;
using Imported = ImportedRebalance;
// A rebalance as index.json lists it (replay reads it back).
const auto kRebalanceFields = std::make_tuple(
    field("name", &Imported::name), field("timestamp", &Imported::timestamp), field("time_ms", &Imported::time_ms),
    field("source", &Imported::source), field("instance", &Imported::instance),
    field("kafka_variant", &Imported::variant), field("clients", &Imported::clients), field("tasks", &Imported::tasks),
    field("logged_tasks", &Imported::logged_tasks), field("probing", &Imported::probing),
    field("standbys", &Imported::standbys), field("warmups", &Imported::warmups),
    field("settings_from", &Imported::settings_from), field("num_standby_replicas", &Imported::num_standby_replicas),
    field("num_standby_replicas_inferred", &Imported::standbys_inferred),
    field("warmups_told_apart", &Imported::warmups_told_apart),
    field("warmups_chosen_by_lag_among_equals", &Imported::warmups_by_lag), field("notes", &Imported::notes));

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw InputError(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
}

// The files an import writes in its directory (and the hidden staging directories of an import
// that was killed): what --replace removes. Anything else there is the user's.
bool is_import_file(const std::string& name) {
  auto ends_with = [&](std::string_view tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (name == "index.json" || name.rfind(".assignor-import-", 0) == 0) return true;
  return name.rfind("rebalance-", 0) == 0 &&
         (ends_with(".cluster.json") || ends_with(".config.yaml") || ends_with(".kafka.json"));
}

// The output directory, created if missing; one that holds anything is refused unless `replace`.
void prepare_output_dir(const ImportOptions& options) {
  const std::string dir = printable(options.output_dir.string());
  std::error_code ec;
  fs::create_directories(options.output_dir, ec);
  if (!fs::is_directory(options.output_dir, ec))
    throw InputError(
        fmt::format("--output-dir {}: cannot create the directory{}", dir, ec ? ": " + ec.message() : std::string()));
  std::size_t entries = 0, theirs = 0;
  std::string example;
  for (const auto& entry : fs::directory_iterator(options.output_dir, ec)) {
    ++entries;
    const std::string name = entry.path().filename().string();
    if (!is_import_file(name)) {
      ++theirs;
      if (example.empty()) example = name;
    } else if (example.empty()) {
      example = name;
    }
  }
  if (ec) throw InputError(fmt::format("--output-dir {}: cannot list the directory: {}", dir, ec.message()));
  if (entries > 0 && !options.replace)
    throw InputError(
        fmt::format("--output-dir {}: not empty ({} entr{}, such as '{}'): an import there would mix "
                    "with what it holds; give a new or empty directory, or --replace to replace the "
                    "previous import in it",
                    dir, entries, entries == 1 ? "y" : "ies", printable(example)));
  if (theirs > 0)
    log().warn(
        "--output-dir {}: --replace replaces the previous import's files; {} other entr{} (such as '{}') "
        "stay",
        dir, theirs, theirs == 1 ? "y" : "ies", printable(example));
}

// After a successful import: the previous import's files that are not this one's go.
void remove_previous_import(const fs::path& dir, const fs::path& staging) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path() != staging && is_import_file(entry.path().filename().string())) stale.push_back(entry.path());
  for (const auto& path : stale) {
    fs::remove_all(path, ec);
    if (ec)
      throw InputError(fmt::format("{}: cannot remove the previous import's file: {}", path.string(), ec.message()));
  }
}

std::string config_yaml(const AssignmentSettings& s, const ImportedRebalance& r) {
  std::string out = fmt::format("# Kafka's settings at {} ({}): {}\n", r.source, r.timestamp, r.settings_from);
  out += "strategy: high_availability\nassignment:\n";
  out += fmt::format("  acceptable_recovery_lag: {}\n", s.acceptable_recovery_lag);
  out += fmt::format("  max_warmup_replicas: {}\n", s.max_warmup_replicas);
  out += fmt::format("  num_standby_replicas: {}{}\n", s.num_standby_replicas,
                     r.standbys_inferred ? "  # not given: the copy count of most tasks in Kafka's decision" : "");
  out += fmt::format("  probing_rebalance_interval_ms: {}\n", s.probing_rebalance_interval_ms);
  const auto& ra = s.rack_aware;
  if (ra.strategy != RackAwareStrategy::none || !ra.tags.empty() || ra.traffic_cost || ra.non_overlap_cost) {
    out += "  rack_aware:\n";
    out += fmt::format("    strategy: {}\n", ra.strategy == RackAwareStrategy::min_traffic ? "min_traffic"
                                             : ra.strategy == RackAwareStrategy::balance_subtopology
                                                 ? "balance_subtopology"
                                                 : "none");
    if (ra.traffic_cost) out += fmt::format("    traffic_cost: {}\n", *ra.traffic_cost);
    if (ra.non_overlap_cost) out += fmt::format("    non_overlap_cost: {}\n", *ra.non_overlap_cost);
    if (!ra.tags.empty()) {
      out += "    tags: [";
      for (std::size_t i = 0; i < ra.tags.size(); ++i) out += (i ? ", " : "") + ordered_json(ra.tags[i]).dump();
      out += "]\n";
    }
  }
  return out;
}

// The settings in force for one file as it is read: the properties file, else the last
// StreamsConfig dump the file printed, else Kafka's defaults.
struct SettingsState {
  StreamsSettings settings;
  std::string from = "Kafka's defaults";
  bool fixed = false;  // from --streams-config: dumps do not change it
};

}  // namespace

ImportResult import_kafka_logs(const ImportOptions& options) {
  ImportResult result;
  std::error_code ec;
  prepare_output_dir(options);
  // Everything is written here first, and moved into the directory once every log was read: a
  // failure (a damaged .gz, a signal) leaves the directory as it was.
  std::string pattern = (options.output_dir / ".assignor-import-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw InputError(fmt::format("--output-dir {}: cannot write in it: {}", printable(options.output_dir.string()),
                                 std::strerror(errno)));
  const TemporaryPath staging(pattern, TemporaryPath::Kind::directory);
  const fs::path& stage = staging.path();

  SettingsState base;
  if (options.streams_config) {
    base.settings = read_streams_properties(*options.streams_config);
    base.from = "--streams-config " + *options.streams_config;
    base.fixed = true;
  }
  struct Pending {
    ImportedRebalance entry;
    std::size_t file = 0;
    std::uint64_t line = 0;
    std::string part;  // the temporary name its files were written under
  };
  std::vector<Pending> pending;
  std::set<std::pair<std::string, std::size_t>> seen;  // (timestamp, hash of the message)
  std::set<std::uint32_t> inferred_said;
  auto warn = [&](const std::string& where, const std::string& what) {
    const std::string message = fmt::format("{}: {}", where, printable(what));
    log().warn("{}", message);
    result.warnings.push_back(message);
  };

  for (std::size_t f = 0; f < options.logs.size(); ++f) {
    const std::string& path = options.logs[f];
    const std::string name = path == "-" ? "standard input" : path;
    detail::LogLines lines(path, {options.max_line_bytes, options.max_file_bytes});
    SettingsState state = base;
    bool in_dump = false;
    std::vector<std::pair<TaskId, std::int64_t>> corrupt_ends;
    std::string dump_where;
    std::string_view line;
    const std::size_t pending_before = pending.size();
    // A damaged or truncated file is an error that says how far it was read: none of it is imported.
    auto next_line = [&] {
      try {
        return lines.next(line);
      } catch (const InputError& e) {
        const std::size_t read = pending.size() - pending_before;
        throw InputError(fmt::format("{}; {} rebalance{} had been read from it before; nothing was imported", e.what(),
                                     read, read == 1 ? "" : "s"));
      }
    };
    while (next_line()) {
      const std::uint64_t number = lines.line_number();
      if ((number & 0xFFFF) == 0 && options.progress)
        options.progress(result.bytes + lines.bytes_read(), pending.size());
      // A StreamsConfig dump: a text layout prints one `\tkey = value` line after its first line.
      // (A container prefix may come before the tab.)
      if (in_dump) {
        if (line.find('\t') != std::string_view::npos && line.find(" = ") != std::string_view::npos &&
            line.find("Decided on assignment") == std::string_view::npos) {
          for (const auto& [k, v] : streams_config_entries(line))
            apply_streams_property(state.settings, k, v, fmt::format("{}:{}", name, number));
          continue;
        }
        in_dump = false;
      }
      if (!state.fixed && starts_streams_config_dump(line)) {
        state.settings = StreamsSettings{};
        state.from = fmt::format("the log's StreamsConfig dump ({}:{})", name, number);
        in_dump = true;
        // A JSON message holds the whole dump on this line.
        std::string text(line);
        for (std::size_t at = text.find("\\n"); at != std::string::npos; at = text.find("\\n", at))
          text.replace(at, 2, "\n");
        for (std::size_t at = text.find("\\t"); at != std::string::npos; at = text.find("\\t", at))
          text.replace(at, 2, "\t");
        for (const auto& [k, v] : streams_config_entries(text))
          apply_streams_property(state.settings, k, v, fmt::format("{}:{}", name, number));
        continue;
      }
      if (auto corrupt = corrupt_end_warning(line)) {
        corrupt_ends.push_back(*corrupt);
        continue;
      }
      auto found = find_decided_line(line);
      if (!found) continue;
      // Kafka's warnings about corrupt state come just before the rebalance's line.
      const auto warned = std::move(corrupt_ends);
      corrupt_ends.clear();
      const std::string where = fmt::format("{}:{}", name, number);
      if (lines.cut()) {
        warn(where,
             fmt::format("a Decided line longer than {} bytes, cut there: not imported", options.max_line_bytes));
        continue;
      }
      const ParsedDecided parsed = parse_decided_message(found->message);
      if (!parsed.rebalance) {
        warn(where, parsed.problem + "; not imported");
        continue;
      }
      // The same line collected twice (overlapping files, two shippers): one time, one message.
      const std::string when = found->time_ms ? std::to_string(*found->time_ms) : found->timestamp;
      const std::string_view message(found->message);
      const std::size_t end = message.rfind("followup probing rebalance.");
      if (!seen.insert({when, std::hash<std::string_view>{}(message.substr(0, end))}).second) {
        ++result.duplicates;
        continue;
      }
      if (parsed.rebalance->clients.empty()) {
        warn(where, "a Decided line with no clients; not imported");
        continue;
      }
      const bool given = std::find(state.settings.given.begin(), state.settings.given.end(), "num.standby.replicas") !=
                         state.settings.given.end();
      Reconstructed r;
      try {
        r = reconstruct(*parsed.rebalance, state.settings.settings, given, warned);
      } catch (const std::exception& e) {
        warn(where, fmt::format("cannot rebuild the group from this line ({}); not imported", e.what()));
        continue;
      }
      AssignmentSettings settings = state.settings.settings;
      settings.num_standby_replicas = r.num_standby_replicas;
      // Kafka's own decisions are whole: one that is not (a task nobody runs or two clients run, two
      // roles of a task on one client) comes from a damaged line. Copies beyond the settings only say
      // the settings are not the application's.
      std::string damaged, over_budget;  // the first problem of each kind
      for (const auto& e : validate(r.cluster, settings, r.kafka)) {
        const bool budget = e.kind == ValidationErrorKind::standby_budget_exceeded ||
                            e.kind == ValidationErrorKind::warmup_budget_exceeded;
        std::string& first = budget ? over_budget : damaged;
        if (first.empty()) first = e.message;
      }
      if (!damaged.empty()) {
        warn(where, fmt::format("Kafka's decision on this line is not a whole assignment ({}); not imported", damaged));
        continue;
      }
      if (!over_budget.empty())
        r.notes.push_back(
            fmt::format("Kafka's decision does not fit these settings ({}): are they the "
                        "application's? (--streams-config)",
                        over_budget));
      std::string told_apart = r.kafka.warmups.empty() && r.kafka.standbys.empty() ? "none" : "by lag";
      if (options.replay_kafka && !r.kafka.warmups.empty()) {
        const std::optional<Assignment> again = options.replay_kafka(r.cluster, settings);
        if (again && compare_assignments(r.cluster, r.kafka, *again, 0).same) {
          r.kafka = *again;
          r.warmups_by_lag = 0;
          told_apart = "by replaying high_availability";
        }
      }
      if (r.kafka.warmups.empty()) told_apart = "none";
      ImportedRebalance entry;
      entry.timestamp = found->timestamp;
      entry.time_ms = found->time_ms;
      entry.source = where;
      entry.instance = found->instance;
      entry.variant = parsed.rebalance->variant;
      entry.clients = r.cluster.client_count();
      entry.tasks = r.cluster.task_count();
      entry.logged_tasks = r.cluster.logged_task_count();
      entry.actives = r.kafka.actives.size();
      entry.standbys = r.kafka.standbys.size();
      entry.warmups = r.kafka.warmups.size();
      entry.probing = r.kafka.probing_rebalance;
      entry.settings_from = state.from;
      entry.standbys_inferred = r.standbys_inferred;
      entry.num_standby_replicas = r.num_standby_replicas;
      entry.warmups_by_lag = r.warmups_by_lag;
      entry.warmups_told_apart = told_apart;
      entry.notes = r.notes;
      for (const auto& note : entry.notes) warn(where, note);
      if (r.standbys_inferred) {
        const std::string note = fmt::format(
            "num.standby.replicas not given: {} inferred from Kafka's decision (give "
            "--streams-config to be sure)",
            r.num_standby_replicas);
        // Said once per value (every rebalance without the setting infers it), kept in each entry.
        if (inferred_said.insert(r.num_standby_replicas).second) warn(where, note);
        entry.notes.push_back(note);
      }

      const std::string part = fmt::format("part-{:06}", pending.size());
      write_file(stage / (part + ".cluster.json"), cluster_to_json(r.cluster));
      write_file(stage / (part + ".config.yaml"), config_yaml(settings, entry));
      AssignmentReport report;
      report.strategy = "kafka";
      report.assignment = r.kafka;
      report.probing_after_ms = settings.probing_rebalance_interval_ms;
      const LagModel lags(r.cluster, settings);
      report.metrics = compute_metrics(r.cluster, settings, lags, report.assignment);
      write_file(stage / (part + ".kafka.json"), assignment_json(r.cluster, report));
      pending.push_back({std::move(entry), f, number, part});
    }
    result.bytes += lines.bytes_read();
    result.lines += lines.line_number();
  }

  // Time order across files (leaders change, instances log to files of their own); lines without a
  // timestamp keep their place after the ones before them in the same file.
  std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    if (a.entry.time_ms && b.entry.time_ms && *a.entry.time_ms != *b.entry.time_ms)
      return *a.entry.time_ms < *b.entry.time_ms;
    if (a.file != b.file) return a.file < b.file;
    return a.line < b.line;
  });
  const int width = std::max<int>(4, static_cast<int>(std::to_string(pending.size()).size()));
  for (std::size_t i = 0; i < pending.size(); ++i) {
    Pending& p = pending[i];
    p.entry.name = fmt::format("rebalance-{:0{}}", i + 1, width);
    for (const char* kind : {".cluster.json", ".config.yaml", ".kafka.json"}) {
      fs::rename(stage / (p.part + kind), stage / (p.entry.name + kind), ec);
      if (ec) throw InputError(fmt::format("{}: cannot rename: {}", (stage / (p.part + kind)).string(), ec.message()));
    }
    result.rebalances.push_back(std::move(p.entry));
  }
  // Nothing imported: the directory is left as it was (the command says why it is an error).
  if (result.rebalances.empty()) return result;
  write_file(stage / "index.json", import_index_json(result));
  // In place: the previous import's files go (with --replace), then this one's arrive, index.json
  // last (a reader never sees an index naming files that are not there yet).
  if (options.replace) remove_previous_import(options.output_dir, stage);
  for (const auto& r : result.rebalances)
    for (const char* kind : {".cluster.json", ".config.yaml", ".kafka.json"}) {
      fs::rename(stage / (r.name + kind), options.output_dir / (r.name + kind), ec);
      if (ec)
        throw InputError(
            fmt::format("{}: cannot move into place: {}", (stage / (r.name + kind)).string(), ec.message()));
    }
  fs::rename(stage / "index.json", options.output_dir / "index.json", ec);
  if (ec)
    throw InputError(
        fmt::format("{}: cannot move into place: {}", (options.output_dir / "index.json").string(), ec.message()));
  return result;
}

void to_json(nlohmann::ordered_json& j, const ImportedRebalance& r) { record_json::write(j, r, kRebalanceFields); }
void from_json(const nlohmann::json& j, ImportedRebalance& r) { record_json::read(j, r, kRebalanceFields); }

std::string import_index_json(const ImportResult& result) {
  ordered_json out;
  out["version"] = 1;
  out["kafka_assignor"] = "HighAvailabilityTaskAssignor";
  out["rebalances"] = result.rebalances;
  out["warnings"] = result.warnings;
  out["duplicates_skipped"] = result.duplicates;
  return pretty_json(out);
}

std::string import_table(const ImportResult& result) {
  std::size_t name_w = 9, time_w = 9, source_w = 6;
  for (const auto& r : result.rebalances) {
    name_w = std::max(name_w, r.name.size());
    time_w = std::max(time_w, r.timestamp.size());
    source_w = std::max(source_w, r.source.size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>7}  {:>5}  {:>8}  {:>8}  {:>7}  {}\n", "rebalance", name_w, "timestamp",
                  time_w, "source", source_w, "clients", "tasks", "stateful", "standbys", "warmups", "probing");
  for (const auto& r : result.rebalances)
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>7}  {:>5}  {:>8}  {:>8}  {:>7}  {}\n", r.name, name_w, r.timestamp,
                       time_w, printable(r.source), source_w, r.clients, r.tasks, r.logged_tasks, r.standbys, r.warmups,
                       r.probing ? "yes" : "no");
  out += fmt::format("{} rebalance{} imported", result.rebalances.size(), result.rebalances.size() == 1 ? "" : "s");
  if (!result.warnings.empty())
    out += fmt::format(", {} warning{}", result.warnings.size(), result.warnings.size() == 1 ? "" : "s");
  if (result.duplicates > 0)
    out += fmt::format(", {} duplicate line{} skipped", result.duplicates, result.duplicates == 1 ? "" : "s");
  out += "\n";
  return out;
}

std::vector<ImportedRebalance> read_import_index(const fs::path& dir) {
  const fs::path path = dir / "index.json";
  const std::string where = printable(path.string());
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec)))
    throw InputError(fmt::format("{}: no index.json (write one with 'assignor import kafka-log ... --output-dir {}')",
                                 printable(dir.string()), printable(dir.string())));
  // Bounded like every input: a FIFO, a device or a huge file named index.json is refused, not read
  // forever.
  const std::string text = detail::read_text_file(where, path, "import index");
  std::vector<ImportedRebalance> out;
  try {
    const auto doc = nlohmann::json::parse(text);
    if (!doc.is_object() || doc.value("version", 0) != 1)
      throw InputError(fmt::format("{}: not an import index (version 1)", where));
    const auto& list = doc.at("rebalances");
    if (!list.is_array()) throw InputError(fmt::format("{}: rebalances: expected a list", where));
    std::set<std::string> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto& e = list[i];
      const std::string place = fmt::format("{}: rebalances[{}]", where, i);
      if (!e.is_object()) throw InputError(fmt::format("{}: expected an object", place));
      const ImportedRebalance r = e.get<ImportedRebalance>();
      if (r.name.empty() || r.name.find('/') != std::string::npos || r.name.find("..") != std::string::npos ||
          first_control_character(r.name) != std::string::npos || invalid_utf8_at(r.name) != std::string::npos)
        throw InputError(fmt::format("{}: name '{}' is not a file name", place, printable(r.name)));
      if (!names.insert(r.name).second)
        throw InputError(fmt::format("{}: name '{}' is listed twice", place, printable(r.name)));
      out.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not an import index: {}", where, e.what()));
  }
  return out;
}

}  // namespace assignor::host
