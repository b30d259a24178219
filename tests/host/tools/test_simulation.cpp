// simulate(): the round loop of DESIGN 4.6 with the built-in strategies: convergence after a client
// joins or leaves, the state each round leaves behind (history, offset sums, catch-up, new data,
// restarts), stalls, the round limit, events that cannot apply, and the outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "../test_files.hpp"
#include "../xml_check.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/report/progress.hpp"
#include "assignor/host/report/simulation_output.hpp"
#include "assignor/host/run/runner.hpp"
#include "cluster_builder.hpp"
#include "with_plugins.hpp"

namespace assignor::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class Simulation : public test::WithPlugins {
 protected:
  static void SetUpTestSuite() { load_plugins({TEST_PLUGIN_TRIVIAL_VALID}); }

  static Config config(const std::string& strategy, std::uint32_t standbys = 0) {
    Config c;
    c.strategy = strategy;
    c.settings.max_warmup_replicas = 2;
    c.settings.num_standby_replicas = standbys;
    return c;
  }

  // An event of `kind` for client `id` at the start of `round`, as a file named "test" would give it.
  static SimulationEvent event(EventKind kind, std::uint32_t round, const std::string& id) {
    SimulationEvent e;
    e.round = round;
    e.kind = kind;
    e.client = id;
    e.where = "test";
    return e;
  }
  static SimulationEvent join(std::uint32_t round, const std::string& id, std::uint32_t threads = 1) {
    SimulationEvent e = event(EventKind::join, round, id);
    e.threads = threads;
    return e;
  }
  static SimulationEvent leave(std::uint32_t round, const std::string& id) {
    return event(EventKind::leave, round, id);
  }
  static SimulationEvent restart(std::uint32_t round, const std::string& id, bool keep_state) {
    SimulationEvent e = event(EventKind::restart, round, id);
    e.keep_state = keep_state;
    return e;
  }
};

// 11 stateful tasks (logged, ~100k offsets each) and 7 stateless ones, all running on "alpha".
testing::ClusterBuilder one_client_group() {
  testing::ClusterBuilder b;
  std::vector<std::string> all;
  std::vector<std::pair<std::string, std::int64_t>> running;
  for (int p = 0; p < 11; ++p) {
    const std::string id = "0_" + std::to_string(p);
    b.stateful(id, 100000 + 1000 * p);
    all.push_back(id);
    running.push_back({id, -2});
  }
  for (int p = 0; p < 7; ++p) {
    const std::string id = "1_" + std::to_string(p);
    b.stateless(id);
    all.push_back(id);
  }
  b.client("alpha").previous_active(all).offsets(running);
  return b;
}

// alpha runs 0_0 and 0_1 (100,000 offsets each) and is caught up on both; beta joins with nothing.
Cluster alpha_runs_two_beta_joins() {
  return testing::ClusterBuilder()
      .stateful_tasks({"0_0", "0_1"}, 100000)
      .client("alpha")
      .running_actives({"0_0", "0_1"})
      .client("beta")
      .build();
}

std::optional<std::int64_t> reported(const Cluster& c, const std::string& client, const std::string& task) {
  const Client& cl = c.clients[*c.find_client(client)];
  const TaskIndex t = *c.find_task(*parse_task_id(task));
  for (const auto& s : cl.offset_sums)
    if (s.task == t) return s.sum;
  return std::nullopt;
}

void expect_no_restoring_actives(const SimulationResult& r) {
  for (const auto& round : r.rounds) EXPECT_EQ(round.metrics.restoring_actives, 0u) << "round " << round.round;
}

TEST_F(Simulation, AddOneNodeConvergesWithHighAvailabilityWithinSixRounds) {
  SimulationOptions options;
  options.events = {join(1, "beta")};
  const SimulationResult r = simulate(*registry_, config("high_availability"), one_client_group().build(), options);
  EXPECT_TRUE(r.summary.converged);
  EXPECT_FALSE(r.summary.stalled);
  // Kafka's protocol: a round that takes tasks from alpha is followed at once by a follow-up. The
  // others: 1 before the join, then warmups at most 2 at a time.
  EXPECT_GE(r.summary.followup_rounds, 1u);
  EXPECT_LE(r.summary.rounds - r.summary.followup_rounds, 6u);
  EXPECT_GE(r.summary.rounds - r.summary.followup_rounds, 3u);
  expect_no_restoring_actives(r);
  EXPECT_EQ(r.summary.restore_offsets, 0u);
  for (const auto& round : r.rounds) EXPECT_LE(round.metrics.warmups, 2u);
  EXPECT_EQ(r.rounds[0].clients, 1u);
  EXPECT_THAT(r.rounds[0].events, ElementsAre("beta joins (1 thread)"));
  EXPECT_EQ(r.rounds[1].clients, 2u);
  const SimulationRound& last = r.rounds.back();
  EXPECT_FALSE(last.probing_rebalance);
  EXPECT_TRUE(last.balanced);
  // first_balanced_round counts from the join: the lone client was trivially balanced in round 1.
  ASSERT_TRUE(r.summary.first_balanced_round);
  EXPECT_GE(*r.summary.first_balanced_round, 2u);
  std::uint64_t moves = 0;
  for (const auto& round : r.rounds) moves += round.metrics.active_moves;
  EXPECT_EQ(r.summary.active_moves, moves);
  // The group ends 9 / 9, beta running its stateful tasks (-2).
  const Cluster& end = r.final_state;
  EXPECT_EQ(end.clients[0].previous_active.size(), 9u);
  EXPECT_EQ(end.clients[1].previous_active.size(), 9u);
  for (TaskIndex t : end.clients[1].previous_active) {
    if (end.tasks[t].stateful) {
      EXPECT_EQ(reported(end, "beta", to_string(end.tasks[t].id)), -2);
    }
  }
}

TEST_F(Simulation, AddOneNodeFromTheFileAlsoConverges) {
  const Cluster c = one_client_group().client("beta").build();
  const SimulationResult r = simulate(*registry_, config("high_availability"), c, {});
  EXPECT_TRUE(r.summary.converged);
  EXPECT_LE(r.summary.rounds - r.summary.followup_rounds, 5u);
  expect_no_restoring_actives(r);
}

