#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assignor/metrics.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

// The settings of the hand-worked examples: caught up within 100 offsets, one standby a task.
AssignmentSettings hand_worked_settings() {
  AssignmentSettings s;
  s.acceptable_recovery_lag = 100;
  s.num_standby_replicas = 1;
  return s;
}

TEST(Metrics, HandCheckedExample) {
  const AssignmentSettings s = hand_worked_settings();
  // a (2 threads) ran 0_0 and 0_1; b caught up on 0_1 only; c is new.
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "0_1"}, 5000)
                        .stateless_tasks({"1_0", "1_1"})
                        .client("a", 2)
                        .running_actives({"0_0", "0_1"})
                        .client("b", 1)
                        .offsets({{"0_1", 4950}})
                        .client("c", 1)
                        .build();
  const LagModel lags(c, s);
  Assignment a;
  a.actives = {{0, 2} /*0_0 on c: cold, restoring, 5000 to restore*/, {1, 1} /*0_1 on b: caught up*/, {2, 0}, {3, 0}};
  a.standbys = {{0, 0}};  // 0_1 has no standby: shortfall 1
  a.warmups = {{1, 2}};
  const Metrics m = compute_metrics(c, s, lags, a);
  EXPECT_EQ(m.active_moves, 2u);
  EXPECT_EQ(m.cold_actives, 1u);
  EXPECT_EQ(m.restoring_actives, 1u);
  EXPECT_EQ(m.restore_offsets, 5000u);
  EXPECT_EQ(m.standbys, 1u);
  EXPECT_EQ(m.warmups, 1u);
  EXPECT_EQ(m.standby_shortfall, 1u);
  EXPECT_DOUBLE_EQ(m.active_load_spread, 0.0);  // a 2/2, b 1/1, c 1/1
  EXPECT_DOUBLE_EQ(m.total_load_spread, 1.0);   // a 3/2, b 1, c 2
  EXPECT_EQ(m.max_subtopology_skew, 2u);        // sub-topology 1: a 2, b 0
  EXPECT_FALSE(m.cross_rack_traffic.has_value());
}

TEST(Metrics, StateAwareFiguresByHand) {
  // 0_0 and 0_1 logged (end 5000), 1_0 non-logged (stateful, nothing to restore), 2_0 stateless.
  // a (2 threads) runs 0_0 and 0_1, b (1 thread) runs 1_0 and 2_0; c is new.
  const AssignmentSettings s = hand_worked_settings();
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "0_1"}, 5000)
                        .nonlogged("1_0")
                        .stateless("2_0")
                        .client("a", 2)
                        .rack("r1")
                        .offsets({{"0_0", -2}, {"0_1", -2}})
                        .client("b", 1)
                        .rack("r1")
                        .offsets({{"0_0", 4950}, {"0_1", 3000}})
                        .client("c", 1)
                        .rack("r2")
                        .build();
  const LagModel lags(c, s);
  Assignment a;
  a.actives = {{0, 0}, {1, 0}, {2, 1}, {3, 1}};
  a.standbys = {{0, 1} /*lag 50: caught up*/, {1, 2} /*c: lag 5000, stale*/};
  a.warmups = {{1, 1} /*b: lag 2000*/};
  a.probing_rebalance = true;
  const Metrics m = compute_metrics(c, s, lags, a);
  // Logged actives per thread: a 2/2 = 1, b 0, c 0 (non-logged 1_0 and stateless 2_0 do not count).
  EXPECT_DOUBLE_EQ(m.stateful_load_spread, 1.0);
  EXPECT_EQ(m.stale_standbys, 1u);  // 0_1 on c; the warmup on b is not a standby
  EXPECT_EQ(m.copy_restore_offsets, 50u + 5000 + 2000);
  ASSERT_TRUE(m.colocated_standbys.has_value());  // clients have racks
  EXPECT_EQ(*m.colocated_standbys, 1u);           // 0_0's standby on b, in a's rack r1
  // With tag keys the rule is the tags': b shares a's zone, c does not.
  AssignmentSettings tagged = s;
  tagged.rack_aware.tags = {"zone"};
  const Cluster t = ClusterBuilder()
                        .stateful("0_0", 5000)
                        .stateful("0_1", 5000)
                        .client("a")
                        .tag("zone", "z1")
                        .client("b")
                        .tag("zone", "z1")
                        .client("c")
                        .tag("zone", "z2")
                        .build();
  Assignment ta;
  ta.actives = {{0, 0}, {1, 2}};
  ta.standbys = {{0, 1} /*same zone as a*/, {1, 0} /*z1 beside z2*/};
  const Metrics tm = compute_metrics(t, tagged, LagModel(t, tagged), ta);
  EXPECT_EQ(tm.colocated_standbys, std::optional<std::uint64_t>(1));
  // Neither racks nor tags: not measured.
  const Cluster plain = ClusterBuilder().stateful("0_0", 10).client("a").client("b").build();
  Assignment pa;
  pa.actives = {{0, 0}};
  pa.standbys = {{0, 1}};
  EXPECT_FALSE(compute_metrics(plain, s, LagModel(plain, s), pa).colocated_standbys.has_value());
}

TEST(Metrics, ColdButNotRestoringWhenNobodyIsCaughtUp) {
  const Cluster c = ClusterBuilder().stateful("0_0", 50000).client("a").client("b").build();
  const LagModel lags(c, AssignmentSettings{});
  Assignment a;
  a.actives = {{0, 1}};
  const Metrics m = compute_metrics(c, AssignmentSettings{}, lags, a);
  EXPECT_EQ(m.cold_actives, 1u);
  EXPECT_EQ(m.restoring_actives, 0u);
  EXPECT_EQ(m.restore_offsets, 50000u);
  EXPECT_EQ(m.active_moves, 0u);  // no previous owner
}

TEST(Metrics, CrossRackTrafficCountsPartitionsOutsideTheClientsRack) {
  Task t;
  t.id = {0, 0};
  t.partitions = {{"orders", 0, {0}}, {"orders", 1, {1}}, {"orders", 2, {0, 1}}};
  ClusterBuilder b;
  b.task(t).client("a").rack("r1").client("b").rack("r2");
  Cluster c = b.build();
  // Partition racks refer to rack indices 0 (r1) and 1 (r2), as the builder created them.
  const LagModel lags(c, AssignmentSettings{});
  Assignment a;
  a.actives = {{0, 0}};
  const Metrics m = compute_metrics(c, AssignmentSettings{}, lags, a);
  ASSERT_TRUE(m.cross_rack_traffic.has_value());
  EXPECT_EQ(*m.cross_rack_traffic, 1u);  // partition 1 lives only in r2
}

}  // namespace
}  // namespace assignor
