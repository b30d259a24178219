// min_traffic (KIP-925) and the rack-awareness settings of high_availability(_plus) and sticky, run as the
// host runs them: scenarios in the spirit of Kafka's RackAwareTaskAssignorTest and
// ClientTagAwareStandbyTaskAssignorTest, generated rack scenarios, and random groups.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "assignor/scenario.hpp"
#include "cluster_builder.hpp"
#include "strategy_runner.hpp"

namespace assignor {
namespace {

using testing::builtin_plugins;
using testing::ClusterBuilder;
using testing::describe;
using ::testing::IsEmpty;

std::vector<std::uint32_t> per_client(const Cluster& c, const std::vector<Placement>& list) {
  std::vector<std::uint32_t> n(c.client_count(), 0);
  for (const auto& p : list) ++n[p.client];
  return n;
}

void expect_equal_counts(const Cluster& c, const Assignment& a, const Assignment& b) {
  EXPECT_EQ(per_client(c, a.actives), per_client(c, b.actives));
  EXPECT_EQ(per_client(c, a.standbys), per_client(c, b.standbys));
  EXPECT_EQ(per_client(c, a.warmups), per_client(c, b.warmups));
  EXPECT_EQ(a.probing_rebalance, b.probing_rebalance);
}

AssignmentSettings one_standby() {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  return s;
}

StrategyParams packing_like_min_traffic() {
  return StrategyParams(std::map<std::string, std::string>{{"keep_history", "false"}});
}

testing::RunResult run(const std::string& strategy, const Cluster& c, const AssignmentSettings& s) {
  // min_traffic packs as high_availability_plus does with keep_history off, then optimises.
  const StrategyParams params = strategy == "high_availability_plus" ? packing_like_min_traffic() : StrategyParams();
  auto r = builtin_plugins().run(strategy, c, s, params);
  EXPECT_THAT(r.errors, IsEmpty()) << strategy << "\n" << describe(c, r.assignment);
  return r;
}

ScenarioSpec rack_spec(ScenarioKind kind, std::uint32_t clients, std::uint32_t subtopologies,
                       std::uint32_t partitions, std::uint64_t seed) {
  ScenarioSpec spec;
  spec.kind = kind;
  spec.clients = clients;
  spec.threads = 2;
  spec.subtopologies = subtopologies;
  spec.partitions = partitions;
  spec.standbys = 1;
  spec.racks = 3;
  spec.seed = seed;
  return spec;
}

TEST(MinTraffic, AtLeastHalvesHighAvailabilityPlusTrafficOnGeneratedRackScenarios) {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  for (ScenarioKind kind : {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in,
                            ScenarioKind::rolling_restart}) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(std::string(to_string(kind)) + " seed " + std::to_string(seed));
      const Cluster c = generate_cluster(rack_spec(kind, 12, 6, 40, seed));
      const auto ha = run("high_availability_plus", c, s);
      const auto mt = run("min_traffic", c, s);
      ASSERT_TRUE(ha.metrics.cross_rack_traffic.has_value());
      EXPECT_LE(*mt.metrics.cross_rack_traffic * 2, *ha.metrics.cross_rack_traffic)
          << "min_traffic " << *mt.metrics.cross_rack_traffic << " vs high_availability_plus "
          << *ha.metrics.cross_rack_traffic;
      EXPECT_EQ(mt.metrics.restoring_actives, 0u);
      expect_equal_counts(c, ha.assignment, mt.assignment);
    }
  }
}

TEST(MinTraffic, WithoutRacksItIsHighAvailabilityPlus) {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  ScenarioSpec spec = rack_spec(ScenarioKind::scale_out, 8, 4, 10, 5);
  spec.racks = 0;
  const Cluster c = generate_cluster(spec);
  EXPECT_EQ(run("min_traffic", c, s).assignment, run("high_availability_plus", c, s).assignment);
}

