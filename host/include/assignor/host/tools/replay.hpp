// `assignor replay` (DESIGN 4.7): every strategy on every rebalance a real group logged, in time
// order, next to what Kafka decided there, all scored by the same metrics; and how often each
// strategy gave exactly Kafka's decision (the same actives, the same standby and warmup copies on
// each client, the same probing decision).
//
//   auto index = read_import_index("imported/");
//   Replay r = replay_rebalances(registry, "imported/", index, {{"high_availability", "least_movement"}});
//   std::cout << replay_table(r);   // ... "high_availability gave Kafka's decision at 41/41 rebalances"
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/import/importer.hpp"
#include "assignor/host/import/timeline.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/tools/simulation.hpp"
#include "assignor/metrics.hpp"

namespace assignor::host {

struct ReplayOptions {
  std::vector<std::string> strategies;  // empty: every loaded plugin
  // Instead of each rebalance's own NAME.config.yaml (Kafka's settings there): the settings,
  // isolation and limits of this config.
  std::optional<Config> config;
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct ReplayRun {
  std::string strategy;
  bool ok = false;
  std::string failure;  // when !ok
  Metrics metrics;
  bool probing = false;
  bool same_as_kafka = false;
  std::vector<std::string> differences;  // the first few, for people
  double ms = 0;
};

struct ReplayedRebalance {
  ImportedRebalance entry;
  Metrics kafka;  // Kafka's decision, scored like the strategies
  bool kafka_probing = false;
  std::vector<ReplayRun> runs;  // one per strategy, in ReplayOptions order
};

struct Replay {
  std::vector<std::string> strategies;
  std::vector<ReplayedRebalance> rebalances;
  std::string kafka_assignor = "HighAvailabilityTaskAssignor";
  // Where the settings came from when they were assumed (Kafka's defaults stood in for the
  // application's at some rebalance): the agreement was computed under them. Empty otherwise.
  std::vector<std::string> assumed_settings;
};

// Strategies that carry the name of the Kafka assignor the log's decisions came from, and so are
// expected to agree with them (high_availability for HighAvailabilityTaskAssignor).
bool is_kafka_named_for(const std::string& strategy, const std::string& kafka_assignor);

// Throws InputError for a rebalance whose files do not read, PluginError for a strategy that does
// not exist, ConfigError for bad parameters; a strategy that fails or returns an invalid
// assignment on one rebalance is a failed run there (the replay goes on).
Replay replay_rebalances(const PluginRegistry& registry, const std::filesystem::path& dir,
                         const std::vector<ImportedRebalance>& index, const ReplayOptions& options);

// `assignor replay DIR --in-time` (DESIGN 4.10): the real timeline (import/timeline.hpp) played
// forward in the simulator, under Kafka's protocol in time, from rebalance `from`: once with the
// strategy Kafka ran (the calibration run: its rebalances and time to converged should be the
// log's, and decisions_equal / decisions_compared counts its decisions that equal Kafka's, round k
// against the k-th logged rebalance), and once per other strategy (counterfactual: the same events
// at the same times). Each run starts from Kafka's input at `from` and its events are the
// timeline's, at the time of the rebalance that first showed them; copies restore at the rates
// measured per client (the median of the clients elsewhere); rebalances cost the measured time.
//
//   InTimeReplay r = replay_in_time(registry, "imported/", index, {.strategies = {"least_movement"}});
//   std::cout << in_time_table(r);
struct InTimeOptions {
  std::optional<std::string> from;      // a rebalance name; default the first
  std::vector<std::string> strategies;  // the counterfactuals; empty: every loaded plugin
  std::optional<Config> config;         // instead of the import's settings
  // Rounds per run: by default 1000, or ten per logged rebalance from `from` on when that is more
  // (a long history needs more rounds than --max-rounds' usual 1000).
  std::optional<std::uint32_t> max_rounds;
  unsigned jobs = 0;  // worker processes for the runs (0: every core)
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// One rebalance of a path (the real one or a run's), as the report draws it.
struct InTimeStep {
  std::int64_t at_ms = 0;  // since the first rebalance of the path
  std::string cause;       // start, events, follow-up, probing, interval, other
  bool probing = false;
  std::uint64_t revoked = 0;
  std::size_t clients = 0;
  std::uint64_t active_moves = 0, warmups = 0;
  std::vector<std::string> events;
};
// A step of a path in replay --in-time's JSON (record_json.hpp): `ordered_json j = step;`, and back
// (the runs cross from worker processes): `j.get<InTimeStep>()`.
void to_json(nlohmann::ordered_json& j, const InTimeStep& step);
void from_json(const nlohmann::json& j, InTimeStep& step);

struct InTimeRun {
  std::string strategy;
  bool calibration = false;
  std::string error;  // the strategy failed at some round: the run stops there
  SimulationSummary summary;
  std::optional<std::int64_t> time_to_converged_ms;  // since the run's first rebalance
  std::vector<InTimeStep> path;
  std::size_t decisions_equal = 0, decisions_compared = 0;  // calibration only
};

struct InTimeReplay {
  RealTimeline timeline;
  std::vector<InTimeStep> real_path;
  std::string kafka_assignor = "HighAvailabilityTaskAssignor";
  std::vector<InTimeRun> runs;  // the calibration run first
};

// Throws InputError (unknown --from, rebalances without times, unreadable files), PluginError (a
// strategy not loaded; the calibration strategy must be loaded too). A strategy that fails in a
// round is a run with `error`.
InTimeReplay replay_in_time(const PluginRegistry& registry, const std::filesystem::path& dir,
                            const std::vector<ImportedRebalance>& index, const InTimeOptions& options);

// The strategy that gives the decisions of the Kafka assignor the log came from.
std::string kafka_named_strategy(const std::string& kafka_assignor);

}  // namespace assignor::host
