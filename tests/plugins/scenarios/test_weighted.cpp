// weighted (and least_movement with balance: weight): the load, not the task count, is balanced
// within the largest task weight; a balanced group does not move; never a restoring active;
// deterministic. Random groups print their seed on failure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/scenario.hpp"
#include "cluster_builder.hpp"
#include "random_group.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

std::vector<std::pair<std::string, std::int64_t>> running(const std::vector<std::string>& tasks) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& t : tasks) out.push_back({t, -2});
  return out;
}

StrategyParams params(std::map<std::string, std::string> values) { return StrategyParams(std::move(values)); }
const StrategyParams kTargetOnly = params({{"target_only", "true"}});
const StrategyParams kLeastMovementByWeight = params({{"balance", "weight"}});
const StrategyParams kLeastMovementByWeightTarget = params({{"balance", "weight"}, {"target_only", "true"}});

testing::RunResult run(const std::string& strategy, const Cluster& c, const AssignmentSettings& s,
                       const StrategyParams& p = {}) {
  return run_valid(strategy, c, s, p);
}

// The bound place_weighted_actives() guarantees: the largest weight over the fewest threads.
double bound(const Cluster& c) {
  double w_max = 0;
  std::uint32_t t_min = std::numeric_limits<std::uint32_t>::max();
  for (const auto& t : c.tasks) w_max = std::max(w_max, t.weight);
  for (const auto& client : c.clients) t_min = std::min(t_min, client.threads);
  return w_max / t_min;
}

double largest_weight(const Cluster& c) {
  double w_max = 0;
  for (const auto& t : c.tasks) w_max = std::max(w_max, t.weight);
  return w_max;
}

// ---- hand-made groups ------------------------------------------------------------------------

TEST(Weighted, BalancesWeightWhereCountBalanceCannot) {
  // One hot partition (6) and three cool ones (2): two tasks each is count-balanced and 8 vs 4.
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 6.0, 1000)
                        .weighted("0_1", 2.0, 1000)
                        .weighted("0_2", 2.0, 1000)
                        .weighted("0_3", 2.0, 1000)
                        .client("a")
                        .client("b")
                        .build();
  const auto w = run("weighted", c, AssignmentSettings{});
  EXPECT_THAT(actives_of(c, w.assignment, "a"), ElementsAre("0_0"));
  EXPECT_THAT(actives_of(c, w.assignment, "b"), ElementsAre("0_1", "0_2", "0_3"));
  EXPECT_EQ(w.metrics.weighted_load_spread, 0.0);
  EXPECT_EQ(w.metrics.active_load_spread, 2.0);  // what count balance would call unbalanced
  for (const char* other : {"high_availability", "least_movement", "sticky"}) {
    const auto r = run(other, c, AssignmentSettings{});
    EXPECT_EQ(r.metrics.weighted_load_spread, 4.0) << other << "\n" << describe(c, r.assignment);
  }
  const auto lm = run("least_movement", c, AssignmentSettings{}, kLeastMovementByWeight);
  EXPECT_EQ(lm.metrics.weighted_load_spread, 0.0) << describe(c, lm.assignment);
}

TEST(Weighted, PerThreadLoadWithUnequalThreads) {
  // a has 3 threads, b 1: the average is 3 per thread, so a should carry 9 and b 3.
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 3.0)
                        .weighted("0_1", 3.0)
                        .weighted("0_2", 3.0)
                        .weighted("0_3", 1.5)
                        .weighted("0_4", 1.5)
                        .client("a", 3)
                        .client("b", 1)
                        .build();
  const auto r = run("weighted", c, AssignmentSettings{});
  EXPECT_EQ(r.metrics.weighted_load_spread, 0.0) << describe(c, r.assignment);
}

