#include "assignor/threads.hpp"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_set>

namespace assignor {

std::vector<std::string> thread_names(const Client& client) {
  std::vector<std::string> names;
  names.reserve(client.threads);
  // Generated names skip those of previous_by_thread; a set keeps this linear in the thread count.
  std::unordered_set<std::string_view> taken;
  for (const auto& t : client.threads_history) {
    names.push_back(t.name);
    taken.insert(t.name);
  }
  for (std::size_t i = 0; names.size() < client.threads; ++i) {
    std::string candidate = "t" + std::to_string(i);
    if (taken.count(candidate) == 0) names.push_back(std::move(candidate));
  }
  return names;
}

namespace {

enum class Kind { stateful_active, copy, stateless_active };

struct ClientPlan {
  const Cluster& cluster;
  const LagModel& lags;
  ClientIndex client;
  std::vector<ThreadTasks>& threads;
  // (task, previous thread) of this client, sorted by task.
  std::vector<std::pair<TaskIndex, std::uint32_t>> previous;

  std::uint32_t previous_thread(TaskIndex t) const {
    auto it = std::lower_bound(previous.begin(), previous.end(), std::pair<TaskIndex, std::uint32_t>{t, 0});
    return it != previous.end() && it->first == t ? it->second : UINT32_MAX;
  }

  void place(std::vector<TaskIndex>& tasks_in_order, Kind kind, std::vector<TaskIndex>* warmups = nullptr) {
    const std::size_t n_threads = threads.size();
    std::size_t total = 0;
    for (const auto& th : threads) total += th.load();
    const std::size_t batch = tasks_in_order.size() + (warmups ? warmups->size() : 0);
    if (batch == 0) return;
    const std::size_t minimum = (total + batch) / n_threads;

    // Each entry: task, and whether it is a warmup (kept apart only for the output lists).
    struct Item {
      TaskIndex task;
      bool warmup;
    };
    std::vector<Item> items;
    items.reserve(batch);
    for (TaskIndex t : tasks_in_order) items.push_back({t, false});
    if (warmups)
      for (TaskIndex t : *warmups) items.push_back({t, true});
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.task < b.task; });
    std::vector<std::uint8_t> done(items.size(), 0);

    auto put = [&](std::size_t i, std::size_t th) {
      ThreadTasks& thread = threads[th];
      if (kind != Kind::copy) thread.active.push_back(items[i].task);
      else if (items[i].warmup) thread.warmup.push_back(items[i].task);
      else thread.standby.push_back(items[i].task);
      done[i] = 1;
    };

    const bool sticky = kind != Kind::stateless_active;
    if (sticky && !previous.empty()) {
      // Back to the previous thread, in order of this client's lag on the task, up to the minimum.
      std::vector<std::size_t> order;
      for (std::size_t i = 0; i < items.size(); ++i)
        if (previous_thread(items[i].task) != UINT32_MAX) order.push_back(i);
      auto lag_of = [&](std::size_t i) { return lags.lag(items[i].task, client); };
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const Lag la = lag_of(a), lb = lag_of(b);
        if (less_lag(la, lb)) return true;
        if (less_lag(lb, la)) return false;
        return items[a].task < items[b].task;
      });
      for (std::size_t i : order) {
        const std::uint32_t th = previous_thread(items[i].task);
        if (threads[th].load() < minimum) put(i, th);
      }
    }
    // The rest in task order, interleaved over the threads below the minimum.
    std::size_t cursor = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (done[i]) continue;
      std::size_t tried = 0;
      while (tried < n_threads && threads[cursor].load() >= minimum) {
        cursor = (cursor + 1) % n_threads;
        ++tried;
      }
      if (tried == n_threads) break;  // every thread is at the minimum: the rest are extras
      put(i, cursor);
      cursor = (cursor + 1) % n_threads;
    }
    // Extras: the previous thread if it is at the minimum, else the least-loaded thread.
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (done[i]) continue;
      const std::uint32_t prev = sticky ? previous_thread(items[i].task) : UINT32_MAX;
      if (prev != UINT32_MAX && threads[prev].load() <= minimum) {
        put(i, prev);
        continue;
      }
      std::size_t best = 0;
      for (std::size_t th = 1; th < n_threads; ++th)
        if (threads[th].load() < threads[best].load()) best = th;
      put(i, best);
    }
  }
};

}  // namespace

