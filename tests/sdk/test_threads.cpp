#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "assignor/threads.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TaskIndex tidx(const Cluster& c, const std::string& id) { return *c.find_task(*parse_task_id(id)); }

// Adds per-thread history to the only client of a built cluster.
void history(Cluster& c,
             std::vector<std::tuple<std::string, std::vector<std::string>, std::vector<std::string>>> threads) {
  for (auto& [name, active, standby] : threads) {
    ThreadHistory h;
    h.name = name;
    for (auto& t : active) h.previous_active.push_back(tidx(c, t));
    for (auto& t : standby) h.previous_standby.push_back(tidx(c, t));
    c.clients[0].threads_history.push_back(std::move(h));
  }
}

std::vector<std::string> names(const Cluster& c, const std::vector<TaskIndex>& tasks) {
  std::vector<std::string> out;
  for (TaskIndex t : tasks) out.push_back(to_string(c.tasks[t].id));
  return out;
}

TEST(Threads, StatefulActivesGoBackToTheirPreviousThread) {
  Cluster c =
      ClusterBuilder().stateful("0_0", 10).stateful("0_1", 10).client("a", 2).previous_active({"0_0", "0_1"}).build();
  history(c, {{"t-x", {"0_1"}, {}}, {"t-y", {"0_0"}, {}}});
  Assignment a;
  a.actives = {{0, 0}, {1, 0}};
  const auto d = distribute_over_threads(c, LagModel(c, {}), a);
  const auto& th = d.clients[0].threads;
  ASSERT_EQ(th.size(), 2u);
  EXPECT_EQ(th[0].name, "t-x");
  EXPECT_THAT(names(c, th[0].active), ElementsAre("0_1"));
  EXPECT_THAT(names(c, th[1].active), ElementsAre("0_0"));
}

TEST(Threads, AStrategyThatNamesTheThreadsGetsItsSplitAsIs) {
  // Placement::thread (a KIP-1071 strategy's member choice) wins over the SDK's distribution, which
  // would put 0_0 back on t-y and spread the rest.
  Cluster c = ClusterBuilder()
                  .stateful("0_0", 10)
                  .stateful("0_1", 10)
                  .stateless("1_0")
                  .client("a", 3)
                  .previous_active({"0_0", "0_1"})
                  .build();
  history(c, {{"t-x", {"0_1"}, {}}, {"t-y", {"0_0"}, {}}});
  Assignment a;
  a.actives = {{0, 0, 0}, {1, 0, 0}, {2, 0, 2}};
  const auto d = distribute_over_threads(c, LagModel(c, {}), a);
  const auto& th = d.clients[0].threads;
  ASSERT_EQ(th.size(), 2u);  // t-y holds nothing and is left out
  EXPECT_EQ(th[0].name, "t-x");
  EXPECT_THAT(names(c, th[0].active), ElementsAre("0_0", "0_1"));
  EXPECT_EQ(th[1].name, "t0");  // the third thread: the first generated name
  EXPECT_EQ(th[1].index, 2u);
  EXPECT_THAT(names(c, th[1].active), ElementsAre("1_0"));
  EXPECT_EQ(thread_load_spread(d), 2u);
}

TEST(Threads, PreviousThreadKeepsItsLeastLaggingTasksUpToTheMinimum) {
  // t0 held all four tasks; with two threads it keeps two: the two it is most caught up on.
  Cluster c = ClusterBuilder()
                  .stateful("0_0", 1000)
                  .stateful("0_1", 1000)
                  .stateful("0_2", 1000)
                  .stateful("0_3", 1000)
                  .client("a", 2)
                  .previous_active({"0_0", "0_1", "0_2", "0_3"})
                  .offsets({{"0_0", 100}, {"0_1", 990}, {"0_2", 500}, {"0_3", 999}})
                  .build();
  history(c, {{"t0", {"0_0", "0_1", "0_2", "0_3"}, {}}});
  Assignment a;
  for (TaskIndex t = 0; t < 4; ++t) a.actives.push_back({t, 0});
  const auto d = distribute_over_threads(c, LagModel(c, {}), a);
  EXPECT_THAT(names(c, d.clients[0].threads[0].active), ElementsAre("0_1", "0_3"));
  EXPECT_THAT(names(c, d.clients[0].threads[1].active), ElementsAre("0_0", "0_2"));
  EXPECT_EQ(d.clients[0].threads[1].name, "t1");
}

