// Rack-aware re-placement (KIP-925): move tasks so that their input partitions have a replica in the
// client's rack, at unchanged per-client counts, by min-cost flow (LEMON's network simplex).
//
// One call re-places one set of placements of a draft: the stateful actives, the stateless actives or
// the standby copies. The cost of a placement of task t on client c is
//     traffic_cost     x (t's partitions whose replica racks exclude c's rack)
//   + non_overlap_cost x (1 if c is not where the copy is now).
// The optimiser finds, exactly, a placement of minimum total cost in which every client holds as many
// placements of the set as before (Kafka's graph: source -> task cap 1, task -> client cap 1 at that
// cost, client -> sink cap = the client's current count), and among those, the fewest moves. (For
// stateful actives in two such passes, below, each optimal for the moves it allows.)
// What it never does:
//   - move a stateful active to a client that is less caught up than the one it is on: to a caught-up
//     client when one exists for the task, else to a client whose lag is no larger. So it never
//     creates a restoring active (DESIGN 4.5), nor adds offsets to restore;
//   - put two copies of one task on one client, or a copy on a client holding another role of the task;
//   - with `tags`, move a copy of a task with a logged store (a standby, or the active) between
//     clients whose values of those tags differ, so the tag spread of every task's copies (KIP-708)
//     is kept exactly;
//   - move a standby off a caught-up client to one that is not caught up.
// Stateful actives get two passes: first a role swap with one of the task's caught-up standby holders
// (both clients keep their active and standby counts), then a move to a caught-up client holding no
// copy. Standby copies are costed on the task's partitions like actives (a changelog partition is
// normally co-partitioned with its source).
//
// `balance_subtopology` adds Kafka's bound: client c holds at most ceil(count_c x n_s / N) placements
// of sub-topology s (count_c its placements of the set, n_s those of s, N all), or what it holds
// now if that is more, so the current assignment always stays feasible.
//
// Speed: tasks with the same cost row (rack signature, current holders, allowed clients,
// sub-topology) form one flow node whose supply is the class size, and destinations that only differ
// by rack are reached through shared per-rack hub nodes (split into sqrt-size blocks around a client
// a task must avoid), so 10k tasks over 100 clients make a graph of a few thousand nodes and arcs
// rather than 1M arcs.
//
//   RackAwareOptions options;
//   options.tasks = RackAwareTasks::stateful_actives;
//   options.costs = rack_aware_costs(settings.rack_aware, kHighAvailabilityRackCosts);
//   const RackAwareResult r = optimize_rack_aware(cluster, lags, draft, options);
//
// Or, for a strategy that honours `rack_aware.strategy`, all three passes in Kafka's way:
//   apply_rack_awareness(cluster, settings, lags, draft, kHighAvailabilityRackCosts);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"

namespace assignor {

enum class RackAwareTasks : std::uint8_t { stateful_actives, stateless_actives, standbys };

struct RackAwareCosts {
  std::int64_t traffic = 0;      // per partition whose replica racks exclude the client's rack
  std::int64_t non_overlap = 0;  // per placement not on its current client
};

// Kafka Streams' defaults (RackAwareTaskAssignor and its callers).
inline constexpr RackAwareCosts kHighAvailabilityRackCosts{10, 1};
inline constexpr RackAwareCosts kStickyRackCosts{1, 10};
inline constexpr RackAwareCosts kStatelessRackCosts{1, 0};  // stateless actives, whatever the settings

// The settings' costs where they are set, `defaults` (the strategy's) otherwise.
RackAwareCosts rack_aware_costs(const RackAwareSettings& settings, RackAwareCosts defaults) noexcept;

struct RackAwareOptions {
  RackAwareTasks tasks = RackAwareTasks::stateful_actives;
  RackAwareStrategy strategy = RackAwareStrategy::min_traffic;  // none: leave the draft as it is
  RackAwareCosts costs = kHighAvailabilityRackCosts;
  std::vector<std::string> tags;  // copies of logged tasks move only between clients with equal tag values
  // false: lags are ignored (and `lags` is not read), any placement may move anywhere its set
  // allows. Kafka's own order
  // (high_availability) optimises before its movement step, which then restores availability;
  // strategies that optimise a finished assignment keep the default.
  bool respect_lags = true;
  // Which actives form the stateful set: tasks with any store (the contract's meaning) or, as
  // Kafka counts them, tasks with a logged store (the others join the stateless set).
  bool stateful_means_logged = false;
};

struct RackAwareResult {
  bool applied = false;              // false: strategy none, no racks (Cluster::has_racks), or no placements
  std::uint64_t placements = 0;      // actives or standby copies in the set
  std::uint64_t moved = 0;           // of them, now on another client
  std::int64_t cost_before = 0;      // traffic cost of the input (its non-overlap cost is 0)
  std::int64_t cost_after = 0;       // traffic + non-overlap cost of the result; never above cost_before
  std::uint64_t traffic_before = 0;  // cross-rack partitions of the set's placements
  std::uint64_t traffic_after = 0;
  std::uint64_t flow_nodes = 0;  // size of the flow graph solved (0 when not applied)
  std::uint64_t flow_arcs = 0;
};

// Re-places the chosen placements of `draft` (see the file comment). Deterministic. Throws
// ConfigError when a cost is negative or so large that the total could overflow 64 bits.
RackAwareResult optimize_rack_aware(const Cluster& cluster, const LagModel& lags, AssignmentDraft& draft,
                                    const RackAwareOptions& options);

struct RackAwarePasses {
  RackAwareResult stateful_actives;
  RackAwareResult stateless_actives;
  RackAwareResult standbys;
};

// What a strategy does to honour `settings.rack_aware.strategy` (nothing when it is `none`):
// optimise the stateful actives and the standbys at the configured costs (or `defaults`, the
// strategy's own), and the stateless actives at Kafka's fixed stateless costs (1, 0). Tag spread is
// kept when `settings.rack_aware.tags` is set.
RackAwarePasses apply_rack_awareness(const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                                     AssignmentDraft& draft, RackAwareCosts defaults);

}  // namespace assignor
