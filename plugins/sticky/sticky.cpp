// sticky: Kafka Streams' pre-KIP-441 sticky assignor, LegacyStickyTaskAssignor, giving Kafka's own
// answer (legacy_sticky/legacy_sticky.hpp: Kafka's steps, with Kafka's HashMap and HashSet orders).
//
// Lags play no part (this assignor predates KIP-441): no warmups and never a probing rebalance, so
// it may run a stateful active on a client without its state. It declares no capability.
//
// Rack awareness: with rack_aware.strategy set (and rack information everywhere), Kafka's
// RackAwareTaskAssignor re-places the stateful actives, the stateless actives (costs 1, 0) and the
// standbys at unchanged per-client counts, with the legacy assignor's defaults (traffic cost 1,
// non-overlap 10): kafka_ha/kafka_rack_aware.hpp. rack_aware.tags play no part: Kafka's
// legacy assignor ignores client tags.
#include <assignor/rack_aware.hpp>
#include <assignor/sdk.hpp>

#include "kafka_ha/kafka_rack_aware.hpp"
#include "legacy_sticky/legacy_sticky.hpp"

namespace {

using namespace assignor;
namespace kafka_ha = assignor::plugins::kafka_ha;
namespace legacy_sticky = assignor::plugins::legacy_sticky;

// LegacyStickyTaskAssignor's optimizeActive (after the actives) and optimizeStandby (after the
// standbys), when Kafka's rule enables rack awareness.
void optimize_racks(const AssignmentInput& in, AssignmentDraft& draft, legacy_sticky::Step step) {
  const kafka_ha::RackCosts costs = kafka_ha::configured_costs(in.settings.rack_aware, kStickyRackCosts);
  if (step == legacy_sticky::Step::actives_placed) {
    kafka_ha::optimize_actives(in.cluster, in.settings.rack_aware.strategy,
                               kafka_ha::tasks_with_changelog(in.cluster, true), costs, draft);
    kafka_ha::optimize_actives(in.cluster, in.settings.rack_aware.strategy,
                               kafka_ha::tasks_with_changelog(in.cluster, false), kafka_ha::kStatelessCosts, draft);
  } else if (draft.standbys_wanted() > 0) {
    kafka_ha::optimize_standbys(in.cluster, costs, {}, draft);
  }
}

// Rack-aware when Kafka's rule enables it: decided, like the optimisation, on the input in Kafka's order.
Assignment sticky(const AssignmentInput& in) {
  return legacy_sticky::assign_in_kafka_order(in, /*probing_rebalance=*/false, [](const AssignmentInput& ordered) {
    legacy_sticky::Options options;
    if (kafka_ha::rack_awareness_enabled(ordered.cluster, ordered.settings.rack_aware, "sticky"))
      options.between_steps = [&ordered](AssignmentDraft& d, legacy_sticky::Step step) {
        optimize_racks(ordered, d, step);
      };
    return options;
  });
}

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<sticky>, "sticky", "2.0.0",
                "Kafka Streams' pre-KIP-441 sticky assignor (LegacyStickyTaskAssignor), Kafka's answer tie for tie: "
                "previous owners keep tasks up to tasks-per-thread, standby holders next, least-loaded last",
                0)
