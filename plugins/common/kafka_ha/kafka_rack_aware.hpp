// Kafka's RackAwareTaskAssignor (KIP-925) as HighAvailabilityTaskAssignor and
// LegacyStickyTaskAssignor call it, with Kafka's answer: its graphs (MinTrafficGraphConstructor,
// BalanceSubtopologyGraphConstructor), its cost model and its min-cost flow (kafka_min_cost_flow.hpp).
//
// Cost of task t on client c: traffic_cost for each of t's partitions whose replica racks exclude
// c's rack (standbys are costed on the changelog partitions; a cluster file has none, so on the input
// partitions, as the recorded answers were), plus non_overlap_cost when c does not hold t now.
//   - optimize_actives: one graph over the given tasks (task order) and every client (Kafka's
//     order): source -> task (capacity 1, flow 1), task -> client (capacity 1, the cost, flow 1 where
//     the task is now), client -> sink (capacity and flow = the client's current count of these
//     tasks): the per-client counts are kept exactly. balance_subtopology instead routes each task
//     through a (client, sub-topology) node whose capacity is ceil(count x sub-topology tasks / tasks),
//     starts from Kafka's breadth-first max flow, and moves every task whose flow ends elsewhere.
//   - optimize_standbys: up to 4 rounds over client pairs (i < j, Kafka's order) on different racks;
//     a pair whose clients both hold standbys the other could take gets a two-client min-traffic
//     graph over those standbys (a swap keeps both counts), until a round moves nothing.
// Clients are the draft's indices, already in Kafka's order (kafka_identity.hpp).
#pragma once

#include <assignor/assignment.hpp>
#include <assignor/model.hpp>
#include <assignor/rack_aware.hpp>
#include <assignor/settings.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace assignor::plugins::kafka_ha {

struct RackCosts {
  std::int32_t traffic = 0;
  std::int32_t non_overlap = 0;
};
// STATELESS_TRAFFIC_COST, STATELESS_NON_OVERLAP_COST.
inline constexpr RackCosts kStatelessCosts{1, 0};

// rack_aware.traffic_cost / non_overlap_cost as configured, else the assignor's `defaults` (the SDK's
// rack_aware_costs), as the int costs Kafka's graphs carry.
RackCosts configured_costs(const RackAwareSettings& settings, RackAwareCosts defaults);

struct RackResult {
  std::int64_t cost = 0;     // Kafka's total cost after optimising (optimizeActiveTasks' return)
  std::uint64_t cycles = 0;  // negative cycles cancelled
  std::uint64_t moved = 0;   // placements that changed client
};

// canEnableRackAwareAssignor: a rack_aware.strategy is set, every client has a rack and every
// partition of every task has replica racks. Otherwise false, with a warning naming what is missing
// and `strategy_name` (once per call).
bool rack_awareness_enabled(const Cluster& cluster, const RackAwareSettings& settings, const char* strategy_name);

// The tasks with a changelog (Kafka's stateful tasks), or without, in task order.
std::vector<TaskIndex> tasks_with_changelog(const Cluster& cluster, bool with);

// optimizeActiveTasks(tasks, clients, traffic, nonOverlap); `tasks` in task order.
RackResult optimize_actives(const Cluster& cluster, RackAwareStrategy strategy, const std::vector<TaskIndex>& tasks,
                            RackCosts costs, AssignmentDraft& draft);

// isAllowedTaskMovement(source, destination, task) of the standby assignor; empty: always.
using StandbyMovePredicate = std::function<bool(ClientIndex source, ClientIndex destination, TaskIndex task)>;

// The tag-aware standby assignor's isAllowedTaskMovement(source, destination, task): the task's
// holders (active and standbys) keep at least as many distinct values of the configured tag keys.
bool keeps_tag_spread(const Cluster& cluster, const std::vector<std::string>& tag_keys, const AssignmentDraft& draft,
                      ClientIndex source, ClientIndex destination, TaskIndex task);

// optimizeStandbyTasks(clients, traffic, nonOverlap, predicate).
RackResult optimize_standbys(const Cluster& cluster, RackCosts costs, const StandbyMovePredicate& allowed,
                             AssignmentDraft& draft);

}  // namespace assignor::plugins::kafka_ha
