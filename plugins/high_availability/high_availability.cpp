// high_availability: Kafka Streams 3.x's HighAvailabilityTaskAssignor (KIP-441), reproducing Kafka's
// own answer: the same actives, standbys and warmups per client and the same probing decision
// (checked against assignments recorded from Kafka's code, tests/data/kafka-golden). Kafka's steps
// (the headers named are in plugins/common/kafka_ha):
//
// 1. Stateful tasks (Kafka's meaning: tasks with a changelog, i.e. a logged store) are dealt
//    round-robin over the clients in id order, in task order, ignoring history and threads; then
//    balanced over threads by Kafka's pairwise passes (balance_over_threads.hpp).
// 2. num_standby_replicas standbys of each of them, in task order, each on the least-loaded client
//    (tasks held / threads, ties by id) without a copy; then balanced by the same pairwise passes.
//    With rack_aware.tags set, Kafka's ClientTagAwareStandbyTaskAssignor places them instead
//    (tag_aware_standbys.hpp), and they only move between clients whose tags are equal, as its
//    isAllowedTaskMovement allows.
// 3. With rack_aware.strategy set and rack information on every client and every task's partitions
//    (Kafka's enabling rule; otherwise off, with a warning), Kafka's RackAwareTaskAssignor
//    (kafka_rack_aware.hpp: its graphs, costs and cycle-cancelling min-cost flow) re-places the actives
//    of step 1 and the standbys of step 2 at unchanged per-client counts to cut cross-rack traffic
//    (KIP-925), before the movement step, as Kafka orders it.
// 4. Kafka's movement step (task_movement.hpp) keeps each stateful active on a caught-up client while
//    its balanced client warms up, within max_warmup_replicas, and moves standbys off clients that
//    are not caught up. Lags are Kafka's own (kafka_lags.hpp).
// 5. Every other task (stateless, or with only non-logged stores: Kafka has nothing to restore for
//    it), in task order, goes to the client with the fewest actives per thread; with racks, those are
//    optimised at Kafka's stateless costs (1, 0).
// 6. A probing rebalance is requested when any movement was scheduled.
#include <assignor/balance.hpp>
#include <assignor/kafka_identity.hpp>
#include <assignor/plugin.hpp>
#include <assignor/rack_aware.hpp>

#include <string>
#include <vector>

#include "kafka_ha/balance_over_threads.hpp"
#include "kafka_ha/kafka_lags.hpp"
#include "kafka_ha/kafka_rack_aware.hpp"
#include "kafka_ha/tag_aware_standbys.hpp"
#include "kafka_ha/task_movement.hpp"

namespace {

using namespace assignor;
namespace kafka_ha = assignor::plugins::kafka_ha;
using kafka_ha::BalancedRole;

// Step 1: task i of the stateful tasks goes to client i mod n.
void deal_round_robin(const Cluster& cluster, AssignmentDraft& draft) {
  const auto n = static_cast<ClientIndex>(cluster.client_count());
  ClientIndex next = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    draft.set_active(t, next);
    next = (next + 1) % n;
  }
}

class HighAvailability final : public Strategy {
 public:
  explicit HighAvailability(const StrategyParams& params) { params.reject_unknown({}); }

  // Kafka's client-side assignors see the clients in process-id order (Java's UUID order when the
  // ids are UUIDs, as in an imported group): the packing runs in that order (kafka_identity.hpp).
  Assignment assign(const AssignmentInput& in) override {
    return assign_in_kafka_client_order(in, [this](const AssignmentInput& kafka) { return pack(kafka); });
  }

  Assignment pack(const AssignmentInput& in) {
    const Cluster& cluster = in.cluster;
    const AssignmentSettings& settings = in.settings;
    AssignmentDraft draft(cluster, settings.num_standby_replicas);
    if (cluster.client_count() == 0) return draft.finish(false);

    const bool racks = kafka_ha::rack_awareness_enabled(cluster, settings.rack_aware, "high_availability");
    const kafka_ha::RackCosts costs = kafka_ha::configured_costs(settings.rack_aware, kHighAvailabilityRackCosts);
    const RackAwareStrategy strategy = settings.rack_aware.strategy;

    deal_round_robin(cluster, draft);
    kafka_ha::TasksByClient actives = kafka_ha::tasks_by_client(draft, BalancedRole::active);
    kafka_ha::balance_tasks_over_threads(draft, BalancedRole::active, actives);
    if (racks)
      kafka_ha::optimize_actives(cluster, strategy, kafka_ha::tasks_with_changelog(cluster, true), costs, draft);

    if (settings.num_standby_replicas > 0) {
      const auto& tags = settings.rack_aware.tags;
      kafka_ha::MovePredicate allowed;
      if (tags.empty()) {
        place_standbys_least_loaded(cluster, draft);
      } else {
        kafka_ha::assign_standbys_tag_aware(cluster, tags, draft);
        allowed = [&](ClientIndex s, ClientIndex d) { return kafka_ha::same_tags(cluster, s, d); };
      }
      kafka_ha::TasksByClient standbys = kafka_ha::tasks_by_client(draft, BalancedRole::standby);
      kafka_ha::balance_tasks_over_threads(draft, BalancedRole::standby, standbys, allowed);
      if (racks) {
        kafka_ha::StandbyMovePredicate keeps_tags;
        if (!tags.empty())
          keeps_tags = [&](ClientIndex s, ClientIndex d, TaskIndex t) {
            return kafka_ha::keeps_tag_spread(cluster, tags, draft, s, d, t);
          };
        kafka_ha::optimize_standbys(cluster, costs, keeps_tags, draft);
      }
    }

    const kafka_ha::KafkaLags lags(cluster, settings.acceptable_recovery_lag);
    const kafka_ha::Movements movements =
        kafka_ha::assign_task_movements(cluster, lags, draft, settings.max_warmup_replicas);

    const std::vector<TaskIndex> others = kafka_ha::tasks_with_changelog(cluster, false);
    fill_by_active_load(cluster, draft, others);
    if (racks) kafka_ha::optimize_actives(cluster, strategy, others, kafka_ha::kStatelessCosts, draft);
    return draft.finish(movements.probing_rebalance_needed());
  }
};

}  // namespace

ASSIGNOR_PLUGIN(HighAvailability, "high_availability", "2.0.0",
                "Kafka Streams 3.x's HighAvailabilityTaskAssignor (KIP-441), Kafka's own answer: actives "
                "kept on caught-up clients through warmups and probing rebalances",
                assignor::kCapabilityHighAvailability)
