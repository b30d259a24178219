// Reads the YAML config (DESIGN 4.2). Unknown keys are errors naming the nearest known key; values
// out of range (e.g. max_warmup_replicas 0) are errors naming the key and the allowed range.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assignor/host/formats/limits.hpp"
#include "assignor/settings.hpp"

namespace assignor::host {

// How rebalances follow one another in a simulation (simulation.protocol): Kafka's protocol in time
// (follow-up rebalances, the probing timer, session timeouts, wiped restarts as new processes), or
// rounds only (the model of Kafka's convergence tests). host/tools/simulation.hpp says more.
enum class SimulationProtocol : std::uint8_t { kafka, rounds };

// What `assignor simulate` assumes about time (section `simulation:`, docs/compare-and-simulate.md).
struct SimulationSettings {
  // Offsets per second that one copy of a task restores. Set: simulations run in time (catch-up
  // between rebalances = rate x time); unset: a copy catches up fully between rounds.
  std::optional<std::int64_t> restore_rate;
  std::int64_t rebalance_ms = 0;  // what one rebalance costs, before its assignment takes effect
  SimulationProtocol protocol = SimulationProtocol::kafka;
  std::int64_t session_timeout_ms = 45000;  // Kafka's default session.timeout.ms
};
inline constexpr std::int64_t kMaxRebalanceMs = std::int64_t{1} << 40;  // ~35 years: keeps sums exact

struct Config {
  std::filesystem::path source;                     // the config file ("" when parsed from text)
  std::string strategy;                             // "" when the config names none (--strategy does)
  std::optional<std::string> fallback;              // used when the strategy fails
  std::vector<std::filesystem::path> plugin_paths;  // resolved against the config's directory
  AssignmentSettings settings;
  std::map<std::string, StrategyParams> strategy_params;  // strategies.<name>, flattened
  std::string log_level = "info";                         // trace|debug|info|warn|error|off
  // Reliability (docs/reliability.md): where the strategy runs, its limits there, the input limits,
  // and whether plugin files writable by others may load anyway.
  IsolationMode isolation = IsolationMode::automatic;  // isolation: auto | in_process | process
  StrategyLimits strategy_limits;                      // limits.time_ms, limits.memory_mb
  InputLimits input_limits;                            // limits.max_* (applied to the cluster file)
  bool allow_unsafe_plugin_permissions = false;        // plugins.allow_unsafe_permissions
  SimulationSettings simulation;                       // simulation.restore_rate, .rebalance_ms, .protocol, ...
  // Where the keys that name strategies were written ("strategy", "fallback", "strategies.<name>"
  // -> "config.yaml:3:11"), for messages about them found later (an unknown strategy, a bad
  // parameter); absent for a key the config does not have.
  std::map<std::string, std::string> places;
};

// "config.yaml:3:11: " for `key` (Config::places), or "" when the config does not say where.
std::string place_prefix(const Config& config, const std::string& key);

// The strategy to run: `requested` (a --strategy option) when given, else the config's; an
// InputError that says how to name one when neither does.
std::string strategy_to_run(const Config& config, const std::string& requested);

Config read_config_file(const std::filesystem::path& path);

// `base_dir` resolves relative plugin paths.
Config parse_config(std::string_view text, const std::string& source_name, const std::filesystem::path& base_dir);

}  // namespace assignor::host