// Three clients with one standby of each stateful task, as a steady group leaves them.
Cluster steady_three() {
  testing::ClusterBuilder b;
  for (int p = 0; p < 6; ++p) b.stateful("0_" + std::to_string(p), 50000);
  for (int p = 0; p < 3; ++p) b.stateless("1_" + std::to_string(p));
  b.client("a")
      .previous_active({"0_0", "0_1", "1_0"})
      .previous_standby({"0_2", "0_3"})
      .offsets({{"0_0", -2}, {"0_1", -2}, {"0_2", 50000}, {"0_3", 50000}});
  b.client("b")
      .previous_active({"0_2", "0_3", "1_1"})
      .previous_standby({"0_4", "0_5"})
      .offsets({{"0_2", -2}, {"0_3", -2}, {"0_4", 50000}, {"0_5", 50000}});
  b.client("c")
      .previous_active({"0_4", "0_5", "1_2"})
      .previous_standby({"0_0", "0_1"})
      .offsets({{"0_4", -2}, {"0_5", -2}, {"0_0", 50000}, {"0_1", 50000}});
  return b.build();
}

TEST_F(Simulation, DropNodeConvergesOnTheStandbysWithoutRestoringActives) {
  SimulationOptions options;
  options.events = {leave(1, "b")};
  const SimulationResult r = simulate(*registry_, config("high_availability", 1), steady_three(), options);
  EXPECT_TRUE(r.summary.converged);
  EXPECT_LE(r.summary.rounds, 6u);
  expect_no_restoring_actives(r);
  EXPECT_EQ(r.rounds[1].clients, 2u);
  EXPECT_THAT(r.rounds[0].events, ElementsAre("b leaves"));
  // b's actives went to the clients with their standbys: nothing restored.
  EXPECT_EQ(r.rounds[1].metrics.cold_actives, 0u);
  EXPECT_EQ(r.final_state.client_count(), 2u);
  EXPECT_FALSE(r.final_state.find_client("b"));
}

TEST_F(Simulation, ThePreKip441StickyAssignorRestoresWhereKafkasWould) {
  // Kafka's LegacyStickyTaskAssignor ignores lags: of b's tasks, a (holding their standbys) takes
  // 0_2 up to its share, and findClient sends 0_3 to c, which has more room and no state of it.
  // The simulator measures that restoring active; the group still converges.
  SimulationOptions options;
  options.events = {leave(1, "b")};
  const SimulationResult r = simulate(*registry_, config("sticky", 1), steady_three(), options);
  EXPECT_TRUE(r.summary.converged);
  std::uint64_t restoring = 0;
  for (const auto& round : r.rounds) restoring = std::max<std::uint64_t>(restoring, round.metrics.restoring_actives);
  EXPECT_EQ(restoring, 1u);
}

TEST_F(Simulation, StateAfterARoundIsTheAssignmentWithCaughtUpCopies) {
  SimulationOptions options;
  options.protocol = Protocol::rounds;  // a full round of catching up, not a follow-up seconds later
  options.max_rounds = 1;
  const Cluster start = one_client_group().client("beta").build();
  const SimulationResult r = simulate(*registry_, config("high_availability"), start, options);
  ASSERT_EQ(r.rounds.size(), 1u);
  const Cluster& s = r.final_state;
  const Client& beta = s.clients[*s.find_client("beta")];
  // Warmups became standby history, fully caught up (default catch-up): offset sum = end offsets.
  ASSERT_EQ(beta.previous_standby.size(), r.rounds[0].metrics.warmups);
  for (TaskIndex t : beta.previous_standby) {
    const auto sum = reported(s, "beta", to_string(s.tasks[t].id));
    EXPECT_EQ(sum, s.tasks[t].end_offset_sum);
  }
  // Per-thread history follows the assignment.
  ASSERT_EQ(beta.threads_history.size(), 1u);
  EXPECT_EQ(beta.threads_history[0].previous_active, beta.previous_active);
  // Stateless tasks never get offset sums.
  for (const auto& sum : beta.offset_sums) EXPECT_TRUE(s.tasks[sum.task].stateful);
}

TEST_F(Simulation, PartialCatchUpAndNewData) {
  SimulationOptions options;
  options.protocol = Protocol::rounds;
  options.max_rounds = 1;
  options.catch_up = 30000;
  options.new_data = 500;
  const Cluster start = one_client_group().client("beta").build();
  const SimulationResult r = simulate(*registry_, config("high_availability"), start, options);
  const Cluster& s = r.final_state;
  const Client& beta = s.clients[*s.find_client("beta")];
  ASSERT_FALSE(beta.previous_standby.empty());
  for (TaskIndex t : beta.previous_standby) {
    // From nothing: 30000 restored; the end moved on by 500.
    EXPECT_EQ(reported(s, "beta", to_string(s.tasks[t].id)), 30000);
    EXPECT_EQ(s.tasks[t].end_offset_sum, start.tasks[t].end_offset_sum + 500);
  }
  // alpha still runs its actives: -2 whatever the new data.
  for (TaskIndex t : s.clients[*s.find_client("alpha")].previous_active) {
    if (s.tasks[t].stateful) {
      EXPECT_EQ(reported(s, "alpha", to_string(s.tasks[t].id)), -2);
    }
  }
}

TEST_F(Simulation, WarmupsThatCannotCatchUpNeverConverge) {
  SimulationOptions options;
  options.max_rounds = 6;
  options.catch_up = 0;
  const SimulationResult r =
      simulate(*registry_, config("high_availability"), one_client_group().client("beta").build(), options);
  EXPECT_FALSE(r.summary.converged);
  EXPECT_FALSE(r.summary.stalled);
  EXPECT_EQ(r.summary.rounds, 6u);
  expect_no_restoring_actives(r);
}

