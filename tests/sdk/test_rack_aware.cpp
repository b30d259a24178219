// The rack-aware optimiser (rack_aware.hpp), in the spirit of Kafka's RackAwareTaskAssignorTest:
// small hand-checked cases whose optimum is known, the high-availability guard, and random cases
// checked against brute force (optimal cost) and against the invariants (counts never change, the
// cost never increases, no active lands on a less caught-up client).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "assignor/balance.hpp"
#include "assignor/errors.hpp"
#include "assignor/rack_aware.hpp"
#include "assignor/validation.hpp"
#include "assignor/warmups.hpp"
#include "cluster_builder.hpp"
#include "random_group.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

// Sets task `id`'s partitions: one per entry, replicated in the named racks (which must exist).
void partitions(Cluster& c, const std::string& id, const std::vector<std::vector<std::string>>& racks) {
  Task& task = c.tasks[*c.find_task(*parse_task_id(id))];
  task.partitions.clear();
  for (std::size_t i = 0; i < racks.size(); ++i) {
    PartitionRef p{"topic", static_cast<std::int32_t>(i), {}};
    for (const auto& name : racks[i]) {
      auto it = std::find(c.racks.begin(), c.racks.end(), name);
      if (it == c.racks.end()) throw std::invalid_argument("no rack " + name);
      p.racks.push_back(static_cast<RackIndex>(it - c.racks.begin()));
    }
    std::sort(p.racks.begin(), p.racks.end());
    task.partitions.push_back(std::move(p));
  }
}

ClientIndex client(const Cluster& c, const std::string& id) { return *c.find_client(id); }
TaskIndex task(const Cluster& c, const std::string& id) { return *c.find_task(*parse_task_id(id)); }

RackAwareOptions options(RackAwareTasks tasks, RackAwareCosts costs = kHighAvailabilityRackCosts,
                         RackAwareStrategy strategy = RackAwareStrategy::min_traffic) {
  RackAwareOptions o;
  o.tasks = tasks;
  o.costs = costs;
  o.strategy = strategy;
  return o;
}

// Kafka-style hand-checked case: three clients in three racks hold two tasks each; five of the six
// tasks read a partition that lives in another rack. Every task can be rack-local at unchanged
// counts, with five moves: the optimum costs 5 x non_overlap.
struct SixTasks {
  Cluster c;
  AssignmentDraft draft;
  SixTasks()
      : c(ClusterBuilder()
              .stateless("0_0")
              .stateless("0_1")
              .stateless("0_2")
              .stateless("0_3")
              .stateless("0_4")
              .stateless("0_5")
              .client("a")
              .rack("r1")
              .client("b")
              .rack("r2")
              .client("c")
              .rack("r3")
              .build()),
        draft(c, 0) {
    partitions(c, "0_0", {{"r2"}});
    partitions(c, "0_1", {{"r2"}});
    partitions(c, "0_2", {{"r3"}});
    partitions(c, "0_3", {{"r1"}});
    partitions(c, "0_4", {{"r1"}});
    partitions(c, "0_5", {{"r3"}});
    const char* owners[] = {"a", "a", "b", "b", "c", "c"};
    for (TaskIndex t = 0; t < 6; ++t) draft.set_active(t, client(c, owners[t]));
  }
};

TEST(RackAware, HandCheckedOptimumMovesFiveTasksHome) {
  SixTasks s;
  const LagModel lags(s.c, AssignmentSettings{});
  const auto r = optimize_rack_aware(s.c, lags, s.draft, options(RackAwareTasks::stateless_actives));
  EXPECT_TRUE(r.applied);
  EXPECT_EQ(r.placements, 6u);
  EXPECT_EQ(r.traffic_before, 5u);
  EXPECT_EQ(r.traffic_after, 0u);
  EXPECT_EQ(r.cost_before, 50);
  EXPECT_EQ(r.cost_after, 5);
  EXPECT_EQ(r.moved, 5u);
  const char* home[] = {"b", "b", "c", "a", "a", "c"};
  for (TaskIndex t = 0; t < 6; ++t) EXPECT_EQ(s.draft.active(t), client(s.c, home[t])) << "task " << t;
}

