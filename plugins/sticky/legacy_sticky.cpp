#include "legacy_sticky.hpp"

#include <assignor/java_order.hpp>
#include <assignor/kafka_identity.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string_view>

namespace assignor::legacy_sticky {

std::vector<std::int32_t> process_id_hashes(const Cluster& cluster) {
  std::vector<std::int32_t> hashes(cluster.client_count());
  std::vector<JavaUuid> uuids;
  for (const Client& c : cluster.clients) {
    std::string_view id = c.id;
    if (const auto colon = id.find(':'); colon != std::string_view::npos && id.size() > 36) id = id.substr(colon + 1);
    const auto uuid = parse_uuid(id);
    if (!uuid) {
      uuids.clear();
      break;
    }
    uuids.push_back(*uuid);
  }
  for (ClientIndex c = 0; c < cluster.client_count(); ++c)
    hashes[c] = uuids.empty() ? java_uuid_hash(JavaUuid{0, static_cast<std::int64_t>(c)}) : java_uuid_hash(uuids[c]);
  return hashes;
}

namespace {

// The bins a HashSet grown by add() has after `size` additions (16, doubled past 3/4 full).
std::size_t grown_bins(std::size_t size) {
  std::size_t bins = 16;
  while (size > bins * 3 / 4) bins *= 2;
  return bins;
}

// The iteration order of a small HashSet<ProcessId>: `members` in insertion order.
std::vector<ClientIndex> small_set_order(const std::vector<ClientIndex>& members, const std::vector<std::int32_t>& hash,
                                         JavaHashOrder set) {
  for (std::uint32_t i = 0; i < members.size(); ++i) set.put(i, hash[members[i]]);
  std::vector<ClientIndex> out;
  out.reserve(members.size());
  for (std::uint32_t i : set.order()) out.push_back(members[i]);
  return out;
}

class Assignor {
 public:
  Assignor(const Cluster& cluster, const std::vector<std::int32_t>& process_hash, const Options& options,
           AssignmentDraft& draft)
      : cluster_(cluster),
        hash_(process_hash),
        options_(options),
        draft_(draft),
        n_(cluster.client_count()),
        held_(cluster.client_count()),
        pair_holders_(cluster.task_count()),
        mark_(cluster.client_count(), 0) {
    // The clients map (a HashMap<ProcessId, ClientState>, filled in process id order).
    JavaHashOrder clients;
    for (ClientIndex c = 0; c < n_; ++c) clients.put(c, hash_[c]);
    clients_order_ = clients.order();
    std::uint64_t tasks = cluster.task_count();
    max_pairs_ = tasks * (tasks - (tasks > 0 ? 1 : 0)) / 2;
    index_previous_tasks();
  }

