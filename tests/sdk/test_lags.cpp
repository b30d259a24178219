#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "assignor/lags.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

ClientIndex idx(const Cluster& c, const std::string& id) { return *c.find_client(id); }
TaskIndex tidx(const Cluster& c, const std::string& id) { return *c.find_task(*parse_task_id(id)); }

std::vector<std::string> ranked_ids(const Cluster& c, const LagModel& lags, const std::string& task) {
  std::vector<std::string> out;
  for (ClientIndex i : lags.ranked(tidx(c, task))) out.push_back(c.clients[i].id);
  return out;
}

TEST(Lags, RunningSentinelIsCaughtUpAndRankedFirst) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("a")
                        .offsets({{"0_0", 49999}})
                        .client("b")
                        .offsets({{"0_0", -2}})
                        .build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_EQ(lags.lag(0, idx(c, "b")), Lag::running());
  EXPECT_TRUE(lags.caught_up(0, idx(c, "b")));
  EXPECT_THAT(ranked_ids(c, lags, "0_0"), ElementsAre("b", "a"));
}

TEST(Lags, TaskNotReportedMeansFullRestore) {
  const Cluster c = ClusterBuilder().stateful("0_0", 50000).client("a").build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_EQ(lags.lag(0, 0), Lag::known(50000));
  EXPECT_FALSE(lags.caught_up(0, 0));
}

TEST(Lags, ReportedSumSubtractsFromEndOffsetSum) {
  const Cluster c = ClusterBuilder().stateful("0_0", 50000).client("a").offsets({{"0_0", 42000}}).build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_EQ(lags.lag(0, 0), Lag::known(8000));
  EXPECT_TRUE(lags.caught_up(0, 0));  // 8000 <= 10000
  EXPECT_TRUE(lags.warnings().empty());
}

TEST(Lags, SumAboveEndOffsetSumIsSuspectWithWarningNamingClientAndTask) {
  const Cluster c = ClusterBuilder().stateful("3_7", 1000).client("node-9").offsets({{"3_7", 5000}}).build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_EQ(lags.lag(0, 0), Lag::known(1000));
  ASSERT_EQ(lags.warnings().size(), 1u);
  EXPECT_THAT(lags.warnings()[0].message, HasSubstr("node-9"));
  EXPECT_THAT(lags.warnings()[0].message, HasSubstr("3_7"));
}

TEST(Lags, NegativeSumOtherThanRunningIsSuspect) {
  const Cluster c = ClusterBuilder().stateful("0_0", 1000).client("a").offsets({{"0_0", -3}}).build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_EQ(lags.lag(0, 0), Lag::known(1000));
  ASSERT_EQ(lags.warnings().size(), 1u);
  EXPECT_THAT(lags.warnings()[0].message, HasSubstr("negative"));
}

TEST(Lags, NonLoggedOnlyTaskMakesEveryClientAnEqualCandidate) {
  // The seed: no lag is reported for non-logged stores, so every client is an equal candidate.
  const Cluster c = ClusterBuilder().nonlogged("1_0").client("c").client("a").client("b").build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_TRUE(c.tasks[0].stateful);
  EXPECT_EQ(c.tasks[0].end_offset_sum, 0);
  for (ClientIndex i = 0; i < 3; ++i) EXPECT_EQ(lags.lag(0, i), Lag::known(0));
  EXPECT_TRUE(lags.everyone_caught_up(0));
  EXPECT_EQ(lags.caught_up_count(0), 3u);
  EXPECT_THAT(ranked_ids(c, lags, "1_0"), ElementsAre("a", "b", "c"));
}

TEST(Lags, MixedTaskGetsTheLagOfItsLoggedStoresAlone) {
  const Cluster c = ClusterBuilder().mixed("0_0", 30000).client("a").offsets({{"0_0", 10000}}).build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_EQ(c.tasks[0].end_offset_sum, 30000);
  EXPECT_EQ(lags.lag(0, 0), Lag::known(20000));
}

TEST(Lags, UnknownEndOffsetsGiveADistinctUnknownStateThatNeverSortsAhead) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000)
                        .end_offsets_unknown()
                        .client("a")
                        .offsets({{"0_0", 999}})
                        .client("b")
                        .offsets({{"0_0", -2}})
                        .client("c")
                        .build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_EQ(lags.lag(0, idx(c, "a")).kind, LagKind::unknown);
  EXPECT_EQ(lags.lag(0, idx(c, "c")).kind, LagKind::unknown);
  EXPECT_EQ(lags.lag(0, idx(c, "b")), Lag::running());
  EXPECT_FALSE(lags.caught_up(0, idx(c, "a")));
  EXPECT_TRUE(lags.caught_up(0, idx(c, "b")));
  EXPECT_TRUE(less_lag(Lag::running(), Lag::unknown()));
  EXPECT_TRUE(less_lag(Lag::known(std::numeric_limits<std::int64_t>::max()), Lag::unknown()));
  EXPECT_FALSE(less_lag(Lag::unknown(), Lag::known(0)));
  EXPECT_THAT(ranked_ids(c, lags, "0_0"), ElementsAre("b", "a", "c"));
}

