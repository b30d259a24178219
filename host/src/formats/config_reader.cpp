#include "assignor/host/formats/config_reader.hpp"

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assignor/errors.hpp"
#include "assignor/host/formats/yaml_json_reader.hpp"
#include "assignor/model.hpp"

namespace assignor::host {

namespace {

using namespace detail;  // the readers' shared checks (yaml_json_reader.hpp)

const std::vector<std::string> kTopKeys = {"strategy", "fallback",  "plugins", "assignment", "strategies",
                                           "logging",  "isolation", "limits",  "simulation"};
enum TopKey : std::size_t {
  kStrategy,
  kFallback,
  kPlugins,
  kAssignment,
  kStrategies,
  kLogging,
  kIsolation,
  kLimits,
  kSimulation
};

const std::vector<std::string> kPluginKeys = {"paths", "allow_unsafe_permissions"};
enum PluginKey : std::size_t { kPaths, kAllowUnsafePermissions };

const std::vector<std::string> kIsolationModes = {"in_process", "process", "auto"};  // IsolationMode order

const std::vector<std::string> kLimitKeys = {"time_ms",           "memory_mb",    "max_file_mb",
                                             "max_tasks",         "max_clients",  "max_threads_per_client",
                                             "max_total_threads", "max_id_length"};
enum LimitKey : std::size_t {
  kTimeMs,
  kMemoryMb,
  kMaxFileMb,
  kMaxTasks,
  kMaxClients,
  kMaxThreadsPerClient,
  kMaxTotalThreads,
  kMaxIdLength
};

const std::vector<std::string> kAssignmentKeys = {"acceptable_recovery_lag", "max_warmup_replicas",
                                                  "num_standby_replicas", "probing_rebalance_interval_ms",
                                                  "rack_aware"};
enum AssignmentKey : std::size_t {
  kAcceptableRecoveryLag,
  kMaxWarmupReplicas,
  kNumStandbyReplicas,
  kProbingInterval,
  kRackAware
};

const std::vector<std::string> kRackAwareKeys = {"strategy", "traffic_cost", "non_overlap_cost", "tags"};
enum RackAwareKey : std::size_t { kRackStrategy, kTrafficCost, kNonOverlapCost, kRackTags };

const std::vector<std::string> kSimulationKeys = {"restore_rate", "rebalance_ms", "protocol", "session_timeout_ms"};
enum SimulationKey : std::size_t { kRestoreRate, kRebalanceMs, kProtocol, kSessionTimeoutMs };
const std::vector<std::string> kProtocols = {"kafka", "rounds"};  // SimulationProtocol's order

const std::vector<std::string> kLoggingKeys = {"level"};
enum LoggingKey : std::size_t { kLevel };

const std::vector<std::string> kLogLevels = {"trace", "debug", "info", "warn", "error", "off"};
const std::vector<std::string> kRackStrategies = {"none", "min_traffic", "balance_subtopology"};

constexpr std::int64_t kU32Max = std::numeric_limits<std::uint32_t>::max();

// One of `allowed`, or an error listing them (and the nearest one).
std::size_t one_of(const FieldReader& r, const Node& node, const std::string& place,
                   const std::vector<std::string>& allowed) {
  const std::string value = r.string(node, place);
  for (std::size_t i = 0; i < allowed.size(); ++i)
    if (allowed[i] == value) return i;
  std::string problem = fmt::format("'{}' is not one of {}", value, fmt::join(allowed, ", "));
  if (const std::string near = nearest(value, allowed); !near.empty())
    problem += fmt::format("; did you mean '{}'?", near);
  r.fail_at(node, place, problem);
}

class ConfigParser {
 public:
  ConfigParser(std::string source, std::filesystem::path base_dir)
      : source_(std::move(source)), base_dir_(std::move(base_dir)), r_(source_) {}

  Config parse(std::string_view text) {
    const auto document = detail::load_document(text, source_, "a config map (strategy, assignment, ...)");
    const Node root = document.root();
    if (!root.IsMap()) r_.fail_at(root, "", fmt::format("expected a map at the top level, got {}", describe(root)));
    const Fields top(r_, root, "", kTopKeys);

    // Optional: --strategy names it too, and compare, sweep and replay choose their own.
    if (top.given(kStrategy)) {
      if (top.value(kStrategy).IsNull())  // `strategy:` with nothing after it
        r_.fail_at(top.key(kStrategy), "strategy",
                   "missing value (name a strategy, or leave the key out and give --strategy)");
      config_.strategy = r_.string(top.value(kStrategy), "strategy");
      config_.places["strategy"] = detail::location(source_, top.value(kStrategy).Mark());
    }
    if (top.has(kFallback)) {
      config_.fallback = r_.string(top.value(kFallback), "fallback");
      config_.places["fallback"] = detail::location(source_, top.value(kFallback).Mark());
    }
    if (top.has(kPlugins)) parse_plugins(top.value(kPlugins));
    if (top.has(kAssignment)) parse_assignment(top.value(kAssignment));
    if (top.has(kStrategies)) parse_strategies(top.value(kStrategies));
    if (top.has(kLogging)) {
      const Fields logging(r_, top.value(kLogging), "logging", kLoggingKeys);
      if (logging.has(kLevel))
        config_.log_level = kLogLevels[one_of(r_, logging.value(kLevel), "logging.level", kLogLevels)];
    }
    if (top.has(kIsolation))
      config_.isolation = static_cast<IsolationMode>(one_of(r_, top.value(kIsolation), "isolation", kIsolationModes));
    if (top.has(kLimits)) parse_limits(top.value(kLimits));
    if (top.has(kSimulation)) parse_simulation(top.value(kSimulation));
    return std::move(config_);
  }