  void run() {
    std::uint64_t capacity = 0;
    for (const Client& c : cluster_.clients) capacity += c.threads;
    if (capacity == 0 || n_ == 0) return;
    index_capacity();
    const std::uint64_t per_thread = cluster_.task_count() / capacity;
    auto under_quota = [&](ClientIndex c) {
      return draft_.active_count(c) < std::uint64_t{cluster_.clients[c].threads} * per_thread;
    };
    // 1. Previous actives, in the previous-assignment map's order.
    for (TaskIndex t : previous_active_order_) {
      const ClientIndex c = previous_owner_[t];
      if (options_.preserve_previous_actives || under_quota(c)) assign(t, c, true);
    }
    // 2. The unassigned tasks (a HashSet copied from all tasks), to the first standby holder with room.
    JavaHashOrder unassigned = JavaHashOrder::copy_of(cluster_.task_count());
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) unassigned.put(t, task_hash(t));
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t)
      if (draft_.active(t) != kNoClient) unassigned.remove(t);
    std::vector<TaskIndex> rest;
    for (TaskIndex t : unassigned.order()) {
      bool placed = false;
      for (ClientIndex c : standby_holders_order(t)) {
        if (under_quota(c)) {
          assign(t, c, true);
          placed = true;
          break;
        }
      }
      if (!placed) rest.push_back(t);
    }
    // 3. The rest in task order, by findClient over every client.
    std::sort(rest.begin(), rest.end());
    for (TaskIndex t : rest) assign(t, find_client(t, clients_order_), true);
    if (options_.between_steps) {
      options_.between_steps(draft_, Step::actives_placed);
      index_capacity();  // counts are kept, but the set's order must not go stale
    }
    // 4. Standbys of the tasks with a changelog (a HashSet of them, in its order).
    if (draft_.standbys_per_task() == 0) return;
    JavaHashOrder stateful;
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t)
      if (cluster_.tasks[t].has_logged_store) stateful.put(t, task_hash(t));
    std::vector<ClientIndex> without;
    for (TaskIndex t : stateful.order()) {
      for (std::uint32_t i = 0; i < draft_.standbys_wanted(); ++i) {
        clients_without(t, without);
        if (without.empty()) break;  // Kafka logs "Unable to assign ... standby" and moves on
        assign(t, find_client(t, without), false);
      }
    }
    if (options_.between_steps) options_.between_steps(draft_, Step::standbys_placed);
  }

 private:
  std::int32_t task_hash(TaskIndex t) const {
    return kafka_streams_task_id_hash(cluster_.tasks[t].id.subtopology, cluster_.tasks[t].id.partition);
  }

  // What the clients report: previous actives (listed, or running: -2) and previous standbys (any
  // other reported offset sum, or listed). previousActiveTaskAssignment is a HashMap filled client
  // by client (clients map order), each client's tasks in task order; a task two clients claim
  // belongs to the later one. previousStandbyTaskAssignment: per task the standby holders, in the
  // order their HashSet iterates.
  void index_previous_tasks() {
    previous_owner_.assign(cluster_.task_count(), kNoClient);
    std::vector<std::vector<ClientIndex>> standby_holders(cluster_.task_count());
    JavaHashOrder previous;
    std::vector<TaskIndex> active, standby;
    for (ClientIndex c : clients_order_) {
      const Client& client = cluster_.clients[c];
      active = client.previous_active;
      standby = client.previous_standby;
      for (const OffsetSum& s : client.offset_sums) (s.sum == kRunningOffsetSum ? active : standby).push_back(s.task);
      std::sort(active.begin(), active.end());
      active.erase(std::unique(active.begin(), active.end()), active.end());
      std::sort(standby.begin(), standby.end());
      standby.erase(std::unique(standby.begin(), standby.end()), standby.end());
      for (TaskIndex t : active) {
        previous.put(t, task_hash(t));
        previous_owner_[t] = c;
      }
      for (TaskIndex t : standby)
        if (!std::binary_search(active.begin(), active.end(), t)) standby_holders[t].push_back(c);
    }
    previous_active_order_ = previous.order();
    standby_begin_.assign(cluster_.task_count() + 1, 0);
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t)
      standby_begin_[t + 1] = standby_begin_[t] + static_cast<std::uint32_t>(standby_holders[t].size());
    standby_holders_.reserve(standby_begin_.back());
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      if (standby_holders[t].size() > 1) standby_holders[t] = small_set_order(standby_holders[t], hash_, JavaHashOrder());
      standby_holders_.insert(standby_holders_.end(), standby_holders[t].begin(), standby_holders[t].end());
    }
  }

  std::vector<ClientIndex> standby_holders_order(TaskIndex t) const {
    return {standby_holders_.begin() + standby_begin_[t], standby_holders_.begin() + standby_begin_[t + 1]};
  }

  // The clients without the task: a HashSet<ProcessId> filled in clients map order.
  void clients_without(TaskIndex t, std::vector<ClientIndex>& out) {
    const std::size_t holders = (draft_.active(t) != kNoClient ? 1 : 0) + draft_.standby_count(t);
    const std::vector<ClientIndex>& order = order_for_bins(grown_bins(n_ - holders));
    const ClientIndex active = draft_.active(t);
    const std::span<const ClientIndex> standbys = draft_.standby_slots(t);
    if (active != kNoClient) mark_[active] = 1;
    for (ClientIndex c : standbys)
      if (c != kNoClient) mark_[c] = 1;
    out.clear();
    for (ClientIndex c : order)
      if (!mark_[c]) out.push_back(c);
    if (active != kNoClient) mark_[active] = 0;
    for (ClientIndex c : standbys)
      if (c != kNoClient) mark_[c] = 0;
  }

  // Every client in the order of a HashSet with `bins` bins filled in clients map order.
  const std::vector<ClientIndex>& order_for_bins(std::size_t bins) {
    auto it = order_by_bins_.find(bins);
    if (it != order_by_bins_.end()) return it->second;
    std::vector<ClientIndex> order = clients_order_;
    auto spread = [&](ClientIndex c) {
      const auto h = static_cast<std::uint32_t>(hash_[c]);
      return (h ^ (h >> 16)) & (bins - 1);
    };
    std::stable_sort(order.begin(), order.end(), [&](ClientIndex a, ClientIndex b) { return spread(a) < spread(b); });
    return order_by_bins_.emplace(bins, std::move(order)).first->second;
  }

  std::uint32_t held(ClientIndex c) const { return draft_.active_count(c) + draft_.standby_count_of(c); }
  // ClientState.hasMoreAvailableCapacityThan: lower tasks per thread, else more threads.
  bool more_available(ClientIndex a, ClientIndex b) const {
    const int l = compare_load(held(a), cluster_.clients[a].threads, held(b), cluster_.clients[b].threads);
    return l != 0 ? l < 0 : cluster_.clients[a].threads > cluster_.clients[b].threads;
  }
  // Some client has more available capacity than c: the most available one has (kept in
  // by_capacity_, ordered by more_available).
  bool should_balance_load(ClientIndex c) const {
    if (held(c) < cluster_.clients[c].threads) return false;  // !reachedCapacity
    return more_available(*by_capacity_.begin(), c);
  }
  struct MoreAvailable {
    const Assignor* self;
    bool operator()(ClientIndex a, ClientIndex b) const {
      if (self->more_available(a, b)) return true;
      return !self->more_available(b, a) && a < b;
    }
  };
  void index_capacity() {
    by_capacity_.clear();
    for (ClientIndex c = 0; c < n_; ++c) by_capacity_.insert(c);
  }

  // TaskPairs.hasNewPair(t, assignedTasks(c)): a task of c that t never shared a client with. A
  // pair exists exactly when some client holds both tasks (tasks are only ever added).
  bool has_new_pair(TaskIndex t, ClientIndex c) const {
    if (pairs_ == max_pairs_) return false;
    for (TaskIndex x : held_[c])
      if (!shared(t, x)) return true;
    return false;
  }
  bool shared(TaskIndex a, TaskIndex b) const {
    for (ClientIndex c : pair_holders_[a])
      for (ClientIndex d : pair_holders_[b])
        if (c == d) return true;
    return false;
  }

  ClientIndex find_least_loaded(TaskIndex t, const std::vector<ClientIndex>& within, bool check_pairs) const {
    ClientIndex best = kNoClient;
    for (ClientIndex c : within) {
      if (held(c) == 0) return c;
      if (best == kNoClient || more_available(c, best))
        if (!check_pairs || has_new_pair(t, c)) best = c;
    }
    return best;
  }
  ClientIndex least_loaded(TaskIndex t, const std::vector<ClientIndex>& within) const {
    const ClientIndex c = find_least_loaded(t, within, true);
    return c != kNoClient ? c : find_least_loaded(t, within, false);
  }
  // findLeastLoadedClientWithPreviousStandByTask: the standby holders (new HashSet<>(ids)) that are
  // among `within`, least loaded.
  ClientIndex least_loaded_standby_holder(TaskIndex t, const std::vector<ClientIndex>& within) const {
    if (standby_begin_[t] == standby_begin_[t + 1]) return kNoClient;
    const std::vector<ClientIndex> ids = standby_holders_order(t);
    std::vector<ClientIndex> constrained = small_set_order(ids, hash_, JavaHashOrder::copy_of(ids.size()));
    constrained.erase(std::remove_if(constrained.begin(), constrained.end(),
                                     [&](ClientIndex c) {
                                       return std::find(within.begin(), within.end(), c) == within.end();
                                     }),
                      constrained.end());
    return least_loaded(t, constrained);
  }
  ClientIndex find_client(TaskIndex t, const std::vector<ClientIndex>& within) const {
    if (within.size() == 1) return within.front();
    ClientIndex previous = previous_owner_[t];
    if (previous == kNoClient || std::find(within.begin(), within.end(), previous) == within.end())
      previous = least_loaded_standby_holder(t, within);
    if (previous == kNoClient) return least_loaded(t, within);
    if (should_balance_load(previous)) {
      const ClientIndex standby = least_loaded_standby_holder(t, within);
      if (standby == kNoClient || should_balance_load(standby)) return least_loaded(t, within);
      return standby;
    }
    return previous;
  }

  void assign(TaskIndex t, ClientIndex c, bool active) {
    // TaskPairs.addPairs(t, assignedTasks(c)): count the pairs no client formed before.
    for (TaskIndex x : held_[c])
      if (!shared(t, x)) ++pairs_;
    by_capacity_.erase(c);
    if (active) draft_.set_active(t, c);
    else draft_.add_standby(t, c);
    by_capacity_.insert(c);
    held_[c].push_back(t);
    pair_holders_[t].push_back(c);
  }

  const Cluster& cluster_;
  const std::vector<std::int32_t>& hash_;
  const Options& options_;
  AssignmentDraft& draft_;
  const std::size_t n_;
  std::vector<ClientIndex> clients_order_;
  std::map<std::size_t, std::vector<ClientIndex>> order_by_bins_;
  std::vector<ClientIndex> previous_owner_;
  std::vector<TaskIndex> previous_active_order_;
  std::vector<std::uint32_t> standby_begin_;
  std::vector<ClientIndex> standby_holders_;
  std::vector<std::vector<TaskIndex>> held_;          // per client: tasks held (active and standby)
  std::vector<std::vector<ClientIndex>> pair_holders_;  // per task: clients holding it
  std::uint64_t pairs_ = 0, max_pairs_ = 0;
  std::set<ClientIndex, MoreAvailable> by_capacity_{MoreAvailable{this}};  // most available first
  std::vector<std::uint8_t> mark_;                                           // scratch, per client
};

}  // namespace

void assign(const Cluster& cluster, const std::vector<std::int32_t>& process_hash, const Options& options,
            AssignmentDraft& draft) {
  Assignor(cluster, process_hash, options, draft).run();
}

}  // namespace assignor::legacy_sticky
