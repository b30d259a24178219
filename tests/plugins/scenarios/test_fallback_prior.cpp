// fallback_prior: every previous active stays put, the rest is placed as `sticky` would place it,
// and a probing rebalance is always requested.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "cluster_builder.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

TEST(FallbackPrior, KeepsEveryPreviousActiveRegardlessOfBalanceAndAsksForProbing) {
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "0_1", "0_2"}, 10)
                        .stateless("1_0")
                        .end_offsets_unknown()
                        .client("a")
                        .previous_active({"0_0", "0_1", "0_2", "1_0"})
                        .client("b")
                        .build();
  const auto r = builtin_plugins().run("fallback_prior", c, AssignmentSettings{});
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "0_1", "0_2", "1_0"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), IsEmpty());
  EXPECT_TRUE(r.assignment.probing_rebalance);
}

TEST(FallbackPrior, TasksWithoutPreviousOwnerGoToLeastLoaded) {
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "0_1"}, 10)
                        .stateless_tasks({"1_0", "1_1"})
                        .client("a")
                        .previous_active({"0_0"})
                        .client("b")
                        .build();
  const auto r = builtin_plugins().run("fallback_prior", c, AssignmentSettings{});
  ASSERT_THAT(r.errors, IsEmpty()) << describe(c, r.assignment);
  // Stateful first: 0_1 to the empty b; then 1_0 ties (1 each) and goes to a, 1_1 to b.
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "1_0"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_1", "1_1"));
}

TEST(FallbackPrior, PreviousStandbyHoldersKeepTheirStandbys) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .client("a")
                        .previous_active({"0_0"})
                        .client("b")
                        .client("c")
                        .previous_standby({"0_0"})
                        .build();
  const auto r = builtin_plugins().run("fallback_prior", c, standby_replicas(1));
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(testing::standbys_of(c, r.assignment, "c"), ElementsAre("0_0"));
}

TEST(FallbackPrior, KeepsWhatStickyWouldMoveAndGivesTheNewTasksToTheNewcomer) {
  ClusterBuilder b;
  for (const char* t : {"0_0", "0_1", "0_2", "0_3", "0_4", "0_5"}) b.stateful(t, 10);
  const Cluster c = b.client("a").previous_active({"0_0", "0_1", "0_2", "0_3"}).client("b").build();
  const auto prior = builtin_plugins().run("fallback_prior", c, AssignmentSettings{});
  ASSERT_THAT(prior.errors, IsEmpty());
  EXPECT_THAT(actives_of(c, prior.assignment, "a"), ElementsAre("0_0", "0_1", "0_2", "0_3"));
  EXPECT_THAT(actives_of(c, prior.assignment, "b"), ElementsAre("0_4", "0_5"));
  EXPECT_TRUE(prior.assignment.probing_rebalance);
  // The same group under sticky: balance wins, one of a's tasks moves.
  const auto sticky = builtin_plugins().run("sticky", c, AssignmentSettings{});
  ASSERT_THAT(sticky.errors, IsEmpty());
  EXPECT_THAT(actives_of(c, sticky.assignment, "a"), SizeIs(3));
  EXPECT_FALSE(sticky.assignment.probing_rebalance);
}

TEST(FallbackPrior, OrphanedTaskGoesToItsPreviousStandbyHolderAsStickyWould) {
  // Plain least-loaded placement would give 0_2 to `b` (first of the empty clients); `c` has its state.
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "0_1", "0_2"}, 10)
                        .end_offsets_unknown()
                        .client("a")
                        .previous_active({"0_0", "0_1"})
                        .client("b")
                        .client("c")
                        .previous_standby({"0_2"})
                        .build();
  const auto r = builtin_plugins().run("fallback_prior", c, AssignmentSettings{});
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "0_1"));
  EXPECT_THAT(actives_of(c, r.assignment, "c"), ElementsAre("0_2"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), IsEmpty());
}

TEST(FallbackPrior, OrphansEvenOutTheClientsBelowThePreservedOne) {
  // `a` keeps 4 whatever the balance; the 4 orphans go to the least loaded, leaving b and c one apart.
  ClusterBuilder b;
  for (const char* t : {"0_0", "0_1", "0_2", "0_3", "0_4", "0_5", "0_6", "0_7", "0_8"}) b.stateful(t, 10);
  const Cluster c = b.client("a")
                        .previous_active({"0_0", "0_1", "0_2", "0_3"})
                        .client("b")
                        .previous_active({"0_4"})
                        .client("c")
                        .build();
  const auto r = builtin_plugins().run("fallback_prior", c, AssignmentSettings{});
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(actives_of(c, r.assignment, "a"), SizeIs(4));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ::testing::Contains("0_4"));
  const auto nb = actives_of(c, r.assignment, "b").size();
  const auto nc = actives_of(c, r.assignment, "c").size();
  EXPECT_EQ(nb + nc, 5u);
  EXPECT_LE(nb > nc ? nb - nc : nc - nb, 1u) << describe(c, r.assignment);
  EXPECT_EQ(r.metrics.active_moves, 0u);
}

TEST(FallbackPrior, StandbysOfPreservedActivesAreSpreadLikeSticky) {
  // Kafka's shouldNotHaveSameAssignmentOnAnyTwoHosts under fallback_prior: the standby placement is
  // the sticky one, so no two clients end up holding the same pair of tasks.
  const std::vector<std::string> clients = {"a", "b", "c", "d"}, tasks = {"0_0", "0_1", "0_2", "0_3"};
  const Cluster c =
      ClusterBuilder().stateful_tasks(tasks, 10).end_offsets_unknown().one_previous_active_each(clients, tasks).build();
  const auto r = builtin_plugins().run("fallback_prior", c, standby_replicas(1));
  ASSERT_THAT(r.errors, IsEmpty());
  std::vector<std::vector<std::string>> sets;
  for (const auto& client : clients) {
    auto held = actives_of(c, r.assignment, client);
    for (const auto& t : testing::standbys_of(c, r.assignment, client)) held.push_back(t);
    std::sort(held.begin(), held.end());
    EXPECT_THAT(sets, Not(::testing::Contains(held))) << describe(c, r.assignment);
    sets.push_back(held);
  }
  EXPECT_EQ(r.metrics.standbys, 4u);
}

}  // namespace
}  // namespace assignor
