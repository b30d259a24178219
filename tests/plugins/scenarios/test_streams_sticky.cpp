// streams_sticky (Kafka 4.x's KIP-1071 StickyTaskAssignor + refiner), rule by rule on small groups
// worked out by hand from the algorithm (docs/strategies.md), then random groups for validity,
// determinism and the refiner's promise: no active restores while a caught-up client exists.
// The default kafka_version is trunk-058944c (the recorded answers); 4.4 is the released
// kafka-group-coordinator 4.4.0. Where they decide differently, a case runs both and expects each
// version's own answer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/threads.hpp"
#include "random_group.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

constexpr const char* kDefault = "";  // kafka_version not given
constexpr const char* k44 = "4.4";
constexpr const char* kTrunk = "trunk-058944c";

StrategyParams refiner_param(bool on, const std::string& kafka_version = kDefault) {
  std::map<std::string, std::string> p{{"refiner", on ? "true" : "false"}};
  if (!kafka_version.empty()) p["kafka_version"] = kafka_version;
  return StrategyParams(p);
}

testing::RunResult run(const Cluster& c, const AssignmentSettings& s = {}, bool refiner = true,
                       const std::string& kafka_version = kDefault) {
  auto r = builtin_plugins().run("streams_sticky", c, s, refiner_param(refiner, kafka_version));
  EXPECT_THAT(r.errors, IsEmpty()) << describe(c, r.assignment);
  return r;
}

TEST(StreamsSticky, ASteadyGroupKeepsEverything) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000)
                        .stateful("0_1", 1000)
                        .stateless("1_0")
                        .stateless("1_1")
                        .client("a")
                        .previous_active({"0_0", "1_0"})
                        .previous_standby({"0_1"})
                        .offsets({{"0_0", -2}, {"0_1", 1000}})
                        .client("b")
                        .previous_active({"0_1", "1_1"})
                        .previous_standby({"0_0"})
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
                        .stateless("0_0")
                        .stateless("0_1")
                        .stateless("1_0")
                        .stateless("1_1")
                        .client("a")
                        .previous_active({"0_0", "0_1", "1_0", "1_1"})
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
                        .client("b")
                        .previous_standby({"0_0"})
                        .offsets({{"0_0", 900}})
                        .client("c")
                        .offsets({{"0_0", 990}})
                        .client("d")
                        .previous_standby({"0_0"})
                        .offsets({{"0_0", 800}})
                        .build();
  const auto r = run(c);
  EXPECT_EQ(active_client_of(c, r.assignment, "0_0"), "b");
}

// A later candidate replaces the first only when its client is strictly less loaded AND its
// thread holds strictly fewer tasks. b ranks first (higher offsets); d is empty.
TEST(StreamsSticky, ALaterCandidateWinsOnlyWhenStrictlyLessLoaded) {
  const Cluster busy = ClusterBuilder()
                           .stateful("0_0", 1000)
                           .stateless("1_0")
                           .stateless("1_1")
                           .client("a")
                           .client("b", 2)
                           .previous_active({"1_0", "1_1"})
                           .previous_standby({"0_0"})
                           .offsets({{"0_0", 950}})
                           .client("d")
                           .previous_standby({"0_0"})
                           .offsets({{"0_0", 900}})
                           .build();
  // 4.4, one pass in (partition, sub-topology) order 0_0, 1_0, 1_1, quota ceil(3 / 4) = 1: 0_0 has
  // no previous active; b's threads keep 1_0 and 1_1 (one each); then for 0_0 b (load 2 / 2, its
  // thread holding 1) loses to d (0, 0).
  EXPECT_EQ(active_client_of(busy, run(busy, {}, true, k44).assignment, "0_0"), "d");
  // Trunk (the default) places the stateful tasks first: b holds nothing yet when 0_0 is placed,
  // so b (first) keeps it.
  EXPECT_EQ(active_client_of(busy, run(busy).assignment, "0_0"), "b");
  EXPECT_EQ(active_client_of(busy, run(busy, {}, true, kTrunk).assignment, "0_0"), "b");

  const Cluster loaded = ClusterBuilder()
                             .stateful("0_0", 1000)
                             .stateful("0_1", 1000)
                             .stateful("0_2", 1000)
                             .client("b", 2)
                             .previous_active({"0_1", "0_2"})
                             .previous_standby({"0_0"})
                             .offsets({{"0_0", 950}, {"0_1", -2}, {"0_2", -2}})
                             .client("d", 2)
                             .previous_standby({"0_0"})
                             .offsets({{"0_0", 900}})
                             .build();
  // 0_1, 0_2 stay on b in step 1 (quota ceil(3 / 4) = 1 per thread: one per thread of b); for 0_0
  // b ranks first but d is strictly less loaded on both counts.
  EXPECT_EQ(active_client_of(loaded, run(loaded).assignment, "0_0"), "d");
}

