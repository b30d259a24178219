// high_availability: Kafka Streams' KIP-441 assignor.
//
// 1. Stateful actives are spread round the clients in task order, ignoring history, with per-client
//    counts proportional to threads (the balanced placement Kafka reaches by round-robin plus
//    pairwise rebalancing).
// 2. num_standby_replicas standbys of every logged task go to the least-loaded clients that do not
//    hold it, then move from the most to the least loaded clients while that lowers the spread. With
//    rack_aware.tags set, each copy goes where the task's tag values are most spread first (KIP-708,
//    SDK tag_standbys.hpp) and balancing only moves standbys between clients with equal tags.
// 3. The SDK's warmup planning keeps every stateful active on a caught-up client when its target is
//    not caught up (swapping with a caught-up standby first), leaves warmups on the targets within
//    max_warmup_replicas, and moves standbys off not-caught-up clients the same way.
// 4. Stateless tasks go, in task order, to the client with the lowest active tasks per thread.
// 5. A probing rebalance is requested when any movement was deferred.
// 6. With rack_aware.strategy set, the SDK's rack-aware optimiser (KIP-925, rack_aware.hpp) re-places
//    stateful actives, standbys and stateless actives at unchanged per-client counts, to cut
//    cross-rack traffic; actives move only to caught-up clients. Kafka's defaults: costs 10 / 1.
#include <assignor/rack_aware.hpp>
#include <assignor/sdk.hpp>
#include <assignor/tag_standbys.hpp>

#include <vector>

namespace {

using namespace assignor;

class HighAvailability final : public Strategy {
 public:
  explicit HighAvailability(const StrategyParams& params) { params.reject_unknown({}); }

  Assignment assign(const AssignmentInput& in) override {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    if (cluster.client_count() == 0) return draft.finish(false);
    spread_stateful_actives_round_robin(cluster, draft);
    const auto& tags = in.settings.rack_aware.tags;
    if (tags.empty()) {
      place_standbys_least_loaded(cluster, draft);
      balance_standbys(cluster, draft);
    } else {
      place_standbys_tag_aware(cluster, tags, draft);
      balance_standbys_within_tags(cluster, tags, draft);
    }
    const WarmupPlan plan = plan_warmups(cluster, in.settings, in.lags, draft);
    fill_stateless_by_active_load(cluster, draft);
    apply_rack_awareness(cluster, in.settings, in.lags, draft, kHighAvailabilityRackCosts);
    return draft.finish(plan.probing_rebalance_needed());
  }
};

}  // namespace

ASSIGNOR_PLUGIN(HighAvailability, "high_availability", "1.0.0",
                "Kafka Streams' KIP-441 assignor: balanced actives kept on caught-up clients through "
                "warmups and probing rebalances",
                assignor::kCapabilityHighAvailability)
