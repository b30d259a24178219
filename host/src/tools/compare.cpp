#include "assignor/host/tools/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
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

// A row as JSON and back (rows cross from the worker processes): every field.
nlohmann::json row_to_json(const CompareRow& r) {
  nlohmann::json j;
  j["strategy"] = r.strategy;
  j["ran"] = r.ran;
  j["status"] = static_cast<int>(r.status);
  j["error"] = r.error;
  j["validation_errors"] = r.validation_errors;
  j["notes"] = r.notes;
  j["metrics"] = metrics_to_json(r.metrics);
  j["probing_rebalance"] = r.probing_rebalance;
  j["probing_after_ms"] = r.probing_after_ms;
  j["assign_ms"] = {r.assign_ms.median, r.assign_ms.min, r.assign_ms.max, r.assign_ms.runs};
  if (r.simulation) j["simulation"] = summary_to_json(*r.simulation);
  j["simulation_error"] = r.simulation_error;
  return j;
}

CompareRow row_from_json(const nlohmann::json& j) {
  CompareRow r;
  r.strategy = j["strategy"].get<std::string>();
  r.ran = j["ran"].get<std::string>();
  r.status = static_cast<CompareStatus>(j["status"].get<int>());
  r.error = j["error"].get<std::string>();
  r.validation_errors = j["validation_errors"].get<std::vector<std::string>>();
  r.notes = j["notes"].get<std::vector<std::string>>();
  r.metrics = metrics_from_json(j["metrics"]);
  r.probing_rebalance = j["probing_rebalance"].get<bool>();
  r.probing_after_ms = j["probing_after_ms"].get<std::int64_t>();
  const auto& t = j["assign_ms"];
  r.assign_ms = {t[0].get<double>(), t[1].get<double>(), t[2].get<double>(), t[3].get<std::uint32_t>()};
  if (j.contains("simulation")) r.simulation = summary_from_json(j["simulation"]);
  r.simulation_error = j["simulation_error"].get<std::string>();
  return r;
}

}  // namespace

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
    nlohmann::json j = row_to_json(row);
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
      sc.rows.push_back(row_from_json(j));
    }
    out.scenarios.push_back(std::move(sc));
  }
  return out;
}

}  // namespace assignor::host