// Scale-out: a ran four stateful tasks; b joins with nothing. The assignor gives b two of them
// (quota 2); the refiner keeps both on a, caught up, with b warming up, and asks for a probing
// rebalance. Without the refiner b would run them cold.
TEST(StreamsSticky, TheRefinerKeepsMovedTasksOnTheCaughtUpOwnerWhileTheTargetWarmsUp) {
  ClusterBuilder scale_out;
  scale_out.stateful_tasks({"0_0", "0_1", "0_2", "0_3"}, 100000)
      .client("a")
      .running_actives({"0_0", "0_1", "0_2", "0_3"});
  scale_out.client("b");
  const Cluster c = scale_out.build();
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
  const Cluster next =
      ClusterBuilder(scale_out).previous_standby({"0_2", "0_3"}).offsets({{"0_2", 100000}, {"0_3", 100000}}).build();
  const auto done = run(next);
  EXPECT_THAT(actives_of(next, done.assignment, "b"), ElementsAre("0_2", "0_3"));
  EXPECT_FALSE(done.assignment.probing_rebalance);
}

// Standbys: the previous active owner first (its process does not hold the task any more).
TEST(StreamsSticky, AStandbyGoesBackToThePreviousActiveOwnerFirst) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000)
                        .stateful("0_1", 1000)
                        .client("a")
                        .running_actives({"0_0", "0_1"})
                        .client("b")
                        .previous_standby({"0_0", "0_1"})
                        .offsets({{"0_0", 1000}, {"0_1", 1000}})
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

// ---- where Kafka 4.4.0 and the recorded trunk differ (kafka_version) ----

// Kafka 4.4 places all actives in one pass: in (partition, sub-topology) order 0_0 (stateless) comes
// before 1_0 (stateful), so with a quota of ceil(2 / 2) = 1 per member a keeps 0_0 and 1_0 goes to
// the empty b. Trunk places the stateful tasks first under their own quota (ceil(1 / 2) = 1): a
// keeps 1_0, and the stateless 0_0 moves to b.
TEST(StreamsStickyKafkaVersion, Kafka44PlacesActivesInOnePassTrunkStatefulFirst) {
  const Cluster c = ClusterBuilder()
                        .stateless("0_0")
                        .stateful("1_0", 1000)
                        .client("a")
                        .previous_active({"0_0", "1_0"})
                        .client("b")
                        .build();
  const auto r44 = run(c, {}, false, k44);
  EXPECT_THAT(actives_of(c, r44.assignment, "a"), ElementsAre("0_0"));
  EXPECT_THAT(actives_of(c, r44.assignment, "b"), ElementsAre("1_0"));
  for (const char* version : {kDefault, kTrunk}) {
    const auto trunk = run(c, {}, false, version);
    EXPECT_THAT(actives_of(c, trunk.assignment, "a"), ElementsAre("1_0")) << version;
    EXPECT_THAT(actives_of(c, trunk.assignment, "b"), ElementsAre("0_0")) << version;
  }
}