TEST_F(Simulation, RestartKeepingOrLosingState) {
  SimulationOptions options;
  options.max_rounds = 1;
  options.new_data = 100;
  options.events = {restart(1, "a", true), restart(1, "b", false)};
  const Cluster start = steady_three();
  const SimulationResult r = simulate(*registry_, config("sticky", 1), start, options);
  const Cluster& s = r.final_state;
  const Client& a = s.clients[*s.find_client("a")];
  EXPECT_THAT(a.previous_active, IsEmpty());
  EXPECT_THAT(a.previous_standby, IsEmpty());
  EXPECT_THAT(a.threads_history, IsEmpty());
  ASSERT_FALSE(a.offset_sums.empty());
  for (const auto& sum : a.offset_sums) {
    EXPECT_NE(sum.sum, kRunningOffsetSum);                       // nothing is running after a restart
    EXPECT_EQ(sum.sum, s.tasks[sum.task].end_offset_sum - 100);  // behind by this round's new data
  }
  // With its state wiped, b is a new process (Kafka's protocol): it comes back as b~1, with nothing.
  EXPECT_FALSE(s.find_client("b"));
  const Client& b = s.clients[*s.find_client("b~1")];
  EXPECT_THAT(b.offset_sums, IsEmpty());
  EXPECT_THAT(b.previous_active, IsEmpty());
  EXPECT_THAT(r.rounds[0].events,
              ElementsAre("a restarts, keeping its state", "b comes back, losing its state (a new process: b~1)"));
  // Rounds only: the same id.
  options.protocol = Protocol::rounds;
  const SimulationResult q = simulate(*registry_, config("sticky", 1), start, options);
  EXPECT_THAT(q.final_state.clients[*q.final_state.find_client("b")].offset_sums, IsEmpty());
  EXPECT_THAT(q.rounds[0].events, ElementsAre("a restarts, keeping its state", "b restarts, losing its state"));
}

TEST_F(Simulation, AnUnbalancedAssignmentThatRepeatsWithoutProbingStalls) {
  const Cluster c =
      testing::ClusterBuilder().stateless("0_0").stateless("0_1").stateless("0_2").client("a").client("b").build();
  // Kafka's protocol: no probing, no revocation, no event: no rebalance ever comes, so the group
  // stays unbalanced after round 1.
  const SimulationResult k = simulate(*registry_, config("test_trivial_valid"), c, {});
  EXPECT_FALSE(k.summary.converged);
  EXPECT_TRUE(k.summary.stalled);
  EXPECT_EQ(k.summary.rounds, 1u);
  // Rounds only: the next round repeats the same answer.
  SimulationOptions rounds;
  rounds.protocol = Protocol::rounds;
  const SimulationResult r = simulate(*registry_, config("test_trivial_valid"), c, rounds);
  EXPECT_FALSE(r.summary.converged);
  EXPECT_TRUE(r.summary.stalled);
  EXPECT_EQ(r.summary.rounds, 2u);
  EXPECT_FALSE(r.summary.first_balanced_round);
  EXPECT_EQ(nlohmann::ordered_json(r.summary).dump(),
            R"({"converged":false,"stalled":true,"rounds":2,"active_moves":0,"restore_offsets":0,)"
            R"("first_balanced_round":null,"warmups":0,"probing_rounds":0,"strategy":"test_trivial_valid",)"
            R"("time_to_balanced_ms":null,"time_to_converged_ms":null,"restoring_task_ms":null,)"
            R"("under_replicated_task_ms":0,"replayed_offsets":0,"peak_restoring_copies":0,"max_rounds_reached":false,)"
            R"("followup_rounds":0})");
}

// The time model of rounds only (Protocol::rounds), computed by hand. test_trivial_valid puts
// every task on the first client ("a")
// and never asks for probing. 0_0 (90,000 offsets) and 0_1 (30,000) have state nowhere; copies
// restore 100 offsets/s, so a alone needs 900 s and 300 s; a rebalance costs 5 s; probing
// interval 600 s.
//   round 1 at   5 s: b joins right after: the next rebalance starts at once, nothing restores
//   round 2 at  10 s: c joins right after: the same
//   round 3 at  15 s: no event, no probing: the next round after one probing interval (600 s);
//                     restoring 600 s of 0_0 (60,000 of its 90,000) + all 300 s of 0_1
//   round 4 at 620 s: the same assignment, unbalanced, but 0_0 still restoring (30,000 behind):
//                     not stalled, the state changes; 0_0 restores its last 30,000 offsets: 300 s
//   round 5 at 1,225 s: the same again, nothing catching up: stalled, the last round
// restoring task-time 0 + 0 + 900 s + 300 s + 0 = 1,200 s: exactly the 120,000 offsets at 100/s,
// which are the offsets replayed (90,000 in round 3, 30,000 in round 4).
TEST_F(Simulation, TimeModelByHand_EventsRebalanceAtOnceAndRestoringIsCountedUntilDone) {
  const Cluster c =
      testing::ClusterBuilder().stateful("0_0", 90000).stateful("0_1", 30000).stateless("1_0").client("a").build();
  SimulationOptions options;
  options.protocol = Protocol::rounds;
  options.restore_rate = 100;
  options.rebalance_ms = 5000;
  options.events = {join(1, "b"), join(2, "c")};
  Config cfg = config("test_trivial_valid");
  cfg.settings.probing_rebalance_interval_ms = 600000;
  const SimulationResult r = simulate(*registry_, cfg, c, options);
  ASSERT_EQ(r.rounds.size(), 5u);
  EXPECT_TRUE(r.summary.stalled);
  std::vector<std::int64_t> at, restoring;
  std::vector<std::uint64_t> replayed, copies;
  for (const auto& round : r.rounds) {
    at.push_back(round.at_ms);
    ASSERT_TRUE(round.restoring_task_ms);
    restoring.push_back(*round.restoring_task_ms);
    replayed.push_back(round.replayed_offsets);
    copies.push_back(round.restoring_copies);
  }
  EXPECT_THAT(at, ElementsAre(5000, 10000, 15000, 620000, 1225000));
  EXPECT_THAT(restoring, ElementsAre(0, 0, 900000, 300000, 0));
  EXPECT_EQ(r.summary.restoring_task_ms, 1200000);
  EXPECT_THAT(replayed, ElementsAre(0u, 0u, 90000u, 30000u, 0u));
  EXPECT_EQ(r.summary.replayed_offsets, 120000u);
  EXPECT_THAT(copies, ElementsAre(2u, 2u, 2u, 1u, 0u));  // actives not caught up when they take effect
  // Until the copy furthest behind is within acceptable_recovery_lag (10,000): 0_0 from 90,000 is
  // 80,000 offsets at 100/s = 800 s; from 30,000 in round 4, 200 s.
  std::vector<std::int64_t> slowest;
  for (const auto& round : r.rounds) slowest.push_back(round.slowest_restore_ms.value_or(-1));
  EXPECT_THAT(slowest, ElementsAre(800000, 800000, 800000, 200000, 0));
  EXPECT_EQ(r.summary.peak_restoring_copies, 2u);
  EXPECT_FALSE(r.summary.time_to_balanced_ms);
  EXPECT_FALSE(r.summary.time_to_converged_ms);
  EXPECT_EQ(reported(r.final_state, "a", "0_0"), kRunningOffsetSum);  // 600 s after round 4: done
  const auto line = nlohmann::json::parse(nlohmann::ordered_json(r.rounds[2]).dump());
  EXPECT_EQ(line["at_ms"], 15000);
  EXPECT_EQ(line["restoring_task_ms"], 900000);
}

