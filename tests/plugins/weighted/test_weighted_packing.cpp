// The weighted strategy's packing (plugins/common/weighted/weighted_packing.hpp): place_weighted_actives,
// pass by pass on hand-built groups, and its guarantee on random groups.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "assignor/metrics.hpp"
#include "cluster_builder.hpp"
#include "random_group.hpp"
#include "weighted/weighted_packing.hpp"

namespace assignor::plugins::weighted {
namespace {

using testing::ClusterBuilder;

std::string active_of(const Cluster& c, const AssignmentDraft& d, const std::string& task) {
  const ClientIndex client = d.active(*c.find_task(*parse_task_id(task)));
  return client == kNoClient ? "" : c.clients[client].id;
}

// max - min over clients of (weight of actives) / threads, from the draft.
double draft_spread(const Cluster& c, const AssignmentDraft& d) { return weighted_load_spread(c, d.finish(false)); }

// ---- place_weighted_actives -------------------------------------------------------------------

TEST(PlaceWeightedActives, FreshGroupBalancesWeightNotCount) {
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 6.0)
                        .weighted("0_1", 2.0)
                        .weighted("0_2", 2.0)
                        .weighted("0_3", 2.0)
                        .client("a")
                        .client("b")
                        .build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "a");  // heaviest first, to the least loaded (ties by index)
  EXPECT_EQ(active_of(c, d, "0_1"), "b");
  EXPECT_EQ(active_of(c, d, "0_2"), "b");
  EXPECT_EQ(active_of(c, d, "0_3"), "b");
  EXPECT_EQ(draft_spread(c, d), 0.0);
  EXPECT_EQ(r.to_least_loaded, 4u);
  EXPECT_EQ(r.largest_weight, 6.0);
}

TEST(PlaceWeightedActives, AnOverloadedOwnerShedsItsHeavyTaskNotItsLightOnes) {
  // a ran everything (weight 10); the average is 5 per client. Keeping the lightest first, a keeps
  // the five tasks of weight 1 and only the task of weight 5 moves.
  ClusterBuilder b;
  b.weighted("0_0", 5.0);
  for (int p = 1; p <= 5; ++p) b.weighted("0_" + std::to_string(p), 1.0);
  const Cluster c = b.client("a").previous_active({"0_0", "0_1", "0_2", "0_3", "0_4", "0_5"}).client("b").build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "b");
  for (int p = 1; p <= 5; ++p) EXPECT_EQ(active_of(c, d, "0_" + std::to_string(p)), "a");
  EXPECT_EQ(r.kept_previous, 5u);
  EXPECT_EQ(r.to_least_loaded, 1u);
  EXPECT_EQ(draft_spread(c, d), 0.0);
}

TEST(PlaceWeightedActives, StatefulTasksStayBeforeStatelessOnes) {
  // Average 2 per client: a can keep 0_0 (stateful, 2) or both stateless tasks (1 + 1), not all.
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 2.0, 50000)
                        .weighted("1_0", 1.0)
                        .weighted("1_1", 1.0)
                        .client("a")
                        .previous_active({"0_0", "1_0", "1_1"})
                        .offsets({{"0_0", -2}})
                        .client("b")
                        .build();
  AssignmentDraft d(c, 0);
  place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "a");
  EXPECT_EQ(active_of(c, d, "1_0"), "b");
  EXPECT_EQ(active_of(c, d, "1_1"), "b");
}

TEST(PlaceWeightedActives, AStatefulTaskLeavesANotCaughtUpOwnerForACaughtUpClient) {
  AssignmentSettings s;
  s.acceptable_recovery_lag = 100;
  // a ran 0_0 but reports a large lag (its state is suspect or old); b is caught up.
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 3.0, 100000)
                        .weighted("1_0", 3.0)
                        .client("a")
                        .previous_active({"0_0"})
                        .offsets({{"0_0", 1000}})
                        .client("b")
                        .offsets({{"0_0", 99950}})
                        .build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, s), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "b");
  EXPECT_EQ(active_of(c, d, "1_0"), "a");
  EXPECT_EQ(r.kept_previous, 0u);
  EXPECT_EQ(r.to_caught_up, 1u);
}

