// The five places where Kafka's HighAvailabilityTaskAssignor answers differently from a "cleaner"
// KIP-441 assignor (tests/data/kafka-golden/README.md kinds A-E, plus Kafka's unknown offset sum),
// each on a group small enough to work out by hand from Kafka's rules. high_availability must give
// Kafka's answer; high_availability_plus gives the improved one, and each test says which and why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cluster_builder.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

// high_availability_plus deals its target as Kafka does with sticky_target: false; the tests of the
// movement step (kinds D and E, -3, an active between two caught-up clients) compare the two from
// the same dealt target.
testing::RunResult run(const char* strategy, const Cluster& c, const AssignmentSettings& s, bool dealt = false) {
  const StrategyParams params =
      dealt ? StrategyParams(std::map<std::string, std::string>{{"sticky_target", "false"}}) : StrategyParams();
  return run_valid(strategy, c, s, params);
}

// Kind B: Kafka deals stateful tasks round-robin ignoring threads, then moves one only if that does
// not reverse the imbalance: 1/1 against 0/2 would become 0/1 against 1/2, so the task stays on the
// one-thread client. Thread-proportional quotas give it to the two-thread client.
TEST(HighAvailabilityLikeKafka, OneTaskStaysOnTheFirstClientWhateverTheThreads) {
  const Cluster c = ClusterBuilder().stateful("0_0", 100).client("c1", 1).client("c2", 2).build();
  EXPECT_EQ(active_client_of(c, run("high_availability", c, {}).assignment, "0_0"), "c1");
  EXPECT_EQ(active_client_of(c, run("high_availability_plus", c, {}).assignment, "0_0"), "c2");
}

// Kind A: a task whose stores are all non-logged has no changelog, so Kafka counts it stateless: the
// logged tasks are dealt first (1_0 -> a, 1_1 -> b), then 0_0 goes to the lowest active load, a by
// id. high_availability_plus deals the logged tasks first too (the work that restores is spread by
// itself), then 0_0 under the stateful quotas: a's share of three is two, so the same answer here.
TEST(HighAvailabilityLikeKafka, NonLoggedTasksArePlacedWithTheStatelessOnes) {
  const Cluster c =
      ClusterBuilder().nonlogged("0_0").stateful("1_0", 1000).stateful("1_1", 1000).client("a").client("b").build();
  const auto kafka = run("high_availability", c, {});
  EXPECT_THAT(actives_of(c, kafka.assignment, "a"), ElementsAre("0_0", "1_0"));
  EXPECT_THAT(actives_of(c, kafka.assignment, "b"), ElementsAre("1_1"));
  const auto plus = run("high_availability_plus", c, {});
  EXPECT_THAT(actives_of(c, plus.assignment, "a"), ElementsAre("0_0", "1_0"));
  EXPECT_THAT(actives_of(c, plus.assignment, "b"), ElementsAre("1_1"));
}

// Where the two rules part: high_availability_plus keeps non-logged stateful tasks under the
// stateful quotas (Kafka fills them in by active load, so a client may end with two of them and
// no room for its logged share), and spreads the logged ones in proportion to threads by
// themselves: with threads 1 and 3 and four logged tasks, 1 and 3 of them (one per thread each).
TEST(HighAvailabilityLikeKafka, PlusSpreadsTheLoggedTasksInProportionToThreadsByThemselves) {
  const Cluster c = ClusterBuilder()
                        .nonlogged("0_0")
                        .nonlogged("0_1")
                        .nonlogged("0_2")
                        .nonlogged("0_3")
                        .stateful_tasks({"1_0", "1_1", "1_2", "1_3"}, 1000)
                        .client("a", 1)
                        .client("b", 3)
                        .build();
  const auto plus = run("high_availability_plus", c, {});
  EXPECT_EQ(plus.metrics.stateful_load_spread, 0.0) << describe(c, plus.assignment);
  const auto on_a = actives_of(c, plus.assignment, "a");
  EXPECT_EQ(std::count_if(on_a.begin(), on_a.end(), [](const std::string& t) { return t[0] == '1'; }), 1);
}

// Kind D: movements are served fewest caught-up clients first. 0_1 (only c caught up) is served
// before 0_0 (b and c caught up) and takes the one warmup; then 0_0 goes to the least loaded of b
// and c, tied at one task each, so b by id, with no warmup left for a.
TEST(HighAvailabilityLikeKafka, ScarcelyCaughtUpTasksAreServedFirst) {
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "0_1"}, 100000)
                        .client("a")
                        .client("b")
                        .offsets({{"0_0", -2}})
                        .client("c")
                        .offsets({{"0_0", 95000}, {"0_1", -2}})
                        .build();
  AssignmentSettings s;
  s.max_warmup_replicas = 1;
  for (const char* strategy : {"high_availability", "high_availability_plus"}) {
    const auto r = run(strategy, c, s, /*dealt=*/std::string(strategy) == "high_availability_plus");
    EXPECT_THAT(actives_of(c, r.assignment, "a"), IsEmpty()) << strategy;
    EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_0")) << strategy;
    EXPECT_THAT(warmups_of(c, r.assignment, "b"), ElementsAre("0_1")) << strategy;
    EXPECT_THAT(actives_of(c, r.assignment, "c"), ElementsAre("0_1")) << strategy;
    EXPECT_TRUE(r.assignment.probing_rebalance) << strategy;
  }
}

