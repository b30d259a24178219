// The SDK 0.6 blocks (issue 33): failure domains over racks and tags together, their use by
// place_standbys_diverse, plan_warmups and the colocated_standbys metric; the lag-ranked standby
// choice; numeric lag and has-state queries; layered quotas and the lag-aware sticky placer; the
// stateless fill against the target; racks and tags independent in the generator. Every
// expectation is worked out by hand from the headers' contracts (the reasoning is beside it).
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "assignor/balance.hpp"
#include "assignor/lags.hpp"
#include "assignor/layered_quotas.hpp"
#include "assignor/metrics.hpp"
#include "assignor/model.hpp"
#include "assignor/scenario.hpp"
#include "assignor/settings.hpp"
#include "assignor/standby_spread.hpp"
#include "assignor/warmups.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

ClientIndex idx(const Cluster& c, const std::string& id) { return *c.find_client(id); }
TaskIndex task(const Cluster& c, const std::string& id) { return *c.find_task(*parse_task_id(id)); }

// a: r1 z1, b: r1 z2, c: r2 z1, d: r2 z2, e: no rack, z3, f: r3 z3 (dc x for the two-key cases).
Cluster racks_and_zones() {
  return ClusterBuilder()
      .stateful("0_0", 50000)
      .stateless("1_0")
      .stateless("1_1")
      .stateless("1_2")
      .client("a")
      .rack("r1")
      .tag("zone", "z1")
      .tag("dc", "x")
      .client("b")
      .rack("r1")
      .tag("zone", "z2")
      .tag("dc", "x")
      .client("c")
      .rack("r2")
      .tag("zone", "z1")
      .tag("dc", "y")
      .client("d")
      .rack("r2")
      .tag("zone", "z2")
      .tag("dc", "y")
      .client("e")
      .tag("zone", "z3")
      .client("f")
      .rack("r3")
      .tag("zone", "z3")
      .tag("dc", "x")
      .build();
}

// ---- StandbyDomains over racks and tags ------------------------------------------------------------

TEST(Domains, RackOrAnyTagValueSharesADomain) {
  const Cluster c = racks_and_zones();
  const StandbyDomains both(c, DomainKeys{.rack = true, .tags = {"zone"}});
  EXPECT_EQ(both.dimensions(), 2u);
  EXPECT_EQ(both.domain_count(0), 3u);  // r1, r2, r3
  EXPECT_EQ(both.domain_count(1), 3u);  // z1, z2, z3
  EXPECT_TRUE(both.colocated(idx(c, "a"), idx(c, "b"))) << "same rack";
  EXPECT_TRUE(both.colocated(idx(c, "a"), idx(c, "c"))) << "same zone";
  EXPECT_FALSE(both.colocated(idx(c, "a"), idx(c, "d"))) << "another rack and another zone";
  EXPECT_FALSE(both.colocated(idx(c, "a"), idx(c, "e"))) << "no rack, another zone";
  EXPECT_TRUE(both.colocated(idx(c, "e"), idx(c, "f"))) << "no rack, but the same zone";
  EXPECT_EQ(both.domain(idx(c, "e"), 0), StandbyDomains::kNone);

  // Two keys: each on its own (any value shared), or their combination (all values shared).
  const StandbyDomains any(c, DomainKeys{.tags = {"zone", "dc"}});
  const StandbyDomains all(c, DomainKeys{.tags = {"zone", "dc"}, .tag_match = TagMatch::all_values});
  EXPECT_TRUE(any.colocated(idx(c, "a"), idx(c, "b"))) << "dc x shared";
  EXPECT_FALSE(all.colocated(idx(c, "a"), idx(c, "b"))) << "zones differ";
  EXPECT_FALSE(any.colocated(idx(c, "a"), idx(c, "d")));
  EXPECT_FALSE(all.colocated(idx(c, "e"), idx(c, "f"))) << "e has no dc: no combined domain";
  EXPECT_TRUE(any.colocated(idx(c, "e"), idx(c, "f"))) << "but the zone is shared";

  // SDK 0.5's constructor: the combination of the keys, or the rack without keys.
  const std::vector<std::string> zone_dc{"zone", "dc"};
  EXPECT_EQ(StandbyDomains(c, zone_dc).dimensions(), 1u);
  EXPECT_FALSE(StandbyDomains(c, zone_dc).colocated(idx(c, "a"), idx(c, "b")));
  EXPECT_TRUE(StandbyDomains(c, {}).colocated(idx(c, "a"), idx(c, "b")));

  // Nothing named: nobody is colocated.
  const StandbyDomains none(c, DomainKeys{});
  EXPECT_EQ(none.dimensions(), 0u);
  EXPECT_FALSE(none.colocated(idx(c, "a"), idx(c, "a")));
}

