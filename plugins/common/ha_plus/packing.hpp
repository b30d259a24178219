// high_availability_plus's packing: KIP-441 as Kafka means it, with the rough edges of Kafka's
// implementation taken off. Shared by the high_availability_plus and min_traffic strategies.
//
// Where it differs from Kafka's HighAvailabilityTaskAssignor (plugins/high_availability), and why:
//   - stateful actives are spread round the clients in task order with per-client counts in
//     proportion to threads (highest averages), computed directly: Kafka deals them round-robin
//     ignoring threads and then moves them pairwise only while a move does not reverse the
//     imbalance, which can leave a client with twice the load per thread of another;
//   - tasks whose stores are all non-logged are placed with the stateful ones (they hold state, even
//     if there is nothing to restore it from); Kafka treats them as stateless and places them last;
//   - standbys are evened out from the most to the least loaded client (SDK balance_standbys), not by
//     Kafka's passes in client-id order, which stop at a higher spread;
//   - movements are planned by the SDK (plan_warmups): most constrained task first, and a standby
//     falls back only to a client strictly more caught up than its holder (Kafka also takes one with
//     the same lag and a lower id, a move that gains nothing and costs a warmup);
//   - with sticky_target (the default), the target itself keeps history: a previous owner keeps its
//     stateful actives within the quotas, the others go to a caught-up client with room, else to
//     the least loaded (the SDK's place_actives_sticky under LayeredQuotas::by_state), and stateless
//     tasks stay with their owners within their share of the target (fill_stateless_sticky against
//     the target). Kafka re-deals every stateful active each rebalance, so it moves most of a group
//     that another assignor settled and, on a settled group of its own deal, the round-robin deal
//     only holds while the clients keep their order; a group this packing settled stays as it is
//     (the conformance kit's stability property);
//   - with keep_history (the default), history counts where Kafka ignores it: an active that cannot
//     go to its target yet stays on the client running it now when that client is caught up (Kafka
//     hands it to the least-loaded caught-up client, often another one), and standbys stay with
//     their previous holders under a balanced quota (sticky.hpp) before the least-loaded rule, so
//     the caught-up copies that movements swap with are the same from one rebalance to the next,
//     and a group converges in fewer probing rounds (docs/strategies.md has the figures).
#pragma once

#include <assignor/strategy.hpp>
#include <assignor/warmups.hpp>

namespace assignor::plugins::ha_plus {

struct PackOptions {
  bool keep_history = true;  // false: standbys least loaded, movements to the least-loaded caught-up client
  // true: the target keeps each stateful active with its previous owner while that stays within the
  // quotas (a settled group stays as it is); false: dealt round the clients ignoring history, as
  // Kafka deals it.
  bool sticky_target = true;
};

// Fills `draft` (made for in.cluster with in.settings.num_standby_replicas) with actives, standbys,
// warmups and stateless tasks; the plan says whether a probing rebalance is needed.
WarmupPlan pack(const AssignmentInput& in, AssignmentDraft& draft, const PackOptions& options = {});

}  // namespace assignor::plugins::ha_plus