TEST(RackAware, StickyCostsKeepTasksWhereAMoveCostsMoreThanTheTrafficItSaves) {
  SixTasks s;
  const LagModel lags(s.c, AssignmentSettings{});
  // Sticky's defaults: a move (10) costs more than one partition of traffic (1).
  const auto r = optimize_rack_aware(s.c, lags, s.draft, options(RackAwareTasks::stateless_actives, kStickyRackCosts));
  EXPECT_EQ(r.moved, 0u);
  EXPECT_EQ(r.cost_after, r.cost_before);
  EXPECT_EQ(r.cost_after, 5);
}

TEST(RackAware, CountsBindEvenWhenEveryTaskWantsTheSameRack) {
  // a (r1) holds three tasks that all live in r2; b (r2) holds one r2 task. b can take only one task,
  // and giving it one of a's would push b's own task across: no improvement, so nothing moves.
  Cluster c = ClusterBuilder()
                  .stateless("0_0")
                  .stateless("0_1")
                  .stateless("0_2")
                  .stateless("0_3")
                  .client("a")
                  .rack("r1")
                  .client("b")
                  .rack("r2")
                  .build();
  for (const char* t : {"0_0", "0_1", "0_2", "0_3"}) partitions(c, t, {{"r2"}});
  AssignmentDraft draft(c, 0);
  for (TaskIndex t = 0; t < 3; ++t) draft.set_active(t, client(c, "a"));
  draft.set_active(3, client(c, "b"));
  const LagModel lags(c, AssignmentSettings{});
  const auto r = optimize_rack_aware(c, lags, draft, options(RackAwareTasks::stateless_actives));
  EXPECT_EQ(r.moved, 0u);
  EXPECT_EQ(r.traffic_after, 3u);
  EXPECT_EQ(draft.active_count(client(c, "a")), 3u);
  EXPECT_EQ(draft.active_count(client(c, "b")), 1u);
}

TEST(RackAware, StrategyNoneOrNoRacksLeavesTheDraftAlone) {
  SixTasks s;
  const LagModel lags(s.c, AssignmentSettings{});
  auto o = options(RackAwareTasks::stateless_actives);
  o.strategy = RackAwareStrategy::none;
  EXPECT_FALSE(optimize_rack_aware(s.c, lags, s.draft, o).applied);
  Cluster plain = ClusterBuilder().stateless("0_0").client("a").client("b").build();
  AssignmentDraft d(plain, 0);
  d.set_active(0, 0);
  EXPECT_FALSE(
      optimize_rack_aware(plain, LagModel(plain, AssignmentSettings{}), d, options(RackAwareTasks::stateless_actives))
          .applied);
  EXPECT_EQ(d.active(0), 0u);
}

TEST(RackAware, NegativeOrHugeCostsAreConfigErrors) {
  SixTasks s;
  const LagModel lags(s.c, AssignmentSettings{});
  EXPECT_THROW(optimize_rack_aware(s.c, lags, s.draft, options(RackAwareTasks::stateless_actives, {-1, 0})),
               ConfigError);
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max() / 2;
  EXPECT_THROW(optimize_rack_aware(s.c, lags, s.draft, options(RackAwareTasks::stateless_actives, {huge, 1})),
               ConfigError);
}

TEST(RackAware, ConfiguredCostsOverrideTheStrategyDefaults) {
  RackAwareSettings s;
  EXPECT_EQ(rack_aware_costs(s, kHighAvailabilityRackCosts).traffic, 10);
  EXPECT_EQ(rack_aware_costs(s, kStickyRackCosts).non_overlap, 10);
  s.traffic_cost = 3;
  const RackAwareCosts c = rack_aware_costs(s, kStickyRackCosts);
  EXPECT_EQ(c.traffic, 3);
  EXPECT_EQ(c.non_overlap, 10);
}

