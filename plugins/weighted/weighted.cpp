// weighted: balance the load, not the task count. Tasks carry a weight (DESIGN 4.1: an estimate
// such as the input rate, default 1); this strategy balances the sum of the weights of each
// client's active tasks per thread, with KIP-441's availability rules.
//
// 1. The target (weighted/weighted_packing.hpp, place_weighted_actives, shared with least_movement):
//    a. previous owners keep their tasks while their weight per thread stays within the average
//       T = total weight / total threads: stateful tasks first (moving one costs a restore or a
//       warmup), then stateless ones, and within each the lightest first, so that an overloaded
//       client sheds a few heavy tasks rather than many light ones (fewest moves for the weight
//       kept). A stateful task stays only on a caught-up owner (or when nobody is caught up).
//    b. the rest, heaviest first, go to the client with the lowest weight per thread (LPT; ties
//       by client index; clients in a std::set keyed by exact cross-multiplied comparisons), except
//       that the task's previous owner, or else the least-loaded caught-up client, takes it when it
//       ends no higher than max(T, what the least-loaded client would reach with it).
//    c. while the most loaded client can hand a task to the least loaded one and so lower the
//       larger of their loads, it hands over the task closest to the even split (stateless first).
//    Guarantee (proved in weighted_packing.hpp): max - min over clients of weight per thread <= the largest task weight
//    (more precisely, its weight / the fewest threads of a client).
// 2. Standbys: previous holders keep theirs up to a balanced share of copies per thread, the rest go
//    to the least-loaded clients without the task, then are balanced (SDK place_sticky_standbys).
//    Standbys are counted, not weighed: a copy costs restoration traffic and disk, not processing.
// 3. The SDK's warmup planning keeps every stateful active whose target client is not caught up
//    on a caught-up client, with a warmup on the target, and asks for a probing rebalance: never a
//    restoring active. The target is reached over the following rebalances; in between the staged
//    assignment may be less balanced than the target.
//
// With all weights 1 this is a sticky, count-balanced high-availability strategy (spread <= 1 task
// per thread). Parameter `target_only: true` returns the target of step 1 alone (it may then contain
// restoring actives), for inspection and for the balance tests.
#include <assignor/sdk.hpp>
#include "weighted/weighted_packing.hpp"

namespace {

using namespace assignor;

class Weighted final : public Strategy {
 public:
  explicit Weighted(const StrategyParams& params) {
    params.reject_unknown({"target_only"});
    target_only_ = params.get_bool("target_only", false);
  }

  Assignment assign(const AssignmentInput& in) override {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    if (cluster.client_count() == 0) return draft.finish(false);
    plugins::weighted::place_weighted_actives(cluster, in.lags, draft);
    if (target_only_) return draft.finish(false);
    place_sticky_standbys(cluster, draft);
    const WarmupPlan plan = plan_warmups(cluster, in.settings, in.lags, draft);
    return draft.finish(plan.probing_rebalance_needed());
  }

 private:
  bool target_only_ = false;
};

}  // namespace

ASSIGNOR_PLUGIN(Weighted, "weighted", "1.0.0",
                "Balances the sum of task weights per thread (load, not task count), sticky within "
                "the average, reached through warmups with no restoring actives",
                assignor::kCapabilityHighAvailability)