TEST(MinTraffic, HighAvailabilityPlusWithRackAwareStrategyIsMinTraffic) {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const Cluster c = generate_cluster(rack_spec(ScenarioKind::scale_out, 10, 4, 20, 7));
  AssignmentSettings rack = s;
  rack.rack_aware.strategy = RackAwareStrategy::min_traffic;
  const auto plus = run("high_availability_plus", c, rack);
  EXPECT_EQ(plus.assignment, run("min_traffic", c, s).assignment);
  EXPECT_LT(*plus.metrics.cross_rack_traffic, *run("high_availability_plus", c, s).metrics.cross_rack_traffic);
}

// Kafka's order: high_availability optimises the actives and standbys before its movement step,
// blind to lags, and the movement step then keeps every active available. Less traffic than
// without racks, never a restoring active; min_traffic, optimising the finished assignment, does
// at least as well on these groups.
TEST(MinTraffic, HighAvailabilityOptimisesRacksBeforeItsMovementStep) {
  for (ScenarioKind kind : {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::rolling_restart}) {
    SCOPED_TRACE(to_string(kind));
    const Cluster c = generate_cluster(rack_spec(kind, 12, 6, 40, 4));
    AssignmentSettings rack = one_standby();
    rack.rack_aware.strategy = RackAwareStrategy::min_traffic;
    const auto ha = run("high_availability", c, rack);
    const auto plain = run("high_availability", c, one_standby());
    EXPECT_LT(*ha.metrics.cross_rack_traffic, *plain.metrics.cross_rack_traffic);
    EXPECT_EQ(ha.metrics.restoring_actives, 0u);
    EXPECT_LE(*run("min_traffic", c, rack).metrics.cross_rack_traffic, *ha.metrics.cross_rack_traffic);
  }
}

// Kafka's enabling rule: rack awareness needs a rack on every client and replica racks on every
// partition; otherwise high_availability runs without it (and says so).
TEST(MinTraffic, HighAvailabilityNeedsRackInformationEverywhere) {
  Cluster c = generate_cluster(rack_spec(ScenarioKind::fresh, 6, 3, 10, 9));
  AssignmentSettings rack = one_standby();
  rack.rack_aware.strategy = RackAwareStrategy::min_traffic;
  const auto with_racks = run("high_availability", c, rack);
  const auto without = run("high_availability", c, one_standby());
  ASSERT_NE(with_racks.assignment, without.assignment);  // racks matter on this group
  Cluster missing_client_rack = c;
  missing_client_rack.clients[2].rack = kNoRack;
  EXPECT_EQ(run("high_availability", missing_client_rack, rack).assignment,
            run("high_availability", missing_client_rack, one_standby()).assignment);
  Cluster missing_partition_racks = c;
  missing_partition_racks.tasks[0].partitions[0].racks.clear();
  EXPECT_EQ(run("high_availability", missing_partition_racks, rack).assignment,
            run("high_availability", missing_partition_racks, one_standby()).assignment);
}

TEST(MinTraffic, BalanceSubtopologyKeepsSubtopologiesSpread) {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  s.rack_aware.strategy = RackAwareStrategy::balance_subtopology;
  const Cluster c = generate_cluster(rack_spec(ScenarioKind::fresh, 6, 4, 30, 11));
  const auto ha = run("high_availability_plus", c, one_standby());
  const auto balanced = run("min_traffic", c, s);
  s.rack_aware.strategy = RackAwareStrategy::min_traffic;
  const auto plain = run("min_traffic", c, s);
  EXPECT_LE(*balanced.metrics.cross_rack_traffic, *ha.metrics.cross_rack_traffic);
  EXPECT_LE(balanced.metrics.max_subtopology_skew, plain.metrics.max_subtopology_skew);
  expect_equal_counts(c, ha.assignment, balanced.assignment);
}