TEST(Weighted, ABalancedCaughtUpGroupDoesNotMove) {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 6.0, 50000)
                        .weighted("0_1", 2.0, 50000)
                        .weighted("0_2", 2.0, 50000)
                        .weighted("0_3", 2.0, 50000)
                        .weighted("1_0", 0.5)
                        .weighted("1_1", 0.5)
                        .client("a")
                        .previous_active({"0_0", "1_0"})
                        .previous_standby({"0_1"})
                        .offsets({{"0_0", -2}, {"0_1", 49990}})
                        .client("b")
                        .previous_active({"0_1", "0_2", "0_3", "1_1"})
                        .previous_standby({"0_0"})
                        .offsets({{"0_1", -2}, {"0_2", -2}, {"0_3", -2}, {"0_0", 49990}})
                        .build();
  const auto r = run("weighted", c, s);
  EXPECT_EQ(r.metrics.active_moves, 0u) << describe(c, r.assignment);
  EXPECT_EQ(r.metrics.weighted_load_spread, 0.0);
  EXPECT_FALSE(r.assignment.probing_rebalance);
  EXPECT_THAT(r.assignment.warmups, IsEmpty());
  // Count-balanced least_movement moves a task, and a stateful one must warm up first.
  const auto lm = run("least_movement", c, s);
  EXPECT_TRUE(lm.assignment.probing_rebalance || lm.metrics.active_moves > 0) << describe(c, lm.assignment);
}

TEST(Weighted, WithUnitWeightsItBalancesCounts) {
  ClusterBuilder b;
  std::vector<std::string> all;
  for (int p = 0; p < 10; ++p) {
    all.push_back("0_" + std::to_string(p));
    b.stateful(all.back(), 100000);
  }
  b.client("a").previous_active(all).offsets(running(all)).client("b").client("c");
  const Cluster c = b.build();
  const auto target = run("weighted", c, AssignmentSettings{}, kTargetOnly);
  EXPECT_LE(target.metrics.active_load_spread, 1.0) << describe(c, target.assignment);
  EXPECT_EQ(target.metrics.active_moves, 6u);  // a keeps 4 (<= 10 / 3 + one task), 6 move
}

TEST(Weighted, MovesAreStagedThroughWarmupsWithoutRestoringActives) {
  // A scale-out: a and b ran everything, c is new and empty. The target hands c a third of the
  // load; the staged assignment keeps every active on its caught-up owner and warms c up.
  ClusterBuilder b;
  std::vector<std::string> a_tasks, b_tasks;
  for (int p = 0; p < 6; ++p) {
    const std::string id = "0_" + std::to_string(p);
    b.weighted(id, p == 0 ? 4.0 : 1.0, 500000);
    (p % 2 == 0 ? a_tasks : b_tasks).push_back(id);
  }
  b.client("a").previous_active(a_tasks).offsets(running(a_tasks));
  b.client("b").previous_active(b_tasks).offsets(running(b_tasks));
  b.client("c");
  const Cluster c = b.build();
  const auto target = run("weighted", c, AssignmentSettings{}, kTargetOnly);
  EXPECT_LE(target.metrics.weighted_load_spread, largest_weight(c)) << describe(c, target.assignment);
  EXPECT_GT(target.metrics.active_moves, 0u);
  EXPECT_GT(target.metrics.restoring_actives, 0u) << "the target alone would restore on c";
  const auto staged = run("weighted", c, AssignmentSettings{});
  EXPECT_EQ(staged.metrics.restoring_actives, 0u) << describe(c, staged.assignment);
  EXPECT_EQ(staged.metrics.active_moves, 0u);
  EXPECT_FALSE(staged.assignment.warmups.empty());
  EXPECT_TRUE(staged.assignment.probing_rebalance);
}

TEST(Weighted, RejectsUnknownParameters) {
  EXPECT_THROW((void)builtin_plugins().registry().create("weighted", params({{"balance", "weight"}})), ConfigError);
  EXPECT_THROW((void)builtin_plugins().registry().create("least_movement", params({{"balance", "load"}})), ConfigError);
  EXPECT_NO_THROW((void)builtin_plugins().registry().create("least_movement", params({{"balance", "count"}})));
}

// ---- generated groups with skewed weights ----------------------------------------------------

