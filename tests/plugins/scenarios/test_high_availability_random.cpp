// high_availability on 1,000 random small groups: every output is valid, has no restoring actives,
// places every standby it can, and is the same when run twice. The seed is printed on failure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "strategy_runner.hpp"

namespace assignor {
namespace {

using testing::builtin_plugins;
using testing::describe;

struct RandomCase {
  Cluster cluster;
  AssignmentSettings settings;
};

RandomCase random_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {  // inclusive
    return lo + rng() % (hi - lo + 1);
  };
  RandomCase rc;
  Cluster& c = rc.cluster;
  const auto subtopologies = pick(1, 4);
  for (std::uint64_t s = 0; s < subtopologies; ++s) {
    const auto kind = pick(0, 3);  // 0 stateless, 1 logged, 2 non-logged, 3 mixed
    const auto partitions = pick(1, 8);
    for (std::uint64_t p = 0; p < partitions; ++p) {
      Task t;
      t.id = {static_cast<std::int32_t>(s), static_cast<std::int32_t>(p)};
      if (kind == 1 || kind == 3) t.stores.push_back({"log", true, static_cast<std::int64_t>(pick(0, 200000))});
      if (kind == 2 || kind == 3) t.stores.push_back({"mem", false, 0});
      c.tasks.push_back(std::move(t));
    }
  }
  const auto clients = pick(1, 8);
  for (std::uint64_t i = 0; i < clients; ++i) {
    Client client;
    client.id = "client-" + std::to_string(i);
    client.threads = static_cast<std::uint32_t>(pick(1, 4));
    c.clients.push_back(std::move(client));
  }
  // Previous owners: some tasks were running somewhere (reported -2), some clients hold state.
  for (TaskIndex t = 0; t < c.tasks.size(); ++t) {
    if (pick(0, 3) != 0) {
      const auto owner = pick(0, clients - 1);
      c.clients[owner].previous_active.push_back(t);
      if (!c.tasks[t].stores.empty() && pick(0, 4) != 0) c.clients[owner].offset_sums.push_back({t, -2});
    }
    for (auto& client : c.clients) {
      if (c.tasks[t].stores.empty() || pick(0, 2) != 0) continue;
      bool owns = false;
      for (auto x : client.previous_active) owns = owns || x == t;
      bool reported = false;
      for (auto& o : client.offset_sums) reported = reported || o.task == t;
      if (owns || reported) continue;
      std::int64_t end = 0;
      for (auto& st : c.tasks[t].stores) end += st.logged ? st.changelog_end_offset : 0;
      const auto choice = pick(0, 9);
      std::int64_t sum = choice == 0 ? end + 1 + static_cast<std::int64_t>(pick(0, 100))   // suspect
                         : choice == 1 ? -static_cast<std::int64_t>(pick(3, 9))            // suspect
                                       : static_cast<std::int64_t>(pick(0, static_cast<std::uint64_t>(end)));
      client.offset_sums.push_back({t, sum});
    }
  }
  c.finalize();
  rc.settings.num_standby_replicas = static_cast<std::uint32_t>(pick(0, 2));
  rc.settings.max_warmup_replicas = static_cast<std::uint32_t>(pick(1, 3));
  const std::int64_t lags[] = {0, 100, 10000, 150000};
  rc.settings.acceptable_recovery_lag = lags[pick(0, 3)];
  return rc;
}

TEST(HighAvailabilityRandom, ThousandGroupsAreValidAndNeverRestore) {
  const std::uint64_t base = ::testing::UnitTest::GetInstance()->random_seed();
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const std::uint64_t seed = base * 1000003u + i;
    SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun: --gtest_random_seed=" + std::to_string(base) + ")");
    const RandomCase rc = random_case(seed);
    const auto r = builtin_plugins().run("high_availability", rc.cluster, rc.settings);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front().message << "\n" << describe(rc.cluster, r.assignment);
    ASSERT_EQ(r.metrics.restoring_actives, 0u) << describe(rc.cluster, r.assignment);
    if (rc.cluster.client_count() > rc.settings.num_standby_replicas) {
      ASSERT_EQ(r.metrics.standby_shortfall, 0u) << describe(rc.cluster, r.assignment);
    }
    if (!r.assignment.warmups.empty()) {
      ASSERT_TRUE(r.assignment.probing_rebalance);
    }
    if (i % 10 == 0) {
      const auto again = builtin_plugins().run("high_availability", rc.cluster, rc.settings);
      ASSERT_EQ(again.assignment, r.assignment) << "not deterministic";
    }
  }
}

}  // namespace
}  // namespace assignor