// Kind E: the standby of 0_0 lands on c, which has no state for it; a (caught up) runs the active.
// Kafka then looks for a more caught-up home in lag order, then id: b has the same lag as c but a
// lower id, so Kafka moves the standby to b and keeps c's copy as a warmup (a move that gains
// nothing). A strictly-more-caught-up rule leaves the standby on c and needs no probing rebalance.
TEST(HighAvailabilityLikeKafka, StandbyFallsBackToAClientWithTheSameLagAndALowerId) {
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "1_0"}, 100000)
                        .client("a")
                        .offsets({{"0_0", -2}})
                        .client("b")
                        .offsets({{"1_0", -2}})
                        .client("c")
                        .build();
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const auto kafka = run("high_availability", c, s);
  EXPECT_THAT(actives_of(c, kafka.assignment, "a"), ElementsAre("0_0")) << describe(c, kafka.assignment);
  EXPECT_THAT(standbys_of(c, kafka.assignment, "a"), ElementsAre("1_0"));
  EXPECT_THAT(actives_of(c, kafka.assignment, "b"), ElementsAre("1_0"));
  EXPECT_THAT(standbys_of(c, kafka.assignment, "b"), ElementsAre("0_0"));
  EXPECT_THAT(warmups_of(c, kafka.assignment, "c"), ElementsAre("0_0"));
  EXPECT_TRUE(kafka.assignment.probing_rebalance);
  const auto plus = run("high_availability_plus", c, s);
  EXPECT_THAT(warmups_of(c, plus.assignment, "c"), IsEmpty()) << describe(c, plus.assignment);
}

// Kafka's unknown offset sum (-3, sent by clients older than 2.6) is a lag of -3, which sorts ahead
// of every other lag: the client reporting it looks most caught up, so its active is never moved
// even to a client running the task. The contract reads -3 as suspect state (lag = end-offset sum),
// so high_availability_plus moves the active to the running client and warms a up.
TEST(HighAvailabilityLikeKafka, UnknownOffsetSumSortsAheadOfEveryLag) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 100000)
                        .client("a")
                        .offsets({{"0_0", -3}})
                        .client("b")
                        .offsets({{"0_0", -2}})
                        .build();
  const auto kafka = run("high_availability", c, {});
  EXPECT_EQ(active_client_of(c, kafka.assignment, "0_0"), "a");
  EXPECT_FALSE(kafka.assignment.probing_rebalance);
  const auto plus = run("high_availability_plus", c, {}, /*dealt=*/true);
  EXPECT_EQ(active_client_of(c, plus.assignment, "0_0"), "b");
  EXPECT_THAT(warmups_of(c, plus.assignment, "a"), ElementsAre("0_0"));
  EXPECT_TRUE(plus.assignment.probing_rebalance);
  // With its sticky target (the default) the running client b is the target: nothing to move.
  const auto sticky = run("high_availability_plus", c, {});
  EXPECT_EQ(active_client_of(c, sticky.assignment, "0_0"), "b");
  EXPECT_FALSE(sticky.assignment.probing_rebalance);
}

// Kafka ignores history when it keeps an active available: 0_0 is dealt to a (no state), and Kafka
// gives it to the least-loaded caught-up client, c (b runs 1_0 too), moving it off b, which runs it
// now. high_availability_plus leaves it on b while a warms up: no move that brings the task no
// closer to its target. Both warm a up and probe.
TEST(HighAvailabilityLikeKafka, KafkaMovesAnActiveBetweenTwoCaughtUpClients) {
  const Cluster c = ClusterBuilder()
                        .stateful_tasks({"0_0", "1_0"}, 100000)
                        .client("a")
                        .client("b")
                        .running_actives({"0_0"})
                        .client("c")
                        .offsets({{"0_0", 100000}})
                        .build();
  const auto kafka = run("high_availability", c, {});
  EXPECT_EQ(active_client_of(c, kafka.assignment, "0_0"), "c") << describe(c, kafka.assignment);
  EXPECT_EQ(kafka.metrics.active_moves, 1u);
  const auto plus = run("high_availability_plus", c, {}, /*dealt=*/true);
  EXPECT_EQ(active_client_of(c, plus.assignment, "0_0"), "b") << describe(c, plus.assignment);
  EXPECT_EQ(plus.metrics.active_moves, 0u);
  for (const auto* r : {&kafka, &plus}) {
    EXPECT_THAT(warmups_of(c, r->assignment, "a"), ElementsAre("0_0"));
    EXPECT_TRUE(r->assignment.probing_rebalance);
  }
  // With its sticky target (the default): b keeps 0_0 (its previous owner, within its quota of one
  // of the two tasks), 1_0 goes to a least-loaded client; no warmup, no probing rebalance.
  const auto sticky = run("high_availability_plus", c, {});
  EXPECT_EQ(active_client_of(c, sticky.assignment, "0_0"), "b") << describe(c, sticky.assignment);
  EXPECT_EQ(sticky.metrics.active_moves, 0u);
  EXPECT_FALSE(sticky.assignment.probing_rebalance);
}

}  // namespace
}  // namespace assignor
