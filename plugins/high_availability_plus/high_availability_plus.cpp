// high_availability_plus: KIP-441 high availability, ours: Kafka's HighAvailabilityTaskAssignor with
// capacity-proportional quotas, non-logged stateful tasks placed with the stateful ones, standbys
// evened out from the most loaded client, strict-lag movements, and history kept where Kafka
// ignores it (ha_plus/packing.hpp says each difference and why). Parameters `sticky_target` (default true):
// false deals the stateful actives ignoring history, as Kafka does; `keep_history` (default true):
// false chooses standby holders and interim active owners by load alone, as Kafka does. The result
// is as available as Kafka's (never a restoring active, warmups within max_warmup_replicas,
// probing while a move is pending) and at least as balanced.
//
// With rack_aware.strategy set (and racks known), the SDK's rack-aware optimiser (KIP-925) then
// re-places stateful actives, standbys and stateless actives at unchanged per-client counts to cut
// cross-rack traffic, never less caught up. Kafka's default costs: 10 / 1.
#include <assignor/plugin.hpp>
#include <assignor/rack_aware.hpp>

#include "ha_plus/packing.hpp"

namespace {

using namespace assignor;

class HighAvailabilityPlus final : public Strategy {
 public:
  explicit HighAvailabilityPlus(const StrategyParams& params) {
    params.reject_unknown({"keep_history", "sticky_target"});
    options_.keep_history = params.get_bool("keep_history", true);
    options_.sticky_target = params.get_bool("sticky_target", true);
  }

  Assignment assign(const AssignmentInput& in) override {
    AssignmentDraft draft(in.cluster, in.settings.num_standby_replicas);
    const WarmupPlan plan = plugins::ha_plus::pack(in, draft, options_);
    apply_rack_awareness(in.cluster, in.settings, in.lags, draft, kHighAvailabilityRackCosts);
    return draft.finish(plan.probing_rebalance_needed());
  }

 private:
  plugins::ha_plus::PackOptions options_;
};

}  // namespace

ASSIGNOR_PLUGIN(HighAvailabilityPlus, "high_availability_plus", "1.0.0",
                "KIP-441 high availability, ours: Kafka's assignor with thread-proportional quotas, "
                "non-logged state placed as state and strict-lag movements",
                assignor::kCapabilityHighAvailability)
