// From a logged Decided line to the cluster file that was Kafka's input and the assignment Kafka
// decided (DESIGN 4.7, docs/formats.md "Importing a Kafka Streams log").
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "assignor/host/import/kafka_log.hpp"

namespace assignor::host {

namespace {

constexpr std::int64_t kRunning = -2;

// A task's end-offset sum from what each client reports: with offset sum o (0 when it has no
// state) Kafka printed lag L = E - o, or L = E when o > E (it treats such state as corrupt). Each
// client thus allows E = L + o, and E = L when o > L; the sum is what every client allows.
struct EndOffset {
  std::optional<std::int64_t> value;
  bool ambiguous = false;
  bool inconsistent = false;
};

EndOffset recover_end_offset(const std::vector<std::pair<std::int64_t, std::int64_t>>& lag_and_offset,
                             std::optional<std::int64_t> warned) {
  EndOffset out;
  std::optional<std::set<std::int64_t>> allowed;
  for (const auto& [lag, offset] : lag_and_offset) {
    if (lag < 0 || offset < 0) continue;  // -2 running, -3 unknown: say nothing about E
    std::set<std::int64_t> mine;
    if (lag <= INT64_MAX - offset) mine.insert(lag + offset);
    if (offset > lag) mine.insert(lag);
    if (!allowed) {
      allowed = std::move(mine);
      continue;
    }
    std::set<std::int64_t> both;
    std::set_intersection(allowed->begin(), allowed->end(), mine.begin(), mine.end(), std::inserter(both, both.end()));
    if (both.empty()) {
      out.inconsistent = true;
      continue;  // keep what the others allow
    }
    allowed = std::move(both);
  }
  if (!allowed || allowed->empty()) return out;
  if (allowed->size() > 1 && warned && allowed->count(*warned) != 0) {
    out.value = *warned;  // Kafka said so: a client's state is above the end
    return out;
  }
  // Two left (every client holds state): E = L + o, unless Kafka warned that an offset sum is above
  // the end (it always does, just before the line); without a warning the other reading is not
  // what happened.
  out.value = *allowed->rbegin();
  out.ambiguous = allowed->size() > 1 && warned.has_value();
  return out;
}

std::string task_text(TaskId t) { return to_string(t); }

}  // namespace

Reconstructed reconstruct(const LoggedRebalance& logged, const AssignmentSettings& settings, bool settings_given,
                          const std::vector<std::pair<TaskId, std::int64_t>>& corrupt_ends) {
  Reconstructed out;
  const std::map<TaskId, std::int64_t> warned(corrupt_ends.begin(), corrupt_ends.end());
  // The group's tasks: every task Kafka assigned (each gets an active), and every one it knows of.
  std::set<TaskId> all, logged_tasks;
  for (const LoggedClient& c : logged.clients) {
    for (TaskId t : c.active) all.insert(t);
    for (TaskId t : c.standby) all.insert(t);
    for (const auto& [t, lag] : c.lags) {
      all.insert(t);
      logged_tasks.insert(t);
    }
  }
  // Previous tasks and offset sums may name tasks the topology no longer has (old state
  // directories): Kafka ignores those, and so does the cluster file, with a note.
  std::set<TaskId> dropped;
  auto known = [&](TaskId t) {
    if (all.count(t) != 0) return true;
    dropped.insert(t);
    return false;
  };

  Cluster& cluster = out.cluster;
  cluster.end_offsets_known = true;
  std::map<TaskId, std::vector<std::pair<std::int64_t, std::int64_t>>> reports;  // task -> (lag, offset) per client
  for (const LoggedClient& c : logged.clients) {
    std::map<TaskId, std::int64_t> offsets(c.offset_sums.begin(), c.offset_sums.end());
    for (const auto& [t, lag] : c.lags) {
      const auto it = offsets.find(t);
      reports[t].emplace_back(lag, it == offsets.end() ? 0 : it->second);
    }
  }
  std::map<TaskId, TaskIndex> index;
  for (TaskId t : all) {
    Task task;
    task.id = t;
    if (logged_tasks.count(t) != 0) {
      const auto hint = warned.find(t);
      const EndOffset end =
          recover_end_offset(reports[t], hint == warned.end() ? std::nullopt : std::optional<std::int64_t>(hint->second));
      std::int64_t e = 0;
      if (end.value) {
        e = *end.value;
        if (end.inconsistent)
          out.notes.push_back(fmt::format("task {}: the clients' lags disagree about its end-offset sum; {} kept "
                                          "(what most of them allow)",
                                          task_text(t), e));
        if (end.ambiguous)
          out.notes.push_back(fmt::format("task {}: Kafka warned of an offset sum above its end-offset sum, but the "
                                          "sum it named does not fit the lags; {} kept",
                                          task_text(t), e));
      } else {
        // Only running (-2) or unknown (-3) reports: any end-offset sum at least the offsets reported
        // gives the same lags.
        for (const auto& [lag, offset] : reports[t]) e = std::max(e, offset);
        out.notes.push_back(fmt::format("task {}: end-offset sum not in the log (only running or unknown lags); {} "
                                        "assumed",
                                        task_text(t), e));
      }
      task.stores.push_back(Store{"changelog", true, e});
    }
    index.emplace(t, static_cast<TaskIndex>(cluster.tasks.size()));
    cluster.tasks.push_back(std::move(task));
  }

  std::map<TaskId, std::string> previous_owner;
  for (const LoggedClient& c : logged.clients) {
    Client client;
    client.id = c.process;
    client.threads = std::max<std::uint32_t>(c.capacity, 1);
    for (const auto& [k, v] : c.tags) client.tags.emplace(k, v);
    std::set<TaskId> prev_active, prev_standby;
    for (TaskId t : c.previous_active)
      if (known(t)) prev_active.insert(t);
    for (TaskId t : c.previous_standby)
      if (known(t) && prev_active.count(t) == 0) prev_standby.insert(t);
    for (TaskId t : prev_active) {
      // A task two clients both say they ran (ownership moving during the rebalance): the one that
      // reports it running keeps it, and the other holds it as a standby.
      const auto [it, fresh] = previous_owner.emplace(t, c.process);
      if (!fresh) {
        out.notes.push_back(fmt::format("task {} was previously active on {} and {}; the first kept, the other as a "
                                        "previous standby",
                                        task_text(t), it->second, c.process));
        prev_standby.insert(t);
        continue;
      }
      client.previous_active.push_back(index.at(t));
    }
    for (TaskId t : prev_standby) client.previous_standby.push_back(index.at(t));
    for (const auto& [t, sum] : c.offset_sums) {
      if (!known(t)) continue;
      if (logged_tasks.count(t) == 0) {
        out.notes.push_back(fmt::format("{}: offset sum of task {}, which has no lags (Kafka counts it stateless): "
                                        "left out",
                                        c.process, task_text(t)));
        continue;
      }
      client.offset_sums.push_back({index.at(t), sum});
    }
    cluster.clients.push_back(std::move(client));
  }
  if (!dropped.empty()) {
    std::string list;
    for (TaskId t : dropped) list += (list.empty() ? "" : ", ") + task_text(t);
    out.notes.push_back(fmt::format("tasks the group no longer has (previous tasks or offset sums of old state): {}; "
                                    "left out, as Kafka leaves them",
                                    list));
  }
  cluster.finalize();

  // Kafka's decision. Its log prints warmups inside standbyTasks: a task with more copies than
  // num_standby_replicas has warmups, and they are the copies on the clients furthest behind
  // (Kafka puts a warmup on the client a task should move to, which is not caught up).
  std::map<TaskId, std::vector<std::pair<std::int64_t, ClientIndex>>> copies;  // task -> (lag, client)
  for (const LoggedClient& c : logged.clients) {
    const ClientIndex ci = *cluster.find_client(c.process);
    std::map<TaskId, std::int64_t> lags(c.lags.begin(), c.lags.end());
    for (TaskId t : c.active) out.kafka.actives.push_back({index.at(t), ci});
    for (TaskId t : c.standby) {
      const auto it = lags.find(t);
      copies[t].emplace_back(it == lags.end() ? 0 : it->second, ci);
    }
  }
  std::uint32_t standbys = settings.num_standby_replicas;
  if (!settings_given && standbys == 0 && !copies.empty()) {
    // Kafka's default is 0 standbys, which explains no copy but warmups: the count most tasks with a
    // changelog have is the setting (warmups are few, bounded by max.warmup.replicas).
    std::map<std::size_t, std::size_t> how_many;
    for (TaskId t : logged_tasks) ++how_many[copies.count(t) != 0 ? copies[t].size() : 0];
    std::size_t best = 0, most = 0;
    for (const auto& [count, n] : how_many)
      if (n > most) best = count, most = n;
    standbys = static_cast<std::uint32_t>(best);
    out.standbys_inferred = standbys != settings.num_standby_replicas;
  }
  out.num_standby_replicas = standbys;
  const auto acceptable = settings.acceptable_recovery_lag;
  for (auto& [t, holders] : copies) {
    const std::size_t extra = holders.size() > standbys ? holders.size() - standbys : 0;
    if (extra > 0) {
      // Furthest behind first (running -2 and unknown -3 count as caught up), then client order.
      std::stable_sort(holders.begin(), holders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      std::size_t behind = 0;
      for (const auto& [lag, c] : holders) behind += lag > acceptable ? 1 : 0;
      if (behind > extra) ++out.warmups_by_lag;
    }
    for (std::size_t i = 0; i < holders.size(); ++i)
      (i < extra ? out.kafka.warmups : out.kafka.standbys).push_back({index.at(t), holders[i].second});
  }
  out.kafka.probing_rebalance = logged.probing;
  out.kafka.normalize();
  return out;
}

}  // namespace assignor::host