TEST(Domains, WhatTheMetricCounts) {
  const Cluster c = racks_and_zones();
  AssignmentSettings s;
  EXPECT_EQ(StandbyDomains::of_metrics(c, s).dimensions(), 1u) << "clients have racks";
  s.rack_aware.tags = {"zone", "dc"};
  const StandbyDomains m = StandbyDomains::of_metrics(c, s);
  EXPECT_EQ(m.dimensions(), 2u);
  EXPECT_TRUE(m.colocated(idx(c, "a"), idx(c, "b"))) << "the rack";
  EXPECT_FALSE(m.colocated(idx(c, "a"), idx(c, "c"))) << "zone shared, dc not: not all of the tag values";
  const Cluster plain = ClusterBuilder().stateful("0_0", 10).client("a").client("b").build();
  EXPECT_EQ(StandbyDomains::of_metrics(plain, AssignmentSettings{}).dimensions(), 0u);
}

// The active on a (r1 z1): b shares its rack, c its zone, d (r2 z2), e (no rack, z3) and f (r3 z3)
// neither. With both dimensions the standby skips the idle b and c and goes to d (d, e, f equally
// loaded, d first by index); with racks alone, to the idle c (r2).
TEST(Domains, DiverseStandbysAvoidTheActivesRackAndZone) {
  const Cluster c = racks_and_zones();
  auto draft_for = [&](std::uint32_t standbys) {
    AssignmentDraft d(c, standbys);
    d.set_active(task(c, "0_0"), idx(c, "a"));
    d.set_active(task(c, "1_0"), idx(c, "d"));  // d busier than the others
    d.set_active(task(c, "1_1"), idx(c, "e"));
    d.set_active(task(c, "1_2"), idx(c, "f"));
    return d;
  };
  AssignmentDraft both = draft_for(1);
  place_standbys_diverse(c, StandbyDomains(c, DomainKeys{.rack = true, .tags = {"zone"}}), both);
  EXPECT_EQ(both.role(task(c, "0_0"), idx(c, "d")), Role::standby);
  AssignmentDraft racks = draft_for(1);
  place_standbys_diverse(c, StandbyDomains(c, DomainKeys{.rack = true}), racks);
  EXPECT_EQ(racks.role(task(c, "0_0"), idx(c, "c")), Role::standby) << "c: r2 and idle; e has no rack but is busy";
}

// colocated_standbys counts standbys beside their active by rack or by all tag values (both given):
// 0_0's standby on b (rack r1 of the active a), 0_1's on c (zone z1 of a, tags = [zone]), 0_2's
// on d (neither). The SDK 0.5 metric counted by tags alone when tags were set: 1.
TEST(Domains, TheMetricAndTheAssignmentCheckCountRackAndTags) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 100)
                        .stateful("0_1", 100)
                        .stateful("0_2", 100)
                        .client("a")
                        .rack("r1")
                        .tag("zone", "z1")
                        .client("b")
                        .rack("r1")
                        .tag("zone", "z2")
                        .client("c")
                        .rack("r2")
                        .tag("zone", "z1")
                        .client("d")
                        .rack("r2")
                        .tag("zone", "z2")
                        .build();
  Assignment a;
  for (const char* t : {"0_0", "0_1", "0_2"}) a.actives.push_back({task(c, t), idx(c, "a")});
  a.standbys = {{task(c, "0_0"), idx(c, "b")}, {task(c, "0_1"), idx(c, "c")}, {task(c, "0_2"), idx(c, "d")}};
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  s.rack_aware.tags = {"zone"};
  const Metrics m = compute_metrics(c, s, LagModel(c, s), a);
  ASSERT_TRUE(m.colocated_standbys.has_value());
  EXPECT_EQ(*m.colocated_standbys, 2u);
  const StandbyDomains domains(c, DomainKeys{.rack = true, .tags = {"zone"}});
  const auto placements = colocated_standby_placements(domains, a);
  ASSERT_EQ(placements.size(), 2u);
  EXPECT_EQ(placements[0].task, task(c, "0_0"));
  EXPECT_EQ(placements[1].task, task(c, "0_1"));
  EXPECT_EQ(colocated_standbys(domains, a), 2u);
  EXPECT_EQ(colocated_standbys(StandbyDomains(c, DomainKeys{.rack = true}), a), 1u);
  s.rack_aware.tags.clear();
  EXPECT_EQ(compute_metrics(c, s, LagModel(c, s), a).colocated_standbys, std::optional<std::uint64_t>(1))
      << "racks only";
}

