// From a logged Decided line to the cluster file that was Kafka's input and the assignment Kafka
// decided (DESIGN 4.7, docs/formats.md "Importing a Kafka Streams log"). Linear in the line (a line
// holds a lag for every stateful task on every client): tasks get dense indices once, and every
// per-task, per-client step works on flat arrays.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "assignor/errors.hpp"
#include "assignor/host/import/kafka_log.hpp"

namespace assignor::host {

namespace {

// A task's end-offset sum from what each client reports: with offset sum o (0 when it has no
// state) Kafka printed lag L = E - o, or L = E when o > E (it treats such state as corrupt). Each
// client thus allows E = L + o, and E = L when o > L; the sum is what every client allows.
struct EndOffset {
  std::optional<std::int64_t> value;
  bool ambiguous = false;
  bool inconsistent = false;
};

// At most two candidates are ever allowed: kept in place, no set.
struct Candidates {
  std::int64_t v[2] = {0, 0};
  int n = 0;
  bool has(std::int64_t x) const noexcept { return (n > 0 && v[0] == x) || (n > 1 && v[1] == x); }
};

EndOffset recover_end_offset(const std::vector<std::pair<std::int64_t, std::int64_t>>& lag_and_offset,
                             std::optional<std::int64_t> warned) {
  EndOffset out;
  std::optional<Candidates> allowed;
  for (const auto& [lag, offset] : lag_and_offset) {
    if (lag < 0 || offset < 0) continue;  // -2 running, -3 unknown: say nothing about E
    Candidates mine;
    if (lag <= INT64_MAX - offset) mine.v[mine.n++] = lag + offset;
    if (offset > lag) mine.v[mine.n++] = lag;
    if (!allowed) {
      allowed = mine;
      continue;
    }
    Candidates both;
    for (int i = 0; i < allowed->n; ++i)
      if (mine.has(allowed->v[i])) both.v[both.n++] = allowed->v[i];
    if (both.n == 0) {
      out.inconsistent = true;
      continue;  // keep what the others allow
    }
    allowed = both;
  }
  if (!allowed || allowed->n == 0) return out;
  if (allowed->n > 1 && warned && allowed->has(*warned)) {
    out.value = *warned;  // Kafka said so: a client's state is above the end
    return out;
  }
  // Two left (every client holds state): E = L + o, unless Kafka warned that an offset sum is above
  // the end (it always does, just before the line); without a warning the other reading is not
  // what happened.
  out.value = allowed->n > 1 ? std::max(allowed->v[0], allowed->v[1]) : allowed->v[0];
  out.ambiguous = allowed->n > 1 && warned.has_value();
  return out;
}

std::string task_text(TaskId t) { return to_string(t); }

// Dense indices for the tasks of one line, in task order. A line names each task once per client
// (lags of every stateful task on every client), so lookups are O(1): a table by sub-topology and
// partition, with a hash map for ids too large for a table (a hostile line must not cost memory).
class TaskIndexer {
 public:
  void add(TaskId t) {
    if (slot(t) < 0) {
      set_slot(t, static_cast<std::int32_t>(ids_.size()));
      ids_.push_back(t);
    }
  }
  void freeze() {  // indices become positions in task order
    std::sort(ids_.begin(), ids_.end());
    for (std::size_t i = 0; i < ids_.size(); ++i) set_slot(ids_[i], static_cast<std::int32_t>(i));
  }
  std::size_t size() const noexcept { return ids_.size(); }
  TaskId id(TaskIndex i) const noexcept { return ids_[i]; }
  std::optional<TaskIndex> find(TaskId t) const noexcept {
    const std::int32_t i = slot(t);
    if (i < 0) return std::nullopt;
    return static_cast<TaskIndex>(i);
  }

