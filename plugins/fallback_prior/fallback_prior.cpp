// fallback_prior: every previous active stays where it was, whatever the balance; used when the end
// offsets are unknown (lags cannot be trusted), so the group keeps processing and retries soon.
//
// This is Kafka's FallbackPriorTaskAssignor, giving Kafka's own answer: Kafka's
// LegacyStickyTaskAssignor (legacy_sticky/legacy_sticky.hpp, shared with sticky) with every previous active preserved and
// rack awareness off. Tasks without a live previous owner go to a previous standby holder under
// tasks-per-thread, else where Kafka's findClient puts them, and standbys are placed as that
// assignor places them. Always asks for a probing rebalance.
#include <assignor/sdk.hpp>

#include "legacy_sticky/legacy_sticky.hpp"

namespace {

using namespace assignor;

Assignment fallback_prior(const AssignmentInput& in) {
  return plugins::legacy_sticky::assign_in_kafka_order(in, /*probing_rebalance=*/true, [](const AssignmentInput&) {
    plugins::legacy_sticky::Options options;
    options.preserve_previous_actives = true;
    return options;
  });
}

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<fallback_prior>, "fallback_prior", "2.0.0",
                "Kafka's FallbackPriorTaskAssignor: keeps every previous active where it was (Kafka's legacy sticky "
                "placement for the rest) and asks for a probing rebalance; used when end offsets are unknown",
                assignor::kCapabilityHandlesUnknownLags)
