// Scenarios from Kafka's LegacyStickyTaskAssignorTest and hand-worked ones: each builds a small group,
// runs the built `sticky` plugin through the host's registry and checks Kafka's rules: previous
// owners keep tasks up to tasks-per-thread (floor(tasks / threads)) per thread, in the order of
// Kafka's HashMap of previous actives; standby holders next; then findClient (the previous owner
// unless it is at capacity while another client has more room; "least loaded" takes a client with
// no task at once, else the lowest load, more threads first, among clients that would get a new
// task pair). TaskId hash codes are Objects.hash(subtopology, partition, null) =
// 31 * (31 * (31 + s) + p): for sub-topology 0 they rise with p and, below 65,536 and in a map of 16
// bins, land in bins 15 - p, so such a map iterates 0_p from the highest p down. Then random groups
// for validity, the quota rule and determinism.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>

#include "cluster_builder.hpp"
#include "random_group.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

testing::RunResult run_sticky(const Cluster& c, const AssignmentSettings& s = {}) {
  auto r = run_valid("sticky", c, s);
  EXPECT_THAT(r.assignment.warmups, IsEmpty()) << "sticky never places warmups";
  EXPECT_FALSE(r.assignment.probing_rebalance) << "sticky never asks for a probing rebalance";
  return r;
}

std::vector<std::string> ids(const std::string& prefix, int from, int to) {  // [from, to)
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::set<std::string> held_by(const Cluster& c, const Assignment& a, const std::string& client) {
  std::set<std::string> out;
  for (const auto& t : actives_of(c, a, client)) out.insert(t);
  for (const auto& t : standbys_of(c, a, client)) out.insert(t);
  return out;
}

// ---- previous actives ----

TEST(Sticky, PreviousOwnersKeepTheirActivesAndTheNewTaskFillsIn) {
  // Kafka: shouldNotMigrateActiveTaskToOtherProcess, with the history both ways round.
  for (const auto& [first, second] : {std::pair{"0_0", "0_1"}, std::pair{"0_1", "0_2"}}) {
    ClusterBuilder b;
    for (const auto& t : ids("0_", 0, 3)) b.stateful(t, 1000);
    const Cluster c = b.client("a").previous_active({first}).client("b").previous_active({second}).build();
    const auto r = run_sticky(c);
    EXPECT_THAT(actives_of(c, r.assignment, "a"), ::testing::Contains(first)) << describe(c, r.assignment);
    EXPECT_THAT(actives_of(c, r.assignment, "b"), ::testing::Contains(second)) << describe(c, r.assignment);
    EXPECT_EQ(r.metrics.active_moves, 0u);
  }
}

TEST(Sticky, NewClientTakesItsShareWithoutFlippingTasksBetweenExistingClients) {
  // Kafka: shouldAssignTasksToNewClientWithoutFlippingAssignmentBetweenExistingClients.
  ClusterBuilder b;
  for (const auto& t : ids("0_", 0, 6)) b.stateful(t, 1000);
  const Cluster c =
      b.client("a").previous_active(ids("0_", 0, 3)).client("b").previous_active(ids("0_", 3, 6)).client("new").build();
  const auto r = run_sticky(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), SizeIs(2));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), SizeIs(2));
  EXPECT_THAT(actives_of(c, r.assignment, "new"), SizeIs(2));
  EXPECT_THAT(actives_of(c, r.assignment, "a"), IsSubsetOf(ids("0_", 0, 3)));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), IsSubsetOf(ids("0_", 3, 6)));
  EXPECT_EQ(r.metrics.active_moves, 2u);  // only what the newcomer needs
}

