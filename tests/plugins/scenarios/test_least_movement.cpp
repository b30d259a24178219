// least_movement: scenarios, and optimality of its balanced target checked by brute force.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "cluster_builder.hpp"
#include "random_group.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

testing::RunResult run_lm(const Cluster& c, const AssignmentSettings& s, bool target_only = false) {
  StrategyParams params(target_only ? std::map<std::string, std::string>{{"target_only", "true"}}
                                    : std::map<std::string, std::string>{});
  auto r = run_valid("least_movement", c, s, params);
  if (!target_only && r.errors.empty()) {
    EXPECT_EQ(r.metrics.restoring_actives, 0u) << describe(c, r.assignment);
  }
  return r;
}

// Three stateful tasks (0_x) then three stateless ones (1_x); `a` runs the stateful ones, caught up.
ClusterBuilder a_runs_the_stateful_half() {
  ClusterBuilder b;
  b.stateful_tasks({"0_0", "0_1", "0_2"}, 100000).stateless_tasks({"1_0", "1_1", "1_2"});
  b.client("a").running_actives({"0_0", "0_1", "0_2"});
  return b;
}

TEST(LeastMovement, BalancedCaughtUpGroupDoesNotMove) {
  // Balanced but not in round-robin order: high_availability would shuffle it, we keep it.
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "0_1", "0_2", "0_3"}, 100000)
                        .client("a")
                        .running_actives({"0_0", "0_1"})
                        .client("b")
                        .running_actives({"0_2", "0_3"})
                        .build();
  const auto r = run_lm(c, AssignmentSettings{});
  EXPECT_EQ(r.metrics.active_moves, 0u);
  EXPECT_FALSE(r.assignment.probing_rebalance);
  const auto ha = builtin_plugins().run("high_availability", c, AssignmentSettings{});
  EXPECT_TRUE(ha.assignment.probing_rebalance) << "the contrast this strategy exists for";
}

TEST(LeastMovement, ScaleOutMovesOnlyWhatBalanceRequires) {
  ClusterBuilder b;
  std::vector<std::string> a_tasks, b_tasks, c_tasks;
  for (int p = 0; p < 12; ++p) {
    const std::string t = "0_" + std::to_string(p);
    b.stateful(t, 100000);
    (p % 3 == 0 ? a_tasks : p % 3 == 1 ? b_tasks : c_tasks).push_back(t);
  }
  b.client("a").running_actives(a_tasks);
  b.client("b").running_actives(b_tasks);
  b.client("c").running_actives(c_tasks);
  b.client("new");
  const Cluster c = b.build();
  const auto target = run_lm(c, AssignmentSettings{}, /*target_only=*/true);
  EXPECT_EQ(target.metrics.active_moves, 3u) << describe(c, target.assignment);
  EXPECT_THAT(actives_of(c, target.assignment, "new"), SizeIs(3));
  // Staged: nothing restores now, the newcomer warms up (2 at a time by default), probing follows.
  const auto staged = run_lm(c, AssignmentSettings{});
  EXPECT_EQ(staged.metrics.active_moves, 0u);
  EXPECT_THAT(staged.assignment.warmups, SizeIs(2));
  EXPECT_TRUE(staged.assignment.probing_rebalance);
}

// Stateless tasks absorb the imbalance of the total first, but a newcomer also gets its share of
// the tasks that restore (or it would be "balanced" doing none of the expensive work): the target
// gives b one of the three stateful tasks and the rest of its share in stateless ones.
TEST(LeastMovement, StatelessTasksAbsorbTheImbalanceFirstButStatefulWorkIsShared) {
  // `a` ran the stateless tasks too.
  const Cluster c =
      a_runs_the_stateful_half().previous_active({"0_0", "0_1", "0_2", "1_0", "1_1", "1_2"}).client("b").build();
  const auto target = run_lm(c, AssignmentSettings{}, /*target_only=*/true);
  const auto on_b = actives_of(c, target.assignment, "b");
  ASSERT_THAT(on_b, SizeIs(3)) << describe(c, target.assignment);
  EXPECT_EQ(std::count_if(on_b.begin(), on_b.end(), [](const std::string& t) { return t[0] == '0'; }), 1)
      << describe(c, target.assignment);
  EXPECT_EQ(target.metrics.stateful_load_spread, 1.0);
  EXPECT_EQ(target.metrics.active_load_spread, 0.0);
  // Staged: b starts with two stateless tasks and a warmup of its stateful one; probing follows.
  const auto staged = run_lm(c, AssignmentSettings{});
  EXPECT_THAT(actives_of(c, staged.assignment, "b"), SizeIs(2)) << describe(c, staged.assignment);
  EXPECT_THAT(staged.assignment.warmups, SizeIs(1));
  EXPECT_TRUE(staged.assignment.probing_rebalance);
}

