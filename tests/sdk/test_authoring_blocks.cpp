// The building blocks a third-party strategy asked for (issue 23): diverse standby placement,
// the standby-spread and standby-cost options of plan_warmups, warmup_slots, per-sub-topology
// counts, the stateless fill by total load and the enum getter. Expectations are worked out by
// hand from each header's contract.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assignor/balance.hpp"
#include "assignor/errors.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/settings.hpp"
#include "assignor/standby_spread.hpp"
#include "assignor/subtopology_counts.hpp"
#include "assignor/warmups.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;
using ::testing::HasSubstr;

ClientIndex idx(const Cluster& c, const std::string& id) { return *c.find_client(id); }

// ---- StandbyDomains, place_standbys_diverse ------------------------------------------------------

TEST(StandbyDomains, RacksOrTheCombinationOfTagValues) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .client("a")
                        .rack("r1")
                        .tag("zone", "z1")
                        .tag("dc", "x")
                        .client("b")
                        .rack("r1")
                        .tag("zone", "z1")
                        .tag("dc", "y")
                        .client("c")
                        .rack("r2")
                        .tag("zone", "z1")
                        .tag("dc", "x")
                        .client("d")  // no rack, no tags
                        .build();
  const StandbyDomains racks(c, {});
  EXPECT_TRUE(racks.colocated(idx(c, "a"), idx(c, "b")));
  EXPECT_FALSE(racks.colocated(idx(c, "a"), idx(c, "c")));
  EXPECT_FALSE(racks.colocated(idx(c, "d"), idx(c, "d"))) << "no rack: never colocated";
  EXPECT_EQ(racks.domain_count(), 2u);
  const std::vector<std::string> zone{"zone"};
  const StandbyDomains by_zone(c, zone);
  EXPECT_TRUE(by_zone.colocated(idx(c, "a"), idx(c, "c")));
  const std::vector<std::string> zone_dc{"zone", "dc"};
  const StandbyDomains by_both(c, zone_dc);
  EXPECT_TRUE(by_both.colocated(idx(c, "a"), idx(c, "c")));
  EXPECT_FALSE(by_both.colocated(idx(c, "a"), idx(c, "b")));
  EXPECT_EQ(by_both.domain(idx(c, "d")), StandbyDomains::kNone);
}

// Rack r1 holds the active and the two least-loaded clients; the standby goes to r2 although r2's
// client is busier. With two standbys on three racks, the second goes to the third rack.
TEST(PlaceStandbysDiverse, InAnotherRackThanTheActiveBeforeLoad) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .stateless("1_0")
                        .stateless("1_1")
                        .client("a")
                        .rack("r1")
                        .client("b")
                        .rack("r1")
                        .client("c")
                        .rack("r2")
                        .client("d")
                        .rack("r3")
                        .build();
  AssignmentDraft d(c, 1);
  d.set_active(0, idx(c, "a"));
  d.set_active(1, idx(c, "c"));  // c and d busier than b
  d.set_active(2, idx(c, "d"));
  EXPECT_EQ(place_standbys_diverse(c, StandbyDomains(c, {}), d), 0u);
  EXPECT_EQ(d.role(0, idx(c, "c")), Role::standby) << "r2 before the idle b in the active's rack";

  AssignmentDraft two(c, 2);
  two.set_active(0, idx(c, "a"));
  two.set_active(1, idx(c, "c"));
  EXPECT_EQ(place_standbys_diverse(c, StandbyDomains(c, {}), two), 0u);
  EXPECT_EQ(two.role(0, idx(c, "d")), Role::standby) << "the idle client of a rack not yet used";
  EXPECT_EQ(two.role(0, idx(c, "c")), Role::standby) << "then r2, before b beside the active";
  EXPECT_EQ(colocated_standbys(StandbyDomains(c, {}), two), 0u);
}

// Only the active's rack has free clients: the standby goes there (tier 3), and the count of
// colocated standbys says so; too few clients is shortfall.
TEST(PlaceStandbysDiverse, FallsBackToTheActivesRackAndCountsShortfall) {
  const Cluster c = ClusterBuilder().stateful("0_0", 10).client("a").rack("r1").client("b").rack("r1").build();
  AssignmentDraft d(c, 2);  // 2 standbys on 2 clients: one cannot exist
  d.set_active(0, idx(c, "a"));
  const StandbyDomains domains(c, {});
  EXPECT_EQ(place_standbys_diverse(c, domains, d), 1u);
  EXPECT_EQ(d.role(0, idx(c, "b")), Role::standby);
  EXPECT_EQ(colocated_standbys(domains, d), 1u);
}