// Rounds only (Protocol::rounds; KafkaProtocol.ARevokedActiveIsHandedOverAtAFollowUpRebalance is
// the same group under Kafka's protocol). Kafka's HA on a client running 0_0 and 0_1 (100,000
// offsets each) and a new client b: one warmup on b, probing; at 100 offsets/s a probing interval
// of 600 s restores 60,000 offsets, so b is caught up after two intervals and takes its active in
// round 3 (balanced, no probing: converged).
//   round 1 at 5 s, round 2 at 5 + 600 + 5 = 610 s, round 3 at 610 + 600 + 5 = 1,215 s.
// No active ever restores: alpha runs its tasks, b takes one only once caught up.
TEST_F(Simulation, TimeModelByHand_WarmupsRestoreOneProbingIntervalPerRound) {
  const Cluster c = alpha_runs_two_beta_joins();
  SimulationOptions options;
  options.protocol = Protocol::rounds;
  options.restore_rate = 100;
  options.rebalance_ms = 5000;
  Config cfg = config("high_availability");
  cfg.settings.probing_rebalance_interval_ms = 600000;
  const SimulationResult r = simulate(*registry_, cfg, c, options);
  ASSERT_EQ(r.rounds.size(), 3u);
  EXPECT_TRUE(r.summary.converged);
  EXPECT_EQ(r.rounds[0].metrics.warmups, 1u);
  EXPECT_EQ(r.rounds[1].metrics.warmups, 1u);
  EXPECT_EQ(r.rounds[2].metrics.active_moves, 1u);
  std::vector<std::int64_t> at;
  for (const auto& round : r.rounds) at.push_back(round.at_ms);
  EXPECT_THAT(at, ElementsAre(5000, 610000, 1215000));
  EXPECT_EQ(r.summary.time_to_balanced_ms, 1215000);
  EXPECT_EQ(r.summary.time_to_converged_ms, 1215000);
  EXPECT_EQ(r.summary.restoring_task_ms, 0);

  // Per round instead (full catch-up): b is caught up after one round; no restore rate, no
  // restoring time, but the rounds still happen one probing interval apart.
  SimulationOptions per_round;
  per_round.protocol = Protocol::rounds;
  per_round.rebalance_ms = 5000;
  const SimulationResult q = simulate(*registry_, cfg, c, per_round);
  ASSERT_EQ(q.rounds.size(), 2u);
  EXPECT_EQ(q.summary.time_to_converged_ms, 610000);
  EXPECT_FALSE(q.summary.restoring_task_ms);
  EXPECT_FALSE(q.rounds[0].restoring_task_ms);
}

TEST_F(Simulation, ProbingEveryRoundRunsToTheLimitAndPendingEventsKeepItGoing) {
  SimulationOptions options;
  options.max_rounds = 4;
  const SimulationResult r = simulate(*registry_, config("fallback_prior"), steady_three(), options);
  EXPECT_FALSE(r.summary.converged);
  EXPECT_FALSE(r.summary.stalled);
  EXPECT_EQ(r.summary.rounds, 4u);
  EXPECT_EQ(r.summary.probing_rounds, 4u);

  // high_availability converges in round 1 on a steady group, unless an event is still to come.
  SimulationOptions later;
  later.events = {join(3, "d")};
  const SimulationResult s = simulate(*registry_, config("high_availability", 1), steady_three(), later);
  EXPECT_TRUE(s.summary.converged);
  EXPECT_GE(s.summary.rounds, 4u);
  EXPECT_EQ(s.rounds[3].clients, 4u);
}

TEST_F(Simulation, UnknownEndOffsetsHoldForTheFirstRoundOnly) {
  const Cluster c = testing::ClusterBuilder()
                        .stateful("0_0", 1000)
                        .stateful("0_1", 1000)
                        .end_offsets_unknown()
                        .client("a")
                        .running_actives({"0_0", "0_1"})
                        .client("b")
                        .build();
  const SimulationResult r = simulate(*registry_, config("high_availability"), c, {});
  ASSERT_GE(r.rounds.size(), 2u);
  EXPECT_EQ(r.rounds[0].strategy, "fallback_prior");
  EXPECT_TRUE(r.rounds[0].probing_rebalance);
  EXPECT_EQ(r.rounds[1].strategy, "high_availability");
  EXPECT_TRUE(r.summary.converged);
}

