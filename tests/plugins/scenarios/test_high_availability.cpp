// Scenarios in the spirit of Kafka's HighAvailabilityTaskAssignorTest: each builds a small group,
// runs the built high_availability plugin through the host's registry, and checks the outcome.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

testing::RunResult run_ha(const Cluster& c, const AssignmentSettings& s) {
  auto r = run_valid("high_availability", c, s);
  if (r.errors.empty()) {
    EXPECT_EQ(r.metrics.restoring_actives, 0u) << describe(c, r.assignment);
  }
  return r;
}

std::vector<std::string> ids(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

TEST(HighAvailability, EqualLagsSpreadNineTasksThreeEachWithoutProbing) {
  ClusterBuilder b;
  for (const auto& t : ids("0_", 9)) b.stateful(t, 50000);
  b.client("a").client("b").client("c");
  const Cluster c = b.build();
  const auto r = run_ha(c, AssignmentSettings{});
  for (const char* client : {"a", "b", "c"}) EXPECT_THAT(actives_of(c, r.assignment, client), SizeIs(3));
  EXPECT_FALSE(r.assignment.probing_rebalance);
  EXPECT_THAT(r.assignment.warmups, IsEmpty());
}

TEST(HighAvailability, ActivesFollowCapacity) {
  ClusterBuilder b;
  for (const auto& t : ids("0_", 6)) b.stateful(t, 50000);
  b.client("a", 1).client("b", 2).client("c", 3);
  const Cluster c = b.build();
  const auto r = run_ha(c, AssignmentSettings{});
  EXPECT_THAT(actives_of(c, r.assignment, "a"), SizeIs(1));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), SizeIs(2));
  EXPECT_THAT(actives_of(c, r.assignment, "c"), SizeIs(3));
}

TEST(HighAvailability, MostCaughtUpClientWinsWhenNobodyIsCaughtUp) {
  AssignmentSettings s;
  s.acceptable_recovery_lag = 100;
  // Whichever client the spread picks, the client with lag 500 must run the task.
  for (const auto& [first, second] : {std::pair{"a", "b"}, std::pair{"b", "a"}}) {
    const Cluster c = ClusterBuilder()
                          .stateful("0_0", 2000)
                          .client(first)
                          .offsets({{"0_0", 1000}})  // lag 1000
                          .client(second)
                          .offsets({{"0_0", 1500}})  // lag 500
                          .build();
    const auto r = run_ha(c, s);
    EXPECT_EQ(active_client_of(c, r.assignment, "0_0"), second) << describe(c, r.assignment);
  }
}

TEST(HighAvailability, CaughtUpClientKeepsActivesWhileNewcomersWarmUpWithinBudget) {
  ClusterBuilder b;
  b.stateful_tasks(ids("0_", 4), 100000).client("a").running_actives(ids("0_", 4)).client("b").client("c");
  const Cluster c = b.build();
  AssignmentSettings s;
  s.max_warmup_replicas = 2;
  const auto r = run_ha(c, s);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "0_1", "0_2", "0_3"));
  EXPECT_THAT(r.assignment.warmups, SizeIs(2));
  EXPECT_THAT(warmups_of(c, r.assignment, "a"), IsEmpty());
  EXPECT_TRUE(r.assignment.probing_rebalance);
  EXPECT_EQ(r.metrics.active_moves, 0u);
}

TEST(HighAvailability, StatelessTasksFillTheNewcomer) {
  ClusterBuilder b;
  b.stateful_tasks(ids("0_", 4), 100000).stateless_tasks(ids("1_", 4)).client("a").running_actives(ids("0_", 4));
  b.client("b");
  const Cluster c = b.build();
  const auto r = run_ha(c, AssignmentSettings{});
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "0_1", "0_2", "0_3"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("1_0", "1_1", "1_2", "1_3"));
}

TEST(HighAvailability, StandbysWantedWithOneClientArePlacedNowhereWithoutError) {
  const Cluster c = ClusterBuilder().stateful("0_0", 100).stateful("0_1", 100).client("only").build();
  const auto r = run_ha(c, standby_replicas(1));
  EXPECT_THAT(r.assignment.standbys, IsEmpty());
  EXPECT_EQ(r.metrics.standby_shortfall, 2u);
  EXPECT_THAT(actives_of(c, r.assignment, "only"), SizeIs(2));
}

TEST(HighAvailability, OnlyStatelessTasksAreBalancedWithoutProbing) {
  ClusterBuilder b;
  for (const auto& t : ids("0_", 7)) b.stateless(t);
  b.client("a").client("b").client("c");
  const Cluster c = b.build();
  const auto r = run_ha(c, AssignmentSettings{});
  EXPECT_FALSE(r.assignment.probing_rebalance);
  EXPECT_LE(r.metrics.active_load_spread, 1.0);
}

TEST(HighAvailability, AssignmentThatEqualsTheBalancedTargetIsStable) {
  // Previous owners already hold exactly the spread target and are running: nothing moves.
  ClusterBuilder b;
  for (const auto& t : ids("0_", 6)) b.stateful(t, 100000);
  b.client("a").running_actives({"0_0", "0_3"});
  b.client("b").running_actives({"0_1", "0_4"});
  b.client("c").running_actives({"0_2", "0_5"});
  const Cluster c = b.build();
  const auto r = run_ha(c, AssignmentSettings{});
  EXPECT_EQ(r.metrics.active_moves, 0u);
  EXPECT_FALSE(r.assignment.probing_rebalance);
}

