#include "legacy_sticky/legacy_sticky.hpp"

#include <assignor/java_order.hpp>
#include <assignor/kafka_identity.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string_view>

namespace assignor::plugins::legacy_sticky {

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
        holding_(cluster.task_count()),
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
    // Views exist from here on (steps 1 and 2 ask findClient nothing).
    views_.push_back(std::make_unique<View>(*this, clients_order_));
    for (TaskIndex t : rest) assign(t, find_client(t, *views_.front(), n_), true);
    if (options_.between_steps) {
      options_.between_steps(draft_, Step::actives_placed);
      after_actives_moved();
    }
    // 4. Standbys of the tasks with a changelog (a HashSet of them, in its order). Only the
    // clients-without views are asked from here on (any view answers shouldBalanceLoad).
    if (draft_.standbys_per_task() == 0) return;
    views_.clear();
    view_by_bins_.clear();
    JavaHashOrder stateful;
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t)
      if (cluster_.tasks[t].has_logged_store) stateful.put(t, task_hash(t));
    for (TaskIndex t : stateful.order()) {
      for (std::uint32_t i = 0; i < draft_.standbys_wanted(); ++i) {
        std::size_t size = 0;
        const View* without = clients_without(t, size);
        if (without == nullptr) {  // Kafka logs "Unable to assign ... standby" and moves on
          unmark_holders(t);
          break;
        }
        const ClientIndex c = find_client(t, *without, size);
        unmark_holders(t);
        assign(t, c, false);
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
    standby_holders_copy_.reserve(standby_begin_.back());
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      if (standby_holders[t].size() > 1)
        standby_holders[t] = small_set_order(standby_holders[t], hash_, JavaHashOrder());
      standby_holders_.insert(standby_holders_.end(), standby_holders[t].begin(), standby_holders[t].end());
      // findLeastLoadedClientWithPreviousStandByTask iterates new HashSet<>(ids), a copy.
      if (standby_holders[t].size() > 1)
        standby_holders[t] =
            small_set_order(standby_holders[t], hash_, JavaHashOrder::copy_of(standby_holders[t].size()));
      standby_holders_copy_.insert(standby_holders_copy_.end(), standby_holders[t].begin(), standby_holders[t].end());
    }
  }

  std::vector<ClientIndex> standby_holders_order(TaskIndex t) const {
    return {standby_holders_.begin() + standby_begin_[t], standby_holders_.begin() + standby_begin_[t + 1]};
  }

  // What findClient is given: every client in the iteration order of a HashMap or HashSet of them,
  // minus the clients marked in mark_ (the task's holders, when placing a standby). Each view keeps
  // its clients by available capacity (ClientState.hasMoreAvailableCapacityThan, then position) and
  // the positions of the clients holding no task, so that findLeastLoaded's scan, whose answer is
  // the first client without a task, else the first (in order) of the most available clients that
  // passes its test, becomes a walk from the front of those sets.
  class View {
   public:
    View(const Assignor& self, std::vector<ClientIndex> order)
        : order_(std::move(order)), position_(order_.size()), by_capacity_(ByCapacity{&self, this}) {
      for (std::uint32_t i = 0; i < order_.size(); ++i) position_[order_[i]] = i;
      fill(self);
    }
    void fill(const Assignor& self) {
      by_capacity_.clear();
      empty_.clear();
      for (ClientIndex c : order_) {
        by_capacity_.insert(c);
        if (self.held(c) == 0) empty_.insert(position_[c]);
      }
    }
    // Around a change of c's counts: out of the capacity order before, back in after.
    void before_change(ClientIndex c) { by_capacity_.erase(c); }
    void after_change(ClientIndex c) {
      by_capacity_.insert(c);
      empty_.erase(position_[c]);
    }
    const std::vector<ClientIndex>& order() const { return order_; }
    ClientIndex most_available() const { return *by_capacity_.begin(); }

    ClientIndex find_least_loaded(const Assignor& self, TaskIndex t, bool check_pairs) const {
      for (std::uint32_t p : empty_)
        if (!self.mark_[order_[p]]) return order_[p];
      if (check_pairs && self.pairs_ == self.max_pairs_) return kNoClient;  // hasNewPair is false for all
      for (ClientIndex c : by_capacity_) {
        if (self.mark_[c]) continue;
        if (!check_pairs || self.has_new_pair(t, c)) return c;
      }
      return kNoClient;
    }

   private:
    struct ByCapacity {
      const Assignor* self;
      const View* view;
      bool operator()(ClientIndex a, ClientIndex b) const {
        if (self->more_available(a, b)) return true;
        if (self->more_available(b, a)) return false;
        return view->position_[a] < view->position_[b];
      }
    };
    std::vector<ClientIndex> order_;
    std::vector<std::uint32_t> position_;  // per client
    std::set<ClientIndex, ByCapacity> by_capacity_;
    std::set<std::uint32_t> empty_;  // positions of the clients holding no task
  };

  // findClientsWithoutAssignedTask: a HashSet<ProcessId> filled in clients map order, as a view with
  // the task's holders marked (the caller clears the marks with unmark_holders). nullptr when every
  // client holds the task.
  const View* clients_without(TaskIndex t, std::size_t& size) {
    const std::size_t holders = mark_holders(t);
    size = n_ - holders;
    if (size == 0) return nullptr;
    const std::size_t bins = grown_bins(n_ - holders);
    auto it = view_by_bins_.find(bins);
    if (it != view_by_bins_.end()) return views_[it->second].get();
    std::vector<ClientIndex> order = clients_order_;
    auto spread = [&](ClientIndex c) {
      const auto h = static_cast<std::uint32_t>(hash_[c]);
      return (h ^ (h >> 16)) & (bins - 1);
    };
    std::stable_sort(order.begin(), order.end(), [&](ClientIndex a, ClientIndex b) { return spread(a) < spread(b); });
    views_.push_back(std::make_unique<View>(*this, std::move(order)));
    view_by_bins_.emplace(bins, static_cast<std::uint32_t>(views_.size() - 1));
    return views_.back().get();
  }
  std::size_t mark_holders(TaskIndex t) {
    std::size_t holders = 0;
    if (draft_.active(t) != kNoClient) {
      mark_[draft_.active(t)] = 1;
      ++holders;
    }
    for (ClientIndex c : draft_.standby_slots(t))
      if (c != kNoClient) {
        mark_[c] = 1;
        ++holders;
      }
    return holders;
  }
  void unmark_holders(TaskIndex t) {
    if (draft_.active(t) != kNoClient) mark_[draft_.active(t)] = 0;
    for (ClientIndex c : draft_.standby_slots(t))
      if (c != kNoClient) mark_[c] = 0;
  }

  std::uint32_t held(ClientIndex c) const { return draft_.active_count(c) + draft_.standby_count_of(c); }
  // ClientState.hasMoreAvailableCapacityThan: lower tasks per thread, else more threads.
  bool more_available(ClientIndex a, ClientIndex b) const {
    const int l = compare_load(held(a), cluster_.clients[a].threads, held(b), cluster_.clients[b].threads);
    return l != 0 ? l < 0 : cluster_.clients[a].threads > cluster_.clients[b].threads;
  }
  // shouldBalanceLoad: reached capacity, and some client has more available capacity (the most
  // available one does).
  bool should_balance_load(ClientIndex c) const {
    if (held(c) < cluster_.clients[c].threads) return false;  // !reachedCapacity
    return more_available(views_.back()->most_available(), c);
  }

  // TaskPairs.hasNewPair(t, assignedTasks(c)): a task c holds that t never formed a pair with.
  bool has_new_pair(TaskIndex t, ClientIndex c) const {
    if (pairs_ == max_pairs_) return false;
    if (holds_nothing(t)) return !held_[c].empty();  // no pair with t exists yet
    for (TaskIndex x : held_[c])
      if (!paired(t, x)) return true;
    return false;
  }
  // Whether TaskPairs holds the pair: Kafka adds a pair when one task of it is assigned to a client
  // holding the other (addPairs before every assignment). While the actives are placed, that is
  // "both were placed on one client"; Kafka's rack-aware step then moves actives without adding
  // pairs, and a standby placed next pairs with what its client holds now: the client's actives
  // after the move and the standbys placed so far.
  bool paired(TaskIndex a, TaskIndex b) const {
    const Holding& x = holding_[a];
    const Holding& y = holding_[b];
    if (x.first_active != kNoClient && x.first_active == y.first_active) return true;
    if (x.standbys == 0 && y.standbys == 0) return false;
    const ClientIndex* sx = standbys_of(a);
    const ClientIndex* sy = standbys_of(b);
    for (std::uint32_t i = 0; i < x.standbys; ++i) {
      if (sx[i] == y.active) return true;
      for (std::uint32_t j = 0; j < y.standbys; ++j)
        if (sx[i] == sy[j]) return true;
    }
    for (std::uint32_t j = 0; j < y.standbys; ++j)
      if (sy[j] == x.active) return true;
    return false;
  }
  // Per task, in one record (paired() reads two of them per comparison): the client it was first
  // assigned to as active, its active now, and the clients it was assigned to as standby (the first
  // two inline).
  struct Holding {
    ClientIndex first_active = kNoClient;
    ClientIndex active = kNoClient;
    std::uint32_t standbys = 0;
    ClientIndex inline_standbys[2] = {kNoClient, kNoClient};
  };
  const ClientIndex* standbys_of(TaskIndex t) const {
    return holding_[t].standbys <= 2 ? holding_[t].inline_standbys : more_standbys_.at(t).data();
  }

  // findLeastLoaded over a short list (previous standby holders), scanned as Kafka scans it.
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
  ClientIndex least_loaded(TaskIndex t, const View& within) const {
    const ClientIndex c = within.find_least_loaded(*this, t, true);
    return c != kNoClient ? c : within.find_least_loaded(*this, t, false);
  }
  // findLeastLoadedClientWithPreviousStandByTask: the standby holders (new HashSet<>(ids)) that are
  // within the view, least loaded.
  ClientIndex least_loaded_standby_holder(TaskIndex t) const {
    if (standby_begin_[t] == standby_begin_[t + 1]) return kNoClient;
    constrained_.clear();
    for (std::uint32_t i = standby_begin_[t]; i < standby_begin_[t + 1]; ++i)
      if (!mark_[standby_holders_copy_[i]]) constrained_.push_back(standby_holders_copy_[i]);
    return least_loaded(t, constrained_);
  }
  ClientIndex find_client(TaskIndex t, const View& within, std::size_t size) const {
    if (size == 1)
      for (ClientIndex c : within.order())
        if (!mark_[c]) return c;
    ClientIndex previous = previous_owner_[t];
    if (previous == kNoClient || mark_[previous]) previous = least_loaded_standby_holder(t);
    if (previous == kNoClient) return least_loaded(t, within);
    if (should_balance_load(previous)) {
      const ClientIndex standby = least_loaded_standby_holder(t);
      if (standby == kNoClient || should_balance_load(standby)) return least_loaded(t, within);
      return standby;
    }
    return previous;
  }

  bool holds_nothing(TaskIndex t) const { return holding_[t].first_active == kNoClient && holding_[t].standbys == 0; }

  void assign(TaskIndex t, ClientIndex c, bool active) {
    // TaskPairs.addPairs(t, assignedTasks(c)): count the pairs it did not hold yet.
    if (holds_nothing(t))
      pairs_ += held_[c].size();
    else
      for (TaskIndex x : held_[c])
        if (!paired(t, x)) ++pairs_;
    for (const auto& v : views_) v->before_change(c);
    if (active) {
      draft_.set_active(t, c);
      holding_[t].first_active = holding_[t].active = c;
    } else {
      draft_.add_standby(t, c);
      Holding& h = holding_[t];
      if (h.standbys < 2) {
        h.inline_standbys[h.standbys] = c;
      } else {
        std::vector<ClientIndex>& more = more_standbys_[t];
        if (more.empty()) more.assign(h.inline_standbys, h.inline_standbys + 2);
        more.push_back(c);
      }
      ++h.standbys;
    }
    for (const auto& v : views_) v->after_change(c);
    held_[c].push_back(t);
  }

  // After Kafka's rack-aware step moved actives: what each client holds now, and the views' orders.
  void after_actives_moved() {
    for (auto& tasks : held_) tasks.clear();
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      holding_[t].active = draft_.active(t);
      if (draft_.active(t) != kNoClient) held_[draft_.active(t)].push_back(t);
    }
    for (const auto& v : views_) v->fill(*this);
  }

  const Cluster& cluster_;
  const std::vector<std::int32_t>& hash_;
  const Options& options_;
  AssignmentDraft& draft_;
  const std::size_t n_;
  std::vector<ClientIndex> clients_order_;
  std::vector<std::unique_ptr<View>> views_;  // views_[0]: the clients map's order
  std::map<std::size_t, std::uint32_t> view_by_bins_;
  std::vector<ClientIndex> previous_owner_;
  std::vector<TaskIndex> previous_active_order_;
  std::vector<std::uint32_t> standby_begin_;
  std::vector<ClientIndex> standby_holders_;                     // per task (CSR): its HashSet's order
  std::vector<ClientIndex> standby_holders_copy_;                // the same, in the order of a copy of that set
  mutable std::vector<ClientIndex> constrained_;                 // scratch
  std::vector<std::vector<TaskIndex>> held_;                     // per client: assignedTasks()
  std::vector<Holding> holding_;                                 // per task
  std::map<TaskIndex, std::vector<ClientIndex>> more_standbys_;  // all standby clients of a task with more than two
  std::uint64_t pairs_ = 0, max_pairs_ = 0;
  std::vector<std::uint8_t> mark_;  // per client: a holder of the task being placed
};

}  // namespace

void assign(const Cluster& cluster, const std::vector<std::int32_t>& process_hash, const Options& options,
            AssignmentDraft& draft) {
  Assignor(cluster, process_hash, options, draft).run();
}

Assignment assign_in_kafka_order(const AssignmentInput& in, bool probing_rebalance,
                                 const std::function<Options(const AssignmentInput&)>& options_for) {
  return assign_in_kafka_client_order(in, [&](const AssignmentInput& kafka) {
    AssignmentDraft draft(kafka.cluster, kafka.settings.num_standby_replicas);
    assign(kafka.cluster, process_id_hashes(kafka.cluster), options_for(kafka), draft);
    return draft.finish(probing_rebalance);
  });
}

}  // namespace assignor::plugins::legacy_sticky
