#include "assignor/host/tools/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/record_json.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/import/importer.hpp"
#include "assignor/host/process/parallel.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/validation.hpp"

namespace assignor::host {

namespace {

// The timing repeats would otherwise repeat every warning (suspect offset sums, unknown end
// offsets) of the first run.

Timing timing_of(std::vector<double> ms) {
  Timing t;
  if (ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  t.runs = static_cast<std::uint32_t>(n);
  t.min = ms.front();
  t.max = ms.back();
  t.median = n % 2 == 1 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return t;
}

// The first line of a message (AssignmentFailed lists its validation errors on the next lines).
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

CompareRow run_one(const PluginRegistry& registry, const Config& config, const Cluster& cluster,
                   const std::string& strategy, std::uint32_t runs) {
  CompareRow row;
  row.strategy = strategy;
  row.ran = strategy;
  std::vector<double> ms;
  ms.reserve(runs);
  for (std::uint32_t run = 0; run < runs; ++run) {
    std::optional<QuietLog> quiet;
    if (run > 0) quiet.emplace();
    try {
      RunOutcome outcome = run_assignment(registry, config, cluster, strategy);
      ms.push_back(outcome.report.assign_ms);
      if (run > 0) continue;
      row.ran = outcome.report.strategy;
      if (row.ran != strategy)
        row.notes.push_back(fmt::format("end offsets are unknown: the host ran '{}' instead", row.ran));
      row.metrics = outcome.report.metrics;
      row.probing_rebalance = outcome.report.assignment.probing_rebalance;
      row.probing_after_ms = outcome.report.probing_after_ms;
    } catch (const AssignmentFailed& e) {
      row.status = e.errors().empty() ? CompareStatus::failed : CompareStatus::invalid;
      row.error = first_line(e.what());
      for (const auto& err : e.errors())
        row.validation_errors.push_back(fmt::format("{}: {}", to_string(err.kind), err.message));
      if (run > 0) row.notes.push_back(fmt::format("succeeded on the first run, failed on run {}", run + 1));
      return row;
    }
  }
  row.assign_ms = timing_of(std::move(ms));
  return row;
}

using record_json::adapted;
using record_json::computed;
using record_json::field;

// Milliseconds rounded to the nanosecond for JSON: finer digits are noise.
double nanosecond_ms(double v) { return std::round(v * 1e6) / 1e6; }

const auto kTimingFields = std::make_tuple(field("median", &Timing::median), field("min", &Timing::min),
                                           field("max", &Timing::max), field("runs", &Timing::runs));

CompareStatus status_named(const std::string& name) {
  for (const CompareStatus status : {CompareStatus::ok, CompareStatus::invalid, CompareStatus::failed})
    if (name == to_string(status)) return status;
  throw std::invalid_argument("unknown compare status '" + name + "'");
}

bool simulated(const CompareRow& r) { return r.simulation || !r.simulation_error.empty(); }

// A field of a row that means something only when the row is ok: null otherwise (and read back as
// the default).
template <typename Get>
auto when_ok(Get get) {
  return [get](const CompareRow& r) {
    return r.status == CompareStatus::ok ? nlohmann::ordered_json(get(r)) : nlohmann::ordered_json(nullptr);
  };
}

// Null for an empty text.
nlohmann::ordered_json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

const auto kRowFields = std::make_tuple(
    field("strategy", &CompareRow::strategy),
    adapted(
        "status", [](const CompareRow& r) { return to_string(r.status); },
        [](CompareRow& r, const nlohmann::json& v) { r.status = status_named(v.get<std::string>()); }),
    field("ran", &CompareRow::ran),
    adapted(
        "error",
        [](const CompareRow& r) { return r.status == CompareStatus::ok ? std::nullopt : std::optional(r.error); },
        [](CompareRow& r, const nlohmann::json& v) { r.error = v.is_null() ? "" : v.get<std::string>(); }),
    field("validation_errors", &CompareRow::validation_errors), field("notes", &CompareRow::notes),
    adapted("probing_rebalance",
            when_ok([](const CompareRow& r) { return probing_json(r.probing_rebalance, r.probing_after_ms); }),
            [](CompareRow& r, const nlohmann::json& v) {
              if (v.is_null()) return;
              r.probing_rebalance = v.at("needed").get<bool>();
              r.probing_after_ms = v.at("after_ms").get<std::int64_t>();
            }),
    adapted("metrics", when_ok([](const CompareRow& r) { return r.metrics; }),
            [](CompareRow& r, const nlohmann::json& v) {
              if (!v.is_null()) r.metrics = v.get<Metrics>();
            }),
    adapted("assign_ms", when_ok([](const CompareRow& r) {
              const Timing rounded{nanosecond_ms(r.assign_ms.median), nanosecond_ms(r.assign_ms.min),
                                   nanosecond_ms(r.assign_ms.max), r.assign_ms.runs};
              nlohmann::ordered_json j;
              record_json::write(j, rounded, kTimingFields);
              return j;
            }),
            [](CompareRow& r, const nlohmann::json& v) {
              if (!v.is_null()) record_json::read(v, r.assign_ms, kTimingFields);
            }),
    // compare --simulate's: both keys on a simulated row (a simulated comparison's JSON adds them,
    // null, to its rows that did not get as far).
    adapted(
        "simulation",
        [](const CompareRow& r) {
          return record_json::OmittedWhenEmpty<nlohmann::ordered_json>{
              simulated(r) ? std::optional(r.simulation ? nlohmann::ordered_json(*r.simulation)
                                                        : nlohmann::ordered_json(nullptr))
                           : std::nullopt};
        },
        [](CompareRow& r, const nlohmann::json& v) {
          if (!v.is_null()) r.simulation = v.get<SimulationSummary>();
        }),
    adapted(
        "simulation_error",
        [](const CompareRow& r) {
          return record_json::OmittedWhenEmpty<nlohmann::ordered_json>{
              simulated(r) ? std::optional(text_or_null(r.simulation_error)) : std::nullopt};
        },
        [](CompareRow& r, const nlohmann::json& v) { r.simulation_error = v.is_null() ? "" : v.get<std::string>(); }));

}  // namespace

void to_json(nlohmann::ordered_json& j, const CompareRow& row) { record_json::write(j, row, kRowFields); }
void from_json(const nlohmann::json& j, CompareRow& row) { record_json::read(j, row, kRowFields); }

namespace {

using record_json::computed;
using record_json::field;
using S = ScenarioComparison;

const auto kScenarioFields =
    std::make_tuple(field("name", &S::name), field("source", &S::source), field("tasks", &S::tasks),
                    field("stateful_tasks", &S::stateful_tasks), field("clients", &S::clients),
                    field("threads", &S::threads), field("results", &S::rows));

const auto kComparisonFields =
    std::make_tuple(field("runs", &Comparison::runs), field("strategies", &Comparison::strategies),
                    computed("scenarios", [](const Comparison& c) {
                      nlohmann::ordered_json scenarios = c.scenarios;
                      // A simulated comparison: every row has both simulation keys, null where it did not get as far.
                      if (c.simulated)
                        for (auto& scenario : scenarios)
                          for (auto& row : scenario["results"])
                            if (!row.contains("simulation")) {
                              row["simulation"] = nullptr;
                              row["simulation_error"] = nullptr;
                            }
                      return scenarios;
                    }));

}  // namespace

void to_json(nlohmann::ordered_json& j, const ScenarioComparison& scenario) {
  record_json::write(j, scenario, kScenarioFields);
}
void to_json(nlohmann::ordered_json& j, const Comparison& comparison) {
  record_json::write(j, comparison, kComparisonFields);
}

const char* to_string(CompareStatus status) noexcept {
  switch (status) {
    case CompareStatus::ok: return "ok";
    case CompareStatus::invalid: return "invalid";
    case CompareStatus::failed: return "failed";
  }
  return "failed";
}

bool Comparison::all_ok() const noexcept {
  for (const auto& s : scenarios)
    for (const auto& r : s.rows)
      if (r.status != CompareStatus::ok || !r.simulation_error.empty()) return false;
  return true;
}

CompareScenario scenario_from_file(const std::filesystem::path& path) {
  return {path.stem().string(), path.string(), [path] { return read_cluster_file(path); }, std::nullopt};
}

CompareScenario scenario_from_cluster(std::string name, Cluster cluster) {
  auto shared = std::make_shared<const Cluster>(std::move(cluster));
  std::string source = name;
  return {std::move(name), std::move(source), [shared] { return *shared; }, std::nullopt};
}

std::vector<CompareScenario> scenarios_in_directory(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(fmt::format("{}: not a directory (--scenarios wants a directory of cluster files)", dir.string()));
  if (fs::is_regular_file(dir / "index.json", ec)) {
    // An import: its rebalances, each with the settings Kafka had there.
    std::vector<CompareScenario> out;
    for (const ImportedRebalance& r : read_import_index(dir)) {
      CompareScenario s = scenario_from_file(dir / (r.name + ".cluster.json"));
      s.name = r.name;
      s.settings = read_config_file(dir / (r.name + ".config.yaml")).settings;
      out.push_back(std::move(s));
    }
    if (out.empty()) throw InputError(fmt::format("{}: the import holds no rebalance", dir.string()));
    return out;
  }
  std::vector<fs::path> files;
  fs::directory_iterator it(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot read the directory: {}", dir.string(), ec.message()));
  for (const auto& entry : it) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
    // Named like a cluster file: it is one, or the command stops saying why (a dangling link, a
    // loop, a FIFO, a directory named x.json used to be dropped without a word).
    if (const std::string problem = detail::regular_file_problem(entry.path()); !problem.empty())
      throw InputError(fmt::format("{}: cannot read this scenario: {} (only cluster files belong in --scenarios)",
                                   printable(entry.path().string()), problem));
    files.push_back(entry.path());
  }
  if (files.empty())
    throw InputError(fmt::format("{}: no cluster files (*.yaml, *.yml, *.json) in the directory", dir.string()));
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  std::vector<CompareScenario> out;
  for (const auto& f : files) out.push_back(scenario_from_file(f));
  // Two files with one stem (a.yaml, a.json): name them by their full file names.
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < out.size(); ++j)
      if (i != j && files[i].stem() == files[j].stem()) out[i].name = files[i].filename().string();
  return out;
}

Comparison compare_strategies(const PluginRegistry& registry, const Config& config,
                              const std::vector<CompareScenario>& scenarios, const CompareOptions& options) {
  if (options.runs == 0) throw InputError("the number of timed runs must be at least 1");
  Comparison out;
  out.runs = options.runs;
  out.simulated = options.simulation.has_value();
  if (options.strategies.empty()) {
    for (const auto& p : registry.plugins()) out.strategies.push_back(p.name);
    std::sort(out.strategies.begin(), out.strategies.end());
  } else {
    for (const auto& s : options.strategies)
      if (std::find(out.strategies.begin(), out.strategies.end(), s) == out.strategies.end())
        out.strategies.push_back(s);
  }
  for (const auto& s : out.strategies) (void)registry.require(s);  // unknown names: exit 3 before any work

  // A comparison shows each strategy as it is: no fallback rescues a failure.
  Config plain = config;
  plain.fallback.reset();

  // One job per (scenario, strategy), run in worker processes (--jobs) and brought back as JSON:
  // the same rows whatever the number of workers. A worker keeps the last cluster it read, and jobs
  // are taken in order, so a scenario is read about once per worker.
  const std::size_t n_strategies = out.strategies.size();
  const std::size_t total = scenarios.size() * n_strategies;
  std::optional<std::pair<std::size_t, Cluster>> cached;
  auto job = [&](std::size_t index) -> std::string {
    const std::size_t si = index / n_strategies;
    const std::string& strategy = out.strategies[index % n_strategies];
    if (!cached || cached->first != si) cached.emplace(si, scenarios[si].load());
    const Cluster& cluster = cached->second;
    Config own = plain;
    if (scenarios[si].settings) own.settings = *scenarios[si].settings;
    CompareRow row = run_one(registry, own, cluster, strategy, options.runs);
    if (options.simulation && row.status == CompareStatus::ok) {
      SimulationOptions simulation = *options.simulation;
      simulation.strategy = strategy;
      simulation.on_round = nullptr;
      try {
        QuietLog quiet;
        row.simulation = simulate(registry, own, cluster, simulation).summary;
      } catch (const AssignmentFailed& e) {
        row.simulation_error = e.what();
      } catch (const PluginError& e) {
        row.simulation_error = e.what();
      } catch (const InputError& e) {  // events that do not fit this scenario: say which one
        throw InputError(fmt::format("{} (in scenario {}: the events of --simulate apply to every scenario)", e.what(),
                                     scenarios[si].source));
      }
    }
    nlohmann::ordered_json j = row;
    j["scenario_tasks"] = cluster.task_count();
    j["scenario_clients"] = cluster.client_count();
    j["scenario_threads"] = cluster.total_threads();
    std::size_t stateful = 0;
    for (const auto& t : cluster.tasks) stateful += t.stateful ? 1 : 0;
    j["scenario_stateful_tasks"] = stateful;
    return j.dump();
  };
  const std::vector<std::string> results = process::run_jobs(
      total, process::worker_count(options.jobs),
      [&](std::size_t index) {
        if (options.on_progress && options.jobs == 1)
          options.on_progress(scenarios[index / n_strategies].name, out.strategies[index % n_strategies], index, total);
        return job(index);
      },
      [&](std::size_t done) {
        if (options.on_progress && options.jobs != 1 && done < total)
          options.on_progress(scenarios[done / n_strategies].name, out.strategies[done % n_strategies], done, total);
      });
  for (std::size_t si = 0; si < scenarios.size(); ++si) {
    ScenarioComparison sc;
    sc.name = scenarios[si].name;
    sc.source = scenarios[si].source;
    for (std::size_t k = 0; k < n_strategies; ++k) {
      const nlohmann::json j = nlohmann::json::parse(results[si * n_strategies + k]);
      if (k == 0) {
        sc.tasks = j["scenario_tasks"].get<std::size_t>();
        sc.clients = j["scenario_clients"].get<std::size_t>();
        sc.threads = j["scenario_threads"].get<std::uint64_t>();
        sc.stateful_tasks = j["scenario_stateful_tasks"].get<std::size_t>();
      }
      sc.rows.push_back(j.get<CompareRow>());
    }
    out.scenarios.push_back(std::move(sc));
  }
  return out;
}

}  // namespace assignor::host
