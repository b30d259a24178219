#include "assignor/threads.hpp"

#include <algorithm>
#include <numeric>
#include <span>
#include <string_view>
#include <unordered_set>

namespace assignor {

std::vector<std::string> thread_names(const Client& client) {
  std::vector<std::string> names;
  names.reserve(client.threads);
  for (const auto& t : client.threads_history) names.push_back(t.name);
  // Generated names skip those of previous_by_thread: a scan for the few named threads of a real
  // client, a set for a long list (so this stays linear in the thread count).
  constexpr std::size_t kScanLimit = 16;
  std::unordered_set<std::string_view> taken;
  if (client.threads_history.size() > kScanLimit)
    for (const auto& t : client.threads_history) taken.insert(t.name);
  const auto is_taken = [&](const std::string& candidate) {
    if (client.threads_history.size() > kScanLimit) return taken.count(candidate) != 0;
    return std::any_of(client.threads_history.begin(), client.threads_history.end(),
                       [&](const ThreadHistory& t) { return t.name == candidate; });
  };
  for (std::size_t i = 0; names.size() < client.threads; ++i) {
    std::string candidate = "t" + std::to_string(i);
    if (client.threads_history.empty() || !is_taken(candidate)) names.push_back(std::move(candidate));
  }
  return names;
}

namespace {

enum class Kind { stateful_active, copy, stateless_active };

// One entry of a batch: task, and whether it is a warmup (kept apart only for the output lists).
struct Item {
  TaskIndex task;
  bool warmup;
};

// A sticky task's place in the order it goes back to its previous thread: this client's lag on it,
// then task order. Task ids are unique within a batch, so the order is total.
struct StickyKey {
  std::uint8_t kind;
  std::int64_t offsets;
  TaskIndex task;
  std::uint32_t item;
  std::uint32_t thread;  // the previous one
  bool operator<(const StickyKey& o) const noexcept {
    if (kind != o.kind) return kind < o.kind;
    if (offsets != o.offsets) return offsets < o.offsets;
    return task < o.task;
  }
};

// Buffers reused from client to client and pass to pass (a simulated round splits every client's
// tasks: allocating them each time was a large part of the round).
struct Scratch {
  std::vector<ThreadTasks> threads;
  // previous_thread[t]: the thread of the current client that held t before, else UINT32_MAX
  // (sized to the tasks once; only the client's own entries are set, and reset after it).
  std::vector<std::uint32_t> previous_thread;
  bool any_previous = false;
  std::vector<Item> items;
  std::vector<std::uint8_t> done;
  std::vector<StickyKey> keys;
};

struct ClientPlan {
  const LagModel& lags;
  ClientIndex client;
  Scratch& scratch;

  std::uint32_t previous_thread(TaskIndex t) const { return scratch.previous_thread[t]; }

