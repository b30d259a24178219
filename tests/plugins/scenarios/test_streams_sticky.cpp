// streams_sticky (Kafka 4.x's KIP-1071 StickyTaskAssignor + refiner), rule by rule on small groups
// worked out by hand from the algorithm (docs/strategies.md), then random groups for validity,
// determinism and the refiner's promise: no active restores while a caught-up client exists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>

#include "cluster_builder.hpp"
#include "random_group.hpp"
#include "strategy_runner.hpp"

namespace assignor {
namespace {

using testing::actives_of;
using testing::active_client_of;
using testing::builtin_plugins;
using testing::ClusterBuilder;
using testing::describe;
using testing::standbys_of;
using testing::warmups_of;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

StrategyParams refiner_param(bool on) {
  return StrategyParams(std::map<std::string, std::string>{{"refiner", on ? "true" : "false"}});
}

testing::RunResult run(const Cluster& c, const AssignmentSettings& s = {}, bool refiner = true) {
  auto r = builtin_plugins().run("streams_sticky", c, s,
                                 refiner_param(refiner));
  EXPECT_THAT(r.errors, IsEmpty()) << describe(c, r.assignment);
  return r;
}

TEST(StreamsSticky, ASteadyGroupKeepsEverything) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000).stateful("0_1", 1000).stateless("1_0").stateless("1_1")
                        .client("a").previous_active({"0_0", "1_0"}).previous_standby({"0_1"})
                        .offsets({{"0_0", -2}, {"0_1", 1000}})
                        .client("b").previous_active({"0_1", "1_1"}).previous_standby({"0_0"})
                        .offsets({{"0_1", -2}, {"0_0", 1000}})
                        .build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const auto r = run(c, s);
  EXPECT_EQ(r.metrics.active_moves, 0u);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "1_0"));
  EXPECT_THAT(standbys_of(c, r.assignment, "a"), ElementsAre("0_1"));
  EXPECT_THAT(standbys_of(c, r.assignment, "b"), ElementsAre("0_0"));
  EXPECT_THAT(r.assignment.warmups, IsEmpty());
  EXPECT_FALSE(r.assignment.probing_rebalance);
}

// Six stateless tasks all on a; three one-thread clients: the quota is ceil(6 / 3) = 2, so a keeps
// the first two in (partition, sub-topology) order; the rest go in task order to the least-loaded
// client, ties to the lower index: b, c, b, c.
TEST(StreamsSticky, ThePerThreadQuotaCapsWhatThePreviousOwnerKeeps) {
  ClusterBuilder b;
  std::vector<std::string> all;
  for (int p = 0; p < 6; ++p) {
    b.stateless("0_" + std::to_string(p));
    all.push_back("0_" + std::to_string(p));
  }
  const Cluster c = b.client("a").previous_active(all).client("b").client("c").build();
  const auto r = run(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "0_1"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_2", "0_4"));
  EXPECT_THAT(actives_of(c, r.assignment, "c"), ElementsAre("0_3", "0_5"));
}

// Sub-topologies interleave by partition: with a quota of 2 per thread, the owner keeps 0_0 and
// 1_0 (partition 0 of both), not 0_0 and 0_1.
TEST(StreamsSticky, StickyPlacementsGoInPartitionThenSubtopologyOrder) {
  const Cluster c = ClusterBuilder()
                        .stateless("0_0").stateless("0_1").stateless("1_0").stateless("1_1")
                        .client("a").previous_active({"0_0", "0_1", "1_0", "1_1"})
                        .client("b")
                        .build();
  const auto r = run(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "1_0"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_1", "1_1"));
}

// The owner of 0_0 is gone. Previous copies rank before clients with only offsets on disk, and by
// offset sum within each group: b's standby (900) beats c's higher on-disk offsets (990) and d's
// standby (800).
TEST(StreamsSticky, WithoutTheOwnerTheBestPreviousCopyTakesTheTask) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000)
                        .client("b").previous_standby({"0_0"}).offsets({{"0_0", 900}})
                        .client("c").offsets({{"0_0", 990}})
                        .client("d").previous_standby({"0_0"}).offsets({{"0_0", 800}})
                        .build();
  const auto r = run(c);
  EXPECT_EQ(active_client_of(c, r.assignment, "0_0"), "b");
}

