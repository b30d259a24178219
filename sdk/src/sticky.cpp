#include "assignor/sticky.hpp"

#include <algorithm>
#include <numeric>
#include <span>
#include <unordered_map>
#include <vector>

#include "assignor/balance.hpp"

// Task pairs, our take. Kafka's TaskPairs remembers every pair of tasks put together on one client
// during an assignment and steers a task away from a client whose tasks were all already paired
// with it ("hasNewPair"). For actives that check never fires (a task being placed is in no pair yet);
// for standbys it stops two clients from ending up with the same set of tasks, so that losing one
// client does not put all of its load on one other client. It costs a hash set of up to n(n-1)/2
// task pairs and a scan of the candidate's tasks per check: quadratic at 100k tasks.
//
// We keep the idea in two cheap, deterministic forms, both used only to choose among clients that are
// equally loaded (balance first, always), scoring at most kTieProbes of them per placement:
//  - standbys: placing task t on client B repeats the pair (t, x) for every task x that B shares
//    with a client A already holding t. That count is exactly the sum over t's holders A of
//    shared(A, B), the number of tasks held by both A and B, which we keep per client pair (updated
//    in O(holders) per placement). We prefer the candidate with the fewest repeated pairs.
//  - actives: the pairs worth avoiding are tasks of one sub-topology stacked on one client (the
//    "sorted iteration stuffs a host with one sub-topology" complaints that led to TaskPairs), so
//    we prefer the candidate holding the fewest actives of the task's sub-topology.
namespace assignor {

namespace {

constexpr std::uint32_t kTieProbes = 8;

// Sparse counters keyed by a pair of dense indices. Lookups only: iteration order never matters, so
// results stay deterministic.
class PairCounter {
 public:
  std::uint32_t get(std::uint64_t key) const {
    const auto it = counts_.find(key);
    return it == counts_.end() ? 0 : it->second;
  }
  void add(std::uint64_t key) { ++counts_[key]; }

 private:
  std::unordered_map<std::uint64_t, std::uint32_t> counts_;
};

std::uint64_t client_pair_key(ClientIndex a, ClientIndex b) {
  if (a > b) std::swap(a, b);
  return (std::uint64_t{a} << 32) | b;
}

// The balanced quota (sticky.hpp): q per thread, plus r more tasks, at most one per thread.
class BalancedQuota {
 public:
  // `counts`: what each client holds already.
  BalancedQuota(const Cluster& cluster, std::uint64_t total, const std::vector<std::uint32_t>& counts)
      : threads_(client_threads(cluster)) {
    const std::uint64_t all_threads = cluster.total_threads();
    per_thread_ = all_threads == 0 ? 0 : total / all_threads;
    extras_left_ = total - per_thread_ * all_threads;
    for (ClientIndex c = 0; c < counts.size(); ++c) {
      const std::uint64_t base = per_thread_ * threads_[c];
      if (counts[c] > base) extras_left_ -= std::min<std::uint64_t>(extras_left_, counts[c] - base);
    }
  }

  bool has_room(ClientIndex c, std::uint64_t count) const noexcept {
    const std::uint64_t base = per_thread_ * threads_[c];
    return count < base || (count < base + threads_[c] && extras_left_ > 0);
  }
  // Records one more task on c, which held `count` before (also when it had no room: preserved).
  void take(ClientIndex c, std::uint64_t count) noexcept {
    if (count >= per_thread_ * threads_[c] && extras_left_ > 0) --extras_left_;
  }