// plan_warmups with both dimensions: the target 'new' must restore; x, y and w are caught up. The
// standby is on s (r2 z3). x shares s's rack, y its zone, w neither and is the busiest: without
// domains x runs the active (least loaded, lowest index), with racks y, with racks and zones w.
TEST(Domains, PlanWarmupsKeepsTheRunningActiveOutOfItsStandbysRackAndZone) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .stateless("1_0")
                        .client("new")
                        .rack("r1")
                        .tag("zone", "z1")
                        .client("s")
                        .rack("r2")
                        .tag("zone", "z3")
                        .client("w")
                        .rack("r3")
                        .tag("zone", "z2")
                        .offsets({{"0_0", 49990}})
                        .client("x")
                        .rack("r2")
                        .tag("zone", "z1")
                        .offsets({{"0_0", 49990}})
                        .client("y")
                        .rack("r1")
                        .tag("zone", "z3")
                        .offsets({{"0_0", 49990}})
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  auto running = [&](const StandbyDomains* domains) {
    AssignmentDraft d(c, 1);
    d.set_active(task(c, "0_0"), idx(c, "new"));
    d.add_standby(task(c, "0_0"), idx(c, "s"));
    d.set_active(task(c, "1_0"), idx(c, "w"));  // w busier
    WarmupPlanOptions options;
    options.move_standbys = false;
    options.standby_domains = domains;
    plan_warmups(c, s, lags, d, options);
    EXPECT_EQ(d.role(task(c, "0_0"), idx(c, "new")), Role::warmup);
    return c.clients[d.active(task(c, "0_0"))].id;
  };
  EXPECT_EQ(running(nullptr), "x");
  const StandbyDomains racks(c, DomainKeys{.rack = true});
  EXPECT_EQ(running(&racks), "y") << "x shares s's rack r2; of w and y, y is less loaded";
  const StandbyDomains both(c, DomainKeys{.rack = true, .tags = {"zone"}});
  EXPECT_EQ(running(&both), "w") << "y shares s's zone z3";
}

// ---- lag-ranked standbys -------------------------------------------------------------------------

// The active on a (r1). b (r1) is caught up but beside the active; c (r2) has state 200,000
// behind; d (r2) and e (r3) have nothing and d is idle. Tier 1 (outside the active's rack): c, d,
// e. Ranked by lag, c (has state) comes first; by load alone, d.
TEST(LagRankedStandbys, TheMostCaughtUpClientOfTheTierFirst) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 500000)
                        .stateless("1_0")
                        .stateless("1_1")
                        .client("a")
                        .rack("r1")
                        .running_actives({"0_0"})
                        .client("b")
                        .rack("r1")
                        .offsets({{"0_0", 499000}})
                        .client("c")
                        .rack("r2")
                        .offsets({{"0_0", 300000}})
                        .client("d")
                        .rack("r2")
                        .client("e")
                        .rack("r3")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  auto standby_of = [&](const LagModel* with) {
    AssignmentDraft d(c, 1);
    d.set_active(task(c, "0_0"), idx(c, "a"));
    d.set_active(task(c, "1_0"), idx(c, "c"));  // c and e busier than d
    d.set_active(task(c, "1_1"), idx(c, "e"));
    place_standbys_diverse(c, StandbyDomains(c, DomainKeys{.rack = true}), d, {.lags = with});
    return c.clients[d.standby_slots(task(c, "0_0"))[0]].id;
  };
  EXPECT_EQ(standby_of(nullptr), "d");
  EXPECT_EQ(standby_of(&lags), "c");
}