TEST_F(Simulation, EventsThatCannotApplyAreErrorsBeforeRoundOne) {
  const Cluster c = steady_three();
  auto error_of = [&](std::vector<SimulationEvent> events) {
    SimulationOptions options;
    options.events = std::move(events);
    try {
      simulate(*registry_, config("sticky", 1), c, options);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of({join(2, "a")}), HasSubstr("test: round 2: client 'a' joins but is already in the group"));
  EXPECT_THAT(error_of({leave(1, "zz")}),
              HasSubstr("client 'zz' leaves but is not in the group (members then: a, b, c)"));
  EXPECT_THAT(error_of({leave(1, "a"), restart(2, "a", true)}),
              HasSubstr("client 'a' restarts but is not in the group"));
  EXPECT_THAT(error_of({leave(1, "a"), leave(1, "b"), leave(2, "c")}), HasSubstr("the group cannot become empty"));
  // Rounds apply in order whatever the file order: a join at round 2 before a leave at round 1.
  EXPECT_EQ(error_of({join(2, "b"), leave(1, "b")}), "no error");

  SimulationOptions bad;
  bad.max_rounds = 0;
  EXPECT_THROW(simulate(*registry_, config("sticky"), c, bad), InputError);
  bad.max_rounds = 1;
  bad.catch_up = -1;
  EXPECT_THROW(simulate(*registry_, config("sticky"), c, bad), InputError);
  bad.catch_up = 10;
  bad.restore_rate = 100;  // two models of catching up at once
  EXPECT_THROW(simulate(*registry_, config("sticky"), c, bad), InputError);
  bad.catch_up.reset();
  bad.restore_rate = 0;
  EXPECT_THROW(simulate(*registry_, config("sticky"), c, bad), InputError);
  bad.restore_rate.reset();
  bad.rebalance_ms = -1;
  EXPECT_THROW(simulate(*registry_, config("sticky"), c, bad), InputError);
  EXPECT_THROW(simulate(*registry_, config("no_such_strategy"), c, {}), PluginError);
}

TEST_F(Simulation, RoundsAreStreamedAndSerialised) {
  std::vector<std::uint32_t> seen;
  SimulationOptions options;
  options.events = {join(1, "beta")};
  options.on_round = [&](const SimulationRound& round) { seen.push_back(round.round); };
  const SimulationResult r = simulate(*registry_, config("high_availability"), one_client_group().build(), options);
  ASSERT_EQ(seen.size(), r.rounds.size());
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);

  const auto line = nlohmann::json::parse(nlohmann::ordered_json(r.rounds[1]).dump());
  EXPECT_EQ(line["round"], 2);
  EXPECT_EQ(line["clients"], 2);
  EXPECT_TRUE(line["metrics"].contains("active_moves"));
  EXPECT_TRUE(line["metrics"].contains("warmups"));
  EXPECT_TRUE(line["probing_rebalance"]["needed"].is_boolean());
  EXPECT_TRUE(line["balanced"].is_boolean());
  const auto summary = nlohmann::json::parse(nlohmann::ordered_json(r.summary).dump());
  for (const char* key : {"converged", "stalled", "rounds", "active_moves", "restore_offsets", "first_balanced_round"})
    EXPECT_TRUE(summary.contains(key)) << key;
}

TEST_F(Simulation, HtmlReportIsWellFormedWithOneSvgPerChart) {
  SimulationOptions options;
  options.events = {join(1, "beta <new>")};
  const SimulationResult r = simulate(*registry_, config("high_availability"), one_client_group().build(), options);
  const std::string html = simulation_html(r, {"Cluster: one <client> & friends"});
  const auto check = test::check_xml(html);
  ASSERT_EQ(check.problem, "");
  EXPECT_EQ(check.elements.at("svg"), static_cast<int>(simulation_chart_names().size()));
  EXPECT_EQ(simulation_chart_names().size(), 4u);
  EXPECT_THAT(html, HasSubstr("one &lt;client&gt; &amp; friends"));
  EXPECT_THAT(html, HasSubstr("beta &lt;new&gt; joins"));
  EXPECT_THAT(html, HasSubstr("Converged in"));
}

TEST_F(Simulation, IsBalancedLooksAtActiveAndThreadSpreads) {
  Metrics m;
  m.active_load_spread = 1;
  EXPECT_TRUE(is_balanced(m));
  m.thread_load_spread = 2;
  EXPECT_FALSE(is_balanced(m));
  m.thread_load_spread = 1;
  m.active_load_spread = 1.5;
  EXPECT_FALSE(is_balanced(m));
  m.total_load_spread = 7;  // copies do not count
  m.active_load_spread = 0.5;
  EXPECT_TRUE(is_balanced(m));
}