 private:
  std::vector<std::uint32_t> threads_;
  std::uint64_t per_thread_ = 0;
  std::uint64_t extras_left_ = 0;
};

// Kafka's least-loaded order: lower count per thread, then more threads, then client index.
bool less_loaded(ClientIndex a, std::uint64_t count_a, ClientIndex b, std::uint64_t count_b, const Cluster& cluster) {
  const std::uint64_t ta = cluster.clients[a].threads;
  const std::uint64_t tb = cluster.clients[b].threads;
  const int cmp = compare_load(count_a, ta, count_b, tb);
  if (cmp != 0) return cmp < 0;
  if (ta != tb) return ta > tb;
  return a < b;
}

// A LoadQueue in Kafka's least-loaded order. LoadQueue breaks ties by index, so it runs over
// "capacity ranks" (clients sorted by threads descending, then index) instead of client indices.
// Not movable: LoadQueue's ordering refers to itself.
class CapacityFirstQueue {
 public:
  CapacityFirstQueue(const Cluster& cluster, const std::vector<std::uint32_t>& counts)
      : client_of_rank_(capacity_order(cluster)),
        rank_of_client_(invert(client_of_rank_)),
        threads_of_rank_(by_rank(client_threads(cluster))),
        queue_(threads_of_rank_, by_rank(counts)) {}
  CapacityFirstQueue(const CapacityFirstQueue&) = delete;
  CapacityFirstQueue& operator=(const CapacityFirstQueue&) = delete;

  void add(ClientIndex c, std::int64_t delta) { queue_.add(rank_of_client_[c], delta); }

  // The least-loaded client accepted by `eligible`; among the eligible clients exactly as loaded as
  // it (at most kTieProbes of them scored), the first with the lowest `cost`. Clients that are not
  // eligible are skipped wherever they are, so a caller must keep them few (a task's holders).
  template <class Eligible, class Cost>
  ClientIndex pick(Eligible&& eligible, Cost&& cost) const {
    ClientIndex best = kNoClient;
    ClientIndex first_rank = kNoClient;
    std::uint64_t best_cost = 0;
    std::uint32_t scored = 0;
    for (const ClientIndex rank : queue_) {
      if (first_rank != kNoClient && compare_load(queue_.count(rank), threads_of_rank_[rank], queue_.count(first_rank),
                                                  threads_of_rank_[first_rank]) != 0)
        break;
      const ClientIndex c = client_of_rank_[rank];
      if (!eligible(c)) continue;
      const std::uint64_t k = cost(c);
      if (first_rank == kNoClient || k < best_cost) {
        if (first_rank == kNoClient) first_rank = rank;
        best = c;
        best_cost = k;
      }
      if (best_cost == 0 || ++scored == kTieProbes) break;
    }
    return best;
  }

 private:
  static std::vector<ClientIndex> capacity_order(const Cluster& cluster) {
    std::vector<ClientIndex> order(cluster.client_count());
    std::iota(order.begin(), order.end(), ClientIndex{0});
    std::stable_sort(order.begin(), order.end(), [&](ClientIndex a, ClientIndex b) {
      return cluster.clients[a].threads > cluster.clients[b].threads;
    });
    return order;
  }
  static std::vector<ClientIndex> invert(const std::vector<ClientIndex>& order) {
    std::vector<ClientIndex> inverse(order.size());
    for (ClientIndex r = 0; r < order.size(); ++r) inverse[order[r]] = r;
    return inverse;
  }
  std::vector<std::uint32_t> by_rank(const std::vector<std::uint32_t>& per_client) const {
    std::vector<std::uint32_t> out(per_client.size());
    for (ClientIndex r = 0; r < out.size(); ++r) out[r] = per_client[client_of_rank_[r]];
    return out;
  }

  std::vector<ClientIndex> client_of_rank_;
  std::vector<ClientIndex> rank_of_client_;
  std::vector<std::uint32_t> threads_of_rank_;
  LoadQueue queue_;
};

// For each task, the clients that listed it as a previous standby (CSR, client order).
struct PreviousStandbyHolders {
  std::vector<std::uint32_t> offsets;
  std::vector<ClientIndex> clients;

