// Deterministic cluster generator: the scenarios behind `assignor generate`, the conformance suite
// and the benchmarks. The same ScenarioSpec gives the same Cluster (and the host's cluster_to_json()
// the same bytes) on every platform: the generator uses its own PRNG (SplitMix64, below) and
// integer-only derivations, never std:: distributions (which differ between standard libraries).
// docs/generation.md specifies the algorithm precisely enough to reproduce the bytes in another
// language.
//
//   assignor::ScenarioSpec spec;
//   spec.clients = 100; spec.threads = 4; spec.subtopologies = 10; spec.partitions = 64;
//   spec.kind = assignor::ScenarioKind::scale_out;
//   assignor::Cluster cluster = assignor::generate_cluster(spec);  // finalized
//
// Scenarios (the history the file carries, i.e. the previous assignment and what clients report):
//   fresh            nobody has anything: no previous assignment, no offset sums.
//   scale_out        ~10% of the clients (at least one; or changed_clients) are new and empty; the others hold a balanced
//                    previous assignment, run their actives (-2) and hold standbys slightly behind.
//   scale_in         the previous assignment was made over the clients plus ~10% more (or changed_clients) that have left:
//                    the departed clients' tasks have no live previous owner, and their standby
//                    copies on the remaining clients are caught up.
//   rolling_restart  one client came back after a restart: no previous tasks, but offset sums,
//                    slightly behind, for the tasks it held.
//
// Task weights (Task::weight, a load estimate): uniform (every task weighs 1, nothing written) or
// zipf: within each sub-topology the partitions are ranked by a seeded shuffle, and the partition of
// rank k weighs round(1000 / k) / 100 (at least 0.01): 10, 5, 3.33, 2.5, ... A skewed key
// distribution, for load-aware strategies (assignor/weighted.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "assignor/model.hpp"

namespace assignor {

enum class ScenarioKind : std::uint8_t { fresh, scale_out, scale_in, rolling_restart };
enum class WeightDistribution : std::uint8_t { uniform, zipf };

// "fresh", "scale-out", "scale-in", "rolling-restart" (the command line's spelling).
std::string_view to_string(ScenarioKind kind) noexcept;
// Accepts the spellings above and the enumerator names ("scale_out"); nullopt for anything else.
std::optional<ScenarioKind> parse_scenario_kind(std::string_view text) noexcept;
// "uniform", "zipf".
std::string_view to_string(WeightDistribution weights) noexcept;
std::optional<WeightDistribution> parse_weight_distribution(std::string_view text) noexcept;

// Ranges a spec must respect (generate_cluster throws InputError outside them). They keep the
// output within what the model and a test machine can hold, not within what Kafka allows.
inline constexpr std::uint32_t kMaxScenarioClients = 100'000;
inline constexpr std::uint32_t kMaxScenarioThreads = 1'024;
inline constexpr std::uint32_t kMaxScenarioSubtopologies = 100'000;
inline constexpr std::uint32_t kMaxScenarioPartitions = 100'000;
inline constexpr std::uint64_t kMaxScenarioTasks = 10'000'000;  // subtopologies x partitions
inline constexpr std::uint32_t kMaxScenarioStandbys = 100;
inline constexpr std::uint32_t kMaxScenarioRacks = 1'000;

struct ScenarioSpec {
  std::uint32_t clients = 0;        // clients in the file (>= 1; >= 2 for scale_out)
  std::uint32_t threads = 1;        // threads of every client
  std::uint32_t subtopologies = 0;  // tasks are S_P for S < subtopologies, P < partitions
  std::uint32_t partitions = 0;
  double stateful_fraction = 0.5;   // round(S * fraction) sub-topologies are stateful
  double nonlogged_fraction = 0.0;  // of the stateful sub-topologies, round(F * this) are not logged
  // Standby copies per logged task in the *previous* assignment (the history in the file), capped
  // at the number of previous members minus one. Not a setting of the assignment to compute.
  std::uint32_t standbys = 1;
  std::uint32_t racks = 0;  // 0: no racks; else clients and partition replicas over R racks
  ScenarioKind kind = ScenarioKind::fresh;
  std::uint64_t seed = 1;
  bool end_offsets_known = true;                             // false: the file says end_offsets_known: false
  WeightDistribution weights = WeightDistribution::uniform;  // task weights (see the top of this file)
  // scale_out: how many of the clients are new; scale_in: how many have left. Unset: ~10% (at
  // least one). `--clients 16 --new-clients 4` is a scale-out from 12 to 16.
  std::optional<std::uint32_t> changed_clients;
  // Threads per client drawn in [threads, threads_max] (its own stream: 0 or threads_max ==
  // threads draws nothing and every client has `threads`).
  std::uint32_t threads_max = 0;
  // The range of each logged store's changelog end offset.
  std::int64_t min_end_offset = 10'000;
  std::int64_t max_end_offset = 1'000'000;
  // Client tags (KEY -> N values, in order): client i gets "<key>-<v>" for each key, the values
  // counted like the digits of a mixed-radix number (first key fastest) after the rack (i mod
  // racks, the fastest digit when racks > 0), so that the clients cover every combination of rack
  // and values before repeating one. No randomness: the rest of the file is unchanged.
  std::vector<std::pair<std::string, std::uint32_t>> tags;
};

// Throws InputError naming the field and its allowed range when the spec is nonsense.
void validate(const ScenarioSpec& spec);

// The cluster the spec describes, finalized. Throws InputError (see validate()).
Cluster generate_cluster(const ScenarioSpec& spec);

// SplitMix64 (Steele, Lea and Flood, 2014), the generator's only source of randomness. Public so
// that tests and other generators can reproduce or extend the scenarios.
class SplitMix64 {
 public:
  static constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ULL;

  explicit constexpr SplitMix64(std::uint64_t state) noexcept : state_(state) {}

  // The independent stream a phase of the generator draws from: the state starts at
  // mix(seed XOR (phase * kGamma)) (arithmetic modulo 2^64).
  static constexpr SplitMix64 stream(std::uint64_t seed, std::uint64_t phase) noexcept {
    return SplitMix64(mix(seed ^ (phase * kGamma)));
  }

  // The SplitMix64 output function (a bijection on 64-bit values).
  static constexpr std::uint64_t mix(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  constexpr std::uint64_t next() noexcept {
    state_ += kGamma;
    return mix(state_);
  }

  // Uniform in [0, n) for n >= 1, unbiased: draws until next() >= (2^64 - n) mod n, then takes the
  // remainder. Almost always exactly one draw.
  constexpr std::uint64_t below(std::uint64_t n) noexcept {
    const std::uint64_t threshold = (0 - n) % n;
    for (;;) {
      const std::uint64_t x = next();
      if (x >= threshold) return x % n;
    }
  }

  // Uniform in [lo, hi] for lo <= hi (and hi - lo < 2^64 - 1).
  constexpr std::uint64_t between(std::uint64_t lo, std::uint64_t hi) noexcept { return lo + below(hi - lo + 1); }

 private:
  std::uint64_t state_;
};

}  // namespace assignor
