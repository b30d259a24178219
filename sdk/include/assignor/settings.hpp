// The assignment settings of the contract (DESIGN section 2) and per-strategy parameters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace assignor {

enum class RackAwareStrategy : std::uint8_t { none, min_traffic, balance_subtopology };

struct RackAwareSettings {
  RackAwareStrategy strategy = RackAwareStrategy::none;
  std::optional<std::int64_t> traffic_cost;      // unset: the strategy's own default
  std::optional<std::int64_t> non_overlap_cost;  // unset: the strategy's own default
  std::vector<std::string> tags;                 // client tag keys to spread standbys over
};

// Kafka Streams' defaults.
struct AssignmentSettings {
  std::int64_t acceptable_recovery_lag = 10000;         // >= 0
  std::uint32_t max_warmup_replicas = 2;                // >= 1
  std::uint32_t num_standby_replicas = 0;               // >= 0
  std::int64_t probing_rebalance_interval_ms = 600000;  // >= 60000
  RackAwareSettings rack_aware;
};

// Scalar parameters for one strategy (the config's `strategies.<name>` map), as text. Nested maps
// are flattened with dots ("a: {b: 1}" -> "a.b" = "1"). Typed getters throw ConfigError with the
// parameter's name when a value does not parse; `reject_unknown` lets a strategy refuse typos.
class StrategyParams {
 public:
  StrategyParams() = default;
  explicit StrategyParams(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  bool contains(const std::string& key) const { return values_.count(key) != 0; }
  const std::map<std::string, std::string>& values() const noexcept { return values_; }

  std::string get_string(const std::string& key, const std::string& fallback) const;
  std::int64_t get_int(const std::string& key, std::int64_t fallback) const;
  double get_double(const std::string& key, double fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;
  // One of a fixed set of words, as the index into `choices` (`fallback` when the key is absent);
  // any other value throws ConfigError listing the choices and the nearest one.
  std::size_t get_choice(const std::string& key, const std::vector<std::string>& choices, std::size_t fallback) const;
  // The same, mapped to an enum:
  //   enum class Balance { count, weight };
  //   const Balance b = params.get_enum("balance", {{"count", Balance::count}, {"weight", Balance::weight}},
  //                                     Balance::count);
  template <typename Enum>
  Enum get_enum(const std::string& key, const std::vector<std::pair<std::string, Enum>>& choices, Enum fallback) const {
    if (!contains(key)) return fallback;
    std::vector<std::string> names;
    names.reserve(choices.size());
    for (const auto& [name, value] : choices) names.push_back(name);
    return choices[get_choice(key, names, 0)].second;
  }

  // Throws ConfigError naming the first key not in `known` and the nearest known key.
  void reject_unknown(const std::vector<std::string>& known) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace assignor