TEST(ProgressLine, SilentForShortRunsThenThrottled) {
  using namespace std::chrono_literals;
  ProgressLine::Clock::time_point now{};
  std::ostringstream out;
  {
    ProgressLine p(out, false, 1000ms, [&] { return now; });
    EXPECT_FALSE(p.update("early"));
    now += 1500ms;
    EXPECT_TRUE(p.update("round 5"));
    now += 500ms;
    EXPECT_FALSE(p.update("round 6"));  // within the interval
    now += 2000ms;
    EXPECT_TRUE(p.update("round 9"));
  }
  EXPECT_EQ(out.str(), "round 5\nround 9\n");

  std::ostringstream tty;
  {
    ProgressLine p(tty, true, 1000ms, [&] { return now; });
    now += 1200ms;
    EXPECT_TRUE(p.update("a"));
  }
  EXPECT_EQ(tty.str(), "\ra\x1b[K\r\x1b[K");
}

}  // namespace
// Redundancy, by hand: a runs 0_0 (60,000 offsets), b has nothing; one standby wanted,
// acceptable lag 10,000, copies restore 100 offsets/s, probing interval 600 s.
//   round 1 at 0 s: active on a, standby on b, 60,000 behind: stale. It is within the acceptable lag
//            after 50,000 offsets: 500 s under-replicated; no probing asked for, so under Kafka's
//            protocol no rebalance comes: the group converges when the standby is caught up, at
//            500 s. Over the interval the last round is counted on (600 s) it replays all 60,000.
//   rounds only: round 2 at 600 s, the same assignment, the standby caught up: converged then.
TEST_F(Simulation, UnderReplicationAndReplayedOffsetsByHand) {
  const Cluster c =
      testing::ClusterBuilder().stateful("0_0", 60000).client("a").running_actives({"0_0"}).client("b").build();
  Config cfg = config("high_availability", 1);
  cfg.settings.probing_rebalance_interval_ms = 600000;
  SimulationOptions options;
  options.restore_rate = 100;
  const SimulationResult k = simulate(*registry_, cfg, c, options);
  ASSERT_EQ(k.rounds.size(), 1u);
  EXPECT_TRUE(k.summary.converged);
  EXPECT_EQ(k.summary.time_to_converged_ms, 500000);
  EXPECT_EQ(k.summary.time_to_balanced_ms, 0);
  EXPECT_EQ(k.summary.under_replicated_task_ms, 500000);
  EXPECT_EQ(k.summary.replayed_offsets, 60000u);
  options.protocol = Protocol::rounds;
  const SimulationResult r = simulate(*registry_, cfg, c, options);
  ASSERT_EQ(r.rounds.size(), 2u);
  EXPECT_EQ(r.rounds[0].metrics.stale_standbys, 1u);
  EXPECT_FALSE(r.rounds[0].balanced && r.rounds[0].metrics.stale_standbys == 0);
  EXPECT_EQ(r.rounds[0].under_replicated_task_ms, 500000);
  EXPECT_EQ(r.rounds[0].replayed_offsets, 60000u);
  EXPECT_EQ(r.rounds[0].restoring_copies, 1u);
  EXPECT_EQ(r.rounds[1].metrics.stale_standbys, 0u);
  EXPECT_TRUE(r.summary.converged);
  EXPECT_EQ(r.summary.time_to_converged_ms, 600000);
  EXPECT_EQ(r.summary.time_to_balanced_ms, 0);  // balanced at once; converged once replicated
  EXPECT_EQ(r.summary.under_replicated_task_ms, 500000);
  EXPECT_EQ(r.summary.replayed_offsets, 60000u);
}

// Events in time, rounds only (Kafka's protocol: the KafkaProtocol tests): c restarts at 100 s and
// is down for 60 s. Each changes the group, so each triggers a rebalance when it happens (no
// rebalance cost): rounds at 0, 100 and 160 s, c absent from the second; back with its state, it
// catches up on what it missed.
TEST_F(Simulation, EventsInTimeRebalanceWhenTheyHappen) {
  SimulationEvent down;
  down.kind = EventKind::restart;
  down.client = "c";
  down.round = 0;
  down.at_ms = 100000;
  down.down_ms = 60000;
  down.where = "test";
  SimulationOptions options;
  options.protocol = Protocol::rounds;
  options.events = {down};
  options.new_data = 500;
  const SimulationResult r = simulate(*registry_, config("high_availability", 1), steady_three(), options);
  ASSERT_GE(r.rounds.size(), 3u);
  EXPECT_EQ(r.rounds[0].at_ms, 0);
  EXPECT_EQ(r.rounds[1].at_ms, 100000);
  EXPECT_EQ(r.rounds[2].at_ms, 160000);
  EXPECT_THAT(r.rounds[0].events, ElementsAre("c goes down (restart)"));
  EXPECT_THAT(r.rounds[1].events, ElementsAre("c comes back, keeping its state"));
  EXPECT_EQ(r.rounds[1].clients, 2u);
  EXPECT_EQ(r.rounds[2].clients, 3u);
  EXPECT_TRUE(r.summary.converged);
  expect_no_restoring_actives(r);
  // Two events at once (a list in the file): one rebalance for both.
  SimulationEvent j1 = join(1, "d"), j2 = join(1, "e");
  j1.round = j2.round = 0;
  j1.at_ms = j2.at_ms = 5000;
  SimulationOptions both;
  both.protocol = Protocol::rounds;
  both.events = {j1, j2};
  const SimulationResult b = simulate(*registry_, config("high_availability", 1), steady_three(), both);
  EXPECT_THAT(b.rounds[0].events, ElementsAre("d joins (1 thread)", "e joins (1 thread)"));
  EXPECT_EQ(b.rounds[1].at_ms, 5000);
  EXPECT_EQ(b.rounds[1].clients, 5u);
}

// The progress line: the simulated clock, the slowest copy's restore (a lower bound on what
// remains) and the rounds left to the limit at the pace so far (5 rounds in 5 s: 1 s a round).
TEST(SimulationProgress, ShowsSimulatedClockAndWhatRemains) {
  SimulationRound r;
  r.round = 5;
  r.at_ms = 3'600'000;
  r.clients = 3;
  r.metrics.active_moves = 2;
  r.metrics.warmups = 1;
  r.restoring_copies = 4;
  r.slowest_restore_ms = 7'200'000;
  EXPECT_EQ(simulation_progress(r, 20, std::chrono::seconds(5)),
            "simulate: round 5/20 at 1 h simulated: 3 clients, 2 active moves, 1 warmups, 4 copies restoring; "
            "the slowest copy is caught up in 2 h; at most 15 more rounds, ~15 s at this pace");
  r.slowest_restore_ms = 0;  // nothing behind
  EXPECT_EQ(simulation_progress(r, 20, std::chrono::seconds(5)),
            "simulate: round 5/20 at 1 h simulated: 3 clients, 2 active moves, 1 warmups, 4 copies restoring; "
            "at most 15 more rounds, ~15 s at this pace");
  r.slowest_restore_ms.reset();  // rounds, not time
  r.round = 20;                  // the last round: nothing left
  EXPECT_EQ(simulation_progress(r, 20, std::chrono::seconds(1)),
            "simulate: round 20/20 at 1 h simulated: 3 clients, 2 active moves, 1 warmups, 4 copies restoring");
}

}  // namespace assignor::host