  explicit PreviousStandbyHolders(const Cluster& cluster) : offsets(cluster.task_count() + 1, 0) {
    for (const auto& client : cluster.clients)
      for (TaskIndex t : client.previous_standby) ++offsets[t + 1];
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    clients.resize(offsets.back());
    std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - 1);
    for (ClientIndex c = 0; c < cluster.client_count(); ++c)
      for (TaskIndex t : cluster.clients[c].previous_standby) clients[next[t]++] = c;
  }
  std::span<const ClientIndex> of(TaskIndex t) const {
    return {clients.data() + offsets[t], offsets[t + 1] - offsets[t]};
  }
};

std::vector<std::uint32_t> total_counts(const AssignmentDraft& draft) {
  std::vector<std::uint32_t> counts(draft.client_count());
  for (ClientIndex c = 0; c < counts.size(); ++c) counts[c] = draft.total_count(c);
  return counts;
}

// Tasks are sorted by (sub-topology, partition), so dense sub-topology indices are one pass.
std::vector<std::uint32_t> subtopology_indices(const Cluster& cluster) {
  std::vector<std::uint32_t> index(cluster.task_count());
  std::uint32_t next = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (t > 0 && cluster.tasks[t].id.subtopology != cluster.tasks[t - 1].id.subtopology) ++next;
    index[t] = next;
  }
  return index;
}

// The clients holding the active or a standby of a task (sticky places no warmups).
void holders_of(const AssignmentDraft& draft, TaskIndex t, std::vector<ClientIndex>& out) {
  out.clear();
  if (draft.active(t) != kNoClient) out.push_back(draft.active(t));
  for (ClientIndex c : draft.standby_slots(t))
    if (c != kNoClient) out.push_back(c);
}

}  // namespace

StickyActivesResult place_sticky_actives(const Cluster& cluster, AssignmentDraft& draft, const StickyOptions& options) {
  StickyActivesResult result;
  const std::size_t n = cluster.client_count();
  if (n == 0) return result;
  BalancedQuota quota(cluster, cluster.task_count(), active_counts(draft));
  auto claim = [&](TaskIndex t, ClientIndex c) {
    quota.take(c, draft.active_count(c));
    draft.set_active(t, c);
  };

  // 1. Previous owners, stateful tasks first: when a client must give some up, let the free moves go.
  const auto previous = cluster.previous_active_owner();
  for (const bool stateful : {true, false}) {
    for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
      const ClientIndex owner = previous[t];
      if (owner == kNoClient || draft.active(t) != kNoClient || cluster.tasks[t].stateful != stateful) continue;
      if (options.preserve_previous_actives || quota.has_room(owner, draft.active_count(owner))) {
        claim(t, owner);
        ++result.kept_previous;
      }
    }
  }

  // 2. Previous standby holders with room, least loaded first.
  const PreviousStandbyHolders standby_holders(cluster);
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (draft.active(t) != kNoClient || !cluster.tasks[t].stateful) continue;
    ClientIndex best = kNoClient;
    for (ClientIndex c : standby_holders.of(t)) {
      if (!quota.has_room(c, draft.active_count(c))) continue;
      if (best == kNoClient || less_loaded(c, draft.active_count(c), best, draft.active_count(best), cluster)) best = c;
    }
    if (best != kNoClient) {
      claim(t, best);
      ++result.to_standby_holders;
    }
  }

  // 3. The rest, in task order, to the least loaded; among equals, fewest of the same sub-topology.
  const auto subtopology = subtopology_indices(cluster);
  PairCounter same_subtopology;  // key: sub-topology * n + client
  auto key = [&](TaskIndex t, ClientIndex c) { return std::uint64_t{subtopology[t]} * n + c; };
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (draft.active(t) != kNoClient) same_subtopology.add(key(t, draft.active(t)));
  CapacityFirstQueue queue(cluster, active_counts(draft));
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (draft.active(t) != kNoClient) continue;
    const ClientIndex c =
        queue.pick([](ClientIndex) { return true; }, [&](ClientIndex x) { return same_subtopology.get(key(t, x)); });
    claim(t, c);
    queue.add(c, 1);
    same_subtopology.add(key(t, c));
    ++result.to_least_loaded;
  }
  return result;
}