namespace {

bool names_threads(const Assignment& assignment) noexcept {
  for (const auto* list : {&assignment.actives, &assignment.standbys, &assignment.warmups})
    if (!list->empty()) return list->front().thread != kAnyThread;
  return false;
}

// The split the strategy chose (Placement::thread on every placement; validate() checked the indices).
ThreadDistribution threads_as_placed(const Cluster& cluster, const Assignment& assignment) {
  const std::size_t n = cluster.client_count();
  ThreadDistribution out;
  out.clients.resize(n);
  struct Item {
    ClientIndex client;
    std::uint32_t thread;
    TaskIndex task;
    std::uint8_t role;  // 0 active, 1 standby, 2 warmup
  };
  // By client (counting sort), then each client's by thread and task.
  std::vector<std::size_t> at(n + 1, 0);
  for (const auto* list : {&assignment.actives, &assignment.standbys, &assignment.warmups})
    for (const Placement& p : *list) ++at[p.client + 1];
  for (std::size_t c = 0; c < n; ++c) at[c + 1] += at[c];
  const std::vector<std::size_t> start(at.begin(), at.end());
  std::vector<Item> items(at[n]);
  std::uint8_t role = 0;
  for (const auto* list : {&assignment.actives, &assignment.standbys, &assignment.warmups}) {
    for (const Placement& p : *list) items[at[p.client]++] = {p.client, p.thread, p.task, role};
    ++role;
  }
  for (std::size_t c = 0; c < n; ++c)
    std::sort(items.begin() + static_cast<std::ptrdiff_t>(start[c]), items.begin() + static_cast<std::ptrdiff_t>(start[c + 1]),
              [](const Item& a, const Item& b) { return a.thread != b.thread ? a.thread < b.thread : a.task < b.task; });
  for (ClientIndex c = 0; c < n; ++c) out.clients[c].thread_count = cluster.clients[c].threads;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < items.size();) {
    const ClientIndex c = items[i].client;
    names = thread_names(cluster.clients[c]);
    while (i < items.size() && items[i].client == c) {
      ThreadTasks th;
      th.index = items[i].thread;
      th.name = th.index < names.size() ? names[th.index] : "t" + std::to_string(th.index);
      for (; i < items.size() && items[i].client == c && items[i].thread == th.index; ++i)
        (items[i].role == 0 ? th.active : items[i].role == 1 ? th.standby : th.warmup).push_back(items[i].task);
      out.clients[c].threads.push_back(std::move(th));
    }
  }
  return out;
}

}  // namespace

ThreadDistribution distribute_over_threads(const Cluster& cluster, const LagModel& lags,
                                           const Assignment& assignment) {
  if (names_threads(assignment)) return threads_as_placed(cluster, assignment);
  const std::size_t n = cluster.client_count();
  ThreadDistribution out;
  out.clients.resize(n);
  // Group the assignment by client: stateful actives, standbys, warmups, stateless actives.
  std::vector<std::vector<TaskIndex>> stateful(n), stateless(n), standby(n), warmup(n);
  for (const auto& p : assignment.actives)
    (cluster.tasks[p.task].stateful ? stateful : stateless)[p.client].push_back(p.task);
  for (const auto& p : assignment.standbys) standby[p.client].push_back(p.task);
  for (const auto& p : assignment.warmups) warmup[p.client].push_back(p.task);

  // One scratch list of threads, reused from client to client; only the threads that end up holding
  // tasks are copied out, so memory grows with what is assigned, not with the thread count.
  std::vector<ThreadTasks> threads;
  for (ClientIndex c = 0; c < n; ++c) {
    const Client& client = cluster.clients[c];
    out.clients[c].thread_count = client.threads;
    if (stateful[c].empty() && standby[c].empty() && warmup[c].empty() && stateless[c].empty()) continue;
    threads.resize(client.threads);
    for (auto& th : threads) {
      th.active.clear();
      th.standby.clear();
      th.warmup.clear();
    }
    ClientPlan plan{cluster, lags, c, threads, {}};
    for (std::uint32_t th = 0; th < client.threads_history.size(); ++th) {
      for (TaskIndex t : client.threads_history[th].previous_active) plan.previous.push_back({t, th});
      for (TaskIndex t : client.threads_history[th].previous_standby) plan.previous.push_back({t, th});
    }
    std::sort(plan.previous.begin(), plan.previous.end());
    plan.place(stateful[c], Kind::stateful_active);
    plan.place(standby[c], Kind::copy, &warmup[c]);
    plan.place(stateless[c], Kind::stateless_active);
    std::vector<std::string> names;  // only for a client that holds something
    for (std::uint32_t i = 0; i < threads.size(); ++i) {
      ThreadTasks& th = threads[i];
      if (th.load() == 0) continue;
      if (names.empty()) names = thread_names(client);
      std::sort(th.active.begin(), th.active.end());
      std::sort(th.standby.begin(), th.standby.end());
      std::sort(th.warmup.begin(), th.warmup.end());
      out.clients[c].threads.push_back(
          ThreadTasks{names[i], std::move(th.active), std::move(th.standby), std::move(th.warmup), i});
    }
  }
  return out;
}

std::size_t thread_load_spread(const ThreadDistribution& distribution) noexcept {
  std::size_t spread = 0;
  for (const auto& client : distribution.clients) {
    if (client.threads.empty()) continue;
    std::size_t lo = client.threads.size() < client.thread_count ? 0 : SIZE_MAX, hi = 0;
    for (const auto& th : client.threads) {
      lo = std::min(lo, th.load());
      hi = std::max(hi, th.load());
    }
    spread = std::max(spread, hi - lo);
  }
  return spread;
}

}  // namespace assignor
