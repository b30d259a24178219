// min_traffic: KIP-925 rack awareness, ours. high_availability_plus's packing (ha_plus/packing.hpp, with
// its defaults: a sticky target and history kept), then the SDK's min-cost-flow optimiser
// (assignor/rack_aware.hpp) on the stateful actives, the standbys and the stateless actives, so
// that as few input partitions as possible are read from another rack.
//
// The optimiser runs last, on the finished assignment, and re-places each set at unchanged
// per-client counts: every client holds as many actives, standbys and warmups as under
// high_availability_plus. A stateful active only moves to a caught-up client (or, when nobody is
// caught up, one at least as caught up): never a restoring active. Kafka instead optimises before
// its movement step (high_availability does that with rack_aware.strategy set), so the movement step
// can undo part of the gain. Costs: rack_aware.traffic_cost / non_overlap_cost, else Kafka's
// high-availability defaults 10 / 1; stateless actives always 1 / 0.
//
// Until SDK 0.6 it packed with keep_history off and a target dealt ignoring history, counting on
// the optimiser's non-overlap cost for stickiness; but that cost only weighs moves away from the
// dealt target, not from where tasks run, so a settled group was re-dealt every rebalance (it
// failed the conformance kit's stability property; docs/strategies.md says by how much).
//
// rack_aware.strategy `none` (the default) means min_traffic here, since optimising is the point of
// this strategy; `balance_subtopology` adds Kafka's per-sub-topology bound. Without racks
// (Cluster::has_racks) the result is high_availability_plus's.
#include <assignor/function_strategy.hpp>
#include <assignor/plugin.hpp>
#include <assignor/rack_aware.hpp>

#include "ha_plus/packing.hpp"

namespace {

using namespace assignor;

Assignment min_traffic(const AssignmentInput& in) {
  AssignmentDraft draft(in.cluster, in.settings.num_standby_replicas);
  const WarmupPlan plan = plugins::ha_plus::pack(in, draft);
  AssignmentSettings settings = in.settings;
  if (settings.rack_aware.strategy == RackAwareStrategy::none)
    settings.rack_aware.strategy = RackAwareStrategy::min_traffic;
  apply_rack_awareness(in.cluster, settings, in.lags, draft, kHighAvailabilityRackCosts);
  return draft.finish(plan.probing_rebalance_needed());
}

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<min_traffic>, "min_traffic", "1.0.0",
                "KIP-925 rack awareness: high_availability_plus, then min-cost flow to cut cross-rack "
                "traffic at unchanged per-client counts, never a restoring active",
                assignor::kCapabilityHighAvailability)