TEST(PlaceWeightedActives, TheMostLoadedHandsOverATaskWhileThatLowersTheLarger) {
  // Average 7. Pass 1: a keeps 0_1 (3; 3 + 8 > 7), b keeps 0_2 (3). Pass 2: 0_0 (8) goes back to a,
  // the least loaded (ties by index): a 11, b 3. Pass 3: a hands 0_1 to b: a 8, b 6.
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 8.0)
                        .weighted("0_1", 3.0)
                        .weighted("0_2", 3.0)
                        .client("a")
                        .previous_active({"0_0", "0_1"})
                        .client("b")
                        .previous_active({"0_2"})
                        .build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "a");
  EXPECT_EQ(active_of(c, d, "0_1"), "b");
  EXPECT_EQ(active_of(c, d, "0_2"), "b");
  EXPECT_EQ(r.kept_previous, 2u);
  EXPECT_EQ(r.back_to_previous, 1u);
  EXPECT_EQ(r.moved_to_balance, 1u);
  EXPECT_DOUBLE_EQ(draft_spread(c, d), 2.0);
}

TEST(PlaceWeightedActives, PolishHandsOverTheTaskClosestToTheEvenSplitStatelessFirst) {
  // Average 7. Pass 1: a keeps 0_1 and 1_0 (1 + 1; + 6 > 7), b keeps 0_2 (6). Pass 2: 0_0 (6) goes
  // back to a, the least loaded: a 8, b 6. Pass 3: the even split is 1: of the two tasks of weight
  // 1, the stateless 1_0 moves (free), not the stateful 0_1.
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 6.0)
                        .weighted("0_1", 1.0, 5000)
                        .weighted("0_2", 6.0)
                        .weighted("1_0", 1.0)
                        .client("a")
                        .previous_active({"0_0", "0_1", "1_0"})
                        .offsets({{"0_1", -2}})
                        .client("b")
                        .previous_active({"0_2"})
                        .build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "a");
  EXPECT_EQ(active_of(c, d, "0_1"), "a");
  EXPECT_EQ(active_of(c, d, "0_2"), "b");
  EXPECT_EQ(active_of(c, d, "1_0"), "b");
  EXPECT_EQ(r.moved_to_balance, 1u);
  EXPECT_EQ(draft_spread(c, d), 0.0);
}

TEST(PlaceWeightedActives, ActivesAlreadyInTheDraftStayAndCount) {
  const Cluster c =
      ClusterBuilder().weighted("0_0", 4.0).weighted("0_1", 2.0).weighted("0_2", 2.0).client("a").client("b").build();
  AssignmentDraft d(c, 0);
  d.set_active(1, 0);  // 0_1 on a
  place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_1"), "a");
  EXPECT_EQ(active_of(c, d, "0_0"), "b");
  EXPECT_EQ(active_of(c, d, "0_2"), "a");
}

TEST(PlaceWeightedActives, NoClientsNoPlacement) {
  const Cluster c = ClusterBuilder().weighted("0_0", 4.0).build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(d.active(0), kNoClient);
  EXPECT_EQ(r.to_least_loaded, 0u);
}

// The guarantee on random groups (tests/support/random_group.hpp): every task placed, and weight
// per thread within [min, min + w_max / t_min] whatever the history, lags, threads and weights.
RC_GTEST_PROP(PlaceWeightedActives, RandomGroupsAreBalancedWithinTheLargestWeight, ()) {
  testing::GroupShape shape;
  shape.weights = true;
  const testing::Group g = *testing::gen_group(shape);
  const Cluster& c = g.cluster;
  const LagModel lags(c, g.settings);
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, lags, d);
  std::uint32_t min_threads = 1024;
  double w_max = 0;
  for (const auto& client : c.clients) min_threads = std::min(min_threads, client.threads);
  for (const auto& t : c.tasks) w_max = std::max(w_max, t.weight);
  for (TaskIndex t = 0; t < c.task_count(); ++t) RC_ASSERT(d.active(t) != kNoClient);
  RC_ASSERT(r.kept_previous + r.back_to_previous + r.to_caught_up + r.to_least_loaded == c.task_count());
  RC_ASSERT(r.moved_to_balance <= c.task_count());
  RC_ASSERT(r.largest_weight == w_max);
  RC_ASSERT(draft_spread(c, d) <= w_max / min_threads + 1e-9);
}

}  // namespace
}  // namespace assignor::plugins::weighted
