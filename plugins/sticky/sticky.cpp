// sticky: Kafka Streams' pre-KIP-441 sticky assignor (LegacyStickyTaskAssignor), deterministic.
//
// Previous active owners keep their tasks up to a balanced quota (q tasks per thread, the remainder
// at most one per thread), previous standby holders take what is left under the quota, and the rest
// go to the least-loaded client by tasks per thread (ties: more threads first), preferring not to
// stack one sub-topology on a client. Standbys: previous holders under the quota first, then the
// least-loaded clients without the task, avoiding repeated task pairs. The whole placement lives in
// the SDK (assignor/sticky.hpp) because fallback_prior places orphaned tasks the same way.
//
// Lags play no part (this strategy predates KIP-441): no warmups and never a probing rebalance, so
// it may run a stateful active on a client without its state. It declares no capability.
//
// Rack awareness (SDK): with rack_aware.tags set, standbys go where the task's tag values are most
// spread (KIP-708), a previous holder first among the best spread, then balance within equal tags;
// with rack_aware.strategy set, the KIP-925 optimiser re-places actives and standbys at unchanged
// per-client counts with Kafka's sticky defaults (traffic 1, non-overlap 10: stickiness first). The
// optimiser never moves a stateful active to a less caught-up client.
#include <assignor/rack_aware.hpp>
#include <assignor/sdk.hpp>
#include <assignor/tag_standbys.hpp>

namespace {

using namespace assignor;

class Sticky final : public Strategy {
 public:
  explicit Sticky(const StrategyParams& params) { params.reject_unknown({}); }

  // Kafka's client-side assignors see the clients in process-id order (Java's UUID order when the
  // ids are UUIDs, as in an imported group): the packing runs in that order (kafka_identity.hpp).
  Assignment assign(const AssignmentInput& in) override {
    return assign_in_kafka_client_order(in, [this](const AssignmentInput& kafka) { return pack(kafka); });
  }

  Assignment pack(const AssignmentInput& in) {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    place_sticky_actives(cluster, draft);
    const auto& tags = in.settings.rack_aware.tags;
    if (tags.empty()) {
      place_sticky_standbys(cluster, draft);
    } else {
      place_standbys_tag_aware(cluster, tags, draft, {.prefer_previous_holders = true});
      balance_standbys_within_tags(cluster, tags, draft);
    }
    apply_rack_awareness(cluster, in.settings, in.lags, draft, kStickyRackCosts);
    return draft.finish(/*probing_rebalance=*/false);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(Sticky, "sticky", "1.0.0",
                "Kafka Streams' pre-KIP-441 sticky assignor: previous owners keep tasks up to a "
                "balanced quota, standby holders next, least-loaded last",
                0)
