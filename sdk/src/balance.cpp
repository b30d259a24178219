#include "assignor/balance.hpp"

#include "assignor/subtopology_counts.hpp"

#include "standby_balance.hpp"

#include <algorithm>
#include <queue>
#include <stdexcept>

namespace assignor {

LoadQueue::LoadQueue(std::vector<std::uint32_t> threads, std::vector<std::uint32_t> counts)
    : LoadQueue(std::move(threads), std::move(counts), {}) {}

LoadQueue::LoadQueue(std::vector<std::uint32_t> threads, std::vector<std::uint32_t> counts,
                     std::vector<std::uint64_t> tie_keys)
    : threads_(std::move(threads)), counts_(std::move(counts)), tie_keys_(std::move(tie_keys)), order_(ByLoad{this}) {
  if (tie_keys_.empty()) tie_keys_.assign(threads_.size(), 0);
  if (counts_.size() != threads_.size() || tie_keys_.size() != threads_.size())
    throw std::invalid_argument("LoadQueue: threads, counts and tie keys need one entry per client");
  for (ClientIndex c = 0; c < threads_.size(); ++c) order_.insert(c);
}

bool LoadQueue::ByLoad::operator()(ClientIndex a, ClientIndex b) const noexcept {
  const int cmp = compare_load(q->counts_[a], q->threads_[a], q->counts_[b], q->threads_[b]);
  if (cmp != 0) return cmp < 0;
  if (q->tie_keys_[a] != q->tie_keys_[b]) return q->tie_keys_[a] < q->tie_keys_[b];
  return a < b;
}

void LoadQueue::set_tie_key(ClientIndex c, std::uint64_t key) {
  auto node = order_.extract(c);
  tie_keys_[c] = key;
  order_.insert(std::move(node));
}

void LoadQueue::add(ClientIndex c, std::int64_t delta) {
  auto node = order_.extract(c);  // re-keyed and re-inserted without freeing and allocating a node
  counts_[c] = static_cast<std::uint32_t>(static_cast<std::int64_t>(counts_[c]) + delta);
  order_.insert(std::move(node));
}

std::vector<std::uint32_t> client_threads(const Cluster& cluster) {
  std::vector<std::uint32_t> threads(cluster.client_count());
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) threads[c] = cluster.clients[c].threads;
  return threads;
}

std::vector<std::uint32_t> proportional_quotas(const Cluster& cluster, std::uint64_t total,
                                               std::span<const std::uint32_t> held) {
  const std::size_t n = cluster.client_count();
  std::vector<std::uint32_t> quota(n, 0);
  if (n == 0 || total == 0) return quota;
  if (!held.empty() && held.size() != n)
    throw std::invalid_argument("proportional_quotas: held needs one entry per client");
  const std::uint64_t threads = cluster.total_threads();
  // Start from the floor of the exact share (never above what the highest-averages method gives),
  // then hand out the remainder one task at a time to the lowest (count + 1) / threads.
  std::uint64_t given = 0;
  for (ClientIndex c = 0; c < n; ++c) {
    quota[c] = static_cast<std::uint32_t>(total * cluster.clients[c].threads / threads);
    given += quota[c];
  }
  struct Next {
    std::uint64_t count_plus_one;
    std::uint64_t threads;
    bool wants;  // holds more than its count so far
    ClientIndex client;
  };
  auto next_of = [&](ClientIndex c) {
    return Next{quota[c] + 1ull, cluster.clients[c].threads, !held.empty() && held[c] > quota[c], c};
  };
  auto later = [](const Next& a, const Next& b) {
    const int cmp = compare_load(a.count_plus_one, a.threads, b.count_plus_one, b.threads);
    if (cmp != 0) return cmp > 0;
    if (a.wants != b.wants) return !a.wants;
    return a.client > b.client;
  };
  std::priority_queue<Next, std::vector<Next>, decltype(later)> heap(later);
  for (ClientIndex c = 0; c < n; ++c) heap.push(next_of(c));
  for (; given < total; ++given) {
    const ClientIndex c = heap.top().client;
    heap.pop();
    ++quota[c];
    heap.push(next_of(c));
  }
  return quota;
}

