// stateless_spread: an example third-party strategy.
//
// Idea: stateful tasks are what makes a client busy for long (restores, state stores), so keep
// them where their state is (the SDK's sticky placement, which balances per thread), then give the
// stateless tasks to the clients with the fewest stateful tasks per thread, so that stateless work
// flows to the clients with the least state.
#include <assignor/sdk.hpp>

#include <vector>

namespace {

using namespace assignor;

class StatelessSpread final : public Strategy {
 public:
  explicit StatelessSpread(const StrategyParams& params) { params.reject_unknown({}); }

  Assignment assign(const AssignmentInput& in) override {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    if (cluster.client_count() == 0) return draft.finish(false);

    // 1. The SDK's sticky placement of every task; then the stateless tasks are taken back: only
    //    where the stateful ones landed is kept.
    place_sticky_actives(cluster, draft);
    std::vector<std::uint32_t> stateful_count(cluster.client_count(), 0);
    for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
      if (cluster.tasks[t].stateful)
        ++stateful_count[draft.active(t)];
      else
        draft.set_active(t, kNoClient);
    }

    // 2. Stateless tasks to the clients with the fewest stateful tasks per thread, counting the
    //    stateless ones already given, so they spread instead of piling onto one client.
    LoadQueue queue(client_threads(cluster), stateful_count);
    for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
      if (cluster.tasks[t].stateful) continue;
      const ClientIndex c = queue.least();
      draft.set_active(t, c);
      queue.add(c, 1);
    }

    // 3. Standbys where the state already is, then least loaded.
    place_sticky_standbys(cluster, draft);
    return draft.finish(/*probing_rebalance=*/false);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(StatelessSpread, "stateless_spread", "1.0.0",
                "Example third-party strategy: sticky stateful tasks, stateless tasks to the clients "
                "with the least state",
                0)