TEST(Sticky, KafkasQuotaIsTasksPerThreadRoundedDownThenFindClientPlacesTheRest) {
  // 8 tasks on 3 one-thread clients: 2 per thread. `a` keeps the first two of its tasks in HashMap
  // order (0_7, 0_6). The rest, in task order, by findClient: 0_0 -> b (a client with no task wins at
  // once), 0_1 -> c (the same), 0_2 -> b (load 1 below a's 2), 0_3 -> c; at 0_4 every client holds
  // two, nobody has more room than `a`, so its previous owner keeps it; 0_5 -> b.
  ClusterBuilder b;
  for (const auto& t : ids("0_", 0, 8)) b.stateful(t, 1000);
  const Cluster c = b.client("a").previous_active(ids("0_", 0, 8)).client("b").client("c").build();
  const auto r = run_sticky(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_4", "0_6", "0_7"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_0", "0_2", "0_5"));
  EXPECT_THAT(actives_of(c, r.assignment, "c"), ElementsAre("0_1", "0_3"));
  EXPECT_EQ(r.metrics.active_moves, 5u);
}

TEST(Sticky, OnlyTheExcessMovesWhenAClientJoins) {
  // Kafka: shouldMoveMinimalNumberOfTasksWhenPreviouslyAboveCapacityAndNewClientAdded.
  ClusterBuilder b;
  for (const auto& t : ids("0_", 0, 4)) b.stateful(t, 1000);
  const Cluster c =
      b.client("a").previous_active({"0_0", "0_2"}).client("b").previous_active({"0_1", "0_3"}).client("c").build();
  const auto r = run_sticky(c);
  EXPECT_THAT(actives_of(c, r.assignment, "c"), SizeIs(1));
  EXPECT_EQ(r.metrics.active_moves, 1u) << describe(c, r.assignment);
}

TEST(Sticky, AClientOverItsQuotaGivesUpStatelessTasksBeforeStatefulOnes) {
  // `a` may keep one of its two tasks: it keeps the one with state; the stateless one moves for free.
  const Cluster c = ClusterBuilder()
                        .stateless("0_0")
                        .stateful("1_0", 100000)
                        .client("a")
                        .previous_active({"0_0", "1_0"})
                        .client("b")
                        .build();
  const auto r = run_sticky(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("1_0"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_0"));
}

// ---- previous standby holders ----

TEST(Sticky, OrphanedTasksGoToTheirPreviousStandbyHolders) {
  // Kafka: shouldAssignTasksToClientWithPreviousStandbyTasks (the holders are not the index order).
  const std::pair<const char*, const char*> holder_of_standby[] = {{"a", "0_2"}, {"b", "0_0"}, {"c", "0_1"}};
  ClusterBuilder b;
  for (const auto& t : ids("0_", 0, 3)) b.stateful(t, 1000);
  for (const auto& [client, task] : holder_of_standby) b.client(client).previous_standby({task});
  const Cluster c = b.build();
  const auto r = run_sticky(c);
  for (const auto& [client, task] : holder_of_standby)
    EXPECT_THAT(actives_of(c, r.assignment, client), ElementsAre(task));
}

TEST(Sticky, StandbyHoldersTakeTasksOnlyUpToTheQuota) {
  // Kafka: shouldAssignTasksToNewClientWithoutFlippingAssignmentBetweenExistingAndBouncedClients.
  ClusterBuilder b;
  for (const auto& t : ids("0_", 0, 7)) b.stateful(t, 1000);
  const Cluster c = b.client("a")
                        .previous_active({"0_0", "0_1", "0_2", "0_6"})
                        .client("b")
                        .previous_standby({"0_3", "0_4", "0_5"})
                        .client("new")
                        .build();
  const auto r = run_sticky(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), IsSubsetOf(std::vector<std::string>{"0_0", "0_1", "0_2", "0_6"}));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), IsSubsetOf(ids("0_", 3, 6)));
  EXPECT_THAT(actives_of(c, r.assignment, "new"), SizeIs(2));
  EXPECT_LE(r.metrics.active_load_spread, 1.0);
}

// ---- capacity ----