TEST(Weighted, ZipfScaleOutIsBalancedByWeightUnlikeCountStrategies) {
  ScenarioSpec spec;
  spec.clients = 20;
  spec.threads = 2;
  spec.subtopologies = 6;
  spec.partitions = 40;
  spec.kind = ScenarioKind::scale_out;
  spec.weights = WeightDistribution::zipf;
  spec.seed = 11;
  const Cluster c = generate_cluster(spec);
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const auto target = run("weighted", c, s, kTargetOnly);
  const auto staged = run("weighted", c, s);
  const auto lm_target = run("least_movement", c, s, kLeastMovementByWeightTarget);
  const auto count = run("least_movement", c, s, params({{"target_only", "true"}}));
  EXPECT_LE(target.metrics.weighted_load_spread, bound(c));
  EXPECT_LE(lm_target.metrics.weighted_load_spread, bound(c));
  EXPECT_LT(target.metrics.weighted_load_spread, count.metrics.weighted_load_spread);
  EXPECT_EQ(staged.metrics.restoring_actives, 0u);
  std::cout << "zipf scale-out 20x2 threads, 240 tasks: weighted_load_spread weighted target "
            << target.metrics.weighted_load_spread << " (moves " << target.metrics.active_moves
            << "), least_movement count target " << count.metrics.weighted_load_spread << " (moves "
            << count.metrics.active_moves << "); largest weight per thread " << bound(c) << "\n";
}

// Random groups (tests/support/random_group.hpp): unit, uniform, Zipf-like and one-hot weights;
// random threads, history, lags and settings.
RC_GTEST_PROP(WeightedRandom, BalancedWithinTheLargestWeightAndNeverRestoring, ()) {
  testing::GroupShape shape;
  shape.weights = true;
  const testing::Group g = *testing::gen_group(shape);
  const Cluster& c = g.cluster;
  const double limit = bound(c) + 1e-9;
  const auto target = run("weighted", c, g.settings, kTargetOnly);
  testing::require_valid(c, target);
  testing::require_run(target.metrics.weighted_load_spread <= limit, c, target, "target spread above the bound");
  const auto lm_target = run("least_movement", c, g.settings, kLeastMovementByWeightTarget);
  testing::require_run(lm_target.metrics.weighted_load_spread <= limit, c, lm_target,
                       "least_movement's target spread above the bound");

  const auto first = run("weighted", c, g.settings);
  testing::require_valid(c, first);
  testing::require(run("weighted", c, g.settings).assignment == first.assignment, "not deterministic");
  testing::require_run(first.metrics.restoring_actives == 0u, c, first, "a restoring active");
  if (!first.assignment.warmups.empty())
    testing::require_run(first.assignment.probing_rebalance, c, first, "warmups without a probing rebalance");
  const auto lm = run("least_movement", c, g.settings, kLeastMovementByWeight);
  testing::require_run(lm.metrics.restoring_actives == 0u, c, lm, "least_movement: a restoring active");
}

// A newcomer gets its share of the work that restores, not only stateless weight: a runs four
// logged tasks and four stateless ones (unit weights), b joins. Balancing the total alone would
// hand b the four stateless tasks (they move for free); the target gives b two logged tasks
// (staged through warmups) and two stateless ones, for both weighted and least_movement by weight.
TEST(Weighted, ANewcomerGetsItsShareOfTheLoggedTasks) {
  ClusterBuilder b;
  std::vector<std::string> on_a;
  for (int p = 0; p < 4; ++p) {
    b.stateful("0_" + std::to_string(p), 100000).stateless("1_" + std::to_string(p));
    on_a.push_back("0_" + std::to_string(p));
    on_a.push_back("1_" + std::to_string(p));
  }
  std::vector<std::string> logged(on_a.begin(), on_a.end());
  logged.erase(std::remove_if(logged.begin(), logged.end(), [](const std::string& t) { return t[0] != '0'; }),
               logged.end());
  b.client("a").previous_active(on_a).offsets(running(logged)).client("b");
  const Cluster c = b.build();
  for (const auto& [strategy, p] : {std::pair{std::string("weighted"), kTargetOnly},
                                    std::pair{std::string("least_movement"), kLeastMovementByWeightTarget}}) {
    const auto r = run(strategy, c, AssignmentSettings{}, p);
    const auto got = actives_of(c, r.assignment, "b");
    EXPECT_EQ(std::count_if(got.begin(), got.end(), [](const std::string& t) { return t[0] == '0'; }), 2)
        << strategy << "\n"
        << describe(c, r.assignment);
    EXPECT_EQ(got.size(), 4u) << strategy;
    EXPECT_EQ(r.metrics.stateful_load_spread, 0.0) << strategy;
  }
}

}  // namespace
}  // namespace assignor