 private:
  static constexpr std::int32_t kMaxDense = 1 << 16;
  static bool dense(TaskId t) noexcept {
    return t.subtopology >= 0 && t.subtopology < kMaxDense && t.partition >= 0 && t.partition < kMaxDense;
  }
  static std::uint64_t key(TaskId t) noexcept {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(t.subtopology)) << 32) |
           static_cast<std::uint32_t>(t.partition);
  }
  std::int32_t slot(TaskId t) const noexcept {
    if (dense(t)) {
      const auto s = static_cast<std::size_t>(t.subtopology), p = static_cast<std::size_t>(t.partition);
      if (s < rows_.size() && p < rows_[s].size() && rows_[s][p] >= 0) return rows_[s][p];
    }
    if (sparse_.empty()) return -1;
    const auto it = sparse_.find(key(t));
    return it == sparse_.end() ? -1 : it->second;
  }
  void set_slot(TaskId t, std::int32_t value) {
    if (dense(t)) {
      const auto s = static_cast<std::size_t>(t.subtopology), p = static_cast<std::size_t>(t.partition);
      if (s < rows_.size() && p < rows_[s].size()) {
        rows_[s][p] = value;
        return;
      }
      // The table grows only while it stays within a few cells per task seen: ids spread far apart
      // (a hostile line) go to the hash map instead.
      const std::size_t row = s < rows_.size() ? rows_[s].size() : 0;
      const std::size_t grown = std::max(p + 1, row * 2);
      if (cells_ + (grown - row) + (s >= rows_.size() ? s + 1 - rows_.size() : 0) <= 16 * (ids_.size() + 1) + 4096) {
        if (s >= rows_.size()) {
          cells_ += s + 1 - rows_.size();
          rows_.resize(s + 1);
        }
        cells_ += grown - row;
        rows_[s].resize(grown, -1);
        rows_[s][p] = value;
        return;
      }
    }
    sparse_[key(t)] = value;
  }

  std::vector<TaskId> ids_;
  std::vector<std::vector<std::int32_t>> rows_;
  std::size_t cells_ = 0;
  std::unordered_map<std::uint64_t, std::int32_t> sparse_;
};

}  // namespace

namespace {

// A line on which no client printed an offset sum while lags are there: the Assignor bridge's
// fallback (Kafka's HighAvailabilityTaskAssignor run on ClientStates built from lags alone). Kafka's
// own leader prints both; with no offsets on any client all its lags equal the end-offset sums. The
// lags are then read exactly: a task's end-offset sum is its largest lag, and a client with a smaller
// lag L reports E - L (-2 and -3 as printed). Every client must print every such task's lag, else
// the input cannot be read exactly and the line is refused (never a guessed state).
std::optional<LoggedRebalance> offsets_from_lags(const LoggedRebalance& logged) {
  bool any_lag = false;
  for (const LoggedClient& c : logged.clients) {
    if (!c.offset_sums.empty()) return std::nullopt;
    any_lag = any_lag || !c.lags.empty();
  }
  if (!any_lag) return std::nullopt;
  std::map<TaskId, std::int64_t> end;  // a line has every lag anyway: its size bounds this map's
  for (const LoggedClient& c : logged.clients)
    for (const auto& [t, lag] : c.lags) end[t] = std::max(end[t], lag);
  LoggedRebalance out = logged;
  for (LoggedClient& c : out.clients) {
    std::set<TaskId> printed;
    for (const auto& [t, lag] : c.lags) printed.insert(t);
    if (printed.size() != end.size())
      throw InputError(
          fmt::format("no client printed offset sums (changelogOffsetTotalsByTask, as the Assignor "
                      "bridge's fallback prints it), and client {} printed lags for {} of the {} tasks "
                      "with lags: the input cannot be read exactly",
                      c.process, printed.size(), end.size()));
    for (const auto& [t, lag] : c.lags) {
      const std::int64_t e = std::max<std::int64_t>(end[t], 0);
      if (lag < 0 || lag < e) c.offset_sums.emplace_back(t, lag < 0 ? lag : e - lag);
    }
  }
  return out;
}

}  // namespace

