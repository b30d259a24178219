// sticky: Kafka Streams' pre-KIP-441 sticky assignor, LegacyStickyTaskAssignor, giving Kafka's own
// answer (legacy_sticky.hpp: Kafka's steps, with Kafka's HashMap and HashSet orders).
//
// Lags play no part (this assignor predates KIP-441): no warmups and never a probing rebalance, so
// it may run a stateful active on a client without its state. It declares no capability.
//
// Rack awareness: with rack_aware.strategy set, Kafka re-places actives and standbys at unchanged
// per-client counts (its RackAwareTaskAssignor, sticky defaults: traffic cost 1, non-overlap 10);
// here the SDK's optimiser does that step (the same minimum cost; see docs/strategies.md).
// rack_aware.tags play no part: Kafka's legacy assignor ignores client tags.
#include <assignor/rack_aware.hpp>
#include <assignor/sdk.hpp>

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
    legacy_sticky::assign(in.cluster, legacy_sticky::process_id_hashes(in.cluster), {}, draft);
    apply_rack_awareness(in.cluster, in.settings, in.lags, draft, kStickyRackCosts);
    return draft.finish(/*probing_rebalance=*/false);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(Sticky, "sticky", "2.0.0",
                "Kafka Streams' pre-KIP-441 sticky assignor (LegacyStickyTaskAssignor), Kafka's answer tie for tie: "
                "previous owners keep tasks up to tasks-per-thread, standby holders next, least-loaded last",
                0)