TEST(Threads, CountsStayWithinOneAcrossActivesStandbysAndStateless) {
  Cluster c = ClusterBuilder()
                  .stateful("0_0", 10)
                  .stateful("0_1", 10)
                  .stateful("0_2", 10)
                  .stateful("0_3", 10)
                  .stateful("1_0", 10)
                  .stateful("1_1", 10)
                  .stateful("1_2", 10)
                  .stateless("2_0")
                  .stateless("2_1")
                  .client("a", 3)
                  .client("b", 1)
                  .build();
  Assignment a;
  for (TaskIndex t = 0; t < 4; ++t) a.actives.push_back({t, 0});  // 4 stateful actives on a
  for (TaskIndex t = 4; t < 7; ++t) {
    a.actives.push_back({t, 1});
    a.standbys.push_back({t, 0});  // 3 standbys on a
  }
  a.actives.push_back({7, 0});
  a.actives.push_back({8, 0});  // 2 stateless on a
  const auto d = distribute_over_threads(c, LagModel(c, {}), a);
  std::size_t total = 0;
  for (const auto& th : d.clients[0].threads) {
    EXPECT_EQ(th.load(), 3u) << th.name;
    total += th.load();
  }
  EXPECT_EQ(total, 9u);
  EXPECT_EQ(thread_load_spread(d), 0u);
}

TEST(Threads, StatelessTasksIgnoreHistory) {
  Cluster c = ClusterBuilder().stateless("0_0").stateless("0_1").client("a", 2).previous_active({"0_0", "0_1"}).build();
  history(c, {{"t0", {"0_0", "0_1"}, {}}});
  Assignment a;
  a.actives = {{0, 0}, {1, 0}};
  const auto d = distribute_over_threads(c, LagModel(c, {}), a);
  EXPECT_THAT(names(c, d.clients[0].threads[0].active), ElementsAre("0_0"));
  EXPECT_THAT(names(c, d.clients[0].threads[1].active), ElementsAre("0_1"));
}

TEST(Threads, StandbysReturnToTheirThreadAndWarmupsAreKeptApart) {
  Cluster c = ClusterBuilder()
                  .stateful("0_0", 10)
                  .stateful("0_1", 10)
                  .client("a", 2)
                  .previous_standby({"0_1"})
                  .client("b", 1)
                  .build();
  history(c, {{"t0", {}, {}}, {"t1", {}, {"0_1"}}});
  Assignment a;
  a.actives = {{0, 1}, {1, 1}};
  a.standbys = {{1, 0}};
  a.warmups = {{0, 0}};
  const auto d = distribute_over_threads(c, LagModel(c, {}), a);
  EXPECT_THAT(names(c, d.clients[0].threads[1].standby), ElementsAre("0_1"));
  EXPECT_THAT(names(c, d.clients[0].threads[0].warmup), ElementsAre("0_0"));
  EXPECT_THAT(d.clients[0].threads[0].standby, IsEmpty());
}

TEST(Threads, NamesFromHistoryThenGeneratedSkippingTakenOnes) {
  Client client;
  client.threads = 4;
  client.threads_history = {{"t1", {}, {}}, {"consumer-7", {}, {}}};
  EXPECT_THAT(thread_names(client), ElementsAre("t1", "consumer-7", "t0", "t2"));
}

TEST(Threads, RandomAssignmentsAreWithinOneAndComplete) {
  std::mt19937_64 rng(::testing::UnitTest::GetInstance()->random_seed());
  for (int round = 0; round < 300; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    ClusterBuilder b;
    const int n_tasks = 1 + static_cast<int>(rng() % 30);
    for (int t = 0; t < n_tasks; ++t) {
      if (rng() % 3 == 0)
        b.stateless("0_" + std::to_string(t));
      else
        b.stateful("0_" + std::to_string(t), 100);
    }
    b.client("a", 1 + static_cast<std::uint32_t>(rng() % 6)).client("b", 1);
    Cluster c = b.build();
    // Random previous threads for a's stateful tasks.
    const auto threads = c.clients[0].threads;
    c.clients[0].threads_history.resize(threads);
    for (std::uint32_t i = 0; i < threads; ++i) c.clients[0].threads_history[i].name = "p" + std::to_string(i);
    Assignment a;
    std::size_t expected = 0;
    for (TaskIndex t = 0; t < c.task_count(); ++t) {
      const bool on_a = rng() % 2 == 0;
      a.actives.push_back({t, on_a ? 0u : 1u});
      expected += on_a;
      if (c.tasks[t].stateful && !on_a && rng() % 2 == 0) {
        a.standbys.push_back({t, 0});
        ++expected;
      }
      if (c.tasks[t].stateful && rng() % 2 == 0)
        c.clients[0].threads_history[rng() % threads].previous_active.push_back(t);
    }
    for (auto& h : c.clients[0].threads_history) std::sort(h.previous_active.begin(), h.previous_active.end());
    const auto d = distribute_over_threads(c, LagModel(c, {}), a);
    std::size_t total = 0, lo = SIZE_MAX, hi = 0;
    for (const auto& th : d.clients[0].threads) {
      total += th.load();
      lo = std::min(lo, th.load());
      hi = std::max(hi, th.load());
    }
    EXPECT_EQ(total, expected);
    EXPECT_LE(hi - lo, 1u);
  }
}

}  // namespace
}  // namespace assignor