// The high-availability guard: a and b each run a task whose partition lives in the other's rack.
// Swapping them would remove all traffic, but only when the other client is caught up.
Cluster crossed(bool caught_up) {
  const std::int64_t far = 100000;
  const std::int64_t near = caught_up ? far - 10 : 5;
  Cluster c = ClusterBuilder()
                  .stateful("0_0", far)
                  .stateful("0_1", far)
                  .client("a")
                  .rack("r1")
                  .previous_active({"0_0"})
                  .offsets({{"0_0", -2}, {"0_1", near}})
                  .client("b")
                  .rack("r2")
                  .previous_active({"0_1"})
                  .offsets({{"0_1", -2}, {"0_0", near}})
                  .build();
  partitions(c, "0_0", {{"r2"}});
  partitions(c, "0_1", {{"r1"}});
  return c;
}

TEST(RackAware, StatefulActivesNeverMoveToAClientThatIsNotCaughtUp) {
  const Cluster c = crossed(false);
  const LagModel lags(c, AssignmentSettings{});
  AssignmentDraft draft(c, 0);
  draft.set_active(0, client(c, "a"));
  draft.set_active(1, client(c, "b"));
  const auto r = optimize_rack_aware(c, lags, draft, options(RackAwareTasks::stateful_actives));
  EXPECT_EQ(r.moved, 0u);
  EXPECT_EQ(r.traffic_after, 2u);
}

TEST(RackAware, StatefulActivesMoveToCaughtUpClients) {
  const Cluster c = crossed(true);
  const LagModel lags(c, AssignmentSettings{});
  AssignmentDraft draft(c, 0);
  draft.set_active(0, client(c, "a"));
  draft.set_active(1, client(c, "b"));
  const auto r = optimize_rack_aware(c, lags, draft, options(RackAwareTasks::stateful_actives));
  EXPECT_EQ(r.moved, 2u);
  EXPECT_EQ(r.traffic_after, 0u);
  EXPECT_EQ(r.cost_after, 2);
  EXPECT_EQ(draft.active(0), client(c, "b"));
  EXPECT_EQ(draft.active(1), client(c, "a"));
}

TEST(RackAware, ActivesSwapRolesWithCaughtUpStandbysAtUnchangedCounts) {
  // Two clients, each running the other's rack-local task and holding a caught-up standby of it:
  // the only improvement is a role swap, which keeps both active and standby counts.
  const Cluster c = crossed(true);
  const LagModel lags(c, AssignmentSettings{});
  AssignmentDraft draft(c, 1);
  draft.set_active(0, client(c, "a"));
  draft.add_standby(0, client(c, "b"));
  draft.set_active(1, client(c, "b"));
  draft.add_standby(1, client(c, "a"));
  const auto r = optimize_rack_aware(c, lags, draft, options(RackAwareTasks::stateful_actives));
  EXPECT_EQ(r.traffic_after, 0u);
  EXPECT_EQ(draft.active(0), client(c, "b"));
  EXPECT_EQ(draft.role(0, client(c, "a")), Role::standby);
  EXPECT_EQ(draft.active(1), client(c, "a"));
  EXPECT_EQ(draft.role(1, client(c, "b")), Role::standby);
  for (ClientIndex x = 0; x < 2; ++x) {
    EXPECT_EQ(draft.active_count(x), 1u);
    EXPECT_EQ(draft.standby_count_of(x), 1u);
  }
}

TEST(RackAware, WhenNobodyIsCaughtUpActivesOnlyMoveToClientsWithNoMoreToRestore) {
  // Nobody is caught up (acceptable lag 0). 0_0 lives in r1 and runs on c (r2), which restored half
  // of it; 0_1 lives in r2 and runs on a (r1), which has nothing of either. Trading them removes all
  // traffic, but a has more of 0_0 to restore than c, unless a restored more of it than c did.
  for (const bool a_ahead : {false, true}) {
    AssignmentSettings settings;
    settings.acceptable_recovery_lag = 0;
    ClusterBuilder b;
    b.stateful("0_0", 1000).stateful("0_1", 1000).client("a").rack("r1");
    if (a_ahead) b.offsets({{"0_0", 600}});
    Cluster c = b.client("c").rack("r2").offsets({{"0_0", 500}}).build();
    partitions(c, "0_0", {{"r1"}});
    partitions(c, "0_1", {{"r2"}});
    const LagModel lags(c, settings);
    AssignmentDraft draft(c, 0);
    draft.set_active(task(c, "0_0"), client(c, "c"));
    draft.set_active(task(c, "0_1"), client(c, "a"));
    const auto r = optimize_rack_aware(c, lags, draft, options(RackAwareTasks::stateful_actives));
    EXPECT_EQ(draft.active(task(c, "0_0")), client(c, a_ahead ? "a" : "c")) << "a ahead: " << a_ahead;
    EXPECT_EQ(r.traffic_after, a_ahead ? 0u : 2u);
  }
}