TEST(PlaceStandbysDiverse, APreviousHolderFirstWithinTheBestTier) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .stateless("1_0")
                        .client("a")
                        .rack("r1")
                        .client("b")
                        .rack("r2")
                        .previous_standby({"0_0"})
                        .client("c")
                        .rack("r2")
                        .client("z")
                        .rack("r1")
                        .previous_standby({"0_0"})  // beside the active: not chosen
                        .build();
  AssignmentDraft d(c, 1);
  d.set_active(0, idx(c, "a"));
  d.set_active(1, idx(c, "b"));  // b busier than c
  DiverseStandbyOptions sticky;
  sticky.prefer_previous_holders = true;
  place_standbys_diverse(c, StandbyDomains(c, {}), d, sticky);
  EXPECT_EQ(d.role(0, idx(c, "b")), Role::standby);
  AssignmentDraft plain(c, 1);
  plain.set_active(0, idx(c, "a"));
  plain.set_active(1, idx(c, "b"));
  place_standbys_diverse(c, StandbyDomains(c, {}), plain);
  EXPECT_EQ(plain.role(0, idx(c, "c")), Role::standby);
}

// ---- plan_warmups with standby domains and a standby cost ----------------------------------------

// The target 'new' (r1) must restore; 'a' (r2) and 'b' (r3) are caught up and equally loaded. The
// standby sits on 'b2' in r3. Without domains, 'a' < 'b' by index would run the active anyway, so
// make 'b' the least loaded: without domains it runs the active beside the standby's rack; with
// them, 'a' does.
TEST(WarmupsWithDomains, TheActiveThatRunsStaysOutOfItsStandbysRack) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .stateless("1_0")
                        .client("a")
                        .rack("r2")
                        .offsets({{"0_0", 49990}})
                        .client("b")
                        .rack("r3")
                        .offsets({{"0_0", 49990}})
                        .client("b2")
                        .rack("r3")
                        .client("new")
                        .rack("r1")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  const StandbyDomains domains(c, {});
  auto runner = [&](const StandbyDomains* with) {
    AssignmentDraft d(c, 1);
    d.set_active(0, idx(c, "new"));
    d.add_standby(0, idx(c, "b2"));
    d.set_active(1, idx(c, "a"));  // a busier than b
    WarmupPlanOptions options;
    options.move_standbys = false;
    options.standby_domains = with;
    plan_warmups(c, s, lags, d, options);
    EXPECT_EQ(d.role(0, idx(c, "new")), Role::warmup);
    return c.clients[d.active(0)].id;
  };
  EXPECT_EQ(runner(nullptr), "b");
  EXPECT_EQ(runner(&domains), "a");
}

// A standby on a cold client moves to a caught-up one: outside the running active's rack first.
// A caught-up standby beside the running active moves to a caught-up client of another rack
// without a warmup and without asking for a probing rebalance.
TEST(WarmupsWithDomains, StandbysMoveOutOfTheRunningActivesRack) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("run")
                        .rack("r1")
                        .running_actives({"0_0"})
                        .client("near")
                        .rack("r1")
                        .offsets({{"0_0", 49990}})
                        .client("far")
                        .rack("r2")
                        .offsets({{"0_0", 49990}})
                        .client("cold")
                        .rack("r3")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  const StandbyDomains domains(c, {});
  {
    AssignmentDraft d(c, 1);
    d.set_active(0, idx(c, "run"));
    d.add_standby(0, idx(c, "cold"));
    WarmupPlanOptions options;
    options.standby_domains = &domains;
    const WarmupPlan plan = plan_warmups(c, s, lags, d, options);
    EXPECT_EQ(d.role(0, idx(c, "far")), Role::standby) << "near is less loaded-equal and lower, but in r1";
    EXPECT_EQ(plan.standby_movements, 1u);
  }
  {
    AssignmentDraft d(c, 1);
    d.set_active(0, idx(c, "run"));
    d.add_standby(0, idx(c, "near"));  // caught up, beside the active
    WarmupPlanOptions options;
    options.standby_domains = &domains;
    const WarmupPlan plan = plan_warmups(c, s, lags, d, options);
    EXPECT_EQ(d.role(0, idx(c, "far")), Role::standby);
    EXPECT_EQ(plan.standbys_respread, 1u);
    EXPECT_EQ(plan.warmups_placed, 0u);
    EXPECT_FALSE(plan.probing_rebalance_needed());
    AssignmentDraft kept(c, 1);
    kept.set_active(0, idx(c, "run"));
    kept.add_standby(0, idx(c, "near"));
    EXPECT_FALSE(plan_warmups(c, s, lags, kept).probing_rebalance_needed());
    EXPECT_EQ(kept.role(0, idx(c, "near")), Role::standby) << "without domains nothing moves";
  }
}

