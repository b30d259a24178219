// min_traffic: KIP-925 rack awareness on top of KIP-441. The high_availability placement, then the
// SDK's min-cost-flow optimiser (assignor/rack_aware.hpp) on the stateful actives, the standbys and
// the stateless actives, so that as few input partitions as possible are read from another rack.
//
// 1-5. Exactly high_availability's steps (see plugins/high_availability): stateful actives spread in
//      proportion to threads, standbys (tag-aware when rack_aware.tags is set), warmup planning that
//      keeps every stateful active on a caught-up client, stateless tasks by active load, probing.
// 6.   The optimiser re-places each set at unchanged per-client counts, so every client holds as many
//      actives, standbys and warmups as under high_availability. A stateful active only moves to a
//      caught-up client (or, when nobody is caught up, one at least as caught up): never a restoring
//      active. Costs: rack_aware.traffic_cost / non_overlap_cost, else Kafka's high-availability
//      defaults 10 / 1; stateless actives always 1 / 0.
//
// rack_aware.strategy `none` (the default) means min_traffic here, since optimising is the point of
// this strategy; `balance_subtopology` adds Kafka's per-sub-topology bound. Without racks
// (Cluster::has_racks) the result is high_availability's.
#include <assignor/rack_aware.hpp>
#include <assignor/sdk.hpp>
#include <assignor/tag_standbys.hpp>

#include <vector>

namespace {

using namespace assignor;

class MinTraffic final : public Strategy {
 public:
  explicit MinTraffic(const StrategyParams& params) { params.reject_unknown({}); }

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

    AssignmentSettings settings = in.settings;
    if (settings.rack_aware.strategy == RackAwareStrategy::none)
      settings.rack_aware.strategy = RackAwareStrategy::min_traffic;
    apply_rack_awareness(cluster, settings, in.lags, draft, kHighAvailabilityRackCosts);
    return draft.finish(plan.probing_rebalance_needed());
  }
};

}  // namespace

ASSIGNOR_PLUGIN(MinTraffic, "min_traffic", "1.0.0",
                "KIP-925 rack awareness: high_availability, then min-cost flow to cut cross-rack traffic "
                "at unchanged per-client counts, never a restoring active",
                assignor::kCapabilityHighAvailability)