TEST(Sticky, BalancesOverUnevenCapacitiesWhileKeepingWhatFits) {
  // Kafka: shouldRebalanceTasksToClientsBasedOnCapacity, and the same at three sizes. The task `a`
  // keeps is the first of its tasks in HashMap order: 0_3, then 0_11 and 0_10.
  {
    const Cluster c = ClusterBuilder()
                          .stateful("0_0", 10)
                          .stateful("0_2", 10)
                          .stateful("0_3", 10)
                          .client("a", 1)
                          .previous_active({"0_0", "0_2", "0_3"})
                          .client("b", 2)
                          .build();
    const auto r = run_sticky(c);
    EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_3"));
    EXPECT_THAT(actives_of(c, r.assignment, "b"), SizeIs(2));
  }
  {
    ClusterBuilder b;
    for (const auto& t : ids("0_", 0, 12)) b.stateful(t, 10);
    const Cluster c = b.client("a", 1).previous_active(ids("0_", 0, 12)).client("b", 2).client("c", 3).build();
    const auto r = run_sticky(c);
    EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_10", "0_11"));
    EXPECT_THAT(actives_of(c, r.assignment, "b"), SizeIs(4));
    EXPECT_THAT(actives_of(c, r.assignment, "c"), SizeIs(6));
    EXPECT_EQ(r.metrics.active_load_spread, 0.0);
  }
}

TEST(Sticky, AClientWithNoTaskWinsAtOnceElseMoreThreadsAtEqualLoad) {
  // Kafka's findLeastLoaded returns the first client (in process id order) that holds no task, even
  // ahead of one with more threads; only among loaded clients does hasMoreAvailableCapacityThan
  // prefer more threads at equal load. Every client gets a task before any gets a second
  // (shouldAssignAtLeastOneTaskToEachClientIfPossible).
  {
    const Cluster c = ClusterBuilder().stateful("0_0", 10).client("a", 1).client("b", 2).build();
    EXPECT_EQ(active_client_of(c, run_sticky(c).assignment, "0_0"), "a");
  }
  // Stateful tasks 0_0, 0_1, ... on clients a, b and c of the given threads: the actives each runs.
  struct Case {
    int tasks;
    std::uint32_t threads[3];
    std::vector<std::string> actives[3];
  };
  const Case cases[] = {
      {3, {1, 1, 3}, {{"0_0"}, {"0_1"}, {"0_2"}}},
      // After one task each, a is at load 1 and b and c at 1/2 with two threads each: b and c tie on
      // load and threads, and the first in order, b, takes 0_3.
      {4, {1, 2, 2}, {{"0_0"}, {"0_1", "0_3"}, {"0_2"}}},
  };
  for (const Case& k : cases) {
    const char* const clients[] = {"a", "b", "c"};
    const Cluster c = ClusterBuilder()
                          .stateful_tasks(ids("0_", 0, k.tasks), 10)
                          .client(clients[0], k.threads[0])
                          .client(clients[1], k.threads[1])
                          .client(clients[2], k.threads[2])
                          .build();
    const auto r = run_sticky(c);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(actives_of(c, r.assignment, clients[i]), k.actives[i]) << k.tasks << " tasks";
  }
}

// ---- task pairs ----

TEST(Sticky, TaskPairsOnlyBreakTiesAmongClientsThatWouldGetANewPair) {
  // `a` keeps two 0_x tasks, `b` two 1_x tasks; the orphans 0_2 and 1_2 find both at load 2. Both
  // would get a pair they never had, so the pair rule does not separate them: 0_2 goes to the
  // first, `a`, and 1_2 to the less loaded `b` (Kafka stacks the sub-topologies).
  ClusterBuilder b;
  for (const auto& t : ids("0_", 0, 3)) b.stateful(t, 10);
  for (const auto& t : ids("1_", 0, 3)) b.stateful(t, 10);
  const Cluster c = b.client("a").previous_active({"0_0", "0_1"}).client("b").previous_active({"1_0", "1_1"}).build();
  const auto r = run_sticky(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "0_1", "0_2"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("1_0", "1_1", "1_2"));
}

