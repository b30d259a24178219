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
#include "assignor/host/plugins/plugin_registry.hpp"
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
};

// Strategies that carry the name of the Kafka assignor the log's decisions came from, and so are
// expected to agree with them (high_availability for HighAvailabilityTaskAssignor).
bool is_kafka_named_for(const std::string& strategy, const std::string& kafka_assignor);

// Throws InputError for a rebalance whose files do not read, PluginError for a strategy that does
// not exist, ConfigError for bad parameters; a strategy that fails or returns an invalid
// assignment on one rebalance is a failed run there (the replay goes on).
Replay replay_rebalances(const PluginRegistry& registry, const std::filesystem::path& dir,
                         const std::vector<ImportedRebalance>& index, const ReplayOptions& options);

}  // namespace assignor::host