TEST(Lags, StatelessTasksHaveNoCandidates) {
  const Cluster c = ClusterBuilder().stateless("2_0").client("a").build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_EQ(lags.ranked(0).begin(), lags.ranked(0).end());
}

TEST(Lags, RankIsRunningThenCaughtUpByClientIdThenByLag) {
  AssignmentSettings s;
  s.acceptable_recovery_lag = 100;
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10000)
                        .client("e")
                        .offsets({{"0_0", 9950}})  // lag 50, caught up
                        .client("d")
                        .offsets({{"0_0", 9990}})  // lag 10, caught up
                        .client("c")
                        .offsets({{"0_0", 5000}})  // lag 5000
                        .client("b")
                        .offsets({{"0_0", 8000}})  // lag 2000
                        .client("a")               // lag 10000
                        .client("f")
                        .offsets({{"0_0", -2}})  // running
                        .client("g")
                        .offsets({{"0_0", 8000}})  // lag 2000, tie with b
                        .build();
  const LagModel lags(c, s);
  EXPECT_THAT(ranked_ids(c, lags, "0_0"), ElementsAre("f", "d", "e", "b", "g", "c", "a"));
  std::vector<std::string> caught;
  for (ClientIndex i : lags.caught_up_clients(0)) caught.push_back(c.clients[i].id);
  EXPECT_THAT(caught, ElementsAre("f", "d", "e"));
  EXPECT_EQ(lags.caught_up_count(0), 3u);
}

TEST(Lags, AcceptableLagBoundaryIsInclusive) {
  AssignmentSettings s;
  s.acceptable_recovery_lag = 100;
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000)
                        .client("a")
                        .offsets({{"0_0", 900}})
                        .client("b")
                        .offsets({{"0_0", 899}})
                        .build();
  const LagModel lags(c, s);
  EXPECT_TRUE(lags.caught_up(0, idx(c, "a")));
  EXPECT_FALSE(lags.caught_up(0, idx(c, "b")));
}

TEST(Lags, EndOffsetSumOverflowIsPinnedAtMaximum) {
  Task t;
  t.id = {0, 0};
  t.stores.push_back({"a", true, std::numeric_limits<std::int64_t>::max()});
  t.stores.push_back({"b", true, 10});
  const Cluster c = ClusterBuilder().task(t).client("a").build();
  EXPECT_EQ(c.tasks[0].end_offset_sum, std::numeric_limits<std::int64_t>::max());
}

TEST(Lags, RankedCandidatesCoverEveryClientOnceOnLargeGroups) {
  ClusterBuilder b;
  b.stateful("0_0", 1000000);
  for (int i = 0; i < 50; ++i) {
    b.client("c" + std::to_string(100 + i));
    if (i % 7 == 0) b.offsets({{"0_0", 1000000 - i * 1000}});
  }
  const Cluster c = b.build();
  const LagModel lags(c, AssignmentSettings{});
  std::vector<int> seen(50, 0);
  Lag previous = Lag::running();
  for (ClientIndex i : lags.ranked(0)) {
    ++seen[i];
    EXPECT_FALSE(less_lag(lags.lag(0, i), previous)) << "rank order broken at " << c.clients[i].id;
    previous = lags.lag(0, i);
  }
  for (int n : seen) EXPECT_EQ(n, 1);
}

// When the end-offset sum is within the acceptable lag, every client is caught up: they tie, so
// the order is running first, then every other client by index, whether it reported offsets or
// not (the ranking used to put the reporting clients first: c, a, b). caught_up_clients() agrees
// with caught_up_count().
TEST(Lags, WhenEveryoneIsCaughtUpReportingClientsDoNotJumpTheQueue) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 5000)  // within the default 10,000
                        .client("a")
                        .client("b")
                        .offsets({{"0_0", -2}})
                        .client("c")
                        .offsets({{"0_0", 2500}})
                        .client("d")
                        .build();
  const LagModel lags(c, AssignmentSettings{});
  EXPECT_THAT(ranked_ids(c, lags, "0_0"), ElementsAre("b", "a", "c", "d"));
  std::vector<std::string> caught;
  for (ClientIndex i : lags.caught_up_clients(0)) caught.push_back(c.clients[i].id);
  EXPECT_THAT(caught, ElementsAre("b", "a", "c", "d"));
  EXPECT_EQ(lags.caught_up_count(0), 4u);
  EXPECT_EQ(lags.caught_up_clients(0).size(), 4u);
}

TEST(Lags, AnIteratorOutlivesTheRangeItCameFrom) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("a")
                        .offsets({{"0_0", 49000}})
                        .client("b")
                        .offsets({{"0_0", -2}})
                        .client("c")
                        .build();
  const LagModel lags(c, AssignmentSettings{});
  auto it = lags.ranked(0).begin();  // the range is a temporary, gone after this line
  const auto end = lags.ranked(0).end();
  std::vector<std::string> ids;
  for (; it != end; ++it) ids.push_back(c.clients[*it].id);
  EXPECT_THAT(ids, ElementsAre("b", "a", "c"));
}

}  // namespace
}  // namespace assignor