TEST(Sticky, NoTwoClientsHoldTheSameSetOfTasks) {
  // Kafka: shouldNotHaveSameAssignmentOnAnyTwoHosts. Plain least-loaded placement puts 0_0's standby
  // on b and 0_1's on a: a and b would hold {0_0, 0_1} both, and losing one would double the other.
  for (bool with_history : {false, true}) {
    ClusterBuilder b;
    for (const auto& t : ids("0_", 0, 4)) b.stateful(t, 1000);
    if (with_history) {
      // Kafka: ...WhenThereArePreviousActiveTasks.
      b.client("a").previous_active({"0_1", "0_2"}).client("b").previous_active({"0_3"});
      b.client("c").previous_active({"0_0"}).client("d");
    } else {
      b.client("a").client("b").client("c").client("d");
    }
    const Cluster c = b.build();
    const auto r = run_sticky(c, standby_replicas(1));
    const std::vector<std::string> names = {"a", "b", "c", "d"};
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = i + 1; j < names.size(); ++j)
        EXPECT_NE(held_by(c, r.assignment, names[i]), held_by(c, r.assignment, names[j]))
            << names[i] << " and " << names[j] << "\n"
            << describe(c, r.assignment);
    EXPECT_EQ(r.metrics.total_load_spread, 0.0) << describe(c, r.assignment);
  }
}

// ---- standbys ----

TEST(Sticky, StandbysAvoidTheActiveClientAndSpreadOut) {
  // Kafka: shouldAssignStandbyTasksToDifferentClientThanCorrespondingActiveTaskIsAssignedTo.
  ClusterBuilder b;
  for (const auto& t : ids("0_", 0, 4)) b.stateful(t, 1000);
  b.client("a").previous_active({"0_0"}).client("b").previous_active({"0_1"});
  b.client("c").previous_active({"0_2"}).client("d").previous_active({"0_3"});
  const Cluster c = b.build();
  const auto r = run_sticky(c, standby_replicas(1));
  int with_standbys = 0;
  for (const char* client : {"a", "b", "c", "d"}) {
    const auto active = actives_of(c, r.assignment, client);
    const auto stand = standbys_of(c, r.assignment, client);
    ASSERT_THAT(active, SizeIs(1));
    EXPECT_THAT(stand, Not(::testing::Contains(active.front())));
    EXPECT_LE(stand.size(), 2u);
    with_standbys += stand.empty() ? 0 : 1;
  }
  EXPECT_GE(with_standbys, 3);
  EXPECT_EQ(r.metrics.standbys, 4u);
}

TEST(Sticky, EveryOtherClientGetsAReplicaWhenAsked) {
  // Kafka: shouldAssignMultipleReplicasOfStandbyTask.
  const std::vector<std::string> tasks = {"0_0", "0_1", "0_2"};
  const Cluster c = ClusterBuilder().stateful_tasks(tasks, 10).one_previous_active_each({"a", "b", "c"}, tasks).build();
  const auto r = run_sticky(c, standby_replicas(2));
  EXPECT_THAT(standbys_of(c, r.assignment, "a"), ElementsAre("0_1", "0_2"));
  EXPECT_THAT(standbys_of(c, r.assignment, "b"), ElementsAre("0_0", "0_2"));
  EXPECT_THAT(standbys_of(c, r.assignment, "c"), ElementsAre("0_0", "0_1"));
}

TEST(Sticky, StandbysGoToTheLeastLoadedClientsAndOnlyLoggedTasksGetThem) {
  // Kafka: shouldBalanceActiveAndStandbyTasksAcrossAvailableClients, plus a task without a changelog
  // and a stateless one, which get no standby.
  ClusterBuilder b;
  for (const auto& t : ids("0_", 0, 3)) b.stateful(t, 1000);
  b.nonlogged("1_0").stateless("2_0");
  for (const auto& client : ids("c", 0, 8)) b.client(client);
  const Cluster c = b.build();
  const auto r = run_sticky(c, standby_replicas(1));
  for (const auto& client : ids("c", 0, 8)) EXPECT_THAT(held_by(c, r.assignment, client), SizeIs(1)) << client;
  EXPECT_EQ(r.metrics.standbys, 3u);
}

TEST(Sticky, PreviousStandbyHolderKeepsItsStandby) {
  // `c` held 0_1's standby: it keeps it though `a` and `b` are ahead of it in the least-loaded order.
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .stateful("0_1", 10)
                        .stateful("0_2", 10)
                        .client("a")
                        .previous_active({"0_1"})
                        .client("b")
                        .client("c")
                        .previous_active({"0_0"})
                        .previous_standby({"0_1"})
                        .build();
  const auto r = run_sticky(c, standby_replicas(1));
  EXPECT_THAT(standbys_of(c, r.assignment, "c"), ElementsAre("0_1")) << describe(c, r.assignment);
  EXPECT_EQ(r.metrics.total_load_spread, 0.0);
}