// A later candidate replaces the first only when its client is strictly less loaded AND its
// thread holds strictly fewer tasks. b ranks first (higher offsets) but already runs 2 tasks
// (kept in step 1); d is empty: d wins. With b as loaded as d, b keeps its rank.
TEST(StreamsSticky, ALaterCandidateWinsOnlyWhenStrictlyLessLoaded) {
  const Cluster busy = ClusterBuilder()
                           .stateful("0_0", 1000).stateless("1_0").stateless("1_1")
                           .client("a").client("b", 2).previous_active({"1_0", "1_1"}).previous_standby({"0_0"})
                           .offsets({{"0_0", 950}})
                           .client("d").previous_standby({"0_0"}).offsets({{"0_0", 900}})
                           .build();
  // Stateful pass first: b holds nothing yet when 0_0 is placed, so b (first) keeps the task.
  EXPECT_EQ(active_client_of(busy, run(busy).assignment, "0_0"), "b");

  const Cluster loaded = ClusterBuilder()
                             .stateful("0_0", 1000).stateful("0_1", 1000).stateful("0_2", 1000)
                             .client("b", 2).previous_active({"0_1", "0_2"}).previous_standby({"0_0"})
                             .offsets({{"0_0", 950}, {"0_1", -2}, {"0_2", -2}})
                             .client("d", 2).previous_standby({"0_0"}).offsets({{"0_0", 900}})
                             .build();
  // 0_1, 0_2 stay on b in step 1 (quota ceil(3 / 4) = 1 per thread: one per thread of b); for 0_0
  // b ranks first but d is strictly less loaded on both counts.
  EXPECT_EQ(active_client_of(loaded, run(loaded).assignment, "0_0"), "d");
}

// Scale-out: a ran four stateful tasks; b joins with nothing. The assignor gives b two of them
// (quota 2); the refiner keeps both on a, caught up, with b warming up, and asks for a probing
// rebalance. Without the refiner b would run them cold.
TEST(StreamsSticky, TheRefinerKeepsMovedTasksOnTheCaughtUpOwnerWhileTheTargetWarmsUp) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 100000).stateful("0_1", 100000).stateful("0_2", 100000)
                        .stateful("0_3", 100000)
                        .client("a").previous_active({"0_0", "0_1", "0_2", "0_3"})
                        .offsets({{"0_0", -2}, {"0_1", -2}, {"0_2", -2}, {"0_3", -2}})
                        .client("b")
                        .build();
  const auto raw = run(c, {}, /*refiner=*/false);
  EXPECT_THAT(actives_of(c, raw.assignment, "b"), ElementsAre("0_2", "0_3"));
  EXPECT_EQ(raw.metrics.restoring_actives, 2u);
  EXPECT_FALSE(raw.assignment.probing_rebalance);

  const auto refined = run(c);
  EXPECT_THAT(actives_of(c, refined.assignment, "a"), ElementsAre("0_0", "0_1", "0_2", "0_3"));
  EXPECT_THAT(warmups_of(c, refined.assignment, "b"), ElementsAre("0_2", "0_3"));
  EXPECT_EQ(refined.metrics.restoring_actives, 0u);
  EXPECT_TRUE(refined.assignment.probing_rebalance);

  // Next round, b caught up: the moves are granted.
  const Cluster next = ClusterBuilder()
                           .stateful("0_0", 100000).stateful("0_1", 100000).stateful("0_2", 100000)
                           .stateful("0_3", 100000)
                           .client("a").previous_active({"0_0", "0_1", "0_2", "0_3"})
                           .offsets({{"0_0", -2}, {"0_1", -2}, {"0_2", -2}, {"0_3", -2}})
                           .client("b").previous_standby({"0_2", "0_3"}).offsets({{"0_2", 100000}, {"0_3", 100000}})
                           .build();
  const auto done = run(next);
  EXPECT_THAT(actives_of(next, done.assignment, "b"), ElementsAre("0_2", "0_3"));
  EXPECT_FALSE(done.assignment.probing_rebalance);
}