TEST(MinTraffic, ConfiguredCostsAreHonoured) {
  // A huge non-overlap cost makes every move a loss: the result is high_availability's.
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  s.rack_aware.non_overlap_cost = 1000;
  const Cluster c = generate_cluster(rack_spec(ScenarioKind::scale_out, 8, 4, 10, 3));
  const auto mt = run("min_traffic", c, s);
  const auto ha = run("high_availability_plus", c, one_standby());
  // Stateless actives use Kafka's fixed costs (1, 0), so only they may still move.
  for (const auto& p : mt.assignment.actives) {
    if (!c.tasks[p.task].stateful) continue;
    const auto it = std::find_if(ha.assignment.actives.begin(), ha.assignment.actives.end(),
                                 [&](const Placement& q) { return q.task == p.task; });
    EXPECT_EQ(it->client, p.client);
  }
}

// --- tags (KIP-708) ------------------------------------------------------------------------------

// 3 zones x 3 clusters, one client per pair, `tasks` logged tasks running nowhere yet.
Cluster zone_cluster_grid(int tasks) {
  ClusterBuilder b;
  for (int t = 0; t < tasks; ++t) b.stateful("0_" + std::to_string(t), 100000);
  for (int z = 1; z <= 3; ++z)
    for (int k = 1; k <= 3; ++k) b.client("z" + std::to_string(z) + "-k" + std::to_string(k));
  Cluster c = b.build();
  for (auto& client : c.clients)
    client.tags = {{"zone", client.id.substr(0, 2)}, {"cluster", client.id.substr(3, 2)}};
  return c;
}

void expect_spread(const Cluster& c, const Assignment& a) {
  std::map<TaskIndex, std::vector<ClientIndex>> holders;
  for (const auto& p : a.actives) holders[p.task].push_back(p.client);
  for (const auto& p : a.standbys) holders[p.task].push_back(p.client);
  for (const auto& [t, list] : holders) {
    std::set<std::string> zones, clusters;
    for (ClientIndex x : list) {
      zones.insert(c.clients[x].tags.at("zone"));
      clusters.insert(c.clients[x].tags.at("cluster"));
    }
    EXPECT_EQ(list.size(), 3u) << "task " << t;
    EXPECT_EQ(zones.size(), 3u) << "task " << t << "\n" << describe(c, a);
    EXPECT_EQ(clusters.size(), 3u) << "task " << t << "\n" << describe(c, a);
  }
}

TEST(TagAwareStrategies, ThreeZonesByThreeClustersTwoStandbysOnDistinctZonesAndClusters) {
  const Cluster c = zone_cluster_grid(18);
  AssignmentSettings s;
  s.num_standby_replicas = 2;
  s.rack_aware.tags = {"zone", "cluster"};
  for (const char* strategy : {"high_availability", "sticky", "min_traffic"}) {
    SCOPED_TRACE(strategy);
    const auto r = run(strategy, c, s);
    expect_spread(c, r.assignment);
    EXPECT_EQ(r.metrics.tag_spread_shortfall, 0u);
    EXPECT_EQ(r.metrics.standby_shortfall, 0u);
  }
}

TEST(TagAwareStrategies, WithoutTagsTheMetricIsAbsentAndPlacementUnchanged) {
  const Cluster c = zone_cluster_grid(9);
  AssignmentSettings s;
  s.num_standby_replicas = 2;
  const auto r = run("high_availability", c, s);
  EXPECT_FALSE(r.metrics.tag_spread_shortfall.has_value());
}

TEST(TagAwareStrategies, StickyKeepsPreviousStandbysThatAreWellSpread) {
  // Last time 0_0 ran on z1-k1 with standbys on z2-k2 and z3-k3: the same spread as now is possible,
  // so sticky keeps them.
  Cluster c = zone_cluster_grid(1);
  auto id = [&](const char* name) { return *c.find_client(name); };
  c.clients[id("z1-k1")].previous_active = {0};
  c.clients[id("z2-k2")].previous_standby = {0};
  c.clients[id("z3-k3")].previous_standby = {0};
  c.finalize();
  AssignmentSettings s;
  s.num_standby_replicas = 2;
  s.rack_aware.tags = {"zone", "cluster"};
  const auto r = run("sticky", c, s);
  EXPECT_THAT(testing::standbys_of(c, r.assignment, "z2-k2"), ::testing::ElementsAre("0_0"));
  EXPECT_THAT(testing::standbys_of(c, r.assignment, "z3-k3"), ::testing::ElementsAre("0_0"));
}