 private:
  void parse_limits(const Node& node) {
    const Fields l(r_, node, "limits", kLimitKeys);
    auto place = [](std::size_t key) { return "limits." + kLimitKeys[key]; };
    auto read = [&](std::size_t key, std::uint64_t min, std::uint64_t max, std::uint64_t& out) {
      if (l.has(key))
        out = static_cast<std::uint64_t>(
            r_.integer_in(l.value(key), place(key), static_cast<std::int64_t>(min), static_cast<std::int64_t>(max)));
    };
    read(kTimeMs, kMinTimeMs, kMaxTimeMs, config_.strategy_limits.time_ms);
    read(kMemoryMb, kMinMemoryMb, kMaxMemoryMb, config_.strategy_limits.memory_mb);
    InputLimits& in = config_.input_limits;
    std::uint64_t file_mb = in.max_file_bytes >> 20;
    read(kMaxFileMb, 1, std::uint64_t{1} << 20, file_mb);
    in.max_file_bytes = file_mb << 20;
    read(kMaxTasks, 1, std::numeric_limits<TaskIndex>::max() - 1, in.max_tasks);
    read(kMaxClients, 1, std::numeric_limits<ClientIndex>::max() - 1, in.max_clients);
    read(kMaxThreadsPerClient, 1, std::numeric_limits<std::uint32_t>::max(), in.max_threads_per_client);
    read(kMaxTotalThreads, 1, std::numeric_limits<std::int64_t>::max(), in.max_total_threads);
    read(kMaxIdLength, 1, std::uint64_t{1} << 30, in.max_id_length);
  }

  void parse_simulation(const Node& node) {
    const Fields sim(r_, node, "simulation", kSimulationKeys);
    auto place = [](std::size_t key) { return "simulation." + kSimulationKeys[key]; };
    if (sim.has(kRestoreRate))
      config_.simulation.restore_rate = r_.integer_in(sim.value(kRestoreRate), place(kRestoreRate), 1);
    if (sim.has(kRebalanceMs))
      config_.simulation.rebalance_ms = r_.integer_in(sim.value(kRebalanceMs), place(kRebalanceMs), 0, kMaxRebalanceMs);
    if (sim.has(kProtocol))
      config_.simulation.protocol =
          static_cast<SimulationProtocol>(one_of(r_, sim.value(kProtocol), place(kProtocol), kProtocols));
    if (sim.has(kSessionTimeoutMs))
      config_.simulation.session_timeout_ms =
          r_.integer_in(sim.value(kSessionTimeoutMs), place(kSessionTimeoutMs), 1, kMaxRebalanceMs);
  }

  void parse_plugins(const Node& node) {
    const Fields plugins(r_, node, "plugins", kPluginKeys);
    if (plugins.has(kAllowUnsafePermissions))
      config_.allow_unsafe_plugin_permissions =
          r_.boolean(plugins.value(kAllowUnsafePermissions), "plugins.allow_unsafe_permissions");
    if (!plugins.has(kPaths)) return;
    const Node& paths = plugins.value(kPaths);
    r_.expect_list(paths, "plugins.paths");
    for (const Node& entry : paths) {
      std::filesystem::path p = r_.string(entry, "plugins.paths");
      if (p.is_relative()) p = base_dir_ / p;
      config_.plugin_paths.push_back(p.lexically_normal());
    }
  }

  void parse_assignment(const Node& node) {
    const Fields a(r_, node, "assignment", kAssignmentKeys);
    AssignmentSettings& s = config_.settings;
    auto place = [](std::size_t key) { return "assignment." + kAssignmentKeys[key]; };
    if (a.has(kAcceptableRecoveryLag))
      s.acceptable_recovery_lag = r_.integer_in(a.value(kAcceptableRecoveryLag), place(kAcceptableRecoveryLag), 0);
    if (a.has(kMaxWarmupReplicas))
      s.max_warmup_replicas =
          static_cast<std::uint32_t>(r_.integer_in(a.value(kMaxWarmupReplicas), place(kMaxWarmupReplicas), 1, kU32Max));
    if (a.has(kNumStandbyReplicas))
      s.num_standby_replicas = static_cast<std::uint32_t>(
          r_.integer_in(a.value(kNumStandbyReplicas), place(kNumStandbyReplicas), 0, kU32Max));
    if (a.has(kProbingInterval))
      s.probing_rebalance_interval_ms =
          r_.integer_in(a.value(kProbingInterval), place(kProbingInterval), 60000, kMaxProbingIntervalMs);
    if (a.has(kRackAware)) parse_rack_aware(a.value(kRackAware));
  }

