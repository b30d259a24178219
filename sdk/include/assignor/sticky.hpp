// Sticky placement after the idea of Kafka Streams' pre-KIP-441 assignor (LegacyStickyTaskAssignor),
// as two SDK steps with a balanced quota, for any strategy: high_availability_plus and min_traffic
// (plugins/common/ha_plus) and weighted keep previous standbys with place_sticky_standbys. The `sticky`
// and `fallback_prior` strategies use neither step: they give Kafka's exact answer, with Kafka's own
// steps and orders (plugins/common/legacy_sticky).
//
// Actives (place_sticky_actives), every task that has no active in the draft yet:
//   1. goes back to its previous active owner while that client is under the balanced quota
//      (stateful tasks first: moving a stateless task costs nothing), or always with
//      StickyOptions::preserve_previous_actives;
//   2. else to the least-loaded previous standby holder under the quota;
//   3. else, in task order, to the least-loaded client by active tasks per thread (ties: more threads,
//      then client index), preferring among equally loaded clients the one holding the fewest actives
//      of the task's sub-topology.
// The balanced quota: with q = floor(tasks / threads) and r = tasks - q * threads, every client may
// hold q tasks per thread, and r more tasks may go, at most one per thread, to whichever clients claim
// them first. Every step respects it (step 3 always picks a client within it), so the result has every
// client's active tasks per thread in [q, q + 1]: balanced, unlike Kafka's integer quota, which
// leaves the remainder to chance. Only preserved previous actives may exceed it.
//
// Standbys (place_sticky_standbys), num_standby_replicas copies of every task with a logged store:
//   1. the previous active owner (if it no longer runs the task) and then the previous standby
//      holders, least loaded first, keep a copy while under the same kind of quota, counted over all
//      tasks held (actives + standbys);
//   2. the remaining copies go, in task order, to the least-loaded clients (all tasks held per thread)
//      that do not hold the task, preferring among equally loaded clients the one that creates the
//      fewest repeated task pairs (see sticky.cpp: our take on Kafka's TaskPairs);
//   3. balance_standbys() then evens out what the one-copy-per-client rule left uneven.
// No warmups and no lags: this is placement by previous ownership only.
//
//   AssignmentDraft draft(cluster, settings.num_standby_replicas);
//   place_sticky_actives(cluster, draft);
//   const std::uint64_t missing = place_sticky_standbys(cluster, draft);
//   return draft.finish(/*probing_rebalance=*/false);
#pragma once

#include <cstdint>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"

namespace assignor {

struct StickyOptions {
  // Every previous active stays with its previous owner whatever the balance (what Kafka's
  // FallbackPriorTaskAssignor asks with mustPreserveActiveTaskAssignment); only the other tasks are
  // placed by the quota.
  bool preserve_previous_actives = false;
};

struct StickyActivesResult {
  std::uint64_t kept_previous = 0;       // stayed with their previous active owner
  std::uint64_t to_standby_holders = 0;  // went to a previous standby holder
  std::uint64_t to_least_loaded = 0;     // went to the least-loaded client
};

// Places every task without an active in the draft (tasks already active in it stay and count).
StickyActivesResult place_sticky_actives(const Cluster& cluster, AssignmentDraft& draft,
                                         const StickyOptions& options = {});

// Places the draft's num_standby_replicas standbys of every task with a logged store, keeping the
// standbys already in the draft. Returns the number of standbys that could not be placed (too few
// clients), like place_standbys_least_loaded().
std::uint64_t place_sticky_standbys(const Cluster& cluster, AssignmentDraft& draft);

}  // namespace assignor
