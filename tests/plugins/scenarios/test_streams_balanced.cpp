// streams_balanced (Kafka 4.x's KIP-1071 BalancedTaskAssignor + refiner): the thread-weighted deal
// and the standby skew rule worked out by hand, then random groups for validity, determinism, the
// standby fixed point and the refiner's promise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>

#include "cluster_builder.hpp"
#include "random_group.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

testing::RunResult run(const Cluster& c, const AssignmentSettings& s = {}) {
  return run_valid("streams_balanced", c, s);
}

// Threads 3 and 1: one period of the deal is a, a, b, a (at the second slot (2*1+1)/3 ties with
// (2*0+1)/1 and the lower index wins). Nobody has state, so the refiner grants every placement.
TEST(StreamsBalanced, TheDealIsWeightedByThreads) {
  ClusterBuilder b;
  for (int p = 0; p < 8; ++p) b.stateful("0_" + std::to_string(p), 1000);
  const Cluster c = b.client("a", 3).client("b", 1).build();
  const auto r = run(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "0_1", "0_3", "0_4", "0_5", "0_7"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_2", "0_6"));
}

// History plays no part across clients: equal threads deal round-robin in id order, and the
// stateless tasks continue the deal where the stateful ones stopped.
TEST(StreamsBalanced, HistoryIsIgnoredAndStatelessTasksContinueTheDeal) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 0)
                        .stateful("0_1", 0)
                        .stateless("1_0")
                        .stateless("1_1")
                        .stateless("1_2")
                        .client("a")
                        .client("b")
                        .previous_active({"1_0", "1_1", "1_2"})
                        .build();
  const auto r = run(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "1_0", "1_2"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_1", "1_1"));
}

// ---- random groups (tests/support/random_group.hpp) ----

// Logged sub-topologies only and no standby history: the skew rule below counts what the assignor
// itself balances.
// Kafka's spread over a process's members (distributeTasksOverMembers), round by round. Thread m2
// ran 0_0 and 0_1, m1 nothing; all three stateful tasks land on the one client. Level (0 + 3) / 2
// = 1: 0_0 stays on m2; 0_1's owner m2 is at the level, so members below it take the rest in id
// order: m1 gets 0_1; 0_2 is left over, has no owner, and goes to the first member at the level in
// id order, m1.
TEST(StreamsBalanced, TheMembersAreKafkas) {
  Cluster c = ClusterBuilder()
                  .stateful("0_0", 10)
                  .stateful("0_1", 10)
                  .stateful("0_2", 10)
                  .client("a", 2)
                  .previous_active({"0_0", "0_1"})
                  .build();
  ThreadHistory m2, m1;
  m2.name = "m2";
  m2.previous_active = {0, 1};
  m1.name = "m1";
  c.clients[0].threads_history = {m2, m1};
  const auto r = builtin_plugins().run("streams_balanced", c, {},
                                       StrategyParams(std::map<std::string, std::string>{{"refiner", "false"}}));
  ASSERT_THAT(r.errors, IsEmpty());
  std::map<std::string, std::uint32_t> thread;
  for (const auto& p : r.assignment.actives) thread[to_string(c.tasks[p.task].id)] = p.thread;
  EXPECT_EQ(thread["0_0"], 0u);  // m2
  EXPECT_EQ(thread["0_1"], 1u);  // m1
  EXPECT_EQ(thread["0_2"], 1u);  // m1
}

RC_GTEST_PROP(StreamsBalancedRandom, ValidDeterministicStandbysAtKafkasFixedPointAndNoRestoringActive, ()) {
  testing::GroupShape shape;
  shape.nonlogged_stores = false;
  shape.previous_standbys = false;
  shape.other_copies = false;
  shape.max_partitions = 12;
  shape.max_clients = 7;
  const testing::Group g = *testing::gen_group(shape);
  const Cluster& c = g.cluster;
  const AssignmentSettings& s = g.settings;
  const auto r = builtin_plugins().run("streams_balanced", c, s);
  testing::require_valid(c, r);
  testing::require_run(r.metrics.restoring_actives == 0u, c, r, "a restoring active");
  testing::require(builtin_plugins().run("streams_balanced", c, s).assignment == r.assignment, "not deterministic");

  // Without the refiner (the assignor's own answer): no standby can move from one client to
  // another under Kafka's skew rule (the load being the stateful actives and standbys per thread).
  const auto raw = builtin_plugins().run("streams_balanced", c, s,
                                         StrategyParams(std::map<std::string, std::string>{{"refiner", "false"}}));
  testing::require_valid(c, raw);
  std::vector<double> held(c.client_count(), 0);
  std::vector<std::vector<TaskIndex>> standbys(c.client_count());
  std::vector<std::vector<bool>> holds(c.client_count(), std::vector<bool>(c.task_count(), false));
  for (const auto& p : raw.assignment.actives) {
    holds[p.client][p.task] = true;
    if (c.tasks[p.task].has_logged_store) held[p.client] += 1;
  }
  for (const auto& p : raw.assignment.standbys) {
    holds[p.client][p.task] = true;
    held[p.client] += 1;
    standbys[p.client].push_back(p.task);
  }
  for (ClientIndex src = 0; src < c.client_count(); ++src)
    for (ClientIndex dst = 0; dst < c.client_count(); ++dst) {
      if (src == dst) continue;
      const double ts = c.clients[src].threads, td = c.clients[dst].threads;
      const double skew = held[src] / ts - held[dst] / td;
      const double proposed = (held[src] - 1) / ts - (held[dst] + 1) / td;
      const bool movable = skew > 0 && proposed >= 0 && proposed < skew;
      for (TaskIndex t : standbys[src])
        testing::require_run(!(movable && !holds[dst][t]), c, raw,
                             "standby " + to_string(c.tasks[t].id) + " could still move from " + c.clients[src].id +
                                 " to " + c.clients[dst].id);
    }
}

}  // namespace
}  // namespace assignor