// Standbys: the previous active owner first (its process does not hold the task any more).
TEST(StreamsSticky, AStandbyGoesBackToThePreviousActiveOwnerFirst) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000).stateful("0_1", 1000)
                        .client("a").previous_active({"0_0", "0_1"}).offsets({{"0_0", -2}, {"0_1", -2}})
                        .client("b").previous_standby({"0_0", "0_1"}).offsets({{"0_0", 1000}, {"0_1", 1000}})
                        .build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const auto r = run(c, s);
  // Quota ceil(2 / 2) = 1: a keeps 0_0; 0_1 goes to its caught-up standby b (granted); a, its
  // previous active owner, takes 0_1's standby; b gets 0_0's.
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_1"));
  EXPECT_THAT(standbys_of(c, r.assignment, "a"), ElementsAre("0_1"));
  EXPECT_THAT(standbys_of(c, r.assignment, "b"), ElementsAre("0_0"));
}

// ---- random groups (tests/support/random_group.hpp) ----

// Kafka breaks ties where its HashMaps and PriorityQueues put them (java_order.hpp). Processes sit
// in a HashMap presized for the members: 2 members, 2 bins, and "b".hashCode() = 98 lands in bin 0
// before "a" (97) in bin 1. Both processes are empty, so the queue of step 3 polls b first.
TEST(StreamsSticky, TiesFallWhereKafkasHashMapPutsTheProcesses) {
  const Cluster c = ClusterBuilder().stateless("0_0").client("a").client("b").build();
  const auto r = run(c, {}, false);
  EXPECT_EQ(active_client_of(c, r.assignment, "0_0"), "b");
  ASSERT_EQ(r.assignment.actives.size(), 1u);
  EXPECT_EQ(r.assignment.actives[0].thread, 0u);
}

// The member a task lands on is Kafka's: a process's members sit in a HashMap too ("w" = 119 in
// bin 7 before "x" = 120 in bin 8), so the least-loaded member heap polls w first, though x is the
// client's first thread.
TEST(StreamsSticky, TheMemberIsKafkasToo) {
  Cluster c = ClusterBuilder().stateless("0_0").client("a", 2).build();
  for (const char* name : {"x", "w"}) {
    ThreadHistory h;
    h.name = name;
    c.clients[0].threads_history.push_back(h);
  }
  const auto r = run(c, {}, false);
  ASSERT_EQ(r.assignment.actives.size(), 1u);
  EXPECT_EQ(r.assignment.actives[0].thread, 1u);  // "w", the second thread of the file
}

RC_GTEST_PROP(StreamsStickyRandom, GroupsAreValidDeterministicAndNeverRestoreWhileACaughtUpClientExists, ()) {
  testing::GroupShape shape;
  shape.max_threads = 3;
  shape.max_warmups = 4;
  const testing::Group g = *testing::gen_group(shape);
  const Cluster& c = g.cluster;
  const AssignmentSettings& s = g.settings;
  const auto r = builtin_plugins().run("streams_sticky", c, s);
  testing::require_valid(c, r);
  testing::require_run(r.metrics.restoring_actives == 0u, c, r, "a restoring active");
  testing::require_run(r.assignment.warmups.size() <= s.max_warmup_replicas, c, r, "too many warmups");
  if (!r.assignment.warmups.empty())
    testing::require_run(r.assignment.probing_rebalance, c, r, "warmups without a probing rebalance");
  testing::require(builtin_plugins().run("streams_sticky", c, s).assignment == r.assignment, "not deterministic");
  // Without the refiner: never a warmup, never probing, and every task placed all the same.
  const auto raw = builtin_plugins().run("streams_sticky", c, s, refiner_param(false));
  testing::require_valid(c, raw);
  testing::require_run(raw.assignment.warmups.empty() && !raw.assignment.probing_rebalance, c, raw, "warmups or probing without the refiner");
}

}  // namespace
}  // namespace assignor
