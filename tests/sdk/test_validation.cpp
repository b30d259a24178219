#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assignor/validation.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;
using ::testing::HasSubstr;

// 0_0 logged, 1_0 non-logged, 2_0 stateless; clients a, b, c (indices 0, 1, 2).
Cluster three_kinds() {
  return ClusterBuilder()
      .stateful("0_0", 100)
      .nonlogged("1_0")
      .stateless("2_0")
      .client("a")
      .client("b")
      .client("c")
      .build();
}

AssignmentSettings with_standbys(std::uint32_t k, std::uint32_t warmups = 2) {
  AssignmentSettings s;
  s.num_standby_replicas = k;
  s.max_warmup_replicas = warmups;
  return s;
}

std::vector<ValidationErrorKind> kinds(const std::vector<ValidationError>& errors) {
  std::vector<ValidationErrorKind> out;
  for (const auto& e : errors) out.push_back(e.kind);
  return out;
}

Assignment valid_base() {
  Assignment a;
  a.actives = {{0, 0}, {1, 1}, {2, 2}};
  return a;
}

TEST(Validation, AValidAssignmentHasNoErrors) {
  Assignment a = valid_base();
  a.standbys = {{0, 1}};
  a.warmups = {{0, 2}};
  a.probing_rebalance = true;
  EXPECT_TRUE(validate(three_kinds(), with_standbys(1), a).empty());
}

TEST(Validation, WarmupsNeedAProbingRebalance) {
  // A warmup prepares a move that only a probing rebalance completes: without one it would never
  // take the active over (and the copy would restore for nothing).
  Assignment a = valid_base();
  a.warmups = {{0, 2}};
  const auto errors = validate(three_kinds(), with_standbys(1), a);
  ASSERT_EQ(kinds(errors), std::vector{ValidationErrorKind::warmup_without_probing});
  EXPECT_THAT(errors[0].message, HasSubstr("1 warmup placed but no probing rebalance"));
}

TEST(Validation, NamedThreadsMustExistAndBeNamedEverywhere) {
  const Cluster c = three_kinds();  // one thread each
  Assignment a = valid_base();
  for (auto& p : a.actives) p.thread = 0;
  EXPECT_TRUE(validate(c, with_standbys(0), a).empty());
  a.actives[1].thread = 1;  // client b has one thread
  auto errors = validate(c, with_standbys(0), a);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].kind, ValidationErrorKind::thread_assignment);
  EXPECT_THAT(errors[0].message, HasSubstr("thread 1 of client 'b', which has 1 thread"));
  a.actives[1].thread = kAnyThread;  // named on two placements of three
  errors = validate(c, with_standbys(0), a);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0].message, HasSubstr("2 of 3 placements name a thread"));
}

TEST(Validation, UnknownTask) {
  Assignment a = valid_base();
  a.actives.push_back({7, 0});
  EXPECT_THAT(kinds(validate(three_kinds(), {}, a)), ::testing::Contains(ValidationErrorKind::unknown_task));
}

TEST(Validation, UnknownClient) {
  Assignment a = valid_base();
  a.standbys.push_back({0, 9});
  const auto errors = validate(three_kinds(), with_standbys(1), a);
  ASSERT_EQ(kinds(errors), std::vector{ValidationErrorKind::unknown_client});
  EXPECT_THAT(errors[0].message, HasSubstr("0_0"));
}

TEST(Validation, ActiveAssignedMultipleTimesNamesBothClients) {
  Assignment a = valid_base();
  a.actives.push_back({0, 1});
  const auto errors = validate(three_kinds(), {}, a);
  ASSERT_EQ(kinds(errors), std::vector{ValidationErrorKind::active_assigned_multiple_times});
  EXPECT_THAT(errors[0].message, HasSubstr("'a'"));
  EXPECT_THAT(errors[0].message, HasSubstr("'b'"));
}

TEST(Validation, StandbyOfStatelessTask) {
  Assignment a = valid_base();
  a.standbys.push_back({2, 0});
  EXPECT_EQ(kinds(validate(three_kinds(), with_standbys(1), a)), std::vector{ValidationErrorKind::invalid_standby});
}

TEST(Validation, StandbyOrWarmupOfNonLoggedTask) {
  Assignment a = valid_base();
  a.warmups.push_back({1, 0});
  a.probing_rebalance = true;
  EXPECT_EQ(kinds(validate(three_kinds(), with_standbys(1), a)), std::vector{ValidationErrorKind::invalid_standby});
}

TEST(Validation, TaskWithoutActive) {
  Assignment a = valid_base();
  a.actives.pop_back();
  const auto errors = validate(three_kinds(), {}, a);
  ASSERT_EQ(kinds(errors), std::vector{ValidationErrorKind::task_without_active});
  EXPECT_THAT(errors[0].message, HasSubstr("2_0"));
}

TEST(Validation, TwoRolesOfOneTaskOnOneClient) {
  Assignment a = valid_base();
  a.standbys.push_back({0, 0});
  EXPECT_EQ(kinds(validate(three_kinds(), with_standbys(1), a)),
            std::vector{ValidationErrorKind::two_roles_on_one_client});
}

TEST(Validation, SameStandbyTwiceOnOneClient) {
  Assignment a = valid_base();
  a.standbys = {{0, 1}, {0, 1}};
  EXPECT_THAT(kinds(validate(three_kinds(), with_standbys(2), a)),
              ::testing::ElementsAre(ValidationErrorKind::duplicate_standby));
}

TEST(Validation, MoreStandbysThanConfigured) {
  Assignment a = valid_base();
  a.standbys = {{0, 1}, {0, 2}};
  EXPECT_EQ(kinds(validate(three_kinds(), with_standbys(1), a)),
            std::vector{ValidationErrorKind::standby_budget_exceeded});
}

TEST(Validation, WarmupBudgetExceeded) {
  const Cluster c =
      ClusterBuilder().stateful("0_0", 100).stateful("0_1", 100).client("a").client("b").client("c").build();
  Assignment a;
  a.actives = {{0, 0}, {1, 0}};
  a.warmups = {{0, 1}, {1, 1}, {0, 2}};
  a.probing_rebalance = true;
  const auto errors = validate(c, with_standbys(0, 2), a);
  ASSERT_EQ(kinds(errors), std::vector{ValidationErrorKind::warmup_budget_exceeded});
  EXPECT_THAT(errors[0].message, HasSubstr("3 warmups"));
}

TEST(Validation, ReportsEveryErrorNotOnlyTheFirst) {
  Assignment a;
  a.actives = {{0, 0}, {0, 1}};  // 0_0 twice; 1_0 and 2_0 missing
  a.standbys = {{2, 2}};         // standby of a stateless task
  EXPECT_EQ(validate(three_kinds(), with_standbys(1), a).size(), 4u);
}

}  // namespace
}  // namespace assignor