// A new stateless task 0_1 between two equally loaded processes: b runs the stateless 0_0, a the
// stateful 1_0 (both kept: quota ceil(3 / 2) = 2). Kafka 4.4's queue compares load alone, so the
// tie falls to the HashMap order of the processes (2 members, 2 bins: "b" = 98 in bin 0 before
// "a" = 97 in bin 1): b. Trunk breaks the tie by stateless actives per member: a has none, a wins.
TEST(StreamsStickyKafkaVersion, Kafka44BreaksLoadTiesByHashOrderTrunkByStatelessLoad) {
  const Cluster c = ClusterBuilder()
                        .stateless("0_0")
                        .stateless("0_1")
                        .stateful("1_0", 1000)
                        .client("a")
                        .previous_active({"1_0"})
                        .client("b")
                        .previous_active({"0_0"})
                        .build();
  const auto r44 = run(c, {}, false, k44);
  EXPECT_THAT(actives_of(c, r44.assignment, "a"), ElementsAre("1_0"));
  EXPECT_THAT(actives_of(c, r44.assignment, "b"), ElementsAre("0_0", "0_1"));
  const auto trunk = run(c, {}, false, kTrunk);
  EXPECT_THAT(actives_of(c, trunk.assignment, "a"), ElementsAre("0_1", "1_0"));
  EXPECT_THAT(actives_of(c, trunk.assignment, "b"), ElementsAre("0_0"));
}

// rack_aware.tags: Kafka 4.4's StickyTaskAssignor has no rack-aware standby placement, so the
// standby of 0_0 stays sticky on b, its previous standby holder, though b shares the active's zone.
// Trunk's RackAwareStandbyPicker first picks a process with an unused zone: c. Without tags both
// versions keep b.
TEST(StreamsStickyKafkaVersion, Kafka44IgnoresTagsTrunkSpreadsStandbysOverThem) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000)
                        .client("a")
                        .tag("zone", "z1")
                        .previous_active({"0_0"})
                        .client("b")
                        .tag("zone", "z1")
                        .previous_standby({"0_0"})
                        .client("c")
                        .tag("zone", "z2")
                        .build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  AssignmentSettings tagged = s;
  tagged.rack_aware.tags = {"zone"};
  const auto r44 = run(c, tagged, false, k44);
  EXPECT_THAT(actives_of(c, r44.assignment, "a"), ElementsAre("0_0"));
  EXPECT_THAT(standbys_of(c, r44.assignment, "b"), ElementsAre("0_0"));
  for (const char* version : {kDefault, kTrunk}) {
    const auto trunk = run(c, tagged, false, version);
    EXPECT_THAT(actives_of(c, trunk.assignment, "a"), ElementsAre("0_0")) << version;
    EXPECT_THAT(standbys_of(c, trunk.assignment, "c"), ElementsAre("0_0")) << version;
  }
  EXPECT_THAT(standbys_of(c, run(c, s, false, kTrunk).assignment, "b"), ElementsAre("0_0"));
}

TEST(StreamsStickyKafkaVersion, AnUnknownVersionIsRejectedNamingTheChoices) {
  for (const char* bad : {"4.3", "4.4.0", "trunk"}) {
    try {
      (void)builtin_plugins().registry().create("streams_sticky", refiner_param(false, bad));
      ADD_FAILURE() << "accepted kafka_version " << bad;
    } catch (const ConfigError& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("kafka_version")) << bad;
      EXPECT_THAT(e.what(), ::testing::HasSubstr("4.4 or trunk-058944c")) << bad;
      EXPECT_THAT(e.what(), ::testing::HasSubstr(std::string("'") + bad + "'")) << bad;
    }
  }
}

// The tasks of `list` on one named thread of a client, sorted.
std::vector<std::string> on_thread(const Cluster& c, const std::vector<Placement>& list, const std::string& client,
                                   const std::string& thread) {
  const ClientIndex ci = *c.find_client(client);
  const auto names = thread_names(c.clients[ci]);
  std::vector<std::string> out;
  for (const Placement& p : list)
    if (p.client == ci && p.thread < names.size() && names[p.thread] == thread)
      out.push_back(to_string(c.tasks[p.task].id));
  std::sort(out.begin(), out.end());
  return out;
}