// Equally ranked (both caught up): the previous holder first with prefer_previous_holders, else the
// less loaded. x and y are caught up (lags 100 and 9,000: one rank); y held the standby before; x
// is less loaded. z is running nothing and has nothing.
TEST(LagRankedStandbys, AmongEquallyCaughtUpPreviousHoldersThenLoad) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 500000)
                        .stateless("1_0")
                        .client("a")
                        .running_actives({"0_0"})
                        .client("x")
                        .offsets({{"0_0", 499900}})
                        .client("y")
                        .previous_standby({"0_0"})
                        .offsets({{"0_0", 491000}})
                        .client("z")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  auto standby_of = [&](bool sticky) {
    AssignmentDraft d(c, 1);
    d.set_active(task(c, "0_0"), idx(c, "a"));
    d.set_active(task(c, "1_0"), idx(c, "y"));  // y busier
    place_standbys_diverse(c, StandbyDomains(c, DomainKeys{}), d, {.prefer_previous_holders = sticky, .lags = &lags});
    return c.clients[d.standby_slots(task(c, "0_0"))[0]].id;
  };
  EXPECT_EQ(standby_of(false), "x") << "one rank: the less loaded";
  EXPECT_EQ(standby_of(true), "y") << "one rank: the previous holder";
}

// ---- numeric lag and has-state ----------------------------------------------------------------------

TEST(LagQueries, OffsetsBehindAndHasState) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 1000)
                        .stateless("1_0")
                        .client("run")
                        .running_actives({"0_0"})
                        .client("part")
                        .offsets({{"0_0", 400}})
                        .client("empty")
                        .offsets({{"0_0", 0}})
                        .client("suspect")
                        .offsets({{"0_0", 2000}})
                        .client("none")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  const TaskIndex t = task(c, "0_0");
  EXPECT_EQ(lags.offsets_behind(t, idx(c, "run")), std::optional<std::int64_t>(0));
  EXPECT_EQ(lags.offsets_behind(t, idx(c, "part")), std::optional<std::int64_t>(600));
  EXPECT_EQ(lags.offsets_behind(t, idx(c, "empty")), std::optional<std::int64_t>(1000));
  EXPECT_EQ(lags.offsets_behind(t, idx(c, "suspect")), std::optional<std::int64_t>(1000));
  EXPECT_EQ(lags.offsets_behind(t, idx(c, "none")), std::optional<std::int64_t>(1000));
  EXPECT_EQ(lags.offsets_behind(task(c, "1_0"), idx(c, "none")), std::optional<std::int64_t>(0)) << "stateless";
  EXPECT_TRUE(lags.has_state(t, idx(c, "run")));
  EXPECT_TRUE(lags.has_state(t, idx(c, "part")));
  EXPECT_FALSE(lags.has_state(t, idx(c, "empty")));
  EXPECT_FALSE(lags.has_state(t, idx(c, "suspect")));
  EXPECT_FALSE(lags.has_state(t, idx(c, "none")));

  const Cluster unknown = ClusterBuilder()
                              .stateful("0_0", 1000)
                              .end_offsets_unknown()
                              .client("run")
                              .running_actives({"0_0"})
                              .client("part")
                              .offsets({{"0_0", 400}})
                              .build();
  const LagModel u(unknown, s);
  EXPECT_EQ(u.offsets_behind(0, idx(unknown, "run")), std::optional<std::int64_t>(0));
  EXPECT_EQ(u.offsets_behind(0, idx(unknown, "part")), std::nullopt);
  EXPECT_TRUE(u.has_state(0, idx(unknown, "run")));
  EXPECT_FALSE(u.has_state(0, idx(unknown, "part"))) << "with unknown end offsets only running is known";
}

// ---- layered quotas and the lag-aware sticky placer ----------------------------------------------------