// --- random groups -------------------------------------------------------------------------------

struct RandomCase {
  Cluster cluster;
  AssignmentSettings settings;
};

// Like high_availability's random groups, with racks on clients and partitions, and sometimes tags.
RandomCase random_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  RandomCase rc;
  Cluster& c = rc.cluster;
  const auto racks = pick(1, 3);
  for (std::uint64_t r = 0; r < racks; ++r) c.racks.push_back("rack-" + std::to_string(r));
  const auto subtopologies = pick(1, 4);
  for (std::uint64_t s = 0; s < subtopologies; ++s) {
    const auto kind = pick(0, 3);  // 0 stateless, 1 logged, 2 non-logged, 3 mixed
    for (std::uint64_t p = 0, n = pick(1, 8); p < n; ++p) {
      Task t;
      t.id = {static_cast<std::int32_t>(s), static_cast<std::int32_t>(p)};
      if (kind == 1 || kind == 3) t.stores.push_back({"log", true, static_cast<std::int64_t>(pick(0, 200000))});
      if (kind == 2 || kind == 3) t.stores.push_back({"mem", false, 0});
      PartitionRef ref{"topic-" + std::to_string(s), static_cast<std::int32_t>(p), {}};
      for (RackIndex r = 0; r < racks; ++r)
        if (pick(0, 2) == 0) ref.racks.push_back(r);
      t.partitions.push_back(ref);
      c.tasks.push_back(std::move(t));
    }
  }
  const auto clients = pick(1, 8);
  const bool tags = pick(0, 1) == 1;
  for (std::uint64_t i = 0; i < clients; ++i) {
    Client client;
    client.id = "client-" + std::to_string(i);
    client.threads = static_cast<std::uint32_t>(pick(1, 4));
    client.rack = static_cast<RackIndex>(pick(0, racks - 1));
    if (tags) client.tags = {{"zone", "z" + std::to_string(pick(0, 2))}, {"cluster", "k" + std::to_string(pick(0, 1))}};
    c.clients.push_back(std::move(client));
  }
  for (TaskIndex t = 0; t < c.tasks.size(); ++t) {
    if (pick(0, 3) != 0) {
      const auto owner = pick(0, clients - 1);
      c.clients[owner].previous_active.push_back(t);
      if (!c.tasks[t].stores.empty() && pick(0, 4) != 0) c.clients[owner].offset_sums.push_back({t, -2});
    }
    for (auto& client : c.clients) {
      if (c.tasks[t].stores.empty() || pick(0, 2) != 0) continue;
      bool known = false;
      for (auto& o : client.offset_sums) known = known || o.task == t;
      for (auto x : client.previous_active) known = known || x == t;
      if (known) continue;
      std::int64_t end = 0;
      for (auto& st : c.tasks[t].stores) end += st.logged ? st.changelog_end_offset : 0;
      client.offset_sums.push_back({t, static_cast<std::int64_t>(pick(0, static_cast<std::uint64_t>(end)))});
    }
  }
  c.finalize();
  rc.settings.num_standby_replicas = static_cast<std::uint32_t>(pick(0, 2));
  rc.settings.max_warmup_replicas = static_cast<std::uint32_t>(pick(1, 3));
  const std::int64_t lags[] = {0, 100, 10000, 150000};
  rc.settings.acceptable_recovery_lag = lags[pick(0, 3)];
  const RackAwareStrategy strategies[] = {RackAwareStrategy::none, RackAwareStrategy::min_traffic,
                                          RackAwareStrategy::balance_subtopology};
  rc.settings.rack_aware.strategy = strategies[pick(0, 2)];
  if (tags) rc.settings.rack_aware.tags = {"zone", "cluster"};
  if (pick(0, 3) == 0) rc.settings.rack_aware.traffic_cost = static_cast<std::int64_t>(pick(0, 20));
  if (pick(0, 3) == 0) rc.settings.rack_aware.non_overlap_cost = static_cast<std::int64_t>(pick(0, 20));
  return rc;
}