TEST(Sticky, WithFewerTasksThanThreadsThePreviousOwnerKeepsOnlyWhatFindClientGivesIt) {
  // 2 tasks on 3 clients: tasksPerThread is 0, so step 1 keeps nothing. findClient gives 0_0 back to
  // `z`, but at 0_1 `z` is at capacity while `x` holds nothing: `x` takes it. Standbys, in HashSet
  // order (0_1 before 0_0): 0_1 among {y, z}: its previous owner `z` is at capacity and `y` is
  // empty, so `y`; 0_0 among {x, y}: both hold one task, `x` comes first. `z` keeps no copy of 0_1.
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .stateful("0_1", 10)
                        .client("x")
                        .client("y")
                        .client("z")
                        .previous_active({"0_0", "0_1"})
                        .build();
  const auto r = run_sticky(c, standby_replicas(1));
  EXPECT_THAT(actives_of(c, r.assignment, "z"), ElementsAre("0_0"));
  EXPECT_THAT(actives_of(c, r.assignment, "x"), ElementsAre("0_1"));
  EXPECT_THAT(standbys_of(c, r.assignment, "x"), ElementsAre("0_0"));
  EXPECT_THAT(standbys_of(c, r.assignment, "y"), ElementsAre("0_1"));
  EXPECT_THAT(standbys_of(c, r.assignment, "z"), IsEmpty()) << describe(c, r.assignment);
}

TEST(Sticky, StandbysWantedWithOneClientArePlacedNowhere) {
  // Kafka: shouldNotAssignStandbyTaskReplicasWhenNoClientAvailableWithoutHavingTheTaskAssigned.
  const Cluster c = ClusterBuilder().stateful("0_0", 10).client("only").build();
  const auto r = run_sticky(c, standby_replicas(1));
  EXPECT_THAT(r.assignment.standbys, IsEmpty());
  EXPECT_EQ(r.metrics.standby_shortfall, 1u);
}

TEST(Sticky, BalancesEvenWhenThatRestoresStateLagsAreIgnored) {
  // Pre-KIP-441: only previous ownership counts. `a` runs both tasks and is caught up on both; `b`
  // has no state. Sticky keeps one on `a` (the first in HashMap order: 0_1) and gives 0_0 to `b`
  // for balance (a restoring active, which high_availability would avoid with a warmup), and asks
  // for no follow-up rebalance.
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 100000)
                        .stateful("0_1", 100000)
                        .client("a")
                        .previous_active({"0_0", "0_1"})
                        .offsets({{"0_0", -2}, {"0_1", -2}})
                        .client("b")
                        .build();
  const auto r = run_sticky(c);
  EXPECT_EQ(active_client_of(c, r.assignment, "0_1"), "a");
  EXPECT_EQ(active_client_of(c, r.assignment, "0_0"), "b");
  EXPECT_EQ(r.metrics.restoring_actives, 1u);
}

TEST(Sticky, RackAwarenessIsKafkasOptimisationAfterTheActives) {
  // a (rack r1) and b (rack r2) get 0_0 and 0_1 in order; 0_0 reads a partition held only in r2,
  // 0_1 one held only in r1. With the legacy defaults (traffic 1, non-overlap 10) a swap saves 2 and
  // costs 20: nothing moves. At traffic 10, non-overlap 1 it saves 20 for 2: Kafka's min-cost flow
  // swaps them.
  Cluster c = ClusterBuilder().stateful("0_0", 10).stateful("0_1", 10).client("a").client("b").build();
  c.racks = {"r1", "r2"};
  c.clients[0].rack = 0;
  c.clients[1].rack = 1;
  c.tasks[0].partitions = {PartitionRef{"in", 0, {1}}};
  c.tasks[1].partitions = {PartitionRef{"in", 1, {0}}};
  AssignmentSettings s;
  s.rack_aware.strategy = RackAwareStrategy::min_traffic;
  auto r = run_sticky(c, s);
  EXPECT_EQ(active_client_of(c, r.assignment, "0_0"), "a");
  EXPECT_EQ(active_client_of(c, r.assignment, "0_1"), "b");
  s.rack_aware.traffic_cost = 10;
  s.rack_aware.non_overlap_cost = 1;
  r = run_sticky(c, s);
  EXPECT_EQ(active_client_of(c, r.assignment, "0_0"), "b");
  EXPECT_EQ(active_client_of(c, r.assignment, "0_1"), "a");
}

