// streams_balanced (Kafka 4.x's KIP-1071 BalancedTaskAssignor + refiner): the thread-weighted deal
// and the standby skew rule worked out by hand, then random groups for validity, determinism, the
// standby fixed point and the refiner's promise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

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

testing::RunResult run(const Cluster& c, const AssignmentSettings& s = {}) {
  auto r = builtin_plugins().run("streams_balanced", c, s);
  EXPECT_THAT(r.errors, IsEmpty()) << describe(c, r.assignment);
  return r;
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
                        .stateful("0_0", 0).stateful("0_1", 0)
                        .stateless("1_0").stateless("1_1").stateless("1_2")
                        .client("a").client("b").previous_active({"1_0", "1_1", "1_2"})
                        .build();
  const auto r = run(c);
  EXPECT_THAT(actives_of(c, r.assignment, "a"), ElementsAre("0_0", "1_0", "1_2"));
  EXPECT_THAT(actives_of(c, r.assignment, "b"), ElementsAre("0_1", "1_1"));
}

// ---- random groups ----

Cluster random_group(std::uint64_t seed, AssignmentSettings& settings) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  Cluster c;
  for (std::uint64_t s = 0, n = pick(1, 4); s < n; ++s) {
    const bool logged = pick(0, 2) != 0;
    for (std::uint64_t p = 0, m = pick(1, 12); p < m; ++p) {
      Task t;
      t.id = {static_cast<std::int32_t>(s), static_cast<std::int32_t>(p)};
      if (logged) t.stores.push_back({"log", true, static_cast<std::int64_t>(pick(0, 100000))});
      c.tasks.push_back(std::move(t));
    }
  }
  for (std::uint64_t i = 0, n = pick(1, 7); i < n; ++i) {
    Client client;
    client.id = "client-" + std::to_string(i);
    client.threads = static_cast<std::uint32_t>(pick(1, 4));
    c.clients.push_back(std::move(client));
  }
  for (TaskIndex t = 0; t < c.tasks.size(); ++t) {
    if (pick(0, 2) == 0) continue;
    auto& owner = c.clients[pick(0, c.clients.size() - 1)];
    owner.previous_active.push_back(t);
    if (!c.tasks[t].stores.empty()) owner.offset_sums.push_back({t, -2});
  }
  c.finalize();
  settings.num_standby_replicas = static_cast<std::uint32_t>(pick(0, 2));
  settings.max_warmup_replicas = static_cast<std::uint32_t>(pick(1, 3));
  return c;
}

TEST(StreamsBalancedRandom, ValidDeterministicStandbysAtKafkasFixedPointAndNoRestoringActive) {
  const std::uint64_t base = ::testing::UnitTest::GetInstance()->random_seed();
  for (std::uint64_t i = 0; i < 300; ++i) {
    const std::uint64_t seed = base * 1000003u + i;
    SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun: --gtest_random_seed=" + std::to_string(base) + ")");
    AssignmentSettings s;
    const Cluster c = random_group(seed, s);
    const auto r = builtin_plugins().run("streams_balanced", c, s);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front().message << "\n" << describe(c, r.assignment);
    ASSERT_EQ(r.metrics.restoring_actives, 0u) << describe(c, r.assignment);
    ASSERT_EQ(builtin_plugins().run("streams_balanced", c, s).assignment, r.assignment) << "not deterministic";

    // Without the refiner (the assignor's own answer): no standby can move from one client to
    // another under Kafka's skew rule (the load being the stateful actives and standbys per thread).
    const auto raw = builtin_plugins().run("streams_balanced", c, s,
                                           StrategyParams(std::map<std::string, std::string>{{"refiner", "false"}}));
    ASSERT_TRUE(raw.errors.empty()) << raw.errors.front().message;
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
          ASSERT_FALSE(movable && !holds[dst][t])
              << "standby " << to_string(c.tasks[t].id) << " could still move from " << c.clients[src].id << " to "
              << c.clients[dst].id << "\n" << describe(c, raw.assignment);
      }
  }
}

}  // namespace
}  // namespace assignor
