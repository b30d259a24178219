#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.hpp"
#include "strategy_runner.hpp"

namespace assignor {
namespace {

using testing::actives_of;
using testing::builtin_plugins;
using testing::ClusterBuilder;
using testing::describe;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(FallbackPrior, KeepsEveryPreviousActiveRegardlessOfBalanceAndAsksForProbing) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10).stateful("0_1", 10).stateful("0_2", 10).stateless("1_0")
                        .end_offsets_unknown()
                        .client("a").previous_active({"0_0", "0_1", "0_2", "1_0"})
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
                        .stateful("0_0", 10).stateful("0_1", 10).stateless("1_0").stateless("1_1")
                        .client("a").previous_active({"0_0"})
                        .client("b")
                        .build();
  const auto r = builtin_plugins().run("fallback_prior", c, AssignmentSettings{});
  ASSERT_THAT(r.errors, IsEmpty()) << describe(c, r.assignment);
  // Stateful first: 0_1 to the empty b; then 1_0 ties (1 each) and goes to a, 1_1 to b.
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "1_0"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_1", "1_1"));
}

TEST(FallbackPrior, PreviousStandbyHoldersKeepTheirStandbys) {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .client("a").previous_active({"0_0"})
                        .client("b")
                        .client("c").previous_standby({"0_0"})
                        .build();
  const auto r = builtin_plugins().run("fallback_prior", c, s);
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(testing::standbys_of(c, r.assignment, "c"), ElementsAre("0_0"));
}

}  // namespace
}  // namespace assignor
