// Load-aware packing (assignor/weighted.hpp) and the weighted_load_spread metric.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "assignor/metrics.hpp"
#include "assignor/weighted.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

// A task of the given weight: stateless, or stateful with one logged store when end_offset >= 0.
Task weighted(const std::string& id, double weight, std::int64_t end_offset = -1) {
  Task t;
  t.id = *parse_task_id(id);
  if (end_offset >= 0) t.stores.push_back({"store", true, end_offset});
  t.weight = weight;
  return t;
}

std::string active_of(const Cluster& c, const AssignmentDraft& d, const std::string& task) {
  const ClientIndex client = d.active(*c.find_task(*parse_task_id(task)));
  return client == kNoClient ? "" : c.clients[client].id;
}

// max - min over clients of (weight of actives) / threads, from the draft.
double draft_spread(const Cluster& c, const AssignmentDraft& d) {
  return weighted_load_spread(c, d.finish(false));
}

// ---- the metric ------------------------------------------------------------------------------

TEST(WeightedLoadSpread, IsMaxMinusMinOfActiveWeightPerThread) {
  const Cluster c = ClusterBuilder()
                        .task(weighted("0_0", 3.0)).task(weighted("0_1", 1.0)).task(weighted("0_2", 0.5))
                        .task(weighted("0_3", 7.0))
                        .client("a", 2).client("b", 1).client("c", 1)
                        .build();
  Assignment a;
  a.actives = {{0, 0}, {1, 0}, {2, 1}, {3, 2}};  // a: 4 / 2 = 2; b: 0.5; c: 7
  a.standbys = {{3, 0}};                         // standbys and warmups do not count
  EXPECT_DOUBLE_EQ(weighted_load_spread(c, a), 6.5);
  EXPECT_THAT(active_weights(c, a), ::testing::ElementsAre(4.0, 0.5, 7.0));
  const LagModel lags(c, AssignmentSettings{});
  const Metrics m = compute_metrics(c, AssignmentSettings{}, lags, a);
  EXPECT_DOUBLE_EQ(m.weighted_load_spread, 6.5);
  EXPECT_DOUBLE_EQ(m.active_load_spread, 0.0);  // 1 task per thread everywhere: counts hide the skew
}

TEST(WeightedLoadSpread, EqualsActiveLoadSpreadWhenEveryTaskWeighsOne) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 100).stateful("0_1", 100).stateless("1_0").stateless("1_1")
                        .stateless("1_2")
                        .client("a", 2).client("b", 1).client("c", 3)
                        .build();
  Assignment a;
  a.actives = {{0, 0}, {1, 0}, {2, 0}, {3, 1}, {4, 1}};  // a 3/2, b 2/1, c 0
  const LagModel lags(c, AssignmentSettings{});
  const Metrics m = compute_metrics(c, AssignmentSettings{}, lags, a);
  EXPECT_DOUBLE_EQ(m.weighted_load_spread, 2.0);
  EXPECT_DOUBLE_EQ(m.weighted_load_spread, m.active_load_spread);
}

TEST(WeightedLoadSpread, ZeroWithoutClients) {
  const Cluster c = ClusterBuilder().task(weighted("0_0", 2.0)).build();
  EXPECT_EQ(weighted_load_spread(c, Assignment{}), 0.0);
}

// ---- the queue -------------------------------------------------------------------------------

TEST(CompareWeightLoad, CrossMultipliesWithoutDividing) {
  EXPECT_EQ(compare_weight_load(3.0, 2, 1.5, 1), 0);
  EXPECT_LT(compare_weight_load(1.0, 3, 0.5, 1), 0);
  EXPECT_GT(compare_weight_load(0.5, 1, 1.0, 3), 0);
  EXPECT_EQ(compare_weight_load(0.0, 4, 0.0, 1), 0);
}

TEST(WeightedLoadQueue, OrdersByWeightPerThreadTiesByIndex) {
  WeightedLoadQueue q({2, 1, 1, 4}, {2.0, 1.0, 0.5, 4.0});  // loads 1, 1, 0.5, 1
  EXPECT_EQ(q.least(), 2u);
  EXPECT_EQ(q.most(), 3u);  // ties at 1: by index, the largest last
  q.add(2, 1.0);            // 1.5
  EXPECT_EQ(q.least(), 0u);
  EXPECT_EQ(q.most(), 2u);
  EXPECT_DOUBLE_EQ(q.weight(2), 1.5);
  std::vector<ClientIndex> order(q.begin(), q.end());
  EXPECT_THAT(order, ::testing::ElementsAre(0u, 1u, 3u, 2u));
}

// ---- place_weighted_actives -------------------------------------------------------------------

