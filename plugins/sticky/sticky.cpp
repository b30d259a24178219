// sticky: Kafka Streams' pre-KIP-441 sticky assignor, LegacyStickyTaskAssignor, giving Kafka's own
// answer (legacy_sticky.hpp: Kafka's steps, with Kafka's HashMap and HashSet orders).
//
// Lags play no part (this assignor predates KIP-441): no warmups and never a probing rebalance, so
// it may run a stateful active on a client without its state. It declares no capability.
//
// Rack awareness: with rack_aware.strategy set (and rack information everywhere), Kafka's
// RackAwareTaskAssignor re-places the stateful actives, the stateless actives (costs 1, 0) and the
// standbys at unchanged per-client counts, with the legacy assignor's defaults (traffic cost 1,
// non-overlap 10): ../high_availability/kafka_rack_aware.hpp. rack_aware.tags play no part: Kafka's
// legacy assignor ignores client tags.
#include <assignor/rack_aware.hpp>
#include <assignor/sdk.hpp>

#include <cstdint>

#include "kafka_rack_aware.hpp"
#include "legacy_sticky.hpp"

namespace {

using namespace assignor;

class Sticky final : public Strategy {
 public:
  explicit Sticky(const StrategyParams& params) { params.reject_unknown({}); }

  // Kafka's client-side assignors see the clients in process-id order (Java's UUID order when the
  // ids are UUIDs, as in an imported group): the packing runs in that order (kafka_identity.hpp).
  Assignment assign(const AssignmentInput& in) override {
    return assign_in_kafka_client_order(in, [](const AssignmentInput& kafka) { return pack(kafka); });
  }

  static Assignment pack(const AssignmentInput& in) {
    AssignmentDraft draft(in.cluster, in.settings.num_standby_replicas);
    legacy_sticky::Options options;
    if (kafka::rack_awareness_enabled(in.cluster, in.settings.rack_aware, "sticky"))
      options.between_steps = [&](AssignmentDraft& d, legacy_sticky::Step step) { optimize_racks(in, d, step); };
    legacy_sticky::assign(in.cluster, legacy_sticky::process_id_hashes(in.cluster), options, draft);
    return draft.finish(/*probing_rebalance=*/false);
  }

  // LegacyStickyTaskAssignor's optimizeActive (after the actives) and optimizeStandby (after the
  // standbys), when Kafka's rule enables rack awareness.
  static void optimize_racks(const AssignmentInput& in, AssignmentDraft& draft, legacy_sticky::Step step) {
    const RackAwareCosts configured = rack_aware_costs(in.settings.rack_aware, kStickyRackCosts);
    const kafka::RackCosts costs{static_cast<std::int32_t>(configured.traffic),
                                 static_cast<std::int32_t>(configured.non_overlap)};
    if (step == legacy_sticky::Step::actives_placed) {
      kafka::optimize_actives(in.cluster, in.settings.rack_aware.strategy,
                              kafka::tasks_with_changelog(in.cluster, true), costs, draft);
      kafka::optimize_actives(in.cluster, in.settings.rack_aware.strategy,
                              kafka::tasks_with_changelog(in.cluster, false), kafka::kStatelessCosts, draft);
    } else if (draft.standbys_wanted() > 0) {
      kafka::optimize_standbys(in.cluster, costs, {}, draft);
    }
  }
};

}  // namespace

ASSIGNOR_PLUGIN(Sticky, "sticky", "2.0.0",
                "Kafka Streams' pre-KIP-441 sticky assignor (LegacyStickyTaskAssignor), Kafka's answer tie for tie: "
                "previous owners keep tasks up to tasks-per-thread, standby holders next, least-loaded last",
                0)