Reconstructed reconstruct(const LoggedRebalance& printed, const AssignmentSettings& settings, bool settings_given,
                          const std::vector<std::pair<TaskId, std::int64_t>>& corrupt_ends) {
  const std::optional<LoggedRebalance> from_lags = offsets_from_lags(printed);
  const LoggedRebalance& logged = from_lags ? *from_lags : printed;
  Reconstructed out;
  const std::map<TaskId, std::int64_t> warned(corrupt_ends.begin(), corrupt_ends.end());
  // The group's tasks: every task Kafka assigned (each gets an active), and every one it knows of.
  TaskIndexer tasks;
  for (const LoggedClient& c : logged.clients) {
    for (TaskId t : c.active) tasks.add(t);
    for (TaskId t : c.standby) tasks.add(t);
    for (const auto& [t, lag] : c.lags) tasks.add(t);
  }
  tasks.freeze();
  const std::size_t n_tasks = tasks.size();
  std::vector<std::uint8_t> logged_task(n_tasks, 0);
  for (const LoggedClient& c : logged.clients)
    for (const auto& [t, lag] : c.lags) logged_task[*tasks.find(t)] = 1;

  // Previous tasks and offset sums may name tasks the topology no longer has (old state
  // directories): Kafka ignores those, and so does the cluster file, with a note.
  std::set<TaskId> dropped;
  auto known = [&](TaskId t) -> std::optional<TaskIndex> {
    const auto i = tasks.find(t);
    if (!i) dropped.insert(t);
    return i;
  };

  // Per client, its offset sum of each task (0: no state), as a flat array reset after each client.
  constexpr std::int64_t kNone = INT64_MIN;
  std::vector<std::int64_t> offset_of(n_tasks, kNone);
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> reports(n_tasks);  // (lag, offset) per client
  std::vector<std::vector<std::int64_t>> lag_of(logged.clients.size());  // per client: its lag per task (copies)
  for (std::size_t ci = 0; ci < logged.clients.size(); ++ci) {
    const LoggedClient& c = logged.clients[ci];
    for (const auto& [t, sum] : c.offset_sums)
      if (const auto i = tasks.find(t)) offset_of[*i] = sum;
    for (const auto& [t, lag] : c.lags) {
      const TaskIndex i = *tasks.find(t);
      reports[i].emplace_back(lag, offset_of[i] == kNone ? 0 : offset_of[i]);
    }
    for (const auto& [t, sum] : c.offset_sums)
      if (const auto i = tasks.find(t)) offset_of[*i] = kNone;
    if (!c.standby.empty()) {
      lag_of[ci].assign(n_tasks, 0);
      for (const auto& [t, lag] : c.lags) lag_of[ci][*tasks.find(t)] = lag;
    }
  }

  Cluster& cluster = out.cluster;
  cluster.end_offsets_known = true;
  cluster.tasks.reserve(n_tasks);
  for (TaskIndex i = 0; i < n_tasks; ++i) {
    Task task;
    task.id = tasks.id(i);
    if (logged_task[i] != 0) {
      const auto hint = warned.find(task.id);
      const EndOffset end = recover_end_offset(
          reports[i], hint == warned.end() ? std::nullopt : std::optional<std::int64_t>(hint->second));
      std::int64_t e = 0;
      if (end.value) {
        e = *end.value;
        if (end.inconsistent)
          out.notes.push_back(
              fmt::format("task {}: the clients' lags disagree about its end-offset sum; {} kept "
                          "(what most of them allow)",
                          task_text(task.id), e));
        if (end.ambiguous)
          out.notes.push_back(
              fmt::format("task {}: Kafka warned of an offset sum above its end-offset sum, but the "
                          "sum it named does not fit the lags; {} kept",
                          task_text(task.id), e));
      } else {
        // Only running (-2) or unknown (-3) reports: any end-offset sum at least the offsets reported
        // gives the same lags.
        for (const auto& [lag, offset] : reports[i]) e = std::max(e, offset);
        out.notes.push_back(
            fmt::format("task {}: end-offset sum not in the log (only running or unknown lags); {} "
                        "assumed",
                        task_text(task.id), e));
      }
      task.stores.push_back(Store{"changelog", true, e});
    }
    cluster.tasks.push_back(std::move(task));
  }

  std::vector<const std::string*> previous_owner(n_tasks, nullptr);
  std::vector<std::uint8_t> mark(n_tasks, 0);  // 1 previous active, 2 previous standby (this client)
  for (const LoggedClient& c : logged.clients) {
    Client client;
    client.id = c.process;
    client.threads = std::max<std::uint32_t>(c.capacity, 1);
    for (const auto& [k, v] : c.tags) client.tags.emplace(k, v);
    for (TaskId t : c.previous_active) {
      const auto i = known(t);
      if (!i) continue;
      // A task two clients both say they ran (ownership moving during the rebalance): the first
      // keeps it, and the other holds it as a standby.
      if (previous_owner[*i] != nullptr) {
        out.notes.push_back(
            fmt::format("task {} was previously active on {} and {}; the first kept, the other as a "
                        "previous standby",
                        task_text(t), *previous_owner[*i], c.process));
        mark[*i] = 2;
        continue;
      }
      previous_owner[*i] = &c.process;
      mark[*i] = 1;
    }
    for (TaskId t : c.previous_standby)
      if (const auto i = known(t); i && mark[*i] == 0) mark[*i] = 2;
    auto collect = [&](const std::vector<TaskId>& from) {
      for (TaskId t : from)
        if (const auto i = tasks.find(t); i && mark[*i] != 0) {
          (mark[*i] == 1 ? client.previous_active : client.previous_standby).push_back(*i);
          mark[*i] = 0;
        }
    };
    collect(c.previous_active);
    collect(c.previous_standby);
    std::sort(client.previous_active.begin(), client.previous_active.end());
    std::sort(client.previous_standby.begin(), client.previous_standby.end());
    for (const auto& [t, sum] : c.offset_sums) {
      const auto i = known(t);
      if (!i) continue;
      if (logged_task[*i] == 0) {
        out.notes.push_back(
            fmt::format("{}: offset sum of task {}, which has no lags (Kafka counts it stateless): "
                        "left out",
                        c.process, task_text(t)));
        continue;
      }
      client.offset_sums.push_back({*i, sum});
    }
    std::sort(client.offset_sums.begin(), client.offset_sums.end(),
              [](const OffsetSum& a, const OffsetSum& b) { return a.task < b.task; });
    cluster.clients.push_back(std::move(client));
  }
  if (!dropped.empty()) {
    std::string list;
    for (TaskId t : dropped) list += (list.empty() ? "" : ", ") + task_text(t);
    out.notes.push_back(
        fmt::format("tasks the group no longer has (previous tasks or offset sums of old state): {}; "
                    "left out, as Kafka leaves them",
                    list));
  }
  cluster.finalize();

  // Kafka's decision. Its log prints warmups inside standbyTasks: a task with more copies than
  // num_standby_replicas has warmups, and they are the copies on the clients furthest behind
  // (Kafka puts a warmup on the client a task should move to, which is not caught up).
  std::vector<std::vector<std::pair<std::int64_t, ClientIndex>>> copies(n_tasks);  // (lag, client)
  for (std::size_t li = 0; li < logged.clients.size(); ++li) {
    const LoggedClient& c = logged.clients[li];
    const ClientIndex ci = *cluster.find_client(c.process);
    for (TaskId t : c.active) out.kafka.actives.push_back({*tasks.find(t), ci});
    for (TaskId t : c.standby) {
      const TaskIndex i = *tasks.find(t);
      copies[i].emplace_back(lag_of[li][i], ci);
    }
  }
  std::uint32_t standbys = settings.num_standby_replicas;
  if (!settings_given && standbys == 0) {
    // Kafka's default is 0 standbys, which explains no copy but warmups: the count most tasks with a
    // changelog have is the setting (warmups are few, bounded by max.warmup.replicas).
    std::map<std::size_t, std::size_t> how_many;
    bool any = false;
    for (TaskIndex i = 0; i < n_tasks; ++i)
      if (logged_task[i] != 0) {
        ++how_many[copies[i].size()];
        any = any || !copies[i].empty();
      }
    if (any) {
      std::size_t best = 0, most = 0;
      for (const auto& [count, n] : how_many)
        if (n > most) best = count, most = n;
      standbys = static_cast<std::uint32_t>(best);
      out.standbys_inferred = standbys != settings.num_standby_replicas;
    }
  }
  out.num_standby_replicas = standbys;
  const auto acceptable = settings.acceptable_recovery_lag;
  for (TaskIndex i = 0; i < n_tasks; ++i) {
    auto& holders = copies[i];
    const std::size_t extra = holders.size() > standbys ? holders.size() - standbys : 0;
    if (extra > 0) {
      // Furthest behind first (running -2 and unknown -3 count as caught up), then client order.
      std::stable_sort(holders.begin(), holders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      std::size_t behind = 0;
      for (const auto& [lag, c] : holders) behind += lag > acceptable ? 1 : 0;
      if (behind > extra) ++out.warmups_by_lag;
    }
    for (std::size_t k = 0; k < holders.size(); ++k)
      (k < extra ? out.kafka.warmups : out.kafka.standbys).push_back({i, holders[k].second});
  }
  out.kafka.probing_rebalance = logged.probing;
  out.kafka.normalize();
  return out;
}

}  // namespace assignor::host
