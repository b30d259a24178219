// The KIP-1071 assignment refiner (Kafka 4.x, `AssignmentRefinerImpl`) as a step any strategy can
// run after its placement: it turns a target assignment into what the group may run now.
//
// For every stateful task with a changelog, in task order, whose target client is not the client
// running it (its previous active owner), or is that owner while it is not caught up (it did not
// report the task as running, -2):
//   - the move is granted at once when the target is caught up on the task;
//   - else the task stays hot: on its previous active owner when that one is caught up, else on the
//     best caught-up copy (a client the target does not name as a standby first, then the least
//     loaded, then the lowest index), and the target warms up;
//   - else (nobody caught up) the move is granted: on state the target has on disk, or cold.
// A staged task needs a copy on its target: a standby the target already holds is used as is
// (free; Kafka's BORROW), a standby the draft put on the client that keeps the task swaps roles
// with the target, and otherwise a warmup is placed when the group-wide budget
// (max_warmup_replicas) allows: first where the target already held a copy before (Kafka's KEEP,
// tier 0), then new ones (tier 1), then both again on targets that are themselves restoring an
// active (tiers 2, 3); within a tier the least-loaded target first, then task order. An unfunded
// move is parked: the task stays hot and nothing warms up. Any staged task asks for a probing
// rebalance (the next rebalance tries again).
//
// Differences from Kafka's refiner: processes are clients (a move inside one process does not
// exist here); a caught-up copy wins over state on disk when the running client is gone (Kafka
// grants the move to the on-disk target first, which can leave an active restoring while a
// caught-up copy exists); and a previous owner counts as running the task only when it reports it
// so (Kafka's members running a task always do; a cluster file can say otherwise).
//
//   AssignmentDraft draft = ...;                      // the strategy's target
//   const RefinerResult r = refine_kip1071(cluster, settings, lags, draft);
//   return draft.finish(r.probing_rebalance_needed());
#pragma once

#include <cstdint>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/settings.hpp"

namespace assignor {

struct RefinerResult {
  std::uint32_t granted = 0;         // moves granted at once (target caught up, or nobody is)
  std::uint32_t granted_cold = 0;    // of those, moves to a target that is not caught up
  std::uint32_t staged = 0;          // tasks kept hot away from their target
  std::uint32_t warmups_placed = 0;  // warmups funded from the budget
  std::uint32_t parked = 0;          // staged tasks left without a copy on their target (budget spent)
  bool probing_rebalance_needed() const noexcept { return staged > 0; }
};

// `draft` holds the strategy's target actives and standbys and no warmups yet; afterwards it holds
// what may run now, with warmups.
RefinerResult refine_kip1071(const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                             AssignmentDraft& draft);

}  // namespace assignor
