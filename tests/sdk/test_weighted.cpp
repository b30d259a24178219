// Weights (assignor/weighted.hpp): the weight-per-thread order and the weighted_load_spread metric.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "assignor/metrics.hpp"
#include "assignor/weighted.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

// ---- the metric ------------------------------------------------------------------------------

TEST(WeightedLoadSpread, IsMaxMinusMinOfActiveWeightPerThread) {
  const Cluster c = ClusterBuilder()
                        .weighted("0_0", 3.0)
                        .weighted("0_1", 1.0)
                        .weighted("0_2", 0.5)
                        .weighted("0_3", 7.0)
                        .client("a", 2)
                        .client("b", 1)
                        .client("c", 1)
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
                        .stateful("0_0", 100)
                        .stateful("0_1", 100)
                        .stateless("1_0")
                        .stateless("1_1")
                        .stateless("1_2")
                        .client("a", 2)
                        .client("b", 1)
                        .client("c", 3)
                        .build();
  Assignment a;
  a.actives = {{0, 0}, {1, 0}, {2, 0}, {3, 1}, {4, 1}};  // a 3/2, b 2/1, c 0
  const LagModel lags(c, AssignmentSettings{});
  const Metrics m = compute_metrics(c, AssignmentSettings{}, lags, a);
  EXPECT_DOUBLE_EQ(m.weighted_load_spread, 2.0);
  EXPECT_DOUBLE_EQ(m.weighted_load_spread, m.active_load_spread);
}

TEST(WeightedLoadSpread, ZeroWithoutClients) {
  const Cluster c = ClusterBuilder().weighted("0_0", 2.0).build();
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

}  // namespace
}  // namespace assignor
