// Reads the YAML config (DESIGN 4.2). Unknown keys are errors naming the nearest known key; values
// out of range (e.g. max_warmup_replicas 0) are errors naming the key and the allowed range.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assignor/host/limits.hpp"
#include "assignor/settings.hpp"

namespace assignor::host {

struct Config {
  std::filesystem::path source;                      // the config file ("" when parsed from text)
  std::string strategy;                              // required
  std::optional<std::string> fallback;               // used when the strategy fails
  std::vector<std::filesystem::path> plugin_paths;   // resolved against the config's directory
  AssignmentSettings settings;
  std::map<std::string, StrategyParams> strategy_params;  // strategies.<name>, flattened
  std::string log_level = "info";                    // trace|debug|info|warn|error|off
  // Reliability (docs/reliability.md): where the strategy runs, its limits there, the input limits,
  // and whether plugin files writable by others may load anyway.
  IsolationMode isolation = IsolationMode::automatic;  // isolation: auto | in_process | process
  StrategyLimits strategy_limits;                       // limits.time_ms, limits.memory_mb
  InputLimits input_limits;                             // limits.max_* (applied to the cluster file)
  bool allow_unsafe_plugin_permissions = false;         // plugins.allow_unsafe_permissions
};

Config read_config_file(const std::filesystem::path& path);

// `base_dir` resolves relative plugin paths.
Config parse_config(std::string_view text, const std::string& source_name,
                    const std::filesystem::path& base_dir);

}  // namespace assignor::host
