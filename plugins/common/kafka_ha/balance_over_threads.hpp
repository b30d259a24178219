// Kafka's balanceTasksOverThreads, with Kafka's result and without its quadratic cost.
//
// Kafka repeats full passes until one moves nothing. A pass visits every ordered pair (source,
// destination) of clients in id order and, while shouldMoveATask(source, destination) holds, moves
// the source's tasks of the role being balanced to the destination in task order, skipping tasks the
// destination already holds (any role). With load = tasks held (actives + standbys) / threads:
//     shouldMoveATask(s, d)  <=>  load(s) > load(d)  and  (held(s) - 1) / threads(s) >= (held(d) + 1) / threads(d)
// and the second condition implies the first. So for a source s the destinations that matter are
// exactly the clients whose load after receiving one task, (held(d) + 1) / threads(d), is at most
// (held(s) - 1) / threads(s). A segment tree over clients in id order keyed by that value finds the
// next such destination in O(log n), so a pass costs O((n + moves) log n) instead of n^2 pair checks,
// and visits the same pairs in the same order as Kafka: the moves are identical. Loads are compared
// exactly (integer cross-multiplication) where Kafka divides doubles; the two agree while
// tasks x threads stays far below 2^52.
#pragma once

#include <assignor/assignment.hpp>

#include <cstdint>
#include <functional>
#include <vector>

namespace assignor::plugins::kafka_ha {

// One sorted list of tasks per client: the tasks of the role being balanced.
using TasksByClient = std::vector<std::vector<TaskIndex>>;

enum class BalancedRole : std::uint8_t { active, standby };

// The draft's tasks of one role, per client, each list in task order.
TasksByClient tasks_by_client(const AssignmentDraft& draft, BalancedRole role);

// May a task move from `source` to `destination`? (Kafka's standby assignor's
// isAllowedTaskMovement; empty: always.)
using MovePredicate = std::function<bool(ClientIndex source, ClientIndex destination)>;

// Balances `role` over the clients like Kafka; `tasks` must be tasks_by_client(draft, role) and is
// kept up to date. Returns the number of moves.
std::uint64_t balance_tasks_over_threads(AssignmentDraft& draft, BalancedRole role, TasksByClient& tasks,
                                         const MovePredicate& allowed = {});

}  // namespace assignor::plugins::kafka_ha