// Six tasks with a changelog (0_*) and three non-logged stateful ones (1_*) on three one-thread
// clients. Quotas: 2 logged and 3 stateful each (no remainders). a ran 0_0..0_3, 1_0 and 1_1; b ran
// 0_4 and is caught up on 0_2; c is new.
//   pass 1 (logged first): 0_0, 0_1 stay on a (a: 2 logged); 0_2, 0_3 do not fit; 0_4 stays on b;
//          1_0 stays on a (a: 3 stateful); 1_1 does not fit.
//   pass 2: 0_2 to b (caught up, room); 0_3's only caught-up client is a (full); 0_5 has no one
//          caught up; 1_* are caught up everywhere: left to pass 3.
//   pass 3 (actives a 3, b 2, c 0): 0_3 to c, 0_5 to c (c: 2 logged); 1_1 to b (b 2 = c 2, lower
//          index); 1_2 to c.
TEST(StickyQuotas, OwnersThenCaughtUpThenLeastLoadedUnderTwoLayers) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .stateful("0_1", 50000)
                        .stateful("0_2", 50000)
                        .stateful("0_3", 50000)
                        .stateful("0_4", 50000)
                        .stateful("0_5", 50000)
                        .nonlogged("1_0")
                        .nonlogged("1_1")
                        .nonlogged("1_2")
                        .client("a")
                        .previous_active({"0_0", "0_1", "0_2", "0_3", "1_0", "1_1"})
                        .offsets({{"0_0", -2}, {"0_1", -2}, {"0_2", -2}, {"0_3", -2}})
                        .client("b")
                        .previous_active({"0_4"})
                        .offsets({{"0_4", -2}, {"0_2", 49000}})
                        .client("c")
                        .build();
  AssignmentSettings s;
  const LagModel lags(c, s);
  LayeredQuotas quotas = LayeredQuotas::by_state(c);
  ASSERT_EQ(quotas.layers(), 2u);
  for (ClientIndex k = 0; k < 3; ++k) {
    EXPECT_EQ(quotas.quota(0, k), 2u);
    EXPECT_EQ(quotas.quota(1, k), 3u);
  }
  std::vector<TaskIndex> tasks;
  for (const char* t : {"0_0", "0_1", "0_2", "0_3", "0_4", "0_5", "1_0", "1_1", "1_2"}) tasks.push_back(task(c, t));
  AssignmentDraft d(c, 0);
  const StickyQuotaResult r = place_actives_sticky(c, lags, d, tasks, quotas);
  EXPECT_EQ(r.kept_previous, 4u);
  EXPECT_EQ(r.to_caught_up, 1u);
  EXPECT_EQ(r.to_least_loaded, 4u);
  EXPECT_EQ(r.over_quota, 0u);
  const std::vector<std::pair<const char*, const char*>> want = {{"0_0", "a"}, {"0_1", "a"}, {"1_0", "a"},
                                                                 {"0_2", "b"}, {"0_4", "b"}, {"1_1", "b"},
                                                                 {"0_3", "c"}, {"0_5", "c"}, {"1_2", "c"}};
  for (const auto& [t, k] : want) EXPECT_EQ(c.clients[d.active(task(c, t))].id, k) << t;
  EXPECT_EQ(quotas.used(0, idx(c, "c")), 2u);
  EXPECT_EQ(quotas.used(1, idx(c, "b")), 3u);
}

// A balanced group stays as it is: three logged tasks on two one-thread clients, b ran two of them.
// The remainder of the quota goes to b (it held more), so nothing moves; without the `held` tie
// the lower index a would get it and a task would move.
TEST(StickyQuotas, TheRemainderStaysWithTheClientThatHeldIt) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .stateful("0_1", 50000)
                        .stateful("0_2", 50000)
                        .client("a")
                        .running_actives({"0_0"})
                        .client("b")
                        .running_actives({"0_1", "0_2"})
                        .build();
  LayeredQuotas quotas = LayeredQuotas::by_state(c);
  EXPECT_EQ(quotas.quota(0, idx(c, "a")), 1u);
  EXPECT_EQ(quotas.quota(0, idx(c, "b")), 2u);
  AssignmentDraft d(c, 0);
  const std::vector<TaskIndex> tasks{0, 1, 2};
  EXPECT_EQ(place_actives_sticky(c, LagModel(c, AssignmentSettings{}), d, tasks, quotas).kept_previous, 3u);
}

