#include "assignor/balance.hpp"

#include <queue>

namespace assignor {

LoadQueue::LoadQueue(std::vector<std::uint32_t> threads, std::vector<std::uint32_t> counts)
    : threads_(std::move(threads)), counts_(std::move(counts)), order_(ByLoad{this}) {
  for (ClientIndex c = 0; c < threads_.size(); ++c) order_.insert(c);
}

bool LoadQueue::ByLoad::operator()(ClientIndex a, ClientIndex b) const noexcept {
  const int cmp = compare_load(q->counts_[a], q->threads_[a], q->counts_[b], q->threads_[b]);
  return cmp != 0 ? cmp < 0 : a < b;
}

void LoadQueue::add(ClientIndex c, std::int64_t delta) {
  order_.erase(c);
  counts_[c] = static_cast<std::uint32_t>(static_cast<std::int64_t>(counts_[c]) + delta);
  order_.insert(c);
}

std::vector<std::uint32_t> client_threads(const Cluster& cluster) {
  std::vector<std::uint32_t> threads(cluster.client_count());
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) threads[c] = cluster.clients[c].threads;
  return threads;
}

std::vector<std::uint32_t> proportional_quotas(const Cluster& cluster, std::uint64_t total) {
  const std::size_t n = cluster.client_count();
  std::vector<std::uint32_t> quota(n, 0);
  if (n == 0 || total == 0) return quota;
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
    ClientIndex client;
  };
  auto later = [](const Next& a, const Next& b) {
    const int cmp = compare_load(a.count_plus_one, a.threads, b.count_plus_one, b.threads);
    return cmp != 0 ? cmp > 0 : a.client > b.client;
  };
  std::priority_queue<Next, std::vector<Next>, decltype(later)> heap(later);
  for (ClientIndex c = 0; c < n; ++c) heap.push({quota[c] + 1ull, cluster.clients[c].threads, c});
  for (; given < total; ++given) {
    Next next = heap.top();
    heap.pop();
    ++quota[next.client];
    heap.push({quota[next.client] + 1ull, next.threads, next.client});
  }
  return quota;
}

std::uint64_t place_standbys_least_loaded(const Cluster& cluster, AssignmentDraft& draft) {
  const std::uint32_t k = draft.standbys_per_task();
  if (k == 0) return 0;
  std::vector<std::uint32_t> counts(cluster.client_count());
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) counts[c] = draft.total_count(c);
  LoadQueue queue(client_threads(cluster), std::move(counts));
  std::uint64_t shortfall = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    for (std::uint32_t placed = draft.standby_count(t); placed < k; ++placed) {
      const ClientIndex c = queue.least_where([&](ClientIndex x) { return !draft.holds(t, x); });
      if (c == kNoClient) {
        shortfall += k - placed;
        break;
      }
      draft.add_standby(t, c);
      queue.add(c, 1);
    }
  }
  return shortfall;
}

void fill_stateless_by_active_load(const Cluster& cluster, AssignmentDraft& draft) {
  if (cluster.client_count() == 0) return;
  std::vector<std::uint32_t> counts(cluster.client_count());
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) counts[c] = draft.active_count(c);
  LoadQueue queue(client_threads(cluster), std::move(counts));
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (cluster.tasks[t].stateful || draft.active(t) != kNoClient) continue;
    const ClientIndex c = queue.least();
    draft.set_active(t, c);
    queue.add(c, 1);
  }
}

}  // namespace assignor