namespace assignor::host {
namespace {

SimulationEvent timed(EventKind kind, const std::string& id, std::int64_t at_ms) {
  SimulationEvent e;
  e.kind = kind;
  e.client = id;
  e.round = 0;
  e.at_ms = at_ms;
  e.where = "test";
  return e;
}

class KafkaProtocol : public test::WithPlugins {
 protected:
  static void SetUpTestSuite() { load_plugins(); }
  static Config config(std::uint32_t standbys) {
    Config c;
    c.strategy = "high_availability";
    c.settings.max_warmup_replicas = 2;
    c.settings.num_standby_replicas = standbys;
    c.settings.probing_rebalance_interval_ms = 600000;
    return c;
  }
};

// Six tasks on three clients with one standby each, as high_availability leaves them once settled
// (it moves tasks from any other placement: Kafka's target ignores where tasks run).
Cluster steady_group(const PluginRegistry& registry) {
  testing::ClusterBuilder b;
  for (int p = 0; p < 6; ++p) b.stateful("0_" + std::to_string(p), 50000);
  b.client("a")
      .previous_active({"0_0", "0_1"})
      .previous_standby({"0_2", "0_3"})
      .offsets({{"0_0", -2}, {"0_1", -2}, {"0_2", 50000}, {"0_3", 50000}});
  b.client("b")
      .previous_active({"0_2", "0_3"})
      .previous_standby({"0_4", "0_5"})
      .offsets({{"0_2", -2}, {"0_3", -2}, {"0_4", 50000}, {"0_5", 50000}});
  b.client("c")
      .previous_active({"0_4", "0_5"})
      .previous_standby({"0_0", "0_1"})
      .offsets({{"0_4", -2}, {"0_5", -2}, {"0_0", 50000}, {"0_1", 50000}});
  Config c;
  c.strategy = "high_availability";
  c.settings.num_standby_replicas = 1;
  const SimulationResult settled = simulate(registry, c, b.build(), {});
  EXPECT_TRUE(settled.summary.converged);
  return settled.final_state;
}

// By hand: alpha runs 0_0 and 0_1 (100,000 offsets each), beta is new; copies restore 100
// offsets/s, a rebalance costs 5 s, probing every 600 s. high_availability warms one task up on
// beta (60,000 offsets an interval), and moves it once caught up, in round 3 at 1,215 s (as with
// rounds only). Kafka's protocol: alpha still runs it, so round 3 revokes it and the follow-up,
// round 4, starts at once: at 1,215 + 5 = 1,220 s beta, holding it as a copy meanwhile, takes it.
TEST_F(KafkaProtocol, ARevokedActiveIsHandedOverAtAFollowUpRebalance) {
  const Cluster c = alpha_runs_two_beta_joins();
  SimulationOptions options;
  options.restore_rate = 100;
  options.rebalance_ms = 5000;
  const SimulationResult r = simulate(*registry_, config(0), c, options);
  ASSERT_EQ(r.rounds.size(), 4u);
  std::vector<std::int64_t> at;
  std::vector<std::string> causes;
  std::vector<std::uint64_t> revoked;
  for (const auto& round : r.rounds) {
    at.push_back(round.at_ms);
    causes.push_back(round.cause);
    revoked.push_back(round.revoked);
  }
  EXPECT_THAT(at, ElementsAre(5000, 610000, 1215000, 1220000));
  EXPECT_THAT(causes, ElementsAre("start", "probing", "probing", "follow-up"));
  EXPECT_THAT(revoked, ElementsAre(0u, 0u, 1u, 0u));
  EXPECT_EQ(r.rounds[2].metrics.active_moves, 1u);
  EXPECT_EQ(r.rounds[3].metrics.active_moves, 0u);  // alpha released it: no previous owner to move from
  EXPECT_TRUE(r.summary.converged);
  EXPECT_EQ(r.summary.followup_rounds, 1u);
  EXPECT_EQ(r.summary.time_to_converged_ms, 1220000);
  // Every task runs on one client at the end, one each.
  const Cluster& end = r.final_state;
  EXPECT_EQ(end.clients[*end.find_client("alpha")].previous_active.size(), 1u);
  EXPECT_EQ(end.clients[*end.find_client("beta")].previous_active.size(), 1u);
  // Between the two, the task was alpha's no more and beta's as a copy: the state round 4 saw.
  EXPECT_EQ(r.rounds[3].clients, 2u);

  // Rounds only (the model before): no follow-up, 3 rounds.
  SimulationOptions rounds = options;
  rounds.protocol = Protocol::rounds;
  const SimulationResult q = simulate(*registry_, config(0), c, rounds);
  EXPECT_EQ(q.rounds.size(), 3u);
  EXPECT_EQ(q.summary.time_to_converged_ms, 1215000);
}

// Per round (no rate): a follow-up comes seconds after the rebalance that revoked, so nothing
// restores in between; the copies catch up over the rounds that wait a probing interval.
TEST_F(KafkaProtocol, PerRoundNothingRestoresBeforeAFollowUp) {
  const Cluster c = alpha_runs_two_beta_joins();
  std::vector<std::string> causes;
  std::vector<std::uint64_t> replayed;
  SimulationOptions options;
  options.on_round = [&](const SimulationRound& r) {
    causes.push_back(r.cause);
    replayed.push_back(r.replayed_offsets);
  };
  const SimulationResult r = simulate(*registry_, config(0), c, options);
  ASSERT_TRUE(r.summary.converged);
  for (std::size_t k = 0; k + 1 < causes.size(); ++k)
    if (causes[k + 1] == "follow-up") {
      EXPECT_EQ(replayed[k], 0u) << "round " << k + 1;
    }
  // Round 1 warms a copy up on beta over a probing interval: fully (100,000 offsets).
  EXPECT_EQ(causes[1], "probing");
  EXPECT_EQ(replayed[0], 100000u);
}

// With no probing asked for, the next rebalance is the next event's, however far: no round every
// probing interval in between (the model before had one at 600 s).
TEST_F(KafkaProtocol, NoRebalanceWithoutACause) {
  SimulationOptions options;
  options.events = {timed(EventKind::join, "d", 3000000)};
  const SimulationResult r = simulate(*registry_, config(1), steady_group(*registry_), options);
  ASSERT_GE(r.rounds.size(), 2u);
  EXPECT_EQ(r.rounds[0].at_ms, 0);
  EXPECT_EQ(r.rounds[1].at_ms, 3000000);
  EXPECT_EQ(r.rounds[1].cause, "events");
  EXPECT_EQ(r.rounds[1].clients, 4u);
  options.protocol = Protocol::rounds;
  const SimulationResult q = simulate(*registry_, config(1), steady_group(*registry_), options);
  EXPECT_EQ(q.rounds[1].at_ms, 600000);
  EXPECT_EQ(q.rounds[1].clients, 3u);
}

// c stops at 100 s without leaving the group: nothing happens until the session timeout (45 s)
// drops it, at 145 s; a join at 120 s waits for that rebalance too (the group waits for c).
TEST_F(KafkaProtocol, AClientThatStopsWithoutLeavingIsNoticedAfterTheSessionTimeout) {
  SimulationEvent stop = timed(EventKind::leave, "c", 100000);
  stop.leaves_group = false;
  SimulationOptions options;
  options.events = {stop, timed(EventKind::join, "d", 120000)};
  const SimulationResult r = simulate(*registry_, config(1), steady_group(*registry_), options);
  ASSERT_GE(r.rounds.size(), 2u);
  EXPECT_EQ(r.rounds[1].at_ms, 145000);
  EXPECT_EQ(r.rounds[1].clients, 3u);  // a and b, and d
  EXPECT_THAT(r.rounds[0].events, ElementsAre("c stops without leaving the group (noticed after the session timeout)",
                                              "d joins (1 thread)", "c is gone (the session timeout noticed it)"));
  EXPECT_FALSE(r.final_state.find_client("c"));
  expect_no_restoring_actives(r);

  // Another session timeout.
  options.session_timeout_ms = 10000;
  const SimulationResult s = simulate(*registry_, config(1), steady_group(*registry_), options);
  EXPECT_EQ(s.rounds[1].at_ms, 110000);
  EXPECT_EQ(s.rounds[1].clients, 2u);  // d joins later, at 120 s (after any follow-up of 110 s)
  const auto joined = std::find_if(s.rounds.begin() + 1, s.rounds.end(), [](const auto& x) { return x.clients == 3; });
  ASSERT_NE(joined, s.rounds.end());
  EXPECT_EQ(joined->at_ms, 120000);
  EXPECT_EQ(joined->cause, "events");

  // Rounds only: a stop without leaving is Kafka's protocol, an error.
  options.protocol = Protocol::rounds;
  EXPECT_THAT(test::input_error([&] { simulate(*registry_, config(1), steady_group(*registry_), options); }),
              HasSubstr("client 'c' stops without leaving the group: that is Kafka's protocol"));
}

// kill -9 and a restart 20 s later (within the session timeout): one rebalance, at 145 s, where c
// is back. With its state wiped it is a new process (c~1); keeping it, the same one.
TEST_F(KafkaProtocol, AKilledClientRestartedWithinTheSessionTimeoutIsOneRebalance) {
  for (const bool keep : {true, false}) {
    SimulationEvent kill = timed(EventKind::restart, "c", 100000);
    kill.leaves_group = false;
    kill.down_ms = 20000;
    kill.keep_state = keep;
    SimulationOptions options;
    options.events = {kill};
    const SimulationResult r = simulate(*registry_, config(1), steady_group(*registry_), options);
    ASSERT_GE(r.rounds.size(), 2u) << keep;
    EXPECT_EQ(r.rounds[1].at_ms, 145000) << keep;
    EXPECT_EQ(r.rounds[1].clients, 3u) << keep;
    const std::string back = keep ? "c" : "c~1";
    EXPECT_TRUE(r.final_state.find_client(back)) << keep;
    EXPECT_EQ(r.final_state.client_count(), 3u) << keep;
    EXPECT_TRUE(r.summary.converged) << keep;
    expect_no_restoring_actives(r);
  }
}

// A wiped restart by round is a new process too; the events keep naming it as the file does.
TEST_F(KafkaProtocol, AWipedRestartComesBackAsANewProcess) {
  SimulationEvent first;
  first.round = 1;
  first.kind = EventKind::restart;
  first.client = "b";
  first.keep_state = false;
  first.where = "test";
  SimulationEvent again = first;
  again.round = 3;
  SimulationOptions options;
  options.events = {first, again};
  const SimulationResult r = simulate(*registry_, config(1), steady_group(*registry_), options);
  EXPECT_THAT(r.rounds[0].events, ElementsAre("b comes back, losing its state (a new process: b~1)"));
  EXPECT_THAT(r.rounds[2].events, ElementsAre("b~1 comes back, losing its state (a new process: b~2)"));
  EXPECT_FALSE(r.final_state.find_client("b"));
  EXPECT_FALSE(r.final_state.find_client("b~1"));
  EXPECT_TRUE(r.final_state.find_client("b~2"));
  EXPECT_TRUE(r.summary.converged);
}

// Per-client restore rates: beta restores at 1,000 offsets/s, everyone else at 100.
TEST_F(KafkaProtocol, ClientsRestoreAtTheirOwnRates) {
  const Cluster c = alpha_runs_two_beta_joins();
  SimulationOptions options;
  options.restore_rate = 100;
  options.client_restore_rates = {{"beta", 1000}};
  options.max_rounds = 1;
  const SimulationResult r = simulate(*registry_, config(0), c, options);
  // The warmup on beta is within acceptable_recovery_lag (10,000) after 90,000 offsets: 90 s at
  // its 1,000 offsets/s (900 s at the others' 100).
  EXPECT_EQ(r.rounds[0].slowest_restore_ms, 90000);
  options.client_restore_rates = {{"beta", 0}};
  EXPECT_THROW(simulate(*registry_, config(0), c, options), InputError);
  options.client_restore_rates = {{"beta", 1000}};
  options.restore_rate.reset();
  EXPECT_THROW(simulate(*registry_, config(0), c, options), InputError);
}

}  // namespace
}  // namespace assignor::host
