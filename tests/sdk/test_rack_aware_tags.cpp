// Tag-aware standby placement (tag_standbys.hpp), in the spirit of Kafka's
// ClientTagAwareStandbyTaskAssignorTest, and the tag_spread_shortfall metric.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "assignor/balance.hpp"
#include "assignor/metrics.hpp"
#include "assignor/tag_standbys.hpp"
#include "assignor/validation.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;
using ::testing::Each;

const std::vector<std::string> kZoneCluster = {"zone", "cluster"};

// `zones` x `clusters` clients, one per combination ("z1-k1", ...), with `tasks` logged tasks.
Cluster grid(int zones, int clusters, int tasks, std::uint32_t threads = 1) {
  ClusterBuilder b;
  for (int t = 0; t < tasks; ++t) b.stateful("0_" + std::to_string(t), 1000);
  for (int z = 1; z <= zones; ++z)
    for (int k = 1; k <= clusters; ++k) b.client("z" + std::to_string(z) + "-k" + std::to_string(k), threads);
  Cluster c = b.build();
  for (auto& client : c.clients) client.tags = {{"zone", client.id.substr(0, 2)}, {"cluster", client.id.substr(3, 2)}};
  return c;
}

// Actives round-robin over the clients, as a strategy's first step would leave them.
AssignmentDraft with_actives(const Cluster& c, std::uint32_t standbys) {
  AssignmentDraft d(c, standbys);
  for (TaskIndex t = 0; t < c.task_count(); ++t) d.set_active(t, static_cast<ClientIndex>(t % c.client_count()));
  return d;
}

std::vector<ClientIndex> copies(const AssignmentDraft& d, TaskIndex t) {
  std::vector<ClientIndex> out{d.active(t)};
  for (ClientIndex c : d.standby_slots(t))
    if (c != kNoClient) out.push_back(c);
  return out;
}

std::set<std::string> values(const Cluster& c, const std::vector<ClientIndex>& holders, const std::string& key) {
  std::set<std::string> out;
  for (ClientIndex x : holders) out.insert(c.clients[x].tags.at(key));
  return out;
}

// Per task (in task order), how many distinct values of tag `key` its active and standbys have.
std::vector<std::size_t> distinct_values_per_task(const Cluster& c, const AssignmentDraft& d, const std::string& key) {
  std::vector<std::size_t> out;
  for (TaskIndex t = 0; t < c.task_count(); ++t) out.push_back(values(c, copies(d, t), key).size());
  return out;
}

TEST(TagAwareStandbys, ThreeZonesByThreeClustersTwoStandbysAllDistinct) {
  const Cluster c = grid(3, 3, 27);
  AssignmentDraft d = with_actives(c, 2);
  EXPECT_EQ(place_standbys_tag_aware(c, kZoneCluster, d), 0u);
  for (TaskIndex t = 0; t < c.task_count(); ++t) ASSERT_EQ(copies(d, t).size(), 3u) << "task " << t;
  EXPECT_THAT(distinct_values_per_task(c, d, "zone"), Each(3u));
  EXPECT_THAT(distinct_values_per_task(c, d, "cluster"), Each(3u));
  // Load stays close to even (27 actives + 54 standbys, 9 per client): once a task's first standby
  // is chosen the second is forced (the one client completing distinct zones and clusters), so
  // within two, not exactly 9.
  std::uint32_t lo = 100, hi = 0;
  for (ClientIndex x = 0; x < c.client_count(); ++x) {
    lo = std::min(lo, d.total_count(x));
    hi = std::max(hi, d.total_count(x));
  }
  EXPECT_LE(hi - lo, 2u);
  AssignmentSettings s;
  s.num_standby_replicas = 2;
  s.rack_aware.tags = kZoneCluster;
  EXPECT_TRUE(validate(c, s, d.finish(false)).empty());
  EXPECT_EQ(tag_spread_shortfall(c, kZoneCluster, d.finish(false)), 0u);
}

TEST(TagAwareStandbys, PartialAwarenessWhenAKeyHasFewerValuesThanCopies) {
  // 3 zones x 2 clusters with 2 standbys: zones all differ; clusters can only take both values.
  const Cluster c = grid(3, 2, 12);
  AssignmentDraft d = with_actives(c, 2);
  EXPECT_EQ(place_standbys_tag_aware(c, kZoneCluster, d), 0u);
  EXPECT_THAT(distinct_values_per_task(c, d, "zone"), Each(3u));
  EXPECT_THAT(distinct_values_per_task(c, d, "cluster"), Each(2u));
  EXPECT_EQ(tag_spread_shortfall(c, kZoneCluster, d.finish(false)), 0u);
}

