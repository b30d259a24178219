// The conformance kit's own pieces, against hand-worked expectations: the round model the
// stability property plays (next_round, DESIGN 4.6 with full catch-up), the settled groups (Kafka's
// assignor leaves them as they are), and the cluster file the reproduction lines write for a case
// built in code (read back by the host's reader).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "assignor/conformance.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/validation.hpp"
#include "cluster_builder.hpp"
#include "strategy_runner.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

ClientIndex idx(const Cluster& c, const std::string& id) { return *c.find_client(id); }
TaskIndex task(const Cluster& c, const std::string& id) { return *c.find_task(*parse_task_id(id)); }

std::vector<std::pair<std::string, std::int64_t>> sums(const Cluster& c, const std::string& client) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const OffsetSum& s : c.clients[idx(c, client)].offset_sums)
    out.emplace_back(to_string(c.tasks[s.task].id), s.sum);
  return out;
}

std::vector<std::string> ids(const Cluster& c, const std::vector<TaskIndex>& tasks) {
  std::vector<std::string> out;
  for (TaskIndex t : tasks) out.push_back(to_string(c.tasks[t].id));
  return out;
}

// a ran 0_0 (logged, end 100) and the stateless 1_0; b holds a standby of 0_0 60 offsets in; c
// reports 0_0 running though nobody lists it there (a zombie) and d reports 30 of it. The round:
// 0_0 active on b, its standby on a; 1_0 and the non-logged 2_0 active on a. After it, per
// DESIGN 4.6 with full catch-up:
//   a: actives 1_0, 2_0; standby 0_0; 0_0 caught up as a copy (100), 2_0 running (-2), 1_0 nothing;
//   b: active 0_0, running (-2);
//   c: holds nothing; its running 0_0 stopped at the end offsets (100);
//   d: holds nothing; its 30 stays.
TEST(KitRoundModel, NextRoundIsWhatTheGroupReportsAfterFullCatchUp) {
  Cluster state = ClusterBuilder()
                      .stateful("0_0", 100)
                      .stateless("1_0")
                      .nonlogged("2_0")
                      .end_offsets_unknown()
                      .client("a", 2)
                      .previous_active({"0_0", "1_0"})
                      .offsets({{"0_0", -2}})
                      .client("b")
                      .previous_standby({"0_0"})
                      .offsets({{"0_0", 60}})
                      .client("c")
                      .offsets({{"0_0", -2}})
                      .client("d")
                      .offsets({{"0_0", 30}})
                      .build();
  Assignment a;
  a.actives = {{task(state, "0_0"), idx(state, "b")},
               {task(state, "1_0"), idx(state, "a")},
               {task(state, "2_0"), idx(state, "a")}};
  a.standbys = {{task(state, "0_0"), idx(state, "a")}};
  AssignmentSettings settings;
  settings.num_standby_replicas = 1;
  ASSERT_TRUE(validate(state, settings, a).empty());
  const LagModel lags(state, settings);
  const ThreadDistribution threads = distribute_over_threads(state, lags, a);
  const Cluster next = conformance::next_round(state, a, threads);
  EXPECT_TRUE(next.end_offsets_known);
  EXPECT_EQ(ids(next, next.clients[idx(next, "a")].previous_active), (std::vector<std::string>{"1_0", "2_0"}));
  EXPECT_EQ(ids(next, next.clients[idx(next, "a")].previous_standby), (std::vector<std::string>{"0_0"}));
  EXPECT_EQ(sums(next, "a"), (std::vector<std::pair<std::string, std::int64_t>>{{"0_0", 100}, {"2_0", -2}}));
  EXPECT_EQ(ids(next, next.clients[idx(next, "b")].previous_active), (std::vector<std::string>{"0_0"}));
  EXPECT_TRUE(next.clients[idx(next, "b")].previous_standby.empty());
  EXPECT_EQ(sums(next, "b"), (std::vector<std::pair<std::string, std::int64_t>>{{"0_0", -2}}));
  EXPECT_EQ(sums(next, "c"), (std::vector<std::pair<std::string, std::int64_t>>{{"0_0", 100}}));
  EXPECT_EQ(sums(next, "d"), (std::vector<std::pair<std::string, std::int64_t>>{{"0_0", 30}}));
  EXPECT_EQ(next.previous_active_owner()[task(next, "0_0")], idx(next, "b"));
  // The split becomes the per-thread history: a's two threads hold its three tasks between them.
  std::multiset<TaskIndex> held;
  for (const ThreadHistory& h : next.clients[idx(next, "a")].threads_history) {
    held.insert(h.previous_active.begin(), h.previous_active.end());
    held.insert(h.previous_standby.begin(), h.previous_standby.end());
  }
  EXPECT_EQ(held, (std::multiset<TaskIndex>{task(next, "0_0"), task(next, "1_0"), task(next, "2_0")}));
}