namespace {

// Clients in a binary heap by (count / threads, index), the least loaded on top: for loops that
// only ever take the least loaded client (or the least loaded of those passing a check) and give
// it one more task. Cheaper than LoadQueue's ordered set when sorted iteration is not needed.
class LeastLoadedHeap {
 public:
  LeastLoadedHeap(const AssignmentDraft& draft, std::vector<std::uint32_t> counts)
      : draft_(draft), counts_(std::move(counts)), heap_(counts_.size()) {
    for (ClientIndex c = 0; c < heap_.size(); ++c) heap_[c] = c;
    std::make_heap(heap_.begin(), heap_.end(), later());
  }

  // The least-loaded client satisfying `ok` gets one more task; kNoClient (and no change) if none.
  template <class Pred>
  ClientIndex add_to_least_where(Pred&& ok) {
    std::size_t skipped = 0;  // clients failing `ok`, parked at the end of the vector
    ClientIndex chosen = kNoClient;
    while (skipped < heap_.size()) {
      std::pop_heap(heap_.begin(), heap_.end() - static_cast<std::ptrdiff_t>(skipped), later());
      const ClientIndex c = heap_[heap_.size() - 1 - skipped];
      if (ok(c)) {
        chosen = c;
        ++counts_[c];
        break;
      }
      ++skipped;
    }
    // Back into the heap: the chosen client (if any) and the skipped ones.
    const std::size_t out = skipped + (chosen != kNoClient ? 1 : 0);
    for (std::size_t i = heap_.size() - out; i < heap_.size(); ++i)
      std::push_heap(heap_.begin(), heap_.begin() + static_cast<std::ptrdiff_t>(i) + 1, later());
    return chosen;
  }

 private:
  // std heaps keep the greatest on top: "greater" means later in (load, index) order.
  struct Later {
    const LeastLoadedHeap* heap;
    bool operator()(ClientIndex a, ClientIndex b) const noexcept {
      const int cmp =
          compare_load(heap->counts_[a], heap->draft_.threads(a), heap->counts_[b], heap->draft_.threads(b));
      return cmp != 0 ? cmp > 0 : a > b;
    }
  };
  Later later() const noexcept { return Later{this}; }

  const AssignmentDraft& draft_;
  std::vector<std::uint32_t> counts_;
  std::vector<ClientIndex> heap_;
};

}  // namespace

namespace {
std::uint64_t place_standbys_least_loaded_within_clients(const Cluster& cluster, AssignmentDraft& draft) {
  const std::uint32_t k = draft.standbys_per_task();
  if (k == 0 || cluster.client_count() == 0) return 0;
  std::vector<std::uint32_t> counts(cluster.client_count());
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) counts[c] = draft.total_count(c);
  LeastLoadedHeap heap(draft, std::move(counts));
  std::uint64_t shortfall = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    for (std::uint32_t placed = draft.standby_count(t); placed < k; ++placed) {
      const ClientIndex c = heap.add_to_least_where([&](ClientIndex x) { return !draft.holds(t, x); });
      if (c == kNoClient) {
        shortfall += k - placed;
        break;
      }
      draft.add_standby(t, c);
    }
  }
  return shortfall;
}

}  // namespace

std::uint64_t place_standbys_least_loaded(const Cluster& cluster, AssignmentDraft& draft) {
  // Copies beyond clients - 1 can never be placed (the draft has no slot for them): shortfall too.
  const std::uint64_t beyond = std::uint64_t{draft.standbys_beyond_clients()} * cluster.logged_task_count();
  return beyond + place_standbys_least_loaded_within_clients(cluster, draft);
}

std::uint64_t balance_standbys(const Cluster& cluster, AssignmentDraft& draft) {
  const std::size_t n = cluster.client_count();
  if (draft.standbys_per_task() == 0 || n < 2) return 0;
  auto held = detail::standbys_by_client(cluster, draft);
  std::vector<std::uint32_t> counts(n);
  for (ClientIndex c = 0; c < n; ++c) counts[c] = draft.total_count(c);
  LoadQueue queue(client_threads(cluster), std::move(counts));
  std::vector<std::uint8_t> stuck(n, 0);
  return detail::balance_standbys_in_group(queue, queue, held, stuck, draft);
}

void fill_stateless_by_active_load(const Cluster& cluster, AssignmentDraft& draft) {
  std::vector<TaskIndex> tasks;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (!cluster.tasks[t].stateful && draft.active(t) == kNoClient) tasks.push_back(t);
  fill_by_active_load(cluster, draft, tasks);
}

