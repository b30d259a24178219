// Load-aware packing: balance the sum of task weights per thread (Task::weight, DESIGN 4.1: an
// estimate of a task's load such as its input rate, default 1) instead of task counts.
//
// place_weighted_actives() places every task that has no active in the draft yet: first the tasks
// with a changelog by themselves (T below is then their weight over all threads), so that the work
// that restores is balanced on its own (DESIGN 4.6); then the other tasks, with the first ones
// counting as load and T the total weight over all threads. Each time in three passes:
//
//   1. Stickiness. Each previous active owner keeps its previous tasks while its weight per thread
//      stays within the target T = total weight / total threads (so a client keeps at most
//      T x its threads): stateful tasks before stateless ones (a stateful move costs a restore or a
//      warmup, a stateless one nothing), and within each kind the lightest first, which keeps the
//      most tasks in place for the weight kept: an overloaded client sheds its heavy tasks, few
//      moves, rather than many light ones. A stateful task stays only on a caught-up owner (or when
//      nobody is caught up): otherwise the second pass can give it to a caught-up client.
//   2. The rest, heaviest first (LPT: the light tasks placed last fill the gaps the heavy ones
//      leave), each to the client with the lowest weight per thread (ties by client index), with one
//      exception that costs no balance: the task's previous owner, or else (stateful tasks) the
//      least-loaded caught-up client, takes it when its weight per thread afterwards would be at most
//      max(T, what the least-loaded client would reach with the task). That keeps tasks home and
//      avoids warmups wherever balance allows.
//   3. Polish. While the most loaded client can hand one task to the least loaded one and so lower
//      the larger of their two loads, it hands over the task that lowers it most. This repairs what
//      the first pass can leave, e.g. a client that kept its light tasks and got its own heavy task
//      back for lack of a better place. The result is balanced in the sense the count strategies
//      use: the most loaded client cannot give a task to the least loaded one and lower the larger
//      load. It moves a task only when that strictly lowers the most loaded client's load.
//
// The guarantee: when the draft has no actives at the start, every client ends with a weight per
// thread within [min, min + w_max / t_min], where w_max is the largest task weight and t_min the
// fewest threads of a client; so weighted_load_spread <= w_max. Proof sketch: after pass 1 every
// client is at most at T; a placement in pass 2 leaves its client at most at max(T, L_min + w / t)
// for the least loaded client's L_min and threads t at that moment, and L_min never decreases. If
// the most loaded client ends at most at T, every client is at T (the loads average to T);
// otherwise its last task put it at most w / t above a minimum that only rose since. A pass-3 move
// raises no load to the old maximum, and lowers the minimum only to the giver's new load, w / t
// below the old maximum. (Weights are doubles: the bound holds up to rounding, ~1e-12 relative.)
//
// Cost: O(n log n + n log m) for n tasks and m clients (clients in a balanced tree keyed by exact
// cross-multiplied comparisons, w_a * t_b vs w_b * t_a, ties by index; each client's tasks by
// weight for pass 3, at most n moves), plus the caught-up candidates of each stateful task.
// Deterministic: no hashing, and every sum is made in one fixed order.
//
//   AssignmentDraft draft(cluster, settings.num_standby_replicas);
//   place_weighted_actives(cluster, lags, draft);       // the weight-balanced target
//   place_sticky_standbys(cluster, draft);
//   const WarmupPlan plan = plan_warmups(cluster, settings, lags, draft);
//
// The weighted strategy's packing (plugins/weighted), shared with least_movement's by-weight mode.
#pragma once

#include <cstdint>

#include <assignor/assignment.hpp>
#include <assignor/lags.hpp>
#include <assignor/model.hpp>
#include <assignor/weighted.hpp>

namespace assignor::plugins::weighted {

struct WeightedTargetResult {
  std::uint64_t kept_previous = 0;     // pass 1: stayed with the previous owner within the target
  std::uint64_t back_to_previous = 0;  // pass 2: the previous owner took it back
  std::uint64_t to_caught_up = 0;      // pass 2: a caught-up client (not the previous owner) took it
  std::uint64_t to_least_loaded = 0;   // pass 2: the least-loaded client took it
  std::uint64_t moved_to_balance = 0;  // pass 3: handed from the most to the least loaded client
  double largest_weight = 0;           // w_max over all tasks
};

// Places an active for every task without one in the draft (actives already in the draft stay and
// count towards their client's weight). Call it before placing standbys and warmups: a task it
// places must have no other copy in the draft yet. See the top of this file for the rule and the
// guarantee.
WeightedTargetResult place_weighted_actives(const Cluster& cluster, const LagModel& lags, AssignmentDraft& draft);

}  // namespace assignor::plugins::weighted