// ---- random groups (tests/support/random_group.hpp) ----

// History skewed towards one client so that quotas bite; some tasks are orphans.
testing::GroupShape sticky_shape() {
  testing::GroupShape shape;
  shape.skewed_history = true;
  shape.max_standbys = 3;
  return shape;
}

RC_GTEST_PROP(StickyRandom, GroupsAreValidStickyAndDeterministic, ()) {
  const testing::Group g = *testing::gen_group(sticky_shape());
  const Cluster& c = g.cluster;
  const auto r = builtin_plugins().run("sticky", c, g.settings);
  testing::require_valid(c, r);
  testing::require_run(r.assignment.warmups.empty() && !r.assignment.probing_rebalance, c, r, "warmups or probing");
  // Sticky up to Kafka's quota: a previous owner loses a task only when it ends at least at its
  // base share (floor(tasks / threads) per thread).
  const std::uint64_t per_thread = c.task_count() / c.total_threads();
  std::vector<std::uint64_t> actives(c.client_count(), 0);
  for (const auto& p : r.assignment.actives) ++actives[p.client];
  const auto previous = c.previous_active_owner();
  for (const auto& p : r.assignment.actives) {
    const ClientIndex owner = previous[p.task];
    if (owner != kNoClient && owner != p.client)
      testing::require_run(actives[owner] >= per_thread * c.clients[owner].threads, c, r,
                           "task " + to_string(c.tasks[p.task].id) + " left " + c.clients[owner].id);
  }
  // Every standby that fits is placed.
  std::uint64_t logged = 0;
  for (const auto& t : c.tasks) logged += t.has_logged_store ? 1 : 0;
  const std::uint64_t k = g.settings.num_standby_replicas;
  const std::uint64_t fits = std::min<std::uint64_t>(k, c.client_count() - 1);
  testing::require_run(r.metrics.standby_shortfall == logged * (k - fits), c, r, "a standby that fits is missing");
  testing::require(builtin_plugins().run("sticky", c, g.settings).assignment == r.assignment, "not deterministic");
}

// The same groups through fallback_prior, which is Kafka's sticky placement with every previous active
// preserved: valid, nothing moves, always a probing rebalance, deterministic; end offsets known or not.
RC_GTEST_PROP(FallbackPriorRandom, GroupsKeepEveryPreviousActiveAndAskForProbing, ()) {
  testing::Group g = *testing::gen_group(sticky_shape());
  g.cluster.end_offsets_known = *rc::gen::arbitrary<bool>();
  const Cluster& c = g.cluster;
  const auto r = builtin_plugins().run("fallback_prior", c, g.settings);
  testing::require_valid(c, r);
  testing::require_run(r.assignment.warmups.empty() && r.assignment.probing_rebalance, c, r, "warmups, or no probing");
  testing::require_run(r.metrics.active_moves == 0u, c, r, "an active moved");
  const auto previous = c.previous_active_owner();
  for (const auto& p : r.assignment.actives)
    testing::require_run(previous[p.task] == kNoClient || previous[p.task] == p.client, c, r, "an active moved");
  if (c.client_count() > g.settings.num_standby_replicas)
    testing::require_run(r.metrics.standby_shortfall == 0u, c, r, "a standby that fits is missing");
  testing::require(builtin_plugins().run("fallback_prior", c, g.settings).assignment == r.assignment,
                   "not deterministic");
}

}  // namespace
}  // namespace assignor