namespace {
std::uint64_t place_sticky_standbys_within_clients(const Cluster& cluster, AssignmentDraft& draft) {
  const std::uint32_t k = draft.standbys_per_task();
  if (k == 0) return 0;
  const std::size_t n = cluster.client_count();
  // A task's copies sit on distinct clients: with n clients at most n - 1 standbys per task.
  const std::uint32_t per_task = n == 0 ? 0 : static_cast<std::uint32_t>(std::min<std::uint64_t>(k, n - 1));

  std::uint64_t total = 0;  // every task held once all standbys are placed
  for (ClientIndex c = 0; c < n; ++c) total += draft.total_count(c);
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (cluster.tasks[t].has_logged_store) total += per_task - std::min(per_task, draft.standby_count(t));
  BalancedQuota quota(cluster, total, total_counts(draft));

  PairCounter shared;  // tasks held by both clients of a pair
  std::vector<ClientIndex> holders;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    holders_of(draft, t, holders);
    for (std::size_t i = 0; i < holders.size(); ++i)
      for (std::size_t j = i + 1; j < holders.size(); ++j) shared.add(client_pair_key(holders[i], holders[j]));
  }
  auto place = [&](TaskIndex t, ClientIndex c) {
    holders_of(draft, t, holders);
    for (ClientIndex h : holders) shared.add(client_pair_key(h, c));
    quota.take(c, draft.total_count(c));
    draft.add_standby(t, c);
  };

  // 1. The previous active owner (if the active moved), then previous standby holders, least loaded
  //    first, keep a copy while under the quota: they have the state already.
  const auto previous = cluster.previous_active_owner();
  const PreviousStandbyHolders standby_holders(cluster);
  std::vector<ClientIndex> candidates;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    candidates.assign(standby_holders.of(t).begin(), standby_holders.of(t).end());
    std::sort(candidates.begin(), candidates.end(), [&](ClientIndex a, ClientIndex b) {
      return less_loaded(a, draft.total_count(a), b, draft.total_count(b), cluster);
    });
    if (previous[t] != kNoClient) candidates.insert(candidates.begin(), previous[t]);
    for (ClientIndex c : candidates) {
      if (draft.standby_count(t) >= per_task) break;
      if (!draft.holds(t, c) && quota.has_room(c, draft.total_count(c))) place(t, c);
    }
  }

  // 2. The rest, in task order, to the least-loaded clients without the task; among equals, the one
  //    repeating the fewest task pairs.
  CapacityFirstQueue queue(cluster, total_counts(draft));
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    while (draft.standby_count(t) < per_task) {
      holders_of(draft, t, holders);
      const ClientIndex c = queue.pick([&](ClientIndex x) { return !draft.holds(t, x); },
                                       [&](ClientIndex x) {
                                         std::uint64_t repeated = 0;
                                         for (ClientIndex h : holders) repeated += shared.get(client_pair_key(h, x));
                                         return repeated;
                                       });
      if (c == kNoClient) break;
      place(t, c);
      queue.add(c, 1);
    }
  }

  // 3. The one-copy-per-client rule can leave a client above the balanced load near the end.
  balance_standbys(cluster, draft);

  std::uint64_t shortfall = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (cluster.tasks[t].has_logged_store) shortfall += k - draft.standby_count(t);
  return shortfall;
}

}  // namespace

std::uint64_t place_sticky_standbys(const Cluster& cluster, AssignmentDraft& draft) {
  // Copies beyond clients - 1 can never be placed (the draft has no slot for them): shortfall too.
  const std::uint64_t beyond = std::uint64_t{draft.standbys_beyond_clients()} * cluster.logged_task_count();
  return beyond + place_sticky_standbys_within_clients(cluster, draft);
}

}  // namespace assignor