TEST(LeastMovement, AMoveGoesToACaughtUpClientBeforeACold) {
  // a must give one of its 3 tasks away; b has a caught-up standby of 0_2, c has nothing.
  const Cluster c = a_runs_the_stateful_half()
                        .client("b")
                        .previous_active({"1_0", "1_1"})
                        .previous_standby({"0_2"})
                        .offsets({{"0_2", 99990}})
                        .client("c")
                        .previous_active({"1_2"})
                        .build();
  const auto r = run_lm(c, standby_replicas(1));
  EXPECT_EQ(active_client_of(c, r.assignment, "0_2"), "b") << describe(c, r.assignment);
  EXPECT_EQ(r.metrics.cold_actives, 0u);
}

// ---- Optimality: the target has the minimum cost among balanced assignments (brute force). ----

// The cost model documented in plugins/least_movement/least_movement.cpp, restated.
std::int64_t placement_cost(const Cluster& c, const LagModel& lags, TaskIndex t, ClientIndex client,
                            std::int64_t max_end) {
  const Task& task = c.tasks[t];
  const ClientIndex prev = c.previous_active_owner()[t];
  if (!task.stateful) return client == prev ? 0 : 1;
  if (lags.everyone_caught_up(t)) return client == prev ? 0 : 10;
  if (lags.caught_up(t, client)) return client == prev ? 0 : 10;
  const Lag lag = lags.lag(t, client);
  const std::int64_t offsets = lag.kind == LagKind::known ? lag.offsets : task.end_offset_sum;
  return 100 + static_cast<std::int64_t>(static_cast<long double>(offsets) * 1000 / max_end);
}

// Three one-thread clients and up to 8 tasks of one sub-topology (3^8 assignments to try), from the
// shared generator (tests/support/random_group.hpp).
RC_GTEST_PROP(LeastMovement, TargetIsTheCheapestBalancedAssignmentByBruteForce, ()) {
  testing::GroupShape shape;
  shape.max_subtopologies = 1;
  shape.max_partitions = 8;
  shape.min_clients = 3;
  shape.max_clients = 3;
  shape.max_threads = 1;
  shape.nonlogged_stores = false;
  const testing::Group g = *testing::gen_group(shape);
  const Cluster& c = g.cluster;
  const AssignmentSettings& s = g.settings;
  const LagModel lags(c, s);
  std::int64_t max_end = 1;
  for (const auto& t : c.tasks) max_end = std::max(max_end, t.end_offset_sum);

  const auto target = run_lm(c, s, /*target_only=*/true);
  std::vector<ClientIndex> owner(c.task_count());
  for (const auto& p : target.assignment.actives) owner[p.task] = p.client;
  std::int64_t got = 0;
  for (TaskIndex t = 0; t < c.task_count(); ++t) got += placement_cost(c, lags, t, owner[t], max_end);

  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  std::vector<ClientIndex> assign(c.task_count(), 0);
  std::uint64_t combos = 1;
  for (std::size_t i = 0; i < c.task_count(); ++i) combos *= 3;
  for (std::uint64_t code = 0; code < combos; ++code) {
    std::uint64_t x = code;
    int counts[3] = {0, 0, 0}, logged[3] = {0, 0, 0};
    std::int64_t cost = 0;
    for (TaskIndex t = 0; t < c.task_count(); ++t, x /= 3) {
      const auto client = static_cast<ClientIndex>(x % 3);
      ++counts[client];
      if (c.tasks[t].has_logged_store) ++logged[client];
      cost += placement_cost(c, lags, t, client, max_end);
    }
    // Balanced: the task counts within one, and the counts of tasks with a changelog too.
    if (*std::max_element(counts, counts + 3) - *std::min_element(counts, counts + 3) > 1) continue;
    if (*std::max_element(logged, logged + 3) - *std::min_element(logged, logged + 3) > 1) continue;
    best = std::min(best, cost);
  }
  testing::require(got == best, [&] {
    return "cost " + std::to_string(got) + ", brute force " + std::to_string(best) + "\n" +
           describe(c, target.assignment);
  });
}

// The target is balanced by the state-aware rule on any group (unequal threads, racks, skewed
// history, non-logged stores): the actives per thread within one task, and the actives with a
// changelog per thread too (a divisor method's quotas never differ by more per thread).
RC_GTEST_PROP(LeastMovement, TargetBalancesTheTasksThatRestoreOnAnyGroup, ()) {
  testing::GroupShape shape;
  shape.skewed_history = *rc::gen::arbitrary<bool>();
  shape.racks = *rc::gen::arbitrary<bool>();
  const testing::Group g = *testing::gen_group(shape);
  const auto target = run_lm(g.cluster, g.settings, /*target_only=*/true);
  RC_ASSERT(target.errors.empty());
  testing::require(target.metrics.stateful_load_spread <= 1.0 && target.metrics.active_load_spread <= 1.0, [&] {
    return "stateful_load_spread " + std::to_string(target.metrics.stateful_load_spread) + ", active_load_spread " +
           std::to_string(target.metrics.active_load_spread) + "\n" + describe(g.cluster, target.assignment);
  });
}

}  // namespace
}  // namespace assignor