TEST(RackAware, BalanceSubtopologyBoundsEachClientsShare) {
  // Two sub-topologies of four tasks, all living in r1; two clients in r1 and one in r2, each with
  // its count. min_traffic may stack one sub-topology on a client; balance_subtopology may not.
  ClusterBuilder b;
  for (int s = 0; s < 2; ++s)
    for (int p = 0; p < 4; ++p) b.stateless(std::to_string(s) + "_" + std::to_string(p));
  Cluster c = b.client("a").rack("r1").client("b").rack("r1").client("c").rack("r2").build();
  for (TaskIndex t = 0; t < 8; ++t) partitions(c, to_string(c.tasks[t].id), {{"r1"}});
  AssignmentDraft draft(c, 0);
  const char* owners[] = {"c", "c", "a", "a", "c", "b", "b", "b"};  // a 2, b 3, c 3
  for (TaskIndex t = 0; t < 8; ++t) draft.set_active(t, client(c, owners[t]));
  const LagModel lags(c, AssignmentSettings{});
  AssignmentDraft balanced = draft;
  optimize_rack_aware(
      c, lags, balanced,
      options(RackAwareTasks::stateless_actives, kStatelessRackCosts, RackAwareStrategy::balance_subtopology));
  // Bound per client and sub-topology: max(ceil(count x 4 / 8), what it held before).
  std::map<std::pair<int, ClientIndex>, std::uint32_t> before, after;
  for (TaskIndex t = 0; t < 8; ++t) {
    ++before[{c.tasks[t].id.subtopology, draft.active(t)}];
    ++after[{c.tasks[t].id.subtopology, balanced.active(t)}];
  }
  for (const auto& [key, n] : after) {
    const std::uint32_t share = (draft.active_count(key.second) * 4 + 7) / 8;
    EXPECT_LE(n, std::max(share, before[key])) << "sub " << key.first << " client " << key.second;
  }
  for (ClientIndex x = 0; x < 3; ++x) EXPECT_EQ(balanced.active_count(x), draft.active_count(x));
}

TEST(RackAware, StaleStandbysTradePlacesAcrossRacksAtUnchangedCounts) {
  // Two stale standbys each in the wrong rack: they trade places.
  Cluster c = ClusterBuilder()
                  .stateful("0_0", 100000)
                  .stateful("0_1", 100000)
                  .client("a")
                  .rack("r1")
                  .client("b")
                  .rack("r2")
                  .client("x")
                  .rack("r3")
                  .build();
  partitions(c, "0_0", {{"r2"}});
  partitions(c, "0_1", {{"r1"}});
  const LagModel lags(c, AssignmentSettings{});
  AssignmentDraft draft(c, 1);
  draft.set_active(0, client(c, "x"));
  draft.set_active(1, client(c, "x"));
  draft.add_standby(0, client(c, "a"));
  draft.add_standby(1, client(c, "b"));
  const auto r = optimize_rack_aware(c, lags, draft, options(RackAwareTasks::standbys));
  EXPECT_EQ(r.traffic_before, 2u);
  EXPECT_EQ(r.traffic_after, 0u);
  EXPECT_EQ(draft.role(0, client(c, "b")), Role::standby);
  EXPECT_EQ(draft.role(1, client(c, "a")), Role::standby);
}