// Kafka's all-tasks quota counts num.standby.replicas as configured, even where no task can have
// that many copies: 2 standbys on 2 processes (a: thread a; b: threads x, y), five stateful tasks
// a ran and x kept standbys of. Through the host, which caps num_standby_replicas at clients - 1
// for other strategies, streams_sticky must still count 2 (Kafka 4.4.0's StickyTaskAssignor gives
// this answer on this group; with 1 standby it gives y 0_0). By hand: actives (quota ceil(5 / 3) =
// 2, then 2, then 1): a 0_0 0_1, x 0_2 0_3, y 0_4. Standbys in reverse order under the all-tasks
// quota ceil((5 + 5 x 2) / 3) = 5: a, their previous owner, takes 0_4, 0_3, 0_2 (reaching 5: 5
// again for the two left); x, the previous standby, 0_1 and 0_0 (3 < 5). Counting 1 standby, the
// quota is ceil(10 / 3) = 4, a's 4 makes it 3, x reaches 3 with 0_1, and 0_0 goes to b's
// least-loaded member y.
TEST(StreamsStickyKafkaVersion, TheHostGivesItTheConfiguredStandbysKafkasQuotaCounts) {
  ClusterBuilder b;
  std::vector<std::string> all;
  std::vector<TaskIndex> indices;
  for (int p = 0; p < 5; ++p) {
    all.push_back("0_" + std::to_string(p));
    b.stateful(all.back(), 1000);
    indices.push_back(static_cast<TaskIndex>(p));
  }
  std::vector<std::pair<std::string, std::int64_t>> running, standing;
  for (const auto& t : all) {
    running.emplace_back(t, -2);
    standing.emplace_back(t, 1000);
  }
  Cluster c = b.client("a")
                  .previous_active(all)
                  .offsets(running)
                  .client("b", 2)
                  .previous_standby(all)
                  .offsets(standing)
                  .build();
  c.clients[0].threads_history = {ThreadHistory{"a", indices, {}}};
  c.clients[1].threads_history = {ThreadHistory{"x", {}, indices}, ThreadHistory{"y", {}, {}}};
  host::Config config;
  config.strategy = "streams_sticky";
  config.settings.num_standby_replicas = 2;
  config.strategy_params["streams_sticky"] = refiner_param(false, k44);
  const auto outcome = host::run_assignment(builtin_plugins().registry(), config, c, config.strategy);
  ASSERT_FALSE(outcome.used_fallback);
  const Assignment& a = outcome.report.assignment;
  EXPECT_THAT(on_thread(c, a.actives, "a", "a"), ElementsAre("0_0", "0_1"));
  EXPECT_THAT(on_thread(c, a.actives, "b", "x"), ElementsAre("0_2", "0_3"));
  EXPECT_THAT(on_thread(c, a.actives, "b", "y"), ElementsAre("0_4"));
  EXPECT_THAT(on_thread(c, a.standbys, "a", "a"), ElementsAre("0_2", "0_3", "0_4"));
  EXPECT_THAT(on_thread(c, a.standbys, "b", "x"), ElementsAre("0_0", "0_1"));
  EXPECT_THAT(on_thread(c, a.standbys, "b", "y"), IsEmpty());
  // What was asked for and could not be placed is still reported against the configured number.
  EXPECT_EQ(outcome.report.metrics.standby_shortfall, 5u);
}

RC_GTEST_PROP(StreamsStickyRandom, GroupsAreValidDeterministicAndNeverRestoreWhileACaughtUpClientExists, ()) {
  testing::GroupShape shape;
  shape.max_threads = 3;
  shape.max_warmups = 4;
  const testing::Group g = *testing::gen_group(shape);
  const std::string version = *rc::gen::element<std::string>(k44, kTrunk);
  const Cluster& c = g.cluster;
  const AssignmentSettings& s = g.settings;
  const auto r = builtin_plugins().run("streams_sticky", c, s, refiner_param(true, version));
  testing::require_valid(c, r);
  testing::require_run(r.metrics.restoring_actives == 0u, c, r, "a restoring active");
  testing::require_run(r.assignment.warmups.size() <= s.max_warmup_replicas, c, r, "too many warmups");
  if (!r.assignment.warmups.empty())
    testing::require_run(r.assignment.probing_rebalance, c, r, "warmups without a probing rebalance");
  testing::require(
      builtin_plugins().run("streams_sticky", c, s, refiner_param(true, version)).assignment == r.assignment,
      "not deterministic");
  // Without the refiner: never a warmup, never probing, and every task placed all the same.
  const auto raw = builtin_plugins().run("streams_sticky", c, s, refiner_param(false, version));
  testing::require_valid(c, raw);
  testing::require_run(raw.assignment.warmups.empty() && !raw.assignment.probing_rebalance, c, raw,
                       "warmups or probing without the refiner");
}

}  // namespace
}  // namespace assignor
