// fallback_prior: every previous active stays where it was, whatever the balance; used when the end
// offsets are unknown (lags cannot be trusted), so the group keeps processing and retries soon.
//
// This is Kafka's FallbackPriorTaskAssignor, giving Kafka's own answer: Kafka's
// LegacyStickyTaskAssignor (../sticky/legacy_sticky.hpp) with every previous active preserved and
// rack awareness off. Tasks without a live previous owner go to a previous standby holder under
// tasks-per-thread, else where Kafka's findClient puts them, and standbys are placed as that
// assignor places them. Always asks for a probing rebalance.
#include <assignor/sdk.hpp>

#include "legacy_sticky.hpp"

namespace {

using namespace assignor;

class FallbackPrior final : public Strategy {
 public:
  explicit FallbackPrior(const StrategyParams& params) { params.reject_unknown({}); }

  // Kafka's client-side assignors see the clients in process-id order (Java's UUID order when the
  // ids are UUIDs, as in an imported group): the packing runs in that order (kafka_identity.hpp).
  Assignment assign(const AssignmentInput& in) override {
    return assign_in_kafka_client_order(in, [](const AssignmentInput& kafka) { return pack(kafka); });
  }

  static Assignment pack(const AssignmentInput& in) {
    AssignmentDraft draft(in.cluster, in.settings.num_standby_replicas);
    legacy_sticky::Options options;
    options.preserve_previous_actives = true;
    legacy_sticky::assign(in.cluster, legacy_sticky::process_id_hashes(in.cluster), options, draft);
    return draft.finish(/*probing_rebalance=*/true);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(FallbackPrior, "fallback_prior", "2.0.0",
                "Kafka's FallbackPriorTaskAssignor: keeps every previous active where it was (Kafka's legacy sticky "
                "placement for the rest) and asks for a probing rebalance; used when end offsets are unknown",
                assignor::kCapabilityHandlesUnknownLags)
