// min_traffic (KIP-925) and the rack-awareness settings of high_availability(_plus) and sticky, run as the
// host runs them: scenarios in the spirit of Kafka's RackAwareTaskAssignorTest and
// ClientTagAwareStandbyTaskAssignorTest, generated rack scenarios, and random groups.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "assignor/scenario.hpp"
#include "cluster_builder.hpp"
#include "random_group.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

std::vector<std::uint32_t> per_client(const Cluster& c, const std::vector<Placement>& list) {
  std::vector<std::uint32_t> n(c.client_count(), 0);
  for (const auto& p : list) ++n[p.client];
  return n;
}

bool same_counts(const Cluster& c, const Assignment& a, const Assignment& b) {
  return per_client(c, a.actives) == per_client(c, b.actives) &&
         per_client(c, a.standbys) == per_client(c, b.standbys) &&
         per_client(c, a.warmups) == per_client(c, b.warmups) && a.probing_rebalance == b.probing_rebalance;
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

testing::RunResult run(const std::string& strategy, const Cluster& c, const AssignmentSettings& s) {
  // min_traffic packs as high_availability_plus does (keep_history, its default), then optimises.
  return run_valid(strategy, c, s);
}

ScenarioSpec rack_spec(ScenarioKind kind, std::uint32_t clients, std::uint32_t subtopologies, std::uint32_t partitions,
                       std::uint64_t seed) {
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

// At least 45% fewer partitions read across racks than high_availability_plus (docs/strategies.md:
// fresh groups none at all, restarts and scale-outs about 80-90% fewer, scale-ins about half: the
// tasks of a client that left can only go where a caught-up copy is, and the sticky target keeps
// the others where they ran, so the optimiser has fewer caught-up choices than on a re-dealt group).
TEST(MinTraffic, CutsHighAvailabilityPlusTrafficByAtLeast45PercentOnGeneratedRackScenarios) {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  for (ScenarioKind kind :
       {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in, ScenarioKind::rolling_restart}) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(std::string(to_string(kind)) + " seed " + std::to_string(seed));
      const Cluster c = generate_cluster(rack_spec(kind, 12, 6, 40, seed));
      const auto ha = run("high_availability_plus", c, s);
      const auto mt = run("min_traffic", c, s);
      ASSERT_TRUE(ha.metrics.cross_rack_traffic.has_value());
      EXPECT_LE(*mt.metrics.cross_rack_traffic * 100, *ha.metrics.cross_rack_traffic * 55)
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
  for (auto& client : c.clients) client.tags = {{"zone", client.id.substr(0, 2)}, {"cluster", client.id.substr(3, 2)}};
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
  // (sticky is Kafka's legacy assignor, which ignores client tags.)
  for (const char* strategy : {"high_availability", "min_traffic"}) {
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
  // Last time 0_0 ran on z1-k1 with standbys on z2-k2 and z3-k3: sticky (Kafka's legacy assignor,
  // blind to tags) keeps them because they held them, which keeps the spread.
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

// Random groups with racks on clients and partitions, sometimes tags, and random rack-aware settings
// (tests/support/random_group.hpp).
testing::GroupShape rack_shape() {
  testing::GroupShape shape;
  shape.racks = true;
  shape.max_partitions = 8;
  return shape;
}

RC_GTEST_PROP(MinTrafficRandom, ValidNeverRestoringAndKeepsHighAvailabilityCounts, ()) {
  const testing::Group g = *testing::gen_group(rack_shape());
  const Cluster& c = g.cluster;
  const auto mt = builtin_plugins().run("min_traffic", c, g.settings);
  testing::require_valid(c, mt);
  testing::require_run(mt.metrics.restoring_actives == 0u, c, mt, "a restoring active");
  if (c.client_count() > g.settings.num_standby_replicas)
    testing::require_run(mt.metrics.standby_shortfall == 0u, c, mt, "a standby that fits is missing");
  if (!mt.assignment.warmups.empty())
    testing::require_run(mt.assignment.probing_rebalance, c, mt, "warmups without a probing rebalance");
  // high_availability_plus with the same settings but no optimiser: same counts, no less traffic.
  AssignmentSettings plain = g.settings;
  plain.rack_aware.strategy = RackAwareStrategy::none;
  const auto ha = builtin_plugins().run("high_availability_plus", c, plain);
  testing::require_valid(c, ha);
  testing::require_run(same_counts(c, ha.assignment, mt.assignment), c, mt,
                       "per-client counts differ from the packing's");
  if (ha.metrics.cross_rack_traffic)
    testing::require_run(*mt.metrics.cross_rack_traffic <= *ha.metrics.cross_rack_traffic, c, mt,
                         "more cross-rack traffic");
  // Tag spread never suffers from the optimiser.
  if (!g.settings.rack_aware.tags.empty())
    testing::require_run(*mt.metrics.tag_spread_shortfall <= *ha.metrics.tag_spread_shortfall, c, mt,
                         "worse tag spread");
  testing::require(builtin_plugins().run("min_traffic", c, g.settings).assignment == mt.assignment,
                   "not deterministic");
}

RC_GTEST_PROP(MinTrafficRandom, HighAvailabilityAndStickyStayValidWithRackAwareSettings, ()) {
  const testing::Group g = *testing::gen_group(rack_shape());
  const auto ha = builtin_plugins().run("high_availability", g.cluster, g.settings);
  testing::require_valid(g.cluster, ha);
  testing::require_run(ha.metrics.restoring_actives == 0u, g.cluster, ha, "a restoring active");
  const auto sticky = builtin_plugins().run("sticky", g.cluster, g.settings);
  testing::require_valid(g.cluster, sticky);
  if (g.cluster.client_count() > g.settings.num_standby_replicas)
    testing::require(ha.metrics.standby_shortfall == 0u && sticky.metrics.standby_shortfall == 0u,
                     "a standby that fits is missing");
}

}  // namespace
}  // namespace assignor
