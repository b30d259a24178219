#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assignor/warmups.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

ClientIndex idx(const Cluster& c, const std::string& id) { return *c.find_client(id); }

TEST(Warmups, CaughtUpClientKeepsTheActiveAndTheTargetWarmsUp) {
  const Cluster c = ClusterBuilder().stateful("0_0", 50000).client("a").offsets({{"0_0", -2}}).client("new").build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "new"));
  const WarmupPlan plan = plan_warmups(c, s, lags, d);
  EXPECT_EQ(d.active(0), idx(c, "a"));
  EXPECT_EQ(d.role(0, idx(c, "new")), Role::warmup);
  EXPECT_EQ(plan.active_movements, 1u);
  EXPECT_EQ(plan.warmups_placed, 1u);
  EXPECT_TRUE(plan.probing_rebalance_needed());
}

// A strategy steers which caught-up client keeps an active: by default the least loaded ('a', empty),
// with a cost the cheapest ('b', e.g. the client holding fewer tasks of the same sub-topology), and
// with keep_on_current_owner the one running it now ('c').
TEST(Warmups, AStrategySteersWhichCaughtUpClientKeepsTheActive) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .stateless("1_0")
                        .client("a")
                        .offsets({{"0_0", 49990}})
                        .client("b")
                        .offsets({{"0_0", 49995}})
                        .client("c")
                        .running_actives({"0_0"})
                        .client("new")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  auto keeper = [&](const WarmupPlanOptions& options) {
    AssignmentDraft d(c, 0);
    d.set_active(0, idx(c, "new"));
    d.set_active(1, idx(c, "b"));  // b already holds a task: more loaded than a
    plan_warmups(c, s, lags, d, options);
    EXPECT_EQ(d.role(0, idx(c, "new")), Role::warmup);
    return c.clients[d.active(0)].id;
  };
  EXPECT_EQ(keeper({}), "a");
  WarmupPlanOptions cost;
  cost.candidate_cost = [&](TaskIndex, ClientIndex client) { return client == idx(c, "b") ? 0 : 1; };
  EXPECT_EQ(keeper(cost), "b");
  WarmupPlanOptions owner;
  owner.keep_on_current_owner = true;
  EXPECT_EQ(keeper(owner), "c");
}

TEST(Warmups, CaughtUpStandbyHolderSwapsRolesWithoutSpendingBudget) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("a")
                        .offsets({{"0_0", -2}})
                        .client("b")
                        .offsets({{"0_0", 49990}})
                        .client("new")
                        .build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 1);
  d.set_active(0, idx(c, "new"));
  d.add_standby(0, idx(c, "b"));
  WarmupPlanOptions options;
  options.move_standbys = false;
  const WarmupPlan plan = plan_warmups(c, s, lags, d, options);
  EXPECT_EQ(d.active(0), idx(c, "b"));
  EXPECT_EQ(d.role(0, idx(c, "new")), Role::standby);
  EXPECT_EQ(plan.warmups_placed, 0u);
  EXPECT_TRUE(plan.probing_rebalance_needed());
}

TEST(Warmups, AfterASwapTheColdStandbyMovesToTheCaughtUpClient) {
  // As in Kafka: the swapped-in standby on the target is not caught up while 'a' is, so it moves
  // to 'a' and the target keeps a warmup copy.
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("a")
                        .offsets({{"0_0", -2}})
                        .client("b")
                        .offsets({{"0_0", 49990}})
                        .client("new")
                        .build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 1);
  d.set_active(0, idx(c, "new"));
  d.add_standby(0, idx(c, "b"));
  const WarmupPlan plan = plan_warmups(c, s, lags, d);
  EXPECT_EQ(d.active(0), idx(c, "b"));
  EXPECT_EQ(d.role(0, idx(c, "a")), Role::standby);
  EXPECT_EQ(d.role(0, idx(c, "new")), Role::warmup);
  EXPECT_EQ(plan.active_movements, 1u);
  EXPECT_EQ(plan.standby_movements, 1u);
}

