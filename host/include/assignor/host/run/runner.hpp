// Runs one strategy on one cluster: lags, the strategy call (timed), validation, fallback, metrics.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/support/errors.hpp"  // AssignmentFailed, kExitStrategyFailed
#include "assignor/lags.hpp"
#include "assignor/model.hpp"

namespace assignor::host {

struct RunOutcome {
  AssignmentReport report;
  std::string requested_strategy;     // what the config or command line asked for
  bool used_fallback = false;         // the report comes from the fallback strategy
  std::vector<std::string> warnings;  // lag warnings, fallback reasons
};

// Runs `strategy` (or, when end offsets are unknown and it does not handle unknown lags,
// `fallback_prior`), validates, falls back to config.fallback if the strategy throws or returns an
// invalid assignment. Throws PluginError (exit 3) or AssignmentFailed (exit 4).
RunOutcome run_assignment(const PluginRegistry& registry, const Config& config, const Cluster& cluster,
                          const std::string& strategy);

// Every `strategies.<name>` section of the config names a known plugin (loaded, or claimed by a
// library index_directory() found); ConfigError (exit 2) with
// the section's place and the nearest name otherwise: parameters for a misspelt strategy would be
// silently ignored.
void check_strategy_sections(const PluginRegistry& registry, const Config& config);

}  // namespace assignor::host
