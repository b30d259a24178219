#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "assignor/balance.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;
using ::testing::ElementsAre;

TEST(ProportionalQuotas, FollowThreads) {
  const Cluster c = ClusterBuilder().client("a", 1).client("b", 2).client("c", 3).build();
  EXPECT_THAT(proportional_quotas(c, 6), ElementsAre(1, 2, 3));
  EXPECT_THAT(proportional_quotas(c, 0), ElementsAre(0, 0, 0));
}

TEST(ProportionalQuotas, RemainderGoesToLowestNextLoadThenClientOrder) {
  const Cluster c = ClusterBuilder().client("a", 1).client("b", 1).client("c", 1).build();
  EXPECT_THAT(proportional_quotas(c, 7), ElementsAre(3, 2, 2));
  EXPECT_THAT(proportional_quotas(c, 2), ElementsAre(1, 1, 0));
}

// With what each client holds now, the remainder goes first to clients holding more than their
// count so far (fewest moves), then by client order; the shares stay the same.
TEST(ProportionalQuotas, RemainderPrefersClientsThatHoldMore) {
  const Cluster c = ClusterBuilder().client("a", 1).client("b", 1).client("c", 1).build();
  const std::vector<std::uint32_t> held{0, 1, 5};
  EXPECT_THAT(proportional_quotas(c, 2, held), ElementsAre(0, 1, 1));
  EXPECT_THAT(proportional_quotas(c, 7, held), ElementsAre(2, 2, 3));
  const std::vector<std::uint32_t> nobody{0, 0, 0};
  EXPECT_THAT(proportional_quotas(c, 2, nobody), ElementsAre(1, 1, 0));
  const std::vector<std::uint32_t> wrong{1, 2};
  EXPECT_THROW(proportional_quotas(c, 2, wrong), std::invalid_argument);
}

TEST(ProportionalQuotas, AreBalancedForManyShapes) {
  // No client may give one task to another and lower the larger per-thread load.
  for (std::uint32_t total = 0; total < 60; ++total) {
    const Cluster c = ClusterBuilder().client("a", 1).client("b", 4).client("c", 3).client("d", 7).build();
    const auto q = proportional_quotas(c, total);
    std::uint64_t sum = 0;
    for (auto x : q) sum += x;
    ASSERT_EQ(sum, total);
    for (ClientIndex i = 0; i < 4; ++i)
      for (ClientIndex j = 0; j < 4; ++j)
        if (q[i] > 0) {
          EXPECT_LE(compare_load(q[i], c.clients[i].threads, q[j] + 1, c.clients[j].threads), 0)
              << "total " << total << " clients " << i << "," << j;
        }
  }
}

TEST(LoadQueue, OrdersByLoadPerThreadThenIndex) {
  LoadQueue q({1, 2, 2}, {1, 1, 2});
  EXPECT_EQ(q.least(), 1u);  // 0.5 < 1 == 1
  q.add(1, 2);               // b: 1.5
  EXPECT_EQ(q.least(), 0u);  // a 1, c 1: tie by index
  EXPECT_EQ(q.least_where([](ClientIndex c) { return c != 0; }), 2u);
  EXPECT_EQ(q.least_where([](ClientIndex) { return false; }), kNoClient);
}

TEST(LoadQueue, TieKeysOrderEquallyLoadedClientsBeforeTheIndex) {
  LoadQueue q({1, 1, 2}, {1, 1, 2}, {5, 3, 3});  // every load is 1
  EXPECT_EQ(q.least(), 1u);                      // key 3, index 1 before key 3, index 2
  q.set_tie_key(1, 9);
  EXPECT_EQ(q.least(), 2u);
  EXPECT_EQ(q.tie_key(1), 9u);
  q.add(2, 1);  // the load still comes first: 1.5
  EXPECT_EQ(q.least(), 0u);
  std::vector<ClientIndex> order(q.begin(), q.end());
  EXPECT_THAT(order, ElementsAre(0, 1, 2));
  EXPECT_THROW(LoadQueue({1, 1}, {0, 0}, {1}), std::invalid_argument);
  EXPECT_THROW(LoadQueue({1, 1}, {0}), std::invalid_argument);
}

TEST(Standbys, LeastLoadedClientsWithoutTheTask) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .stateful("0_1", 10)
                        .stateless("1_0")
                        .client("a")
                        .client("b")
                        .client("c")
                        .build();
  AssignmentDraft d(c, 1);
  d.set_active(0, 0);
  d.set_active(1, 0);
  d.set_active(2, 1);
  EXPECT_EQ(place_standbys_least_loaded(c, d), 0u);
  EXPECT_EQ(d.role(0, 2), Role::standby);  // c is empty
  EXPECT_EQ(d.role(1, 1), Role::standby);  // then b(1) and c(1) tie: the lower index wins
}

