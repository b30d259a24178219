// fallback_prior: every previous active stays where it was, whatever the balance; used when the end
// offsets are unknown (lags cannot be trusted), so the group keeps processing and retries soon.
//
// This is Kafka's FallbackPriorTaskAssignor: the sticky placement (assignor/sticky.hpp) with every
// previous active preserved. Tasks without a live previous owner go where `sticky` would put them
// (a previous standby holder under the balanced quota, else the least-loaded client), and standbys
// are placed as `sticky` places them (previous holders first). Always asks for a probing rebalance.
#include <assignor/sdk.hpp>

namespace {

using namespace assignor;

class FallbackPrior final : public Strategy {
 public:
  explicit FallbackPrior(const StrategyParams& params) { params.reject_unknown({}); }

  // Kafka's client-side assignors see the clients in process-id order (Java's UUID order when the
  // ids are UUIDs, as in an imported group): the packing runs in that order (kafka_identity.hpp).
  Assignment assign(const AssignmentInput& in) override {
    return assign_in_kafka_client_order(in, [this](const AssignmentInput& kafka) { return pack(kafka); });
  }

  Assignment pack(const AssignmentInput& in) {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    StickyOptions options;
    options.preserve_previous_actives = true;
    place_sticky_actives(cluster, draft, options);
    place_sticky_standbys(cluster, draft);
    return draft.finish(/*probing_rebalance=*/true);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(FallbackPrior, "fallback_prior", "1.0.0",
                "Keeps every previous active where it was and asks for a probing rebalance; used "
                "when end offsets are unknown",
                assignor::kCapabilityHandlesUnknownLags)