TEST(TagAwareStandbys, FallsBackToLeastLoadedWhenTagsCannotDiffer) {
  // Every client in one zone: placement is plain least-loaded, like place_standbys_least_loaded.
  ClusterBuilder b;
  for (int t = 0; t < 6; ++t) b.stateful("0_" + std::to_string(t), 1000);
  Cluster c = b.client("a").client("b").client("c").build();
  for (auto& client : c.clients) client.tags = {{"zone", "z1"}};
  AssignmentDraft tagged = with_actives(c, 1);
  AssignmentDraft plain = with_actives(c, 1);
  const std::vector<std::string> zone = {"zone"};
  place_standbys_tag_aware(c, zone, tagged);
  place_standbys_least_loaded(c, plain);
  EXPECT_EQ(tagged.finish(false), plain.finish(false));
}

TEST(TagAwareStandbys, TooFewClientsIsAShortfallNotAnError) {
  const Cluster c = grid(2, 1, 3);
  AssignmentDraft d = with_actives(c, 2);
  EXPECT_EQ(place_standbys_tag_aware(c, kZoneCluster, d), 3u);  // one standby each, not two
  for (TaskIndex t = 0; t < c.task_count(); ++t) EXPECT_EQ(d.standby_count(t), 1u);
}

TEST(TagAwareStandbys, TasksWithoutALoggedStoreGetNoStandbys) {
  Cluster c = ClusterBuilder().nonlogged("0_0").stateless("1_0").client("a").client("b").build();
  c.clients[0].tags = {{"zone", "z1"}};
  c.clients[1].tags = {{"zone", "z2"}};
  AssignmentDraft d(c, 1);
  d.set_active(0, 0);
  d.set_active(1, 0);
  EXPECT_EQ(place_standbys_tag_aware(c, std::vector<std::string>{"zone"}, d), 0u);
  EXPECT_EQ(d.standby_count(0), 0u);
  EXPECT_EQ(d.standby_count(1), 0u);
}

TEST(TagAwareStandbys, PreviousHolderWinsAmongTheBestSpread) {
  // 0_0 runs in z1; z2 has b1 and b2, b2 held the standby before. Both are equally spread and
  // equally loaded: b1 wins on index, b2 with prefer_previous_holders.
  Cluster c =
      ClusterBuilder().stateful("0_0", 1000).client("a").client("b1").client("b2").previous_standby({"0_0"}).build();
  c.clients[0].tags = {{"zone", "z1"}};
  c.clients[1].tags = {{"zone", "z2"}};
  c.clients[2].tags = {{"zone", "z2"}};
  const std::vector<std::string> zone = {"zone"};
  for (bool prefer : {false, true}) {
    AssignmentDraft d(c, 1);
    d.set_active(0, 0);
    place_standbys_tag_aware(c, zone, d, {.prefer_previous_holders = prefer});
    EXPECT_EQ(d.role(0, prefer ? 2 : 1), Role::standby);
  }
}

TEST(TagAwareStandbys, BalancingMovesStandbysOnlyWithinEqualTags) {
  // Pile every standby on one client of each zone, then balance: each task keeps its zone spread.
  const Cluster c = grid(2, 3, 12);  // zones z1, z2; three clients each
  AssignmentDraft d(c, 1);
  for (TaskIndex t = 0; t < c.task_count(); ++t) {
    d.set_active(t, static_cast<ClientIndex>(t % 3));  // z1 clients
    d.add_standby(t, 3);                               // z2-k1 holds them all
  }
  const std::vector<std::string> zone = {"zone"};
  EXPECT_GT(balance_standbys_within_tags(c, zone, d), 0u);
  for (TaskIndex t = 0; t < c.task_count(); ++t) {
    const ClientIndex holder = d.standby_slots(t)[0];
    EXPECT_EQ(c.clients[holder].tags.at("zone"), "z2");
  }
  for (ClientIndex x = 3; x < 6; ++x) EXPECT_EQ(d.standby_count_of(x), 4u);
}

TEST(TagAwareStandbys, ShortfallMetricCountsMissingDistinctValuesPerKey) {
  const Cluster c = grid(3, 3, 2);
  Assignment a;
  // 0_0: z1-k1 active, z1-k2 and z2-k2 standbys: zones {z1, z2} (3 possible: 1 missing), clusters
  // {k1, k2} (1 missing). 0_1: z1-k1 active, z2-k2 and z3-k3: nothing missing.
  auto id = [&](const char* name) { return *c.find_client(name); };
  a.actives = {{0, id("z1-k1")}, {1, id("z1-k1")}};
  a.standbys = {{0, id("z1-k2")}, {0, id("z2-k2")}, {1, id("z2-k2")}, {1, id("z3-k3")}};
  EXPECT_EQ(tag_spread_shortfall(c, kZoneCluster, a), 2u);
  AssignmentSettings s;
  s.num_standby_replicas = 2;
  const LagModel lags(c, s);
  EXPECT_FALSE(compute_metrics(c, s, lags, a).tag_spread_shortfall.has_value());
  s.rack_aware.tags = kZoneCluster;
  EXPECT_EQ(compute_metrics(c, s, lags, a).tag_spread_shortfall, 2u);
}

}  // namespace
}  // namespace assignor