  void parse_rack_aware(const Node& node) {
    const Fields ra(r_, node, "assignment.rack_aware", kRackAwareKeys);
    RackAwareSettings& s = config_.settings.rack_aware;
    auto place = [](std::size_t key) { return "assignment.rack_aware." + kRackAwareKeys[key]; };
    if (ra.has(kRackStrategy))
      s.strategy =
          static_cast<RackAwareStrategy>(one_of(r_, ra.value(kRackStrategy), place(kRackStrategy), kRackStrategies));
    if (ra.has(kTrafficCost)) s.traffic_cost = r_.integer_in(ra.value(kTrafficCost), place(kTrafficCost), 0);
    if (ra.has(kNonOverlapCost))
      s.non_overlap_cost = r_.integer_in(ra.value(kNonOverlapCost), place(kNonOverlapCost), 0);
    if (ra.has(kRackTags)) {
      const Node& tags = ra.value(kRackTags);
      r_.expect_list(tags, place(kRackTags));
      std::set<std::string> seen_tags;  // linear-log, however long the list
      for (const Node& tag : tags) {
        std::string t = r_.string(tag, place(kRackTags));
        if (!seen_tags.insert(t).second) r_.fail_at(tag, place(kRackTags), fmt::format("tag '{}' listed twice", t));
        s.tags.push_back(std::move(t));
      }
    }
  }

  void parse_strategies(const Node& node) {
    r_.expect_map(node, "strategies");
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string name = r_.string(it->first, "strategies");
      const std::string place = "strategies." + name;
      if (config_.strategy_params.count(name) != 0)
        r_.fail_at(it->first, "strategies", fmt::format("strategy '{}' given twice", name));
      std::map<std::string, std::string> values;
      if (!it->second.IsNull()) {
        r_.expect_map(it->second, place);
        flatten(it->second, "", place, values);
      }
      config_.strategy_params.emplace(name, StrategyParams(std::move(values)));
      config_.places[place] = detail::location(source_, it->first.Mark());
    }
  }

  // Nested maps become dotted keys ("a: {b: 1}" -> "a.b" = "1"); scalars keep their text.
  void flatten(const Node& map, const std::string& prefix, const std::string& place,
               std::map<std::string, std::string>& out) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = r_.string(it->first, place + (prefix.empty() ? "" : "." + prefix));
      const std::string full = prefix.empty() ? key : prefix + "." + key;
      const std::string value_place = place + "." + full;
      const Node value = it->second;
      if (value.IsMap()) {
        flatten(value, full, place, out);
      } else if (value.IsScalar()) {
        if (!out.emplace(full, value.Scalar()).second)
          r_.fail_at(it->first, value_place, fmt::format("parameter '{}' given twice", full));
      } else if (value.IsSequence()) {
        r_.fail_at(value, value_place, "lists are not supported in strategy parameters (use a scalar or a map)");
      } else {
        r_.fail_at(it->first, value_place, "missing value (a scalar or a map is expected)");
      }
    }
  }

  std::string source_;
  std::filesystem::path base_dir_;
  FieldReader r_;
  Config config_;
};

}  // namespace

Config parse_config(std::string_view text, const std::string& source_name, const std::filesystem::path& base_dir) {
  return ConfigParser(source_name, base_dir).parse(text);
}

Config read_config_file(const std::filesystem::path& path) {
  const std::string source = detail::source_name(path);
  const std::string text = detail::read_text_file(source, path, "config file");
  std::error_code ec;
  std::filesystem::path base = std::filesystem::absolute(path, ec).parent_path();
  if (ec) base = path.parent_path();
  Config config = parse_config(text, source, base);
  config.source = path;
  return config;
}

std::string strategy_to_run(const Config& config, const std::string& requested) {
  if (!requested.empty()) return requested;
  if (!config.strategy.empty()) return config.strategy;
  const std::string where = config.source.empty() ? std::string("the config") : config.source.string();
  throw InputError(
      fmt::format("no strategy to run: give --strategy NAME, or add 'strategy: NAME' to {} "
                  "('assignor plugins' lists the names)",
                  where));
}

std::string place_prefix(const Config& config, const std::string& key) {
  const auto it = config.places.find(key);
  return it == config.places.end() ? std::string() : it->second + ": ";
}

}  // namespace assignor::host
