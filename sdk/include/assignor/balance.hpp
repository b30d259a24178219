// Balancing helpers that strategies share: capacity-weighted least-loaded choice, proportional
// quotas, standby placement and stateless fill.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"

namespace assignor {

// Clients ordered by load = count / threads (exact), ties by a tie key (lowest first, 0 unless
// given), then by client index. O(log n) per update.
//
//   // Among equally loaded clients, prefer the one holding fewest tasks of this sub-topology:
//   LoadQueue queue(client_threads(cluster), counts, same_subtopology_counts);
//   queue.set_tie_key(c, same_subtopology_counts[c] + 1);
class LoadQueue {
 public:
  LoadQueue(std::vector<std::uint32_t> threads, std::vector<std::uint32_t> counts);
  // tie_keys has one entry per client (std::invalid_argument otherwise).
  LoadQueue(std::vector<std::uint32_t> threads, std::vector<std::uint32_t> counts, std::vector<std::uint64_t> tie_keys);

  bool empty() const noexcept { return order_.empty(); }
  ClientIndex least() const noexcept { return *order_.begin(); }
  // The least-loaded client satisfying `ok`, or kNoClient. Walks up from the least loaded.
  template <class Pred>
  ClientIndex least_where(Pred&& ok) const {
    for (ClientIndex c : order_) {
      if (ok(c)) return c;
    }
    return kNoClient;
  }
  void add(ClientIndex c, std::int64_t delta);
  // Re-keys one client among those it ties with. O(log n).
  void set_tie_key(ClientIndex c, std::uint64_t key);
  std::uint64_t tie_key(ClientIndex c) const noexcept { return tie_keys_[c]; }
  // Clients from least to most loaded.
  auto begin() const noexcept { return order_.begin(); }
  auto end() const noexcept { return order_.end(); }
  auto rbegin() const noexcept { return order_.rbegin(); }
  auto rend() const noexcept { return order_.rend(); }
  std::uint32_t count(ClientIndex c) const noexcept { return counts_[c]; }
  std::uint32_t threads(ClientIndex c) const noexcept { return threads_[c]; }

 private:
  struct ByLoad {
    const LoadQueue* q;
    bool operator()(ClientIndex a, ClientIndex b) const noexcept;
  };
  std::vector<std::uint32_t> threads_;
  std::vector<std::uint32_t> counts_;
  std::vector<std::uint64_t> tie_keys_;
  std::set<ClientIndex, ByLoad> order_;
};

std::vector<std::uint32_t> client_threads(const Cluster& cluster);

// Splits `total` tasks over clients in proportion to their threads (highest-averages method: each
// next task goes to the client with the lowest (count + 1) / threads, ties by client index). The
// result is balanced: no client could give a task to another and lower the larger per-thread load.
// With `held` (one entry per client: the tasks it holds now), ties go first to a client holding
// more than its count so far, so that the remainder lands where it moves the fewest tasks.
std::vector<std::uint32_t> proportional_quotas(const Cluster& cluster, std::uint64_t total,
                                               std::span<const std::uint32_t> held = {});

// Places num_standby_replicas standbys of every task with a logged store, in task order, each on
// the least-loaded client (active + standby + warmup per thread) that does not hold the task.
// Returns the number of standbys that could not be placed (too few clients).
std::uint64_t place_standbys_least_loaded(const Cluster& cluster, AssignmentDraft& draft);

// Moves standbys from the most to the least loaded clients (active + standby + warmup per thread)
// while a move lowers the larger load and the receiving client does not hold the task: what
// Kafka's balanceTasksOverThreads does for standbys, without its quadratic pairwise passes.
// Returns the number of standbys moved.
std::uint64_t balance_standbys(const Cluster& cluster, AssignmentDraft& draft);

// Gives every stateless task without an active, in task order, to the client with the lowest
// active tasks per thread (ties by client index).
void fill_stateless_by_active_load(const Cluster& cluster, AssignmentDraft& draft);

// The same for the given tasks, in the given order (e.g. Kafka's stateless set, which also holds
// the tasks whose stores are all non-logged).
void fill_by_active_load(const Cluster& cluster, AssignmentDraft& draft, std::span<const TaskIndex> tasks);

// Stateless fill by total load with sub-topology spread: each of `tasks` without an active, in the
// given order, goes to the client with the fewest tasks held per thread (actives, standbys and
// warmups: the load a thread really carries), among equally loaded clients to the one with the
// fewest actives of the task's sub-topology, then the lowest index. Call it last, after standbys
// and warmups are placed. O(tasks log clients) when `tasks` is in task order (sub-topology by
// sub-topology; another order costs a re-key per change of sub-topology).
void fill_by_total_load(const Cluster& cluster, AssignmentDraft& draft, std::span<const TaskIndex> tasks);
// The same for every stateless task without an active, in task order.
void fill_stateless_by_total_load(const Cluster& cluster, AssignmentDraft& draft);

// Sticky stateless fill: every stateless task without an active, in task order, goes back to its
// previous active owner while that client holds fewer actives than its proportional_quotas() share
// of all tasks (the remainder of the shares to the clients that ran more tasks before, so that a
// balanced group keeps its layout); the others then go by fill_stateless_by_active_load(). Call it after the stateful
// actives are placed, so the quota counts them. Returns the number of tasks kept by their owner.
std::uint64_t fill_stateless_sticky(const Cluster& cluster, AssignmentDraft& draft);

// The same against the *target*: a client's actives are counted as `target_actives[c]` (one entry
// per client: its stateful actives in the target, taken with active_counts() before plan_warmups)
// rather than as the draft holds them now. While plan_warmups keeps actives on caught-up clients
// for a few rounds, the draft's counts change every round and the fill above moves stateless tasks
// with them; counted against the target, they go where they will stay once the moves complete
// (on a generated 1k-task scale-out with the guide's strategy: see docs/writing-a-strategy.md).
// The rest go, in task order, to the client with the fewest (target + stateless so far) actives
// per thread, ties by index.
//
//   place_my_stateful_target(draft);
//   const auto target = active_counts(draft);
//   plan_warmups(cluster, settings, lags, draft);
//   fill_stateless_sticky(cluster, draft, target);
std::uint64_t fill_stateless_sticky(const Cluster& cluster, AssignmentDraft& draft,
                                    std::span<const std::uint32_t> target_actives);

// The draft's actives per client, by ClientIndex.
std::vector<std::uint32_t> active_counts(const AssignmentDraft& draft);

}  // namespace assignor