TEST(PlaceWeightedActives, FreshGroupBalancesWeightNotCount) {
  const Cluster c = ClusterBuilder()
                        .task(weighted("0_0", 6.0)).task(weighted("0_1", 2.0)).task(weighted("0_2", 2.0))
                        .task(weighted("0_3", 2.0))
                        .client("a").client("b")
                        .build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "a");  // heaviest first, to the least loaded (ties by index)
  EXPECT_EQ(active_of(c, d, "0_1"), "b");
  EXPECT_EQ(active_of(c, d, "0_2"), "b");
  EXPECT_EQ(active_of(c, d, "0_3"), "b");
  EXPECT_EQ(draft_spread(c, d), 0.0);
  EXPECT_EQ(r.to_least_loaded, 4u);
  EXPECT_EQ(r.largest_weight, 6.0);
}

TEST(PlaceWeightedActives, AnOverloadedOwnerShedsItsHeavyTaskNotItsLightOnes) {
  // a ran everything (weight 10); the average is 5 per client. Keeping the lightest first, a keeps
  // the five tasks of weight 1 and only the task of weight 5 moves.
  ClusterBuilder b;
  b.task(weighted("0_0", 5.0));
  for (int p = 1; p <= 5; ++p) b.task(weighted("0_" + std::to_string(p), 1.0));
  const Cluster c = b.client("a").previous_active({"0_0", "0_1", "0_2", "0_3", "0_4", "0_5"}).client("b").build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "b");
  for (int p = 1; p <= 5; ++p) EXPECT_EQ(active_of(c, d, "0_" + std::to_string(p)), "a");
  EXPECT_EQ(r.kept_previous, 5u);
  EXPECT_EQ(r.to_least_loaded, 1u);
  EXPECT_EQ(draft_spread(c, d), 0.0);
}

TEST(PlaceWeightedActives, StatefulTasksStayBeforeStatelessOnes) {
  // Average 2 per client: a can keep 0_0 (stateful, 2) or both stateless tasks (1 + 1), not all.
  const Cluster c = ClusterBuilder()
                        .task(weighted("0_0", 2.0, 50000)).task(weighted("1_0", 1.0)).task(weighted("1_1", 1.0))
                        .client("a").previous_active({"0_0", "1_0", "1_1"}).offsets({{"0_0", -2}})
                        .client("b")
                        .build();
  AssignmentDraft d(c, 0);
  place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "a");
  EXPECT_EQ(active_of(c, d, "1_0"), "b");
  EXPECT_EQ(active_of(c, d, "1_1"), "b");
}

TEST(PlaceWeightedActives, AStatefulTaskLeavesANotCaughtUpOwnerForACaughtUpClient) {
  AssignmentSettings s;
  s.acceptable_recovery_lag = 100;
  // a ran 0_0 but reports a large lag (its state is suspect or old); b is caught up.
  const Cluster c = ClusterBuilder()
                        .task(weighted("0_0", 3.0, 100000)).task(weighted("1_0", 3.0))
                        .client("a").previous_active({"0_0"}).offsets({{"0_0", 1000}})
                        .client("b").offsets({{"0_0", 99950}})
                        .build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, s), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "b");
  EXPECT_EQ(active_of(c, d, "1_0"), "a");
  EXPECT_EQ(r.kept_previous, 0u);
  EXPECT_EQ(r.to_caught_up, 1u);
}

TEST(PlaceWeightedActives, TheMostLoadedHandsOverATaskWhileThatLowersTheLarger) {
  // Average 7. Pass 1: a keeps 0_1 (3; 3 + 8 > 7), b keeps 0_2 (3). Pass 2: 0_0 (8) goes back to a,
  // the least loaded (ties by index): a 11, b 3. Pass 3: a hands 0_1 to b: a 8, b 6.
  const Cluster c = ClusterBuilder()
                        .task(weighted("0_0", 8.0)).task(weighted("0_1", 3.0)).task(weighted("0_2", 3.0))
                        .client("a").previous_active({"0_0", "0_1"})
                        .client("b").previous_active({"0_2"})
                        .build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "a");
  EXPECT_EQ(active_of(c, d, "0_1"), "b");
  EXPECT_EQ(active_of(c, d, "0_2"), "b");
  EXPECT_EQ(r.kept_previous, 2u);
  EXPECT_EQ(r.back_to_previous, 1u);
  EXPECT_EQ(r.moved_to_balance, 1u);
  EXPECT_DOUBLE_EQ(draft_spread(c, d), 2.0);
}

TEST(PlaceWeightedActives, PolishHandsOverTheTaskClosestToTheEvenSplitStatelessFirst) {
  // Average 7. Pass 1: a keeps 0_1 and 1_0 (1 + 1; + 6 > 7), b keeps 0_2 (6). Pass 2: 0_0 (6) goes
  // back to a, the least loaded: a 8, b 6. Pass 3: the even split is 1: of the two tasks of weight
  // 1, the stateless 1_0 moves (free), not the stateful 0_1.
  const Cluster c = ClusterBuilder()
                        .task(weighted("0_0", 6.0)).task(weighted("0_1", 1.0, 5000)).task(weighted("0_2", 6.0))
                        .task(weighted("1_0", 1.0))
                        .client("a").previous_active({"0_0", "0_1", "1_0"}).offsets({{"0_1", -2}})
                        .client("b").previous_active({"0_2"})
                        .build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_0"), "a");
  EXPECT_EQ(active_of(c, d, "0_1"), "a");
  EXPECT_EQ(active_of(c, d, "0_2"), "b");
  EXPECT_EQ(active_of(c, d, "1_0"), "b");
  EXPECT_EQ(r.moved_to_balance, 1u);
  EXPECT_EQ(draft_spread(c, d), 0.0);
}

