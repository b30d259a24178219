// refine_kip1071(): the KIP-1071 refiner's decisions, one rule per case, on hand-built drafts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assignor/refiner.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

ClientIndex idx(const Cluster& c, const std::string& id) { return *c.find_client(id); }
TaskIndex task(const Cluster& c, const std::string& id) { return *c.find_task(*parse_task_id(id)); }

TEST(Refiner, AMoveToACaughtUpTargetIsGrantedAtOnce) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("a")
                        .running_actives({"0_0"})
                        .client("b")
                        .previous_standby({"0_0"})
                        .offsets({{"0_0", 49000}})
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "b"));
  const RefinerResult r = refine_kip1071(c, s, lags, d);
  EXPECT_EQ(d.active(0), idx(c, "b"));
  EXPECT_EQ(r.granted, 1u);
  EXPECT_EQ(r.staged, 0u);
  EXPECT_EQ(d.warmup_total(), 0u);
  EXPECT_FALSE(r.probing_rebalance_needed());
}

TEST(Refiner, AMoveToAColdTargetStaysOnTheRunningOwnerWhileTheTargetWarmsUp) {
  const Cluster c = ClusterBuilder().stateful("0_0", 50000).client("a").running_actives({"0_0"}).client("b").build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "b"));
  const RefinerResult r = refine_kip1071(c, s, lags, d);
  EXPECT_EQ(d.active(0), idx(c, "a"));
  EXPECT_EQ(d.role(0, idx(c, "b")), Role::warmup);
  EXPECT_EQ(r.staged, 1u);
  EXPECT_EQ(r.warmups_placed, 1u);
  EXPECT_TRUE(r.probing_rebalance_needed());
}

// The owner left; a caught-up copy keeps the task. When the draft put a standby of it there, the
// two swap: the target keeps a copy (the standby) and no warmup is spent.
// A previous owner that did not report the task as running (no offset sum: a restore from scratch)
// is not kept as the target just because it owned the task: a caught-up copy runs it, the owner
// warms up. Found by the shared random-group generator (shrunk to this shape).
TEST(Refiner, AnOwnerThatIsNotCaughtUpIsTreatedLikeAnyColdTarget) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10001)
                        .client("a")
                        .previous_active({"0_0"})
                        .client("b")
                        .previous_standby({"0_0"})
                        .offsets({{"0_0", 10001}})
                        .build();
  AssignmentSettings s;
  s.acceptable_recovery_lag = 0;
  const LagModel lags(c, s);
  ASSERT_FALSE(lags.caught_up(0, idx(c, "a")));
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "a"));
  const RefinerResult r = refine_kip1071(c, s, lags, d);
  EXPECT_EQ(d.active(0), idx(c, "b"));
  EXPECT_EQ(d.role(0, idx(c, "a")), Role::warmup);
  EXPECT_EQ(r.granted, 0u);
  EXPECT_EQ(r.staged, 1u);
  EXPECT_TRUE(r.probing_rebalance_needed());
  // Nobody caught up: the owner keeps it, and that is no move (nothing granted).
  const Cluster cold = ClusterBuilder().stateful("0_0", 10001).client("a").previous_active({"0_0"}).client("b").build();
  const LagModel cold_lags(cold, s);
  AssignmentDraft e(cold, 0);
  e.set_active(0, idx(cold, "a"));
  const RefinerResult q = refine_kip1071(cold, s, cold_lags, e);
  EXPECT_EQ(e.active(0), idx(cold, "a"));
  EXPECT_EQ(q.granted + q.granted_cold + q.staged, 0u);
}

TEST(Refiner, WithoutTheOwnerACaughtUpCopyKeepsTheTaskAndAStandbySwapsRoles) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("b")
                        .client("c")
                        .previous_standby({"0_0"})
                        .offsets({{"0_0", 49999}})
                        .build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 1);
  d.set_active(0, idx(c, "b"));
  d.add_standby(0, idx(c, "c"));
  const RefinerResult r = refine_kip1071(c, s, lags, d);
  EXPECT_EQ(d.active(0), idx(c, "c"));
  EXPECT_EQ(d.role(0, idx(c, "b")), Role::standby);
  EXPECT_EQ(r.staged, 1u);
  EXPECT_EQ(r.warmups_placed, 0u);
  EXPECT_TRUE(r.probing_rebalance_needed());
}

TEST(Refiner, WhenNobodyIsCaughtUpTheMoveIsGrantedCold) {
  const Cluster c = ClusterBuilder().stateful("0_0", 50000).client("a").offsets({{"0_0", 100}}).client("b").build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "b"));
  const RefinerResult r = refine_kip1071(c, s, lags, d);
  EXPECT_EQ(d.active(0), idx(c, "b"));
  EXPECT_EQ(r.granted_cold, 1u);
  EXPECT_FALSE(r.probing_rebalance_needed());
}

// Three moves, a budget of two: a target that already has state for its task funds first (tier 0),
// then new warmups by target load; the third is parked (stays hot, no copy, still probing).
TEST(Refiner, TheWarmupBudgetIsGroupWideAndSpentByTier) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 500000)
                        .stateful("0_1", 500000)
                        .stateful("0_2", 500000)
                        .client("a")
                        .running_actives({"0_0", "0_1", "0_2"})
                        .client("b")
                        .client("c")
                        .offsets({{"0_2", 1000}})  // far behind, but has started
                        .client("d")
                        .build();
  AssignmentSettings s;
  s.max_warmup_replicas = 2;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(task(c, "0_0"), idx(c, "b"));
  d.set_active(task(c, "0_1"), idx(c, "d"));
  d.set_active(task(c, "0_2"), idx(c, "c"));
  const RefinerResult r = refine_kip1071(c, s, lags, d);
  EXPECT_EQ(r.staged, 3u);
  EXPECT_EQ(r.warmups_placed, 2u);
  EXPECT_EQ(r.parked, 1u);
  for (const char* t : {"0_0", "0_1", "0_2"}) EXPECT_EQ(d.active(task(c, t)), idx(c, "a")) << t;
  EXPECT_EQ(d.role(task(c, "0_2"), idx(c, "c")), Role::warmup);  // tier 0: state on disk
  EXPECT_EQ(d.role(task(c, "0_0"), idx(c, "b")), Role::warmup);  // tier 1, equal loads: task order
  EXPECT_EQ(d.role(task(c, "0_1"), idx(c, "d")), Role::none);    // parked
  EXPECT_TRUE(r.probing_rebalance_needed());
}

TEST(Refiner, StatelessAndUnloggedTasksAreNeverTouched) {
  const Cluster c = ClusterBuilder()
                        .stateless("0_0")
                        .nonlogged("1_0")
                        .client("a")
                        .previous_active({"0_0", "1_0"})
                        .client("b")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(task(c, "0_0"), idx(c, "b"));
  d.set_active(task(c, "1_0"), idx(c, "b"));
  const RefinerResult r = refine_kip1071(c, s, lags, d);
  EXPECT_EQ(d.active(task(c, "0_0")), idx(c, "b"));
  EXPECT_EQ(d.active(task(c, "1_0")), idx(c, "b"));
  EXPECT_EQ(r.staged + r.granted, 0u);
}

}  // namespace
}  // namespace assignor