// Quotas that do not cover the tasks: the task still gets a client, counted as over quota.
TEST(StickyQuotas, OverQuotaWhenNoClientHasRoom) {
  const Cluster c = ClusterBuilder().stateful("0_0", 50000).stateful("0_1", 50000).client("a").client("b").build();
  LayeredQuotas quotas(c);
  quotas.add_layer({1, 0}, [](TaskIndex) { return true; });
  AssignmentDraft d(c, 0);
  const std::vector<TaskIndex> tasks{0, 1};
  const StickyQuotaResult r = place_actives_sticky(c, LagModel(c, AssignmentSettings{}), d, tasks, quotas);
  EXPECT_EQ(r.to_least_loaded, 1u);
  EXPECT_EQ(r.over_quota, 1u);
  EXPECT_EQ(d.active(0), idx(c, "a"));
  EXPECT_EQ(d.active(1), idx(c, "b")) << "the least loaded";
  EXPECT_THROW(quotas.add_layer({1}, [](TaskIndex) { return true; }), std::invalid_argument);
}

// ---- stateless fill against the target -----------------------------------------------------------------

// The target puts 0_0 on a and 0_1 on b; while 0_1 waits for its warmup it still runs on a. Both
// stateless tasks ran on b; four tasks over two clients: a share of 2 each.
//   against the actives that run now (a 2, b 0): 1_0 and 1_1 both stay on b;
//   against the target (a 1, b 1): 1_0 stays on b, 1_1 goes to a, which is what the fill gives once
//   0_1 has moved: nothing moves again when it does.
TEST(StatelessAgainstTarget, PlacesWhereTheTasksWillStay) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 50000)
                        .stateful("0_1", 50000)
                        .stateless("1_0")
                        .stateless("1_1")
                        .client("a")
                        .previous_active({"0_0", "0_1"})
                        .client("b")
                        .previous_active({"1_0", "1_1"})
                        .build();
  const std::vector<std::uint32_t> target{1, 1};
  auto staged = [&]() {
    AssignmentDraft d(c, 0);
    d.set_active(task(c, "0_0"), idx(c, "a"));
    d.set_active(task(c, "0_1"), idx(c, "a"));  // still on a this round
    return d;
  };
  AssignmentDraft now = staged();
  EXPECT_EQ(fill_stateless_sticky(c, now), 2u);
  EXPECT_EQ(now.active(task(c, "1_1")), idx(c, "b"));
  AssignmentDraft against = staged();
  EXPECT_EQ(active_counts(against), (std::vector<std::uint32_t>{2, 0}));
  EXPECT_EQ(fill_stateless_sticky(c, against, target), 1u);
  EXPECT_EQ(against.active(task(c, "1_0")), idx(c, "b"));
  EXPECT_EQ(against.active(task(c, "1_1")), idx(c, "a"));
  AssignmentDraft moved(c, 0);
  moved.set_active(task(c, "0_0"), idx(c, "a"));
  moved.set_active(task(c, "0_1"), idx(c, "b"));
  fill_stateless_sticky(c, moved);
  EXPECT_EQ(moved.active(task(c, "1_1")), idx(c, "a"));
  AssignmentDraft wrong(c, 0);
  EXPECT_THROW(fill_stateless_sticky(c, wrong, std::vector<std::uint32_t>{1}), std::invalid_argument);
}

// ---- the generator: racks and tags independent --------------------------------------------------------

TEST(GeneratedDomains, RacksAndTagValuesAreIndependent) {
  ScenarioSpec spec;
  spec.clients = 9;
  spec.subtopologies = 1;
  spec.partitions = 3;
  spec.racks = 3;
  spec.tags = {{"zone", 3}};
  const Cluster c = generate_cluster(spec);
  std::set<std::pair<std::string, std::string>> pairs;
  for (const Client& client : c.clients) pairs.emplace(c.racks[client.rack], client.tags.at("zone"));
  EXPECT_EQ(pairs.size(), 9u) << "every (rack, zone) pair once";
  // client i: rack i mod 3, zone (i / 3) mod 3 (docs/generation.md).
  EXPECT_EQ(c.racks[c.clients[4].rack], "rack-1");
  EXPECT_EQ(c.clients[4].tags.at("zone"), "zone-1");
  EXPECT_EQ(c.clients[5].tags.at("zone"), "zone-1");
  EXPECT_EQ(c.clients[6].tags.at("zone"), "zone-2");
}

}  // namespace
}  // namespace assignor