TEST(RackAware, CaughtUpStandbyDoesNotTradeItsStateForTraffic) {
  // As above, but a is caught up on 0_0: its copy stays (b is not caught up on 0_0).
  Cluster c = ClusterBuilder()
                  .stateful("0_0", 100000)
                  .stateful("0_1", 100000)
                  .client("a")
                  .rack("r1")
                  .offsets({{"0_0", 99999}})
                  .client("b")
                  .rack("r2")
                  .client("x")
                  .rack("r3")
                  .build();
  partitions(c, "0_0", {{"r2"}});
  partitions(c, "0_1", {{"r1"}});
  const LagModel lags(c, AssignmentSettings{});
  AssignmentDraft draft(c, 1);
  draft.set_active(0, client(c, "x"));
  draft.set_active(1, client(c, "x"));
  draft.add_standby(0, client(c, "a"));
  draft.add_standby(1, client(c, "b"));
  const auto r = optimize_rack_aware(c, lags, draft, options(RackAwareTasks::standbys));
  EXPECT_EQ(r.moved, 0u);
  EXPECT_EQ(draft.role(0, client(c, "a")), Role::standby);
}

TEST(RackAware, TaggedStandbysOnlyMoveBetweenClientsWithEqualTags) {
  // The trade of the previous test is across zones: with tags it is refused; a zone-mate may take it.
  for (bool zone_mate : {false, true}) {
    ClusterBuilder b;
    b.stateful("0_0", 100000).stateful("0_1", 100000);
    b.client("a").rack("r1").client("b").rack("r2").client("x").rack("r3");
    if (zone_mate) b.client("a2").rack("r2");
    Cluster c = b.build();
    partitions(c, "0_0", {{"r2"}});
    partitions(c, "0_1", {{"r1"}});
    c.clients[client(c, "a")].tags = {{"zone", "z1"}};
    c.clients[client(c, "b")].tags = {{"zone", "z2"}};
    c.clients[client(c, "x")].tags = {{"zone", "z3"}};
    const LagModel lags(c, AssignmentSettings{});
    AssignmentDraft draft(c, 1);
    draft.set_active(0, client(c, "x"));
    draft.set_active(1, client(c, "x"));
    draft.add_standby(0, client(c, "a"));
    draft.add_standby(1, client(c, "b"));
    if (zone_mate) {
      c.clients[client(c, "a2")].tags = {{"zone", "z1"}};
      draft.set_active(1, client(c, "a2"));  // a2 holds an active only: no standby room
    }
    auto o = options(RackAwareTasks::standbys);
    o.tags = {"zone"};
    const auto r = optimize_rack_aware(c, lags, draft, o);
    EXPECT_EQ(r.moved, 0u);
    EXPECT_EQ(draft.role(0, client(c, "a")), Role::standby);
  }
}

// --- random cases --------------------------------------------------------------------------------

// A group and its settings (tests/support/random_group.hpp).
using RandomCase = testing::Group;

// A valid starting draft: stateful actives round-robin, standbys least loaded, warmup planning (so
// actives sit on caught-up clients and warmups exist), stateless by load.
AssignmentDraft starting_draft(const RandomCase& rc, const LagModel& lags, std::uint64_t seed) {
  const Cluster& c = rc.cluster;
  AssignmentDraft d(c, rc.settings.num_standby_replicas);
  ClientIndex next = static_cast<ClientIndex>(seed % c.client_count());
  for (TaskIndex t = 0; t < c.task_count(); ++t)
    if (c.tasks[t].stateful) d.set_active(t, next++ % static_cast<ClientIndex>(c.client_count()));
  place_standbys_least_loaded(c, d);
  plan_warmups(c, rc.settings, lags, d);
  fill_stateless_by_active_load(c, d);
  return d;
}

std::uint32_t cross(const Cluster& c, TaskIndex t, ClientIndex x) {
  std::uint32_t n = 0;
  for (const auto& p : c.tasks[t].partitions)
    if (!p.racks.empty() && !std::binary_search(p.racks.begin(), p.racks.end(), c.clients[x].rack)) ++n;
  return n;
}