void fill_by_active_load(const Cluster& cluster, AssignmentDraft& draft, std::span<const TaskIndex> tasks) {
  if (cluster.client_count() == 0 || tasks.empty()) return;
  std::vector<std::uint32_t> counts(cluster.client_count());
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) counts[c] = draft.active_count(c);
  LeastLoadedHeap heap(draft, std::move(counts));
  for (TaskIndex t : tasks) draft.set_active(t, heap.add_to_least_where([](ClientIndex) { return true; }));
}

void fill_stateless_by_total_load(const Cluster& cluster, AssignmentDraft& draft) {
  std::vector<TaskIndex> tasks;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (!cluster.tasks[t].stateful && draft.active(t) == kNoClient) tasks.push_back(t);
  fill_by_total_load(cluster, draft, tasks);
}

void fill_by_total_load(const Cluster& cluster, AssignmentDraft& draft, std::span<const TaskIndex> tasks) {
  const std::size_t n = cluster.client_count();
  if (n == 0 || tasks.empty()) return;
  std::vector<std::uint32_t> counts(n);
  for (ClientIndex c = 0; c < n; ++c) counts[c] = draft.total_count(c);
  LoadQueue queue(client_threads(cluster), std::move(counts));
  SubtopologyCounts spread(cluster, draft);
  // Tie keys hold the counts of the current sub-topology only: set for the clients holding its
  // actives when it starts, back to 0 when the next one starts.
  std::vector<ClientIndex> keyed;
  std::uint32_t current = UINT32_MAX;
  for (TaskIndex t : tasks) {
    if (draft.active(t) != kNoClient) continue;
    if (spread.rank(t) != current) {
      for (ClientIndex c : keyed) queue.set_tie_key(c, 0);
      keyed.clear();
      current = spread.rank(t);
      for (TaskIndex u : cluster.tasks_of_subtopology(cluster.tasks[t].id.subtopology)) {
        const ClientIndex c = draft.active(u);
        if (c == kNoClient || queue.tie_key(c) != 0) continue;
        queue.set_tie_key(c, spread.of(t, c));
        keyed.push_back(c);
      }
    }
    const ClientIndex c = queue.least();
    draft.set_active(t, c);
    spread.add(t, c);
    queue.add(c, 1);
    if (queue.tie_key(c) == 0) keyed.push_back(c);
    queue.set_tie_key(c, spread.of(t, c));
  }
}

std::uint64_t fill_stateless_sticky(const Cluster& cluster, AssignmentDraft& draft) {
  return fill_stateless_sticky(cluster, draft, active_counts(draft));
}

std::uint64_t fill_stateless_sticky(const Cluster& cluster, AssignmentDraft& draft,
                                    std::span<const std::uint32_t> target_actives) {
  const std::size_t n = cluster.client_count();
  if (n == 0) return 0;
  if (target_actives.size() != n) throw std::invalid_argument("fill_stateless_sticky: one target count per client");
  const auto owner = cluster.previous_active_owner();
  // The remainder of the shares to the clients that ran more tasks: a balanced group keeps its layout.
  std::vector<std::uint32_t> held(n, 0);
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (owner[t] != kNoClient) ++held[owner[t]];
  const auto quota = proportional_quotas(cluster, cluster.task_count(), held);
  std::vector<std::uint32_t> count(target_actives.begin(), target_actives.end());
  std::uint64_t kept = 0;
  std::vector<TaskIndex> rest;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (cluster.tasks[t].stateful || draft.active(t) != kNoClient) continue;
    const ClientIndex c = owner[t];
    if (c == kNoClient || count[c] >= quota[c]) {
      rest.push_back(t);
      continue;
    }
    draft.set_active(t, c);
    ++count[c];
    ++kept;
  }
  if (rest.empty()) return kept;
  LoadQueue queue(client_threads(cluster), std::move(count));
  for (TaskIndex t : rest) {
    const ClientIndex c = queue.least();
    draft.set_active(t, c);
    queue.add(c, 1);
  }
  return kept;
}

std::vector<std::uint32_t> active_counts(const AssignmentDraft& draft) {
  std::vector<std::uint32_t> out(draft.client_count());
  for (ClientIndex c = 0; c < out.size(); ++c) out[c] = draft.active_count(c);
  return out;
}

}  // namespace assignor