TEST(Warmups, BudgetLimitsWarmupsButEveryActiveStaysCaughtUp) {
  ClusterBuilder b;
  std::vector<std::pair<std::string, std::int64_t>> running;
  for (int p = 0; p < 4; ++p) {
    b.stateful("0_" + std::to_string(p), 50000);
    running.push_back({"0_" + std::to_string(p), -2});
  }
  const Cluster c = b.client("a").offsets(running).client("new").build();
  AssignmentSettings s;
  s.max_warmup_replicas = 2;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  for (TaskIndex t = 0; t < 4; ++t) d.set_active(t, idx(c, "new"));
  const WarmupPlan plan = plan_warmups(c, s, lags, d);
  EXPECT_EQ(plan.active_movements, 4u);
  EXPECT_EQ(plan.warmups_placed, 2u);
  EXPECT_EQ(d.warmup_total(), 2u);
  for (TaskIndex t = 0; t < 4; ++t) EXPECT_EQ(d.active(t), idx(c, "a"));
}

TEST(Warmups, WhenNobodyIsCaughtUpTheMostCaughtUpClientIsPreferred) {
  // Kafka's KAFKA-13600: lags 1000 and 500, acceptable 100 -> the 500 client runs the task.
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 2000)
                        .client("far")
                        .offsets({{"0_0", 1000}})
                        .client("near")
                        .offsets({{"0_0", 1500}})
                        .build();
  AssignmentSettings s;
  s.acceptable_recovery_lag = 100;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "far"));
  const WarmupPlan plan = plan_warmups(c, s, lags, d);
  EXPECT_EQ(d.active(0), idx(c, "near"));
  EXPECT_EQ(d.role(0, idx(c, "far")), Role::warmup);
  EXPECT_TRUE(plan.probing_rebalance_needed());
}

TEST(Warmups, ScarcelyCaughtUpTasksGetTheBudgetFirst) {
  // 0_0 is caught up on one client, 0_1 on two; with one warmup the scarce task gets it.
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .stateful("0_1", 50000)
                        .client("a")
                        .offsets({{"0_0", -2}, {"0_1", -2}})
                        .client("b")
                        .offsets({{"0_1", 49999}})
                        .client("new")
                        .build();
  AssignmentSettings s;
  s.max_warmup_replicas = 1;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(1, idx(c, "new"));
  d.set_active(0, idx(c, "new"));
  plan_warmups(c, s, lags, d);
  EXPECT_EQ(d.role(0, idx(c, "new")), Role::warmup);
  EXPECT_EQ(d.role(1, idx(c, "new")), Role::none);
}

TEST(Warmups, NoMovementWhenTheTargetIsCaughtUpOrTaskIsNotLogged) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .nonlogged("1_0")
                        .client("a")
                        .offsets({{"0_0", -2}})
                        .client("b")
                        .offsets({{"0_0", 45000}})
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "b"));  // lag 5000: caught up
  d.set_active(1, idx(c, "b"));
  const WarmupPlan plan = plan_warmups(c, s, lags, d);
  EXPECT_FALSE(plan.probing_rebalance_needed());
  EXPECT_EQ(d.active(0), idx(c, "b"));
}

TEST(Warmups, StandbyOnColdClientMovesToCaughtUpClientAndWarmsUp) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("a")
                        .offsets({{"0_0", -2}})
                        .client("b")
                        .offsets({{"0_0", 49000}})
                        .client("cold")
                        .build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const LagModel lags(c, s);
  AssignmentDraft d(c, 1);
  d.set_active(0, idx(c, "a"));
  d.add_standby(0, idx(c, "cold"));
  const WarmupPlan plan = plan_warmups(c, s, lags, d);
  EXPECT_EQ(plan.standby_movements, 1u);
  EXPECT_EQ(d.role(0, idx(c, "b")), Role::standby);
  EXPECT_EQ(d.role(0, idx(c, "cold")), Role::warmup);
}

}  // namespace
}  // namespace assignor