TEST(MinTrafficRandom, FiveHundredGroupsAreValidNeverRestoreAndKeepHighAvailabilityCounts) {
  const std::uint64_t base = ::testing::UnitTest::GetInstance()->random_seed();
  for (std::uint64_t i = 0; i < 500; ++i) {
    const std::uint64_t seed = base * 1000003u + i;
    SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun: --gtest_random_seed=" + std::to_string(base) + ")");
    const RandomCase rc = random_case(seed);
    const auto mt = builtin_plugins().run("min_traffic", rc.cluster, rc.settings);
    ASSERT_TRUE(mt.errors.empty()) << mt.errors.front().message << "\n" << describe(rc.cluster, mt.assignment);
    ASSERT_EQ(mt.metrics.restoring_actives, 0u) << describe(rc.cluster, mt.assignment);
    if (rc.cluster.client_count() > rc.settings.num_standby_replicas) {
      ASSERT_EQ(mt.metrics.standby_shortfall, 0u) << describe(rc.cluster, mt.assignment);
    }
    if (!mt.assignment.warmups.empty()) {
      ASSERT_TRUE(mt.assignment.probing_rebalance);
    }
    // high_availability_plus with the same settings but no optimiser: same counts, no less traffic.
    AssignmentSettings plain = rc.settings;
    plain.rack_aware.strategy = RackAwareStrategy::none;
    const auto ha = builtin_plugins().run("high_availability_plus", rc.cluster, plain,
                                          packing_like_min_traffic());
    ASSERT_TRUE(ha.errors.empty());
    expect_equal_counts(rc.cluster, ha.assignment, mt.assignment);
    if (ha.metrics.cross_rack_traffic) {
      ASSERT_LE(*mt.metrics.cross_rack_traffic, *ha.metrics.cross_rack_traffic);
    }
    // Tag spread never suffers from the optimiser.
    if (!rc.settings.rack_aware.tags.empty()) {
      ASSERT_LE(*mt.metrics.tag_spread_shortfall, *ha.metrics.tag_spread_shortfall);
    }
    if (i % 10 == 0) {
      const auto again = builtin_plugins().run("min_traffic", rc.cluster, rc.settings);
      ASSERT_EQ(again.assignment, mt.assignment) << "not deterministic";
    }
  }
}

TEST(MinTrafficRandom, HighAvailabilityAndStickyStayValidWithRackAwareSettings) {
  const std::uint64_t base = ::testing::UnitTest::GetInstance()->random_seed();
  for (std::uint64_t i = 0; i < 300; ++i) {
    const std::uint64_t seed = base * 7919u + i;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RandomCase rc = random_case(seed);
    const auto ha = builtin_plugins().run("high_availability", rc.cluster, rc.settings);
    ASSERT_TRUE(ha.errors.empty()) << ha.errors.front().message;
    ASSERT_EQ(ha.metrics.restoring_actives, 0u);
    const auto sticky = builtin_plugins().run("sticky", rc.cluster, rc.settings);
    ASSERT_TRUE(sticky.errors.empty()) << sticky.errors.front().message;
    if (rc.cluster.client_count() > rc.settings.num_standby_replicas) {
      ASSERT_EQ(ha.metrics.standby_shortfall, 0u);
      ASSERT_EQ(sticky.metrics.standby_shortfall, 0u);
    }
  }
}

}  // namespace
}  // namespace assignor