struct Counts {
  std::vector<std::uint32_t> active, standby, warmup;
  friend bool operator==(const Counts&, const Counts&) = default;
};
Counts counts(const AssignmentDraft& d) {
  Counts k;
  for (ClientIndex x = 0; x < d.client_count(); ++x) {
    k.active.push_back(d.active_count(x));
    k.standby.push_back(d.standby_count_of(x));
    k.warmup.push_back(d.warmup_count_of(x));
  }
  return k;
}

// Per client, the number of actives of stateful and of stateless tasks.
std::vector<std::uint32_t> active_kind_counts(const Cluster& c, const AssignmentDraft& d, bool stateful) {
  std::vector<std::uint32_t> n(c.client_count(), 0);
  for (TaskIndex t = 0; t < c.task_count(); ++t)
    if (c.tasks[t].stateful == stateful && d.active(t) != kNoClient) ++n[d.active(t)];
  return n;
}

// On random groups with racks (tests/support/random_group.hpp), for every task set, strategy and
// both cost presets.
RC_GTEST_PROP(RackAwareRandom, InvariantsHoldOnEverySetAndStrategy, ()) {
  testing::GroupShape shape;
  shape.racks = true;
  shape.max_partitions = 5;
  const testing::Group g = *testing::gen_group(shape);
  const RandomCase& rc = g;
  const auto seed = *rc::gen::inRange<std::uint64_t>(0, 8);  // where the round-robin starts
  const bool ha_costs = *rc::gen::arbitrary<bool>();
  {
    const Cluster& c = rc.cluster;
    const LagModel lags(c, rc.settings);
    for (auto tasks : {RackAwareTasks::stateful_actives, RackAwareTasks::stateless_actives, RackAwareTasks::standbys}) {
      for (auto strategy : {RackAwareStrategy::min_traffic, RackAwareStrategy::balance_subtopology}) {
        const AssignmentDraft before = starting_draft(rc, lags, seed);
        AssignmentDraft after = before;
        const RackAwareCosts costs = ha_costs ? kHighAvailabilityRackCosts : kStickyRackCosts;
        const auto r = optimize_rack_aware(c, lags, after, options(tasks, costs, strategy));
        RC_ASSERT(validate(c, rc.settings, after.finish(false)).empty());
        RC_ASSERT((counts(after)) == (counts(before)));
        for (bool stateful : {true, false})
          RC_ASSERT((active_kind_counts(c, after, stateful)) == (active_kind_counts(c, before, stateful)));
        RC_ASSERT((r.cost_after) <= (r.cost_before));
        // The figures are the draft's.
        std::uint64_t traffic_before = 0, traffic_after = 0, moved = 0;
        for (TaskIndex t = 0; t < c.task_count(); ++t) {
          if (tasks == RackAwareTasks::standbys) {
            for (ClientIndex x : before.standby_slots(t))
              if (x != kNoClient) traffic_before += cross(c, t, x);
            for (ClientIndex x : after.standby_slots(t))
              if (x != kNoClient) {
                traffic_after += cross(c, t, x);
                moved += before.role(t, x) == Role::standby ? 0 : 1;
              }
            // No task loses a caught-up standby copy.
            std::uint32_t fresh_before = 0, fresh_after = 0;
            for (ClientIndex x : before.standby_slots(t)) fresh_before += x != kNoClient && lags.caught_up(t, x);
            for (ClientIndex x : after.standby_slots(t)) fresh_after += x != kNoClient && lags.caught_up(t, x);
            RC_ASSERT((fresh_after) == (fresh_before));
          } else if (c.tasks[t].stateful == (tasks == RackAwareTasks::stateful_actives) &&
                     before.active(t) != kNoClient) {
            const ClientIndex from = before.active(t), to = after.active(t);
            traffic_before += cross(c, t, from);
            traffic_after += cross(c, t, to);
            moved += from != to;
            if (c.tasks[t].stateful && from != to) {
              // High availability: no less caught up than before.
              RC_ASSERT(lags.caught_up(t, to) || (!lags.caught_up(t, from) && lags.caught_up_count(t) == 0 &&
                                                  !less_lag(lags.lag(t, from), lags.lag(t, to))));
            }
          }
        }
        if (strategy == RackAwareStrategy::balance_subtopology && tasks != RackAwareTasks::standbys) {
          // Each client's share of a sub-topology: at most ceil(count x n_s / N), or what it held.
          const bool stateful = tasks == RackAwareTasks::stateful_actives;
          std::map<std::pair<std::int32_t, ClientIndex>, std::uint32_t> held, now;
          std::map<std::int32_t, std::uint32_t> per_sub;
          std::uint32_t total = 0;
          for (TaskIndex t = 0; t < c.task_count(); ++t) {
            if (c.tasks[t].stateful != stateful || before.active(t) == kNoClient) continue;
            ++held[{c.tasks[t].id.subtopology, before.active(t)}];
            ++now[{c.tasks[t].id.subtopology, after.active(t)}];
            ++per_sub[c.tasks[t].id.subtopology];
            ++total;
          }
          const auto kind_counts = active_kind_counts(c, before, stateful);
          for (const auto& [key, n] : now) {
            const std::uint32_t share = (kind_counts[key.second] * per_sub[key.first] + total - 1) / total;
            RC_ASSERT((n) <= (std::max(share, held[key])));
          }
        }
        RC_ASSERT((r.traffic_before) == (traffic_before));
        RC_ASSERT((r.traffic_after) == (traffic_after));
        RC_ASSERT((r.moved) == (moved));
        RC_ASSERT((r.cost_after) == (costs.traffic * static_cast<std::int64_t>(traffic_after) +
                                     costs.non_overlap * static_cast<std::int64_t>(moved)));
        // Deterministic.
        AssignmentDraft again = before;
        optimize_rack_aware(c, lags, again, options(tasks, costs, strategy));
        RC_ASSERT((again.finish(false)) == (after.finish(false)));
      }
    }
  }
}