TEST(PlaceWeightedActives, ActivesAlreadyInTheDraftStayAndCount) {
  const Cluster c = ClusterBuilder()
                        .task(weighted("0_0", 4.0)).task(weighted("0_1", 2.0)).task(weighted("0_2", 2.0))
                        .client("a").client("b")
                        .build();
  AssignmentDraft d(c, 0);
  d.set_active(1, 0);  // 0_1 on a
  place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(active_of(c, d, "0_1"), "a");
  EXPECT_EQ(active_of(c, d, "0_0"), "b");
  EXPECT_EQ(active_of(c, d, "0_2"), "a");
}

TEST(PlaceWeightedActives, NoClientsNoPlacement) {
  const Cluster c = ClusterBuilder().task(weighted("0_0", 4.0)).build();
  AssignmentDraft d(c, 0);
  const auto r = place_weighted_actives(c, LagModel(c, AssignmentSettings{}), d);
  EXPECT_EQ(d.active(0), kNoClient);
  EXPECT_EQ(r.to_least_loaded, 0u);
}

// The guarantee on random groups: every task placed, and weight per thread within
// [min, min + w_max / t_min] whatever the history, lags, threads and weight distribution.
TEST(PlaceWeightedActives, RandomGroupsAreBalancedWithinTheLargestWeight) {
  const std::uint64_t base = ::testing::UnitTest::GetInstance()->random_seed();
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const std::uint64_t seed = base * 1000003 + i;
    SCOPED_TRACE("seed " + std::to_string(seed) + " (GTEST_RANDOM_SEED " + std::to_string(base) + ", case " +
                 std::to_string(i) + ")");
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
    const auto n_tasks = pick(1, 40);
    const auto n_clients = pick(1, 7);
    const auto kind = pick(0, 3);  // 0 unit, 1 uniform 0.01..10, 2 Zipf-like, 3 one huge task
    Cluster c;
    for (std::uint64_t t = 0; t < n_tasks; ++t) {
      Task task;
      task.id = {0, static_cast<std::int32_t>(t)};
      if (pick(0, 1) == 1) task.stores.push_back({"s", true, static_cast<std::int64_t>(pick(0, 100000))});
      task.weight = kind == 0   ? 1.0
                    : kind == 1 ? static_cast<double>(pick(1, 1000)) / 100.0
                    : kind == 2 ? static_cast<double>(std::max<std::uint64_t>(1, (2000 + t + 1) / (2 * (t + 1)))) / 100.0
                                : (t == 0 ? 50.0 : static_cast<double>(pick(1, 300)) / 100.0);
      c.tasks.push_back(std::move(task));
    }
    for (std::uint64_t k = 0; k < n_clients; ++k) {
      Client client;
      client.id = "c" + std::to_string(k);
      client.threads = static_cast<std::uint32_t>(pick(1, 4));
      c.clients.push_back(std::move(client));
    }
    for (TaskIndex t = 0; t < n_tasks; ++t) {
      if (pick(0, 3) == 0) continue;
      Client& owner = c.clients[pick(0, n_clients - 1)];
      owner.previous_active.push_back(t);
      if (!c.tasks[t].stores.empty() && pick(0, 3) != 0) owner.offset_sums.push_back({t, -2});
    }
    c.finalize();
    AssignmentSettings s;
    s.acceptable_recovery_lag = static_cast<std::int64_t>(pick(0, 1)) * 10000;
    const LagModel lags(c, s);
    AssignmentDraft d(c, 0);
    const auto r = place_weighted_actives(c, lags, d);
    std::uint32_t min_threads = 1024;
    double w_max = 0;
    for (const auto& client : c.clients) min_threads = std::min(min_threads, client.threads);
    for (const auto& t : c.tasks) w_max = std::max(w_max, t.weight);
    for (TaskIndex t = 0; t < n_tasks; ++t) ASSERT_NE(d.active(t), kNoClient) << "task " << t;
    EXPECT_EQ(r.kept_previous + r.back_to_previous + r.to_caught_up + r.to_least_loaded, n_tasks);
    EXPECT_LE(r.moved_to_balance, n_tasks);
    EXPECT_EQ(r.largest_weight, w_max);
    EXPECT_LE(draft_spread(c, d), w_max / min_threads + 1e-9);
  }
}

}  // namespace
}  // namespace assignor