TEST(Standbys, ShortfallWhenTooFewClients) {
  const Cluster c = ClusterBuilder().stateful("0_0", 10).client("only").build();
  AssignmentDraft d(c, 2);
  d.set_active(0, 0);
  EXPECT_EQ(place_standbys_least_loaded(c, d), 2u);
  EXPECT_EQ(d.standby_count(0), 0u);
}

TEST(Stateless, FillToLowestActiveLoadPerThread) {
  const Cluster c = ClusterBuilder()
                        .stateless("0_0")
                        .stateless("0_1")
                        .stateless("0_2")
                        .stateless("0_3")
                        .client("a", 1)
                        .client("b", 3)
                        .build();
  AssignmentDraft d(c, 0);
  fill_stateless_by_active_load(c, d);
  EXPECT_EQ(d.active_count(0), 1u);
  EXPECT_EQ(d.active_count(1), 3u);
}

TEST(Stateless, StickyFillKeepsPreviousOwnersWithinTheirShare) {
  // Six tasks over three one-thread clients: a share of two each. a ran all four stateless tasks
  // and gets the stateful 0_0 first, so it keeps one stateless task; b ran 1_3 and keeps it; the
  // rest go by active load.
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 10)
                        .stateful("0_1", 10)
                        .stateless("1_0")
                        .stateless("1_1")
                        .stateless("1_2")
                        .stateless("1_3")
                        .client("a")
                        .previous_active({"1_0", "1_1", "1_2"})
                        .client("b")
                        .previous_active({"1_3"})
                        .client("c")
                        .build();
  AssignmentDraft d(c, 0);
  d.set_active(0, 0);
  d.set_active(1, 2);
  EXPECT_EQ(fill_stateless_sticky(c, d), 2u);
  EXPECT_EQ(d.active(2), 0u);  // 1_0 stays on a (a: 0_0 + 1_0 = its share)
  EXPECT_EQ(d.active(5), 1u);  // 1_3 stays on b
  EXPECT_EQ(d.active(3), 1u);  // 1_1 to the least loaded: b (1) before c (1) by index
  EXPECT_EQ(d.active(4), 2u);  // 1_2 to c (1)
  for (ClientIndex k = 0; k < 3; ++k) EXPECT_EQ(d.active_count(k), 2u);
}

TEST(Stateless, StickyFillLeavesPlacedTasksAndGoneOwnersAlone) {
  const Cluster c =
      ClusterBuilder().stateless("1_0").stateless("1_1").client("a", 2).client("b", 2).previous_active({"1_1"}).build();
  AssignmentDraft d(c, 0);
  d.set_active(1, 0);  // the strategy already placed 1_1 on a: it stays there
  EXPECT_EQ(fill_stateless_sticky(c, d), 0u);
  EXPECT_EQ(d.active(1), 0u);
  EXPECT_EQ(d.active(0), 1u);  // no previous owner: least loaded
}

}  // namespace
}  // namespace assignor

namespace assignor {
namespace {

TEST(Standbys, BalancingEvensOutWhatGreedyPlacementLeavesUneven) {
  ClusterBuilder b;
  for (int p = 0; p < 8; ++p) b.stateful("0_" + std::to_string(p), 10);
  b.client("a").client("b").client("c").client("d");
  const Cluster c = b.build();
  AssignmentDraft d(c, 2);
  for (TaskIndex t = 0; t < 8; ++t) d.set_active(t, t % 4);
  place_standbys_least_loaded(c, d);
  balance_standbys(c, d);
  for (ClientIndex i = 0; i < 4; ++i) EXPECT_EQ(d.total_count(i), 6u) << c.clients[i].id;
  for (TaskIndex t = 0; t < 8; ++t) EXPECT_EQ(d.standby_count(t), 2u);
}

TEST(Standbys, BalancingNeverMovesAStandbyOntoAClientHoldingTheTask) {
  // b holds both tasks as active; a holds both standbys and is heavier, but cannot give them to b.
  const Cluster c = ClusterBuilder().stateful("0_0", 10).stateful("0_1", 10).client("a").client("b").build();
  AssignmentDraft d(c, 1);
  d.set_active(0, 1);
  d.set_active(1, 1);
  d.add_standby(0, 0);
  d.add_standby(1, 0);
  EXPECT_EQ(balance_standbys(c, d), 0u);
  EXPECT_EQ(d.role(0, 0), Role::standby);
}

}  // namespace
}  // namespace assignor
