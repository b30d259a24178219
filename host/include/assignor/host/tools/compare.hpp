// Strategies head to head (`assignor compare`): every strategy on every scenario, with validity,
// the metrics of DESIGN 4.5, the probing decision and the time taken (median, min and max of
// several runs). A strategy that throws or returns an invalid assignment gets a row saying so and
// why; the others still run. No fallback is used: a comparison shows each strategy as it is.
//
//   std::vector<CompareScenario> scenarios = scenarios_in_directory("examples/scenarios");
//   CompareOptions options;
//   options.strategies = {"high_availability", "sticky"};
//   Comparison result = compare_strategies(registry, config, scenarios, options);
//   std::cout << compare_table(result);
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/tools/simulation.hpp"
#include "assignor/metrics.hpp"
#include "assignor/model.hpp"

namespace assignor::host {

// A cluster to compare on. `load` is called when the scenario's turn comes, so that a directory of
// large files never needs more than one of them in memory.
struct CompareScenario {
  std::string name;    // shown in tables (the file name without its extension)
  std::string source;  // where it came from (the path), for people
  std::function<Cluster()> load;
  // A rebalance of an import directory: Kafka's settings there (its NAME.config.yaml), used instead
  // of the config's `assignment:` section for this scenario (sweep's varied assignment keys still win).
  std::optional<AssignmentSettings> settings = std::nullopt;
};

CompareScenario scenario_from_file(const std::filesystem::path& path);
CompareScenario scenario_from_cluster(std::string name, Cluster cluster);
// Every *.yaml, *.yml and *.json file directly in `dir`, by file name; or, when `dir` is an import
// (`assignor import` wrote an index.json there), every rebalance's NAME.cluster.json in the index's
// order, each with its own settings. Throws InputError when the directory cannot be read or holds no
// cluster file. Files are read (and checked) when compared.
std::vector<CompareScenario> scenarios_in_directory(const std::filesystem::path& dir);

struct Timing {
  double median = 0;
  double min = 0;
  double max = 0;
  std::uint32_t runs = 0;
};

enum class CompareStatus { ok, invalid, failed };
const char* to_string(CompareStatus status) noexcept;

struct CompareRow {
  std::string strategy;  // as asked
  std::string ran;       // whose result it is: fallback_prior when end offsets are unknown
  CompareStatus status = CompareStatus::ok;
  std::string error;                           // why it failed, for people (status != ok)
  std::vector<std::string> validation_errors;  // "kind: message" (status == invalid)
  std::vector<std::string> notes;              // warnings: unknown end offsets, suspect lags
  // Meaningful when status == ok:
  Metrics metrics;
  bool probing_rebalance = false;
  std::int64_t probing_after_ms = 0;
  Timing assign_ms;
  // With CompareOptions::simulation: the simulation of this strategy from this scenario (when the
  // first assignment was ok), or why it failed (a strategy failing in a later round).
  std::optional<SimulationSummary> simulation;
  std::string simulation_error;
};

struct ScenarioComparison {
  std::string name;
  std::string source;
  std::size_t tasks = 0;
  std::size_t stateful_tasks = 0;
  std::size_t clients = 0;
  std::uint64_t threads = 0;
  std::vector<CompareRow> rows;  // one per strategy, in the order asked
};

// A row as compare --format json writes it (docs/formats.md; record_json.hpp): `ordered_json j =
// row;`, the figures null unless the status is ok, assign_ms to the nanosecond, the simulation and
// its error only when the row was simulated. Read back by `j.get<CompareRow>()`: the worker
// processes send their rows so.
void to_json(nlohmann::ordered_json& j, const CompareRow& row);
void from_json(const nlohmann::json& j, CompareRow& row);

struct Comparison {
  std::uint32_t runs = 0;
  bool simulated = false;  // rows carry simulations (CompareOptions::simulation)
  std::vector<std::string> strategies;
  std::vector<ScenarioComparison> scenarios;
  bool all_ok() const noexcept;
};

// compare --format json (docs/formats.md): `ordered_json j = comparison;`, each scenario with its rows.
void to_json(nlohmann::ordered_json& j, const ScenarioComparison& scenario);
void to_json(nlohmann::ordered_json& j, const Comparison& comparison);

struct CompareOptions {
  std::vector<std::string> strategies;  // empty: every loaded plugin, by name
  std::uint32_t runs = 5;               // timed runs per strategy and scenario (>= 1)
  // Worker processes for the (scenario, strategy) pairs: 0 = every core, 1 = in this process. The
  // rows are the same for any number (timings aside: workers share the machine).
  unsigned jobs = 0;
  // Also simulate every strategy from every scenario (`compare --simulate`): these options, the
  // strategy set per row (its `strategy` and `on_round` are ignored), no fallback.
  std::optional<SimulationOptions> simulation;
  // Called before each (scenario, strategy) pair; index counts pairs from 0 up to total.
  std::function<void(const std::string& scenario, const std::string& strategy, std::size_t index, std::size_t total)>
      on_progress;
};

// Throws PluginError naming the nearest plugin when a strategy is not loaded (before running
// anything), InputError for an unreadable scenario, runs == 0 or simulation events that do not fit
// a scenario, and ConfigError when a strategy rejects its parameters. Strategy failures are rows,
// not exceptions.
Comparison compare_strategies(const PluginRegistry& registry, const Config& config,
                              const std::vector<CompareScenario>& scenarios, const CompareOptions& options);

}  // namespace assignor::host