// Brute force: the least cost over every placement of the set's tasks (one copy each: stateless
// actives, or single standbys) at unchanged per-client counts, avoiding clients that hold the task.
std::int64_t brute_force(const Cluster& c, const AssignmentDraft& d, RackAwareTasks tasks, RackAwareCosts costs) {
  std::vector<TaskIndex> ts;
  std::vector<ClientIndex> now;
  for (TaskIndex t = 0; t < c.task_count(); ++t) {
    if (tasks == RackAwareTasks::standbys) {
      for (ClientIndex x : d.standby_slots(t))
        if (x != kNoClient) ts.push_back(t), now.push_back(x);
    } else if (!c.tasks[t].stateful) {
      ts.push_back(t), now.push_back(d.active(t));
    }
  }
  std::vector<std::int32_t> room(c.client_count(), 0);
  for (ClientIndex x : now) ++room[x];
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  std::vector<ClientIndex> pick(ts.size());
  auto go = [&](auto&& self, std::size_t i, std::int64_t cost) -> void {
    if (cost >= best) return;
    if (i == ts.size()) {
      best = cost;
      return;
    }
    for (ClientIndex x = 0; x < c.client_count(); ++x) {
      if (room[x] == 0) continue;
      if (x != now[i] && d.holds(ts[i], x)) continue;  // the active (standbys) or another copy
      --room[x];
      self(self, i + 1, cost + costs.traffic * cross(c, ts[i], x) + (x != now[i] ? costs.non_overlap : 0));
      ++room[x];
    }
  };
  go(go, 0, 0);
  return best;
}