// standby_cost prices standby moves on their own; candidate_cost alone prices both.
TEST(WarmupsWithDomains, StandbyCostPricesStandbyMovesApart) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .client("run")
                        .running_actives({"0_0"})
                        .client("x")
                        .offsets({{"0_0", 49990}})
                        .client("y")
                        .offsets({{"0_0", 49990}})
                        .client("cold")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  auto moved_to = [&](const WarmupPlanOptions& options) {
    AssignmentDraft d(c, 1);
    d.set_active(0, idx(c, "run"));
    d.add_standby(0, idx(c, "cold"));
    plan_warmups(c, s, lags, d, options);
    for (ClientIndex k : d.standby_slots(0))
      if (k != kNoClient) return c.clients[k].id;
    return std::string();
  };
  EXPECT_EQ(moved_to({}), "x");
  WarmupPlanOptions active_cost;
  active_cost.candidate_cost = [&](TaskIndex, ClientIndex k) { return k == idx(c, "y") ? 0 : 1; };
  EXPECT_EQ(moved_to(active_cost), "y");
  WarmupPlanOptions both = active_cost;
  both.standby_cost = [&](TaskIndex, ClientIndex k) { return k == idx(c, "x") ? 0 : 1; };
  EXPECT_EQ(moved_to(both), "x");
}

// ---- warmup_slots ----------------------------------------------------------------------------------

TEST(AssignmentDraft, WarmupSlotsNameTheWarmupHolders) {
  const Cluster c =
      ClusterBuilder().stateful("0_0", 10).stateful("0_1", 10).client("a").client("b").client("w").build();
  AssignmentDraft d(c, 1);
  d.set_active(0, idx(c, "a"));
  d.add_warmup(0, idx(c, "w"));
  std::vector<ClientIndex> holders;
  for (ClientIndex k : d.warmup_slots(0))
    if (k != kNoClient) holders.push_back(k);
  EXPECT_EQ(holders, std::vector<ClientIndex>{idx(c, "w")});
  for (ClientIndex k : d.warmup_slots(1)) EXPECT_EQ(k, kNoClient);
}

// ---- SubtopologyCounts ----------------------------------------------------------------------------

TEST(SubtopologyCounts, CountsFollowTheDraftAndUpdates) {
  const Cluster c = ClusterBuilder()
                        .stateless("0_0")
                        .stateless("0_1")
                        .stateless("0_2")
                        .stateless("7_0")
                        .stateless("7_1")
                        .client("a")
                        .client("b")
                        .build();
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "a"));
  d.set_active(1, idx(c, "a"));
  d.set_active(3, idx(c, "b"));
  SubtopologyCounts counts(c, d);
  EXPECT_EQ(counts.subtopology_count(), 2u);
  EXPECT_EQ(counts.rank(2), 0u);
  EXPECT_EQ(counts.rank(4), 1u);
  EXPECT_EQ(counts.of(2, idx(c, "a")), 2u);
  EXPECT_EQ(counts.of(2, idx(c, "b")), 0u);
  EXPECT_EQ(counts.of(4, idx(c, "b")), 1u);
  counts.add(4, idx(c, "b"));
  counts.add(0, idx(c, "a"), -1);
  EXPECT_EQ(counts.at(1, idx(c, "b")), 2u);
  EXPECT_EQ(counts.at(0, idx(c, "a")), 1u);
  counts.add(0, idx(c, "b"), -1);
  EXPECT_EQ(counts.at(0, idx(c, "b")), 0u) << "never below zero";
}

// 3,000 single-task sub-topologies over 2,000 clients: 6 million cells would be far more than the
// input, so the counts keep only the non-zero entries (sparse), and answer the same.
TEST(SubtopologyCounts, ManySubtopologiesTimesManyClientsStillAnswer) {
  ClusterBuilder b;
  for (int s = 0; s < 3000; ++s) b.stateless(std::to_string(s) + "_0");
  for (int k = 0; k < 2000; ++k) b.client("c" + std::to_string(1000 + k));
  const Cluster c = b.build();
  SubtopologyCounts counts(c);
  EXPECT_EQ(counts.subtopology_count(), 3000u);
  counts.add(2999, 1999);
  counts.add(2999, 1999);
  EXPECT_EQ(counts.of(2999, 1999), 2u);
  EXPECT_EQ(counts.of(2998, 1999), 0u);
}

// ---- fill_by_total_load ---------------------------------------------------------------------------