TEST(HighAvailability, CaughtUpStandbyTakesOverTheActive) {
  // b held a caught-up standby of 0_1; the spread target for 0_1 is a new client c: b swaps in.
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "0_1"}, 100000)
                        .client("a")
                        .running_actives({"0_0", "0_1"})
                        .client("b")
                        .previous_standby({"0_0", "0_1"})
                        .offsets({{"0_0", 99990}, {"0_1", 99995}})
                        .client("c")
                        .build();
  const auto r = run_ha(c, standby_replicas(1));
  EXPECT_EQ(r.metrics.cold_actives, 0u);
  EXPECT_THAT(r.assignment.standbys, SizeIs(2));
  for (const char* t : {"0_0", "0_1"}) {
    const auto owner = active_client_of(c, r.assignment, t);
    EXPECT_TRUE(owner == "a" || owner == "b") << t << " on " << owner;
  }
}

TEST(HighAvailability, NonLoggedStatefulTasksNeverNeedWarmups) {
  ClusterBuilder b;
  for (const auto& t : ids("1_", 6)) b.nonlogged(t);
  b.client("a").previous_active(ids("1_", 6)).client("b").client("c");
  const Cluster c = b.build();
  const auto r = run_ha(c, standby_replicas(2));
  EXPECT_FALSE(r.assignment.probing_rebalance);
  EXPECT_THAT(r.assignment.warmups, IsEmpty());
  EXPECT_THAT(r.assignment.standbys, IsEmpty());  // nothing to replicate
  EXPECT_EQ(r.metrics.standby_shortfall, 0u);
  EXPECT_LE(r.metrics.active_load_spread, 1.0);
}

TEST(HighAvailability, EveryLoggedTaskGetsItsStandbysOnOtherClients) {
  ClusterBuilder b;
  for (const auto& t : ids("0_", 8)) b.stateful(t, 1000);
  b.client("a").client("b").client("c").client("d");
  const Cluster c = b.build();
  const auto r = run_ha(c, standby_replicas(2));
  EXPECT_THAT(r.assignment.standbys, SizeIs(16));
  EXPECT_EQ(r.metrics.standby_shortfall, 0u);
  EXPECT_LE(r.metrics.total_load_spread, 1.0);
}

TEST(HighAvailability, IsDeterministic) {
  ClusterBuilder b;
  for (const auto& t : ids("0_", 12)) b.stateful(t, 5000 + 17);
  for (const auto& t : ids("1_", 5)) b.stateless(t);
  b.client("x", 2).offsets({{"0_3", 5000}, {"0_4", -2}}).client("y", 1).client("z", 3).offsets({{"0_0", 10}});
  const Cluster c = b.build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  s.acceptable_recovery_lag = 100;
  const auto first = run_ha(c, s);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(run_ha(c, s).assignment, first.assignment);
}

TEST(HighAvailability, MoreClientsThanTasksLeavesSomeClientsEmpty) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .stateless("1_0")
                        .client("a")
                        .client("b")
                        .client("c")
                        .client("d")
                        .client("e")
                        .build();
  const auto r = run_ha(c, AssignmentSettings{});
  EXPECT_THAT(r.assignment.actives, SizeIs(2));
}

TEST(HighAvailability, ManyMovementsStayWithinTheWarmupBudgetAndNeverRestore) {
  ClusterBuilder b;
  b.stateful_tasks(ids("0_", 20), 1000000).client("old", 2).running_actives(ids("0_", 20));
  for (const auto& n : ids("new", 4)) b.client(n, 2);
  const Cluster c = b.build();
  AssignmentSettings s;
  s.max_warmup_replicas = 3;
  const auto r = run_ha(c, s);
  EXPECT_THAT(r.assignment.warmups, SizeIs(3));
  EXPECT_EQ(r.metrics.cold_actives, 0u);
  EXPECT_TRUE(r.assignment.probing_rebalance);
}

TEST(HighAvailability, StatelessTasksFollowActiveLoadPerThread) {
  ClusterBuilder b;
  for (const auto& t : ids("2_", 8)) b.stateless(t);
  b.client("a", 1).client("b", 3);
  const Cluster c = b.build();
  const auto r = run_ha(c, AssignmentSettings{});
  EXPECT_THAT(actives_of(c, r.assignment, "a"), SizeIs(2));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), SizeIs(6));
}

TEST(HighAvailability, StandbyOnColdClientMovesToCaughtUpOneWithWarmup) {
  // The least-loaded rule puts 0_0's standby on the empty client c while b has its state: the
  // standby moves to b and c keeps a warmup copy.
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 100000)
                        .stateful("0_1", 100)
                        .client("a")
                        .running_actives({"0_0"})
                        .client("b")
                        .offsets({{"0_0", 99999}})
                        .client("c")
                        .build();
  const auto r = run_ha(c, standby_replicas(1));
  EXPECT_EQ(active_client_of(c, r.assignment, "0_0"), "a");
  EXPECT_THAT(standbys_of(c, r.assignment, "b"), ElementsAre("0_0"));
  EXPECT_THAT(warmups_of(c, r.assignment, "c"), ElementsAre("0_0"));
  EXPECT_TRUE(r.assignment.probing_rebalance);
}

}  // namespace
}  // namespace assignor