  void place(std::span<const TaskIndex> tasks_in_order, Kind kind, std::span<const TaskIndex> warmups = {}) {
    auto& threads = scratch.threads;
    const std::size_t n_threads = threads.size();
    std::size_t total = 0;
    for (const auto& th : threads) total += th.load();
    const std::size_t batch = tasks_in_order.size() + warmups.size();
    if (batch == 0) return;
    const std::size_t minimum = (total + batch) / n_threads;

    auto& items = scratch.items;
    items.clear();
    for (TaskIndex t : tasks_in_order) items.push_back({t, false});
    for (TaskIndex t : warmups) items.push_back({t, true});
    const auto by_task = [](const Item& a, const Item& b) { return a.task < b.task; };
    if (!std::is_sorted(items.begin(), items.end(), by_task)) std::sort(items.begin(), items.end(), by_task);
    auto& done = scratch.done;
    done.assign(items.size(), 0);

    auto put = [&](std::size_t i, std::size_t th) {
      ThreadTasks& thread = threads[th];
      if (kind != Kind::copy)
        thread.active.push_back(items[i].task);
      else if (items[i].warmup)
        thread.warmup.push_back(items[i].task);
      else
        thread.standby.push_back(items[i].task);
      done[i] = 1;
    };

    const bool sticky = kind != Kind::stateless_active;
    if (sticky && scratch.any_previous) {
      // Back to the previous thread, in order of this client's lag on the task, up to the minimum.
      // Each key is computed once (a lag lookup per comparison was a fifth of a simulated round).
      auto& keys = scratch.keys;
      keys.clear();
      for (std::size_t i = 0; i < items.size(); ++i) {
        const std::uint32_t th = previous_thread(items[i].task);
        if (th == UINT32_MAX) continue;
        const Lag l = lags.lag(items[i].task, client);
        keys.push_back({static_cast<std::uint8_t>(l.kind), l.kind == LagKind::known ? l.offsets : 0, items[i].task,
                        static_cast<std::uint32_t>(i), th});
      }
      std::sort(keys.begin(), keys.end());
      for (const StickyKey& k : keys)
        if (threads[k.thread].load() < minimum) put(k.item, k.thread);
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

// Placements regrouped by client, in their order (a stable counting sort): lists[k] of client c is
// tasks[k][begin[k][c], begin[k][c + 1]).
struct Grouped {
  std::vector<std::uint32_t> begin;
  std::vector<TaskIndex> tasks;
  std::span<const TaskIndex> of(ClientIndex c) const { return {tasks.data() + begin[c], tasks.data() + begin[c + 1]}; }
};

template <typename Keep>
Grouped group(const std::vector<Placement>& list, std::size_t clients, const Keep& keep) {
  Grouped g;
  g.begin.assign(clients + 1, 0);
  for (const auto& p : list)
    if (keep(p)) ++g.begin[p.client + 1];
  for (std::size_t c = 0; c < clients; ++c) g.begin[c + 1] += g.begin[c];
  g.tasks.resize(g.begin[clients]);
  std::vector<std::uint32_t> next(g.begin.begin(), g.begin.end() - 1);
  for (const auto& p : list)
    if (keep(p)) g.tasks[next[p.client]++] = p.task;
  return g;
}

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
  struct Placed {
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
  std::vector<Placed> items(at[n]);
  std::uint8_t role = 0;
  for (const auto* list : {&assignment.actives, &assignment.standbys, &assignment.warmups}) {
    for (const Placement& p : *list) items[at[p.client]++] = {p.client, p.thread, p.task, role};
    ++role;
  }
  for (std::size_t c = 0; c < n; ++c)
    std::sort(items.begin() + static_cast<std::ptrdiff_t>(start[c]),
              items.begin() + static_cast<std::ptrdiff_t>(start[c + 1]), [](const Placed& a, const Placed& b) {
                return a.thread != b.thread ? a.thread < b.thread : a.task < b.task;
              });
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

ThreadDistribution distribute_over_threads(const Cluster& cluster, const LagModel& lags, const Assignment& assignment) {
  if (names_threads(assignment)) return threads_as_placed(cluster, assignment);
  const std::size_t n = cluster.client_count();
  ThreadDistribution out;
  out.clients.resize(n);
  // The assignment by client: stateful actives, standbys, warmups, stateless actives.
  const auto all = [](const Placement&) { return true; };
  const Grouped stateful =
      group(assignment.actives, n, [&](const Placement& p) { return cluster.tasks[p.task].stateful; });
  const Grouped stateless =
      group(assignment.actives, n, [&](const Placement& p) { return !cluster.tasks[p.task].stateful; });
  const Grouped standby = group(assignment.standbys, n, all);
  const Grouped warmup = group(assignment.warmups, n, all);

  // One scratch list of threads, reused from client to client; only the threads that end up holding
  // tasks are copied out (at their exact size), so memory grows with what is assigned, not with the
  // thread count, and the scratch keeps its capacity.
  Scratch scratch;
  scratch.previous_thread.assign(cluster.task_count(), UINT32_MAX);
  for (ClientIndex c = 0; c < n; ++c) {
    const Client& client = cluster.clients[c];
    out.clients[c].thread_count = client.threads;
    if (stateful.of(c).empty() && standby.of(c).empty() && warmup.of(c).empty() && stateless.of(c).empty()) continue;
    auto& threads = scratch.threads;
    threads.resize(client.threads);
    for (auto& th : threads) {
      th.active.clear();
      th.standby.clear();
      th.warmup.clear();
    }
    const auto& history = client.threads_history;
    scratch.any_previous = false;
    for (std::uint32_t th = 0; th < history.size(); ++th) {
      // A task listed on two threads goes back to the first of them.
      for (TaskIndex t : history[th].previous_active)
        scratch.previous_thread[t] = std::min(scratch.previous_thread[t], th);
      for (TaskIndex t : history[th].previous_standby)
        scratch.previous_thread[t] = std::min(scratch.previous_thread[t], th);
      scratch.any_previous =
          scratch.any_previous || !history[th].previous_active.empty() || !history[th].previous_standby.empty();
    }
    ClientPlan plan{lags, c, scratch};
    plan.place(stateful.of(c), Kind::stateful_active);
    plan.place(standby.of(c), Kind::copy, warmup.of(c));
    plan.place(stateless.of(c), Kind::stateless_active);
    std::vector<std::string> names;  // only for a client that holds something
    for (std::uint32_t i = 0; i < threads.size(); ++i) {
      ThreadTasks& th = threads[i];
      if (th.load() == 0) continue;
      if (names.empty()) names = thread_names(client);
      std::sort(th.active.begin(), th.active.end());
      std::sort(th.standby.begin(), th.standby.end());
      std::sort(th.warmup.begin(), th.warmup.end());
      out.clients[c].threads.push_back(ThreadTasks{std::move(names[i]), th.active, th.standby, th.warmup, i});
    }
    for (const auto& h : history) {
      for (TaskIndex t : h.previous_active) scratch.previous_thread[t] = UINT32_MAX;
      for (TaskIndex t : h.previous_standby) scratch.previous_thread[t] = UINT32_MAX;
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