// 'a' runs two stateful actives and holds a standby (3 tasks), 'b' and 'c' run one stateful active
// each, 'd' has nothing. The four stateless tasks of sub-topology 1, worked out by hand below.
TEST(FillByTotalLoad, LeastTotalLoadThenFewestOfTheSubtopologyThenIndex) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .stateful("0_1", 10)
                        .stateful("0_2", 10)
                        .stateful("0_3", 10)
                        .stateless("1_0")
                        .stateless("1_1")
                        .stateless("1_2")
                        .stateless("1_3")
                        .client("a")
                        .client("b")
                        .client("c")
                        .client("d")
                        .build();
  AssignmentDraft d(c, 1);
  d.set_active(0, idx(c, "a"));
  d.set_active(1, idx(c, "b"));
  d.set_active(2, idx(c, "c"));
  d.set_active(3, idx(c, "a"));
  d.add_standby(1, idx(c, "a"));  // a: 3 tasks, b: 1, c: 1, d: 0
  fill_stateless_by_total_load(c, d);
  // 1_0 -> d (0 tasks). Then b, c, d hold 1 each and d already holds one of sub-topology 1:
  // 1_1 -> b (fewest of it, then index). Then c and d hold 1, c none of sub-topology 1: 1_2 -> c.
  // Then d alone holds 1 task: 1_3 -> d.
  EXPECT_EQ(d.active(4), idx(c, "d"));
  EXPECT_EQ(d.active(5), idx(c, "b"));
  EXPECT_EQ(d.active(6), idx(c, "c"));
  EXPECT_EQ(d.active(7), idx(c, "d"));
}

// The sub-topology breaks ties of load: 'a' runs the stateful 2_0, 'b' the stateful 3_0 (equal
// loads); the stateless 2_1 goes to 'b', which holds none of sub-topology 2 (by load and index
// alone it would go to 'a'); then 2_2 to 'a', now the less loaded.
TEST(FillByTotalLoad, EqualLoadsGoToTheClientWithFewestOfTheSubtopology) {
  const Cluster c = ClusterBuilder()
                        .stateful("2_0", 10)
                        .stateless("2_1")
                        .stateless("2_2")
                        .stateful("3_0", 10)
                        .client("a")
                        .client("b")
                        .build();
  AssignmentDraft d(c, 0);
  d.set_active(0, idx(c, "a"));
  d.set_active(3, idx(c, "b"));
  fill_stateless_by_total_load(c, d);
  EXPECT_EQ(d.active(1), idx(c, "b"));
  EXPECT_EQ(d.active(2), idx(c, "a"));
}

// ---- StrategyParams::get_enum ---------------------------------------------------------------------

enum class Balance { count, weight };

StrategyParams params(std::map<std::string, std::string> values) { return StrategyParams(std::move(values)); }

TEST(StrategyParams, EnumGetterMapsWordsAndNamesTheChoices) {
  const std::vector<std::pair<std::string, Balance>> choices{{"count", Balance::count}, {"weight", Balance::weight}};
  EXPECT_EQ(StrategyParams().get_enum("balance", choices, Balance::count), Balance::count);
  EXPECT_EQ(params({{"balance", "weight"}}).get_enum("balance", choices, Balance::count), Balance::weight);
  try {
    (void)params({{"balance", "wieght"}}).get_enum("balance", choices, Balance::count);
    ADD_FAILURE() << "an unknown word was accepted";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("strategy parameter 'balance': expected count or weight, got 'wieght'"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'weight'?"));
  }
  EXPECT_EQ(params({{"mode", "c"}}).get_choice("mode", {"a", "b", "c"}, 0), 2u);
}

}  // namespace
}  // namespace assignor

namespace assignor {
namespace {

// ---- the skew metric's detail ----------------------------------------------------------------------

// Sub-topology 0: 3 actives on 'a', none on 'b' (skew 3); sub-topology 5: one each (skew 0);
// sub-topology 9: 2 on 'b', 0 on 'a' (skew 2). The detail lists 0 and 9, by id.
TEST(MetricsDetail, SubtopologySkewsNameTheSkewedSubtopologies) {
  const Cluster c = ClusterBuilder()
                        .stateless("0_0")
                        .stateless("0_1")
                        .stateless("0_2")
                        .stateless("5_0")
                        .stateless("5_1")
                        .stateless("9_0")
                        .stateless("9_1")
                        .client("a")
                        .client("b")
                        .build();
  Assignment a;
  const ClientIndex ca = idx(c, "a"), cb = idx(c, "b");
  a.actives = {{0, ca}, {1, ca}, {2, ca}, {3, ca}, {4, cb}, {5, cb}, {6, cb}};
  const AssignmentSettings s;
  const LagModel lags(c, s);
  const Metrics m = compute_metrics(c, s, lags, a);
  EXPECT_EQ(m.max_subtopology_skew, 3u);
  const std::vector<std::pair<std::int32_t, std::uint64_t>> expected{{0, 3}, {9, 2}};
  EXPECT_EQ(m.subtopology_skews, expected);
}

}  // namespace
}  // namespace assignor