TEST(KitRoundModel, BalancedAndConvergedAreDesign46) {
  Metrics m;
  EXPECT_TRUE(conformance::converged(m, false));
  EXPECT_FALSE(conformance::converged(m, true)) << "a probing rebalance is pending";
  m.stale_standbys = 1;
  EXPECT_TRUE(conformance::balanced(m));
  EXPECT_FALSE(conformance::converged(m, false)) << "a standby is not caught up";
  m = Metrics{};
  m.stateful_load_spread = 1.5;
  EXPECT_FALSE(conformance::balanced(m));
  m = Metrics{};
  m.thread_load_spread = 2;
  EXPECT_FALSE(conformance::balanced(m));
  m = Metrics{};
  m.restoring_actives = 1;
  EXPECT_FALSE(conformance::balanced(m));
}

// The settled groups are what Kafka's assignor leaves as it is: high_availability (Kafka's own
// answer) gives back every client's previous actives and standbys, with no probing rebalance.
TEST(KitSettledGroups, KafkasAssignorLeavesThemAsTheyAre) {
  const auto groups = conformance::settled_groups();
  ASSERT_EQ(groups.size(), 2u);
  for (const conformance::Case& g : groups) {
    SCOPED_TRACE(g.name);
    const Cluster& c = *g.cluster;
    EXPECT_EQ(c.task_count(), 22u);
    EXPECT_EQ(c.logged_task_count(), 18u);
    EXPECT_EQ(c.client_count(), 4u);
    const auto run = testing::builtin_plugins().run("high_availability", c, g.settings);
    ASSERT_TRUE(run.errors.empty());
    const Assignment& a = run.assignment;
    EXPECT_EQ(run.metrics.active_moves, 0u);
    EXPECT_FALSE(a.probing_rebalance);
    EXPECT_TRUE(a.warmups.empty());
    for (ClientIndex k = 0; k < c.client_count(); ++k) {
      std::vector<TaskIndex> act, stb;
      for (const Placement& p : a.actives)
        if (p.client == k) act.push_back(p.task);
      for (const Placement& p : a.standbys)
        if (p.client == k) stb.push_back(p.task);
      std::sort(act.begin(), act.end());
      std::sort(stb.begin(), stb.end());
      EXPECT_EQ(act, c.clients[k].previous_active) << c.clients[k].id;
      EXPECT_EQ(stb, c.clients[k].previous_standby) << c.clients[k].id;
    }
  }
}

// A case built in code is reproduced from the cluster file the kit writes: the host reads it back
// to the same cluster (racks, tags, weights, stores, history, per-thread history, offsets).
TEST(KitClusterFile, ReadsBackAsTheSameCluster) {
  Cluster c = ClusterBuilder()
                  .stateful("0_0", 1000)
                  .nonlogged("1_0")
                  .weighted("2_0", 2.5)
                  .client("x\"y", 2)
                  .rack("r1")
                  .tag("zone", "z 1")
                  .previous_active({"0_0"})
                  .offsets({{"0_0", -2}})
                  .client("b")
                  .rack("r2")
                  .previous_standby({"0_0"})
                  .offsets({{"0_0", 900}})
                  .build();
  c.clients[idx(c, "x\"y")].threads_history = {ThreadHistory{"t-main", {task(c, "0_0")}, {}}};
  const Cluster back = host::parse_cluster(conformance::cluster_json(c), "kit.json");
  ASSERT_EQ(back.task_count(), c.task_count());
  ASSERT_EQ(back.client_count(), c.client_count());
  for (TaskIndex t = 0; t < c.task_count(); ++t) {
    EXPECT_EQ(back.tasks[t].id, c.tasks[t].id);
    EXPECT_EQ(back.tasks[t].weight, c.tasks[t].weight);
    EXPECT_EQ(back.tasks[t].end_offset_sum, c.tasks[t].end_offset_sum);
    EXPECT_EQ(back.tasks[t].stateful, c.tasks[t].stateful);
    EXPECT_EQ(back.tasks[t].has_logged_store, c.tasks[t].has_logged_store);
  }
  for (ClientIndex k = 0; k < c.client_count(); ++k) {
    EXPECT_EQ(back.clients[k].id, c.clients[k].id);
    EXPECT_EQ(back.clients[k].threads, c.clients[k].threads);
    EXPECT_EQ(back.racks[back.clients[k].rack], c.racks[c.clients[k].rack]);
    EXPECT_EQ(back.clients[k].tags, c.clients[k].tags);
    EXPECT_EQ(back.clients[k].previous_active, c.clients[k].previous_active);
    EXPECT_EQ(back.clients[k].previous_standby, c.clients[k].previous_standby);
    ASSERT_EQ(back.clients[k].offset_sums.size(), c.clients[k].offset_sums.size());
    for (std::size_t i = 0; i < c.clients[k].offset_sums.size(); ++i) {
      EXPECT_EQ(back.clients[k].offset_sums[i].task, c.clients[k].offset_sums[i].task);
      EXPECT_EQ(back.clients[k].offset_sums[i].sum, c.clients[k].offset_sums[i].sum);
    }
    ASSERT_EQ(back.clients[k].threads_history.size(), c.clients[k].threads_history.size());
  }
  EXPECT_EQ(back.clients[idx(back, "x\"y")].threads_history[0].name, "t-main");
}

}  // namespace
}  // namespace assignor
