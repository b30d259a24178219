#include "assignor/model.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace assignor {

namespace {

std::int64_t saturating_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return std::numeric_limits<std::int64_t>::max();
  return out;
}

// `new_index` empty: the task order did not change (the usual case), only the checks apply. The
// description of the list is built only for a message (finalize runs every simulated round).
template <typename Describe>
void remap_sorted(std::vector<TaskIndex>& list, const std::vector<TaskIndex>& new_index, std::size_t task_count,
                  const Describe& what) {
  for (auto& t : list) {
    if (t >= task_count) throw std::invalid_argument(what() + ": task index out of range");
    if (!new_index.empty()) t = new_index[t];
  }
  if (!std::is_sorted(list.begin(), list.end())) std::sort(list.begin(), list.end());
  if (std::adjacent_find(list.begin(), list.end()) != list.end())
    throw std::invalid_argument(what() + ": a task is listed twice");
}

}  // namespace

std::uint64_t Cluster::total_threads() const noexcept {
  std::uint64_t total = 0;
  for (const auto& c : clients) total += c.threads;
  return total;
}

bool Cluster::has_racks() const noexcept {
  if (clients.empty()) return false;
  for (const auto& c : clients)
    if (c.rack == kNoRack) return false;
  for (const auto& t : tasks)
    for (const auto& p : t.partitions)
      if (!p.racks.empty()) return true;
  return false;
}

std::optional<TaskIndex> Cluster::find_task(TaskId id) const noexcept {
  auto it = std::lower_bound(tasks.begin(), tasks.end(), id, [](const Task& t, TaskId v) { return t.id < v; });
  if (it == tasks.end() || it->id != id) return std::nullopt;
  return static_cast<TaskIndex>(it - tasks.begin());
}

TaskRange Cluster::tasks_of_subtopology(std::int32_t subtopology) const {
  const auto first = std::lower_bound(tasks.begin(), tasks.end(), subtopology,
                                      [](const Task& t, std::int32_t s) { return t.id.subtopology < s; });
  const auto last = std::upper_bound(first, tasks.end(), subtopology,
                                     [](std::int32_t s, const Task& t) { return s < t.id.subtopology; });
  return {static_cast<TaskIndex>(first - tasks.begin()), static_cast<TaskIndex>(last - tasks.begin())};
}

std::vector<std::int32_t> Cluster::subtopologies() const {
  std::vector<std::int32_t> ids;
  for (const Task& t : tasks)
    if (ids.empty() || ids.back() != t.id.subtopology) ids.push_back(t.id.subtopology);
  return ids;
}

std::optional<ClientIndex> Cluster::find_client(std::string_view id) const noexcept {
  auto it = std::lower_bound(clients.begin(), clients.end(), id,
                             [](const Client& c, std::string_view v) { return c.id < v; });
  if (it == clients.end() || it->id != id) return std::nullopt;
  return static_cast<ClientIndex>(it - clients.begin());
}

void Cluster::finalize() {
  // Tasks: sort by id and remember where each old index went (files usually list them in order).
  const auto by_id = [](const Task& a, const Task& b) { return a.id < b.id; };
  std::vector<TaskIndex> new_index;  // empty: every index stays
  if (!std::is_sorted(tasks.begin(), tasks.end(), by_id)) {
    new_index.resize(tasks.size());
    std::iota(new_index.begin(), new_index.end(), TaskIndex{0});
    std::vector<TaskIndex> order = new_index;
    std::stable_sort(order.begin(), order.end(), [&](TaskIndex a, TaskIndex b) { return tasks[a].id < tasks[b].id; });
    std::vector<Task> sorted;
    sorted.reserve(tasks.size());
    for (TaskIndex pos = 0; pos < order.size(); ++pos) {
      new_index[order[pos]] = pos;
      sorted.push_back(std::move(tasks[order[pos]]));
    }
    tasks = std::move(sorted);
  }
  for (std::size_t i = 1; i < tasks.size(); ++i)
    if (tasks[i - 1].id == tasks[i].id) throw std::invalid_argument("duplicate task id " + to_string(tasks[i].id));

  stateful_tasks_ = 0;
  logged_tasks_ = 0;
  for (auto& task : tasks) {
    task.stateful = !task.stores.empty();
    task.has_logged_store = false;
    task.end_offset_sum = 0;
    for (const auto& store : task.stores) {
      if (!store.logged) continue;
      task.has_logged_store = true;
      task.end_offset_sum = saturating_add(task.end_offset_sum, store.changelog_end_offset);
    }
    stateful_tasks_ += task.stateful ? 1 : 0;
    logged_tasks_ += task.has_logged_store ? 1 : 0;
    for (auto& p : task.partitions) {
      for (RackIndex r : p.racks)
        if (r >= racks.size()) throw std::invalid_argument("rack index out of range");
      std::sort(p.racks.begin(), p.racks.end());
      p.racks.erase(std::unique(p.racks.begin(), p.racks.end()), p.racks.end());
    }
  }

  const auto client_by_id = [](const Client& a, const Client& b) { return a.id < b.id; };
  if (!std::is_sorted(clients.begin(), clients.end(), client_by_id))
    std::sort(clients.begin(), clients.end(), client_by_id);
  for (std::size_t i = 1; i < clients.size(); ++i)
    if (clients[i - 1].id == clients[i].id) throw std::invalid_argument("duplicate client id " + clients[i].id);

  previous_owner_.assign(tasks.size(), kNoClient);
  for (ClientIndex c = 0; c < clients.size(); ++c) {
    Client& client = clients[c];
    if (client.threads < 1) throw std::invalid_argument("client " + client.id + ": threads < 1");
    if (client.rack != kNoRack && client.rack >= racks.size())
      throw std::invalid_argument("client " + client.id + ": rack index out of range");
    const std::size_t n_tasks = tasks.size();
    remap_sorted(client.previous_active, new_index, n_tasks,
                 [&] { return "client " + client.id + " previous_active"; });
    remap_sorted(client.previous_standby, new_index, n_tasks,
                 [&] { return "client " + client.id + " previous_standby"; });
    for (auto& thread : client.threads_history) {
      const auto where = [&] { return "client " + client.id + " thread " + thread.name; };
      remap_sorted(thread.previous_active, new_index, n_tasks, where);
      remap_sorted(thread.previous_standby, new_index, n_tasks, where);
    }
    for (auto& entry : client.offset_sums) {
      if (entry.task >= n_tasks)
        throw std::invalid_argument("client " + client.id + " offset_sums: task index out of range");
      if (!new_index.empty()) entry.task = new_index[entry.task];
    }
    const auto by_task = [](const OffsetSum& a, const OffsetSum& b) { return a.task < b.task; };
    if (!std::is_sorted(client.offset_sums.begin(), client.offset_sums.end(), by_task))
      std::sort(client.offset_sums.begin(), client.offset_sums.end(), by_task);
    for (std::size_t i = 1; i < client.offset_sums.size(); ++i)
      if (client.offset_sums[i - 1].task == client.offset_sums[i].task)
        throw std::invalid_argument("client " + client.id + " offset_sums: a task is listed twice");
    for (TaskIndex t : client.previous_active) {
      if (previous_owner_[t] != kNoClient)
        throw std::invalid_argument("task " + to_string(tasks[t].id) + " is previous active on " +
                                    clients[previous_owner_[t]].id + " and " + client.id);
      previous_owner_[t] = c;
    }
  }
}

}  // namespace assignor