// Small groups where everyone is caught up (every end offset 0), so that only traffic and
// movement count: the flow's cost equals the brute force's.
TEST(RackAwareRandom, OptimalAgainstBruteForce) {
  int checked = 0;
  EXPECT_TRUE(rc::check("optimal against brute force", [&checked] {
    testing::GroupShape shape;
    shape.racks = true;
    shape.max_subtopologies = 2;
    shape.max_partitions = 4;  // at most 8 tasks
    shape.max_end_offset = 0;
    shape.max_standbys = 1;
    const RandomCase rc = *testing::gen_group(shape);
    const auto seed = *rc::gen::inRange<std::uint64_t>(0, 8);
    const Cluster& c = rc.cluster;
    const LagModel lags(c, rc.settings);
    for (auto tasks : {RackAwareTasks::stateless_actives, RackAwareTasks::standbys}) {
      for (RackAwareCosts costs : {kHighAvailabilityRackCosts, kStickyRackCosts, RackAwareCosts{3, 2}}) {
        AssignmentDraft d = starting_draft(rc, lags, seed);
        const std::int64_t best = brute_force(c, d, tasks, costs);
        const auto r = optimize_rack_aware(c, lags, d, options(tasks, costs));
        if (!r.applied) continue;
        RC_ASSERT(r.cost_after == best);
        ++checked;
      }
    }
  }));
  EXPECT_GT(checked, 50);  // the flow ran, not just the early exits
}

TEST(RackAwareRandom, ManyClientsPerRackUseBlockHubsAndStayOptimal) {
  // Eight clients in two racks (blocks of two or three), tasks whose standby holders and actives
  // exclude clients inside blocks: brute force agrees with the flow.
  std::mt19937_64 rng(::testing::UnitTest::GetInstance()->random_seed());
  for (int round = 0; round < 40; ++round) {
    Cluster c;
    c.racks = {"r0", "r1"};
    for (int t = 0; t < 6; ++t) {
      Task task;
      task.id = {0, t};
      task.stores.push_back({"log", true, 0});  // everyone caught up
      task.partitions.push_back({"x", t, {static_cast<RackIndex>(rng() % 2)}});
      c.tasks.push_back(std::move(task));
    }
    for (int x = 0; x < 9; ++x) {
      Client client;
      client.id = "c" + std::to_string(x);
      client.rack = static_cast<RackIndex>(rng() % 2);
      c.clients.push_back(std::move(client));
    }
    c.finalize();
    AssignmentSettings s;
    s.num_standby_replicas = 1;
    const LagModel lags(c, s);
    AssignmentDraft d(c, 1);
    for (TaskIndex t = 0; t < 6; ++t) {
      const auto a = static_cast<ClientIndex>(rng() % 9);
      auto b = static_cast<ClientIndex>(rng() % 9);
      if (b == a) b = (b + 1) % 9;
      d.set_active(t, a);
      d.add_standby(t, b);
    }
    for (RackAwareTasks tasks : {RackAwareTasks::standbys}) {
      AssignmentDraft work = d;
      const std::int64_t best = brute_force(c, work, tasks, {10, 1});
      const auto r = optimize_rack_aware(c, lags, work, options(tasks, {10, 1}));
      ASSERT_EQ(r.cost_after, best) << "round " << round;
      ASSERT_TRUE(validate(c, s, work.finish(false)).empty());
    }
  }
}

TEST(RackAware, ApplyRackAwarenessRunsAllThreeSetsOnlyWhenAsked) {
  SixTasks s;
  const LagModel lags(s.c, AssignmentSettings{});
  AssignmentSettings settings;
  AssignmentDraft untouched = s.draft;
  const auto none = apply_rack_awareness(s.c, settings, lags, untouched, kHighAvailabilityRackCosts);
  EXPECT_FALSE(none.stateless_actives.applied);
  EXPECT_EQ(untouched.finish(false), s.draft.finish(false));
  settings.rack_aware.strategy = RackAwareStrategy::min_traffic;
  settings.rack_aware.traffic_cost = 1;
  settings.rack_aware.non_overlap_cost = 100;  // stateless tasks ignore these: Kafka's fixed 1 / 0
  const auto passes = apply_rack_awareness(s.c, settings, lags, s.draft, kHighAvailabilityRackCosts);
  EXPECT_TRUE(passes.stateless_actives.applied);
  EXPECT_EQ(passes.stateless_actives.traffic_after, 0u);
  EXPECT_EQ(passes.stateless_actives.cost_after, 0);
}

}  // namespace
}  // namespace assignor
