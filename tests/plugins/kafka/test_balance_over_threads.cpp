// balance_tasks_over_threads (plugins/common/kafka_ha) against a literal transcription of Kafka's
// balanceTasksOverThreads: full passes over every ordered client pair in id order, loads as doubles,
// a sorted copy of the source's tasks walked while shouldMoveATask holds. Random groups up to 60
// clients with 1-8 threads, actives and standbys, with and without a move predicate; the fast version
// must make exactly the same moves (same final tasks per client).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "kafka_ha/balance_over_threads.hpp"

namespace assignor::plugins::kafka_ha {
namespace {

struct Naive {
  std::vector<std::uint32_t> threads;
  std::vector<std::set<TaskIndex>> active, standby;

  double count(std::size_t c) const { return static_cast<double>(active[c].size() + standby[c].size()); }
  double load(std::size_t c) const { return count(c) / threads[c]; }
  bool holds(std::size_t c, TaskIndex t) const { return active[c].count(t) || standby[c].count(t); }
  bool should_move(std::size_t s, std::size_t d) const {
    const double skew = load(s) - load(d);
    if (skew <= 0) return false;
    const double proposed = (count(s) - 1.0) / threads[s] - (count(d) + 1.0) / threads[d];
    return proposed >= 0 && proposed < skew;
  }
  void balance(bool standbys, const std::vector<std::uint32_t>& group) {
    auto& role = standbys ? standby : active;
    for (bool keep = true; keep;) {
      keep = false;
      for (std::size_t s = 0; s < threads.size(); ++s)
        for (std::size_t d = 0; d < threads.size(); ++d) {
          if (s == d) continue;
          const std::set<TaskIndex> snapshot = role[s];
          for (auto it = snapshot.begin(); should_move(s, d) && it != snapshot.end(); ++it) {
            if (holds(d, *it) || (!group.empty() && group[s] != group[d])) continue;
            role[s].erase(*it);
            role[d].insert(*it);
            keep = true;
          }
        }
    }
  }
};

Cluster clients_only(const std::vector<std::uint32_t>& threads, std::size_t tasks) {
  Cluster c;
  for (std::size_t t = 0; t < tasks; ++t) {
    Task task;
    task.id = {0, static_cast<std::int32_t>(t)};
    task.stores.push_back({"s", true, 100});
    c.tasks.push_back(std::move(task));
  }
  for (std::size_t i = 0; i < threads.size(); ++i) {
    Client client;
    client.id = "c" + std::to_string(1000 + i);
    client.threads = threads[i];
    c.clients.push_back(std::move(client));
  }
  c.finalize();
  return c;
}

TEST(BalanceOverThreads, MakesExactlyKafkasMovesOnRandomGroups) {
  const std::uint64_t seed = ::testing::UnitTest::GetInstance()->random_seed();
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  std::uint64_t moves = 0;
  for (int round = 0; round < 400; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + ", --gtest_random_seed=" + std::to_string(seed));
    const std::size_t n = pick(1, round < 300 ? 12 : 60);
    std::vector<std::uint32_t> threads(n);
    for (auto& t : threads) t = static_cast<std::uint32_t>(pick(1, 8));
    const std::size_t tasks = pick(0, 200);
    const std::uint32_t standbys = static_cast<std::uint32_t>(pick(0, 2));
    const Cluster cluster = clients_only(threads, tasks);
    AssignmentDraft draft(cluster, standbys);
    Naive naive{threads, std::vector<std::set<TaskIndex>>(n), std::vector<std::set<TaskIndex>>(n)};
    // A skewed start: actives anywhere (often on a few clients), standbys on other clients.
    const std::size_t hot = pick(1, n);
    for (TaskIndex t = 0; t < tasks; ++t) {
      const auto c = static_cast<ClientIndex>(pick(0, hot - 1));
      draft.set_active(t, c);
      naive.active[c].insert(t);
      for (std::uint32_t k = 0; k < standbys; ++k) {
        const auto d = static_cast<ClientIndex>(pick(0, n - 1));
        if (draft.holds(t, d)) continue;
        draft.add_standby(t, d);
        naive.standby[d].insert(t);
      }
    }
    std::vector<std::uint32_t> group;
    if (pick(0, 2) == 0)
      for (std::size_t c = 0; c < n; ++c) group.push_back(static_cast<std::uint32_t>(pick(0, 2)));

    TasksByClient actives = tasks_by_client(draft, BalancedRole::active);
    moves += balance_tasks_over_threads(draft, BalancedRole::active, actives);
    naive.balance(false, {});
    TasksByClient standby_lists = tasks_by_client(draft, BalancedRole::standby);
    MovePredicate allowed;
    if (!group.empty()) allowed = [&](ClientIndex s, ClientIndex d) { return group[s] == group[d]; };
    moves += balance_tasks_over_threads(draft, BalancedRole::standby, standby_lists, allowed);
    naive.balance(true, group);

    const TasksByClient final_actives = tasks_by_client(draft, BalancedRole::active);
    const TasksByClient final_standbys = tasks_by_client(draft, BalancedRole::standby);
    for (std::size_t c = 0; c < n; ++c) {
      ASSERT_THAT(final_actives[c], ::testing::ElementsAreArray(naive.active[c])) << "actives of client " << c;
      ASSERT_THAT(final_standbys[c], ::testing::ElementsAreArray(naive.standby[c])) << "standbys of client " << c;
      ASSERT_EQ(actives[c], final_actives[c]) << "the lists kept up to date";
    }
  }
  EXPECT_GT(moves, 1000u);  // the groups do need balancing
}

}  // namespace
}  // namespace assignor::plugins::kafka_ha
