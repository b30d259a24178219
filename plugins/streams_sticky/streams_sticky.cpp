// streams_sticky: Kafka 4.x's broker-side StickyTaskAssignor (KIP-1071, the default assignor of the
// new Streams rebalance protocol; org.apache.kafka.coordinator.group.streams.assignor), followed by
// the KIP-1071 assignment refiner (assignor/refiner.hpp). Parameter `kafka_version` says which
// Kafka's: "trunk-058944c" (default), apache/kafka commit 058944c8144d (unreleased trunk, where the
// recorded answers of tests/data/kafka-golden/streams_sticky come from); "4.4", the released
// kafka-group-coordinator 4.4.0, what a Kafka 4.4 broker runs (the bridge's
// StreamsGroupDifferentialTest holds this version to that jar).
//
// A client is Kafka's process; each of its threads is a member (kip1071/kip1071_group.hpp: member ids,
// what each member held and reports, and the coordinator's HashMap order of the members).
// Per-member quotas, each ceil(tasks / members) and recomputed whenever a member's count (actives
// + standbys) reaches it exactly: all actives, all tasks (actives + standbys), and in trunk also
// stateful actives. The all-tasks quota counts num_standby_replicas as configured, even beyond
// clients - 1, and so does the standby loop (a replica no process can take still polls the
// least-loaded queue, which reorders it): the plugin declares kCapabilityConfiguredStandbys, so the
// host gives it the configured number; every loop over replicas stops at the first that no process
// can take, so the work stays bounded by the input.
//
// Actives, in (partition, sub-topology) order (Kafka's sub-topology ids are strings: "10" before
// "2"); 4.4 in one pass over all tasks under the actives quota, trunk in two: the tasks with a
// changelog under the stateful quota, then the others under the actives quota:
//   1. the member that ran the task keeps it while under the pass's quota;
//   2. else the best previous copy: the members that held a standby (first), then those that report
//      offsets for it, each group by offset sum, highest first, in member order among equals; the
//      first wins unless a later one has both a strictly lower process load and a strictly less
//      loaded member; it takes the task only under the quota (no second choice);
//   3. the rest, in (sub-topology, partition) order, go to the least-loaded process (tasks per
//      member; trunk breaks ties by stateless actives per member), polled from a
//      java.util.PriorityQueue, on its least-loaded member (another PriorityQueue per process, which
//      Kafka keeps between calls and drops whenever a task goes to a named member).
// Standbys, in reverse (partition, sub-topology) order, replica by replica: in trunk with
// rack_aware.tags, Kafka's RackAwareStandbyPicker first (standbys that make the task's tag values
// more diverse, sticky holders then the least loaded among equally diverse processes; 4.4 has no
// rack-aware standbys and ignores the tags); then the member that ran the task, else the best
// previous copy as in 2, both under the all-tasks quota; what is left goes, in reverse
// (sub-topology, partition) order, to the least-loaded process without the task.
// Wherever Kafka meets a tie it is broken where Kafka's HashMap and PriorityQueue orders break it
// (assignor/java_order.hpp), so the answer, down to the member of every task, is Kafka's.
//
// The assignor itself ignores lags. The refiner (parameter `refiner`, default true, as in a Kafka
// 4.x group with warmup replicas) then keeps every moved task on a caught-up client while its
// target warms up, within max_warmup_replicas for the group, and asks for a probing rebalance until
// the moves are done; placements it makes go to their client's least-loaded member.
#include <assignor/java_order.hpp>
#include <assignor/sdk.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kip1071/kip1071_group.hpp"

namespace {

using namespace assignor;
namespace kip1071 = assignor::plugins::kip1071;
using kip1071::kNoMember;
using kip1071::MemberIndex;

// ceil(tasks / members), recomputed whenever a member reaches it exactly (Kafka's maybeUpdate*).
class Quota {
 public:
  Quota(std::int64_t tasks, std::int64_t members) : tasks_(tasks), members_(members) { recompute(); }
  std::int64_t value() const noexcept { return value_; }
  void placed(std::int64_t member_count) noexcept {
    if (member_count != value_) return;
    --members_;
    tasks_ -= member_count;
    recompute();
  }

 private:
  void recompute() noexcept { value_ = members_ <= 0 ? 0 : (tasks_ + members_ - 1) / members_; }
  std::int64_t tasks_, members_, value_ = 0;
};

struct ByMemberCount {
  const std::vector<std::uint32_t>* count;
  int operator()(MemberIndex a, MemberIndex b) const noexcept {
    return (*count)[a] < (*count)[b] ? -1 : ((*count)[a] > (*count)[b] ? 1 : 0);
  }
};
using MemberQueue = JavaPriorityQueue<MemberIndex, ByMemberCount>;

// Which Kafka's StickyTaskAssignor (parameter kafka_version).
enum class KafkaVersion { v4_4, trunk_058944c };

class StreamsSticky final : public Strategy {
 public:
  explicit StreamsSticky(const StrategyParams& params) {
    params.reject_unknown({"refiner", "kafka_version"});
    refiner_ = params.get_bool("refiner", true);
    version_ =
        params.get_enum("kafka_version", {{"4.4", KafkaVersion::v4_4}, {"trunk-058944c", KafkaVersion::trunk_058944c}},
                        KafkaVersion::trunk_058944c);
  }

  Assignment assign(const AssignmentInput& in) override {
    if (version_ == KafkaVersion::v4_4 && !in.settings.rack_aware.tags.empty() && !told_tags_ignored_.exchange(true)) {
      assignor::log(
          LogLevel::warn,
          "streams_sticky: rack_aware.tags is ignored with kafka_version 4.4 (Kafka 4.4.0's StickyTaskAssignor "
          "places no standby by tags); kafka_version: trunk-058944c spreads standbys over them");
    }
    const kip1071::Group group = kip1071::build_group(in.cluster);
    Placer placer(in, group, version_);
    placer.actives();
    placer.standbys();
    bool probing = false;
    if (refiner_) probing = refine_kip1071(in.cluster, in.settings, in.lags, placer.draft).probing_rebalance_needed();
    Assignment out = placer.draft.finish(probing);
    kip1071::name_threads(group, std::move(placer.choice), out);
    return out;
  }

 private:
  class Placer {
   public:
    Placer(const AssignmentInput& in, const kip1071::Group& group, KafkaVersion version)
        : draft(in.cluster, in.settings.num_standby_replicas),
          trunk_(version == KafkaVersion::trunk_058944c),
          cluster_(in.cluster),
          settings_(in.settings),
          g_(group),
          keys_(in.cluster),
          task_count_(cluster_.client_count(), 0),
          active_count_(cluster_.client_count(), 0),
          stateful_active_count_(cluster_.client_count(), 0),
          member_count_(group.member_count(), 0),
          heap_valid_(cluster_.client_count(), 0) {
      choice.active.assign(cluster_.task_count(), kNoMember);
      for (TaskIndex t = 0; t < cluster_.task_count(); ++t)
        (cluster_.tasks[t].has_logged_store ? stateful_ : stateless_).push_back(t);
      index_processes();
      index_previous_holders();
      const auto members = static_cast<std::int64_t>(g_.member_count());
      const auto all = static_cast<std::int64_t>(cluster_.task_count());
      const auto stateful = static_cast<std::int64_t>(stateful_.size());
      q_stateful_ = Quota(stateful, members);
      q_active_ = Quota(all, members);
      q_total_ = Quota(all + stateful * settings_.num_standby_replicas, members);
      heaps_.reserve(cluster_.client_count());
      for (ClientIndex c = 0; c < cluster_.client_count(); ++c) heaps_.emplace_back(ByMemberCount{&member_count_});
    }

    void actives() {
      if (trunk_) {
        active_pass(stateful_, q_stateful_);
        active_pass(stateless_, q_active_);
        return;
      }
      std::vector<TaskIndex> all(cluster_.task_count());
      for (TaskIndex t = 0; t < cluster_.task_count(); ++t) all[t] = t;
      active_pass(all, q_active_);
    }

    void standbys();

    AssignmentDraft draft;
    kip1071::MemberChoice choice;

   private:
    // ---- Kafka's ProcessState -----------------------------------------------------------------
    double load(ClientIndex c) const noexcept {
      return static_cast<double>(task_count_[c]) / static_cast<double>(cluster_.clients[c].threads);
    }
    double stateless_active_load(ClientIndex c) const noexcept {
      return static_cast<double>(active_count_[c] - stateful_active_count_[c]) /
             static_cast<double>(cluster_.clients[c].threads);
    }
    std::uint32_t add_internal(ClientIndex c, MemberIndex m, TaskIndex t, bool active, bool stateful) {
      ++task_count_[c];
      if (active) {
        ++active_count_[c];
        if (stateful) ++stateful_active_count_[c];
        draft.set_active(t, c);
        choice.active[t] = m;
      } else {
        draft.add_standby(t, c);
        choice.standbys.emplace_back(t, m);
      }
      return ++member_count_[m];
    }
    // addTask(member, ...): the member heap of the process is dropped.
    std::uint32_t add_to_member(MemberIndex m, TaskIndex t, bool active, bool stateful) {
      const ClientIndex c = g_.client_of[m];
      heap_valid_[c] = 0;
      return add_internal(c, m, t, active, stateful);
    }
    // addTaskToLeastLoadedMember: the process's member heap, built in memberToTaskCounts order.
    std::uint32_t add_to_least_loaded_member(ClientIndex c, TaskIndex t, bool active, bool stateful) {
      const auto first = process_member_begin_[c], last = process_member_begin_[c + 1];
      if (last - first == 1) return add_internal(c, process_members_[first], t, active, stateful);
      MemberQueue& heap = heaps_[c];
      if (!heap_valid_[c]) {
        heap.clear();
        for (auto i = first; i < last; ++i) heap.offer(process_members_[i]);
        heap_valid_[c] = 1;
      }
      const MemberIndex m = heap.poll();
      const std::uint32_t n = add_internal(c, m, t, active, stateful);
      heap.offer(m);
      return n;
    }
    // leastLoadedMember(): a scan in memberToTaskCounts order, the first with strictly fewest.
    MemberIndex least_loaded_member(ClientIndex c) const noexcept {
      MemberIndex best = kNoMember;
      for (auto i = process_member_begin_[c]; i < process_member_begin_[c + 1]; ++i) {
        const MemberIndex m = process_members_[i];
        if (best == kNoMember || member_count_[m] < member_count_[best]) best = m;
      }
      return best;
    }
    bool has_room(ClientIndex c) const noexcept {
      for (auto i = process_member_begin_[c]; i < process_member_begin_[c + 1]; ++i)
        if (member_count_[process_members_[i]] < q_total_.value()) return true;
      return false;
    }

    // ---- setup ----------------------------------------------------------------------------------
    // processIdToState (a HashMap presized for the members, filled by computeIfAbsent in member
    // order) and each process's memberToTaskCounts (a HashMap, members put in member order).
    void index_processes() {
      JavaHashOrder processes = JavaHashOrder::with_capacity(g_.member_count());
      std::vector<JavaHashOrder> members(cluster_.client_count());
      for (MemberIndex m : g_.member_order) {
        const ClientIndex c = g_.client_of[m];
        processes.compute_if_absent(c, g_.client_id_hash[c]);
        members[c].put(m, g_.member_id_hash[m]);
      }
      process_order_ = processes.order();
      process_member_begin_.assign(cluster_.client_count() + 1, 0);
      for (ClientIndex c = 0; c < cluster_.client_count(); ++c)
        process_member_begin_[c + 1] = process_member_begin_[c] + static_cast<std::uint32_t>(members[c].size());
      process_members_.reserve(process_member_begin_.back());
      for (ClientIndex c = 0; c < cluster_.client_count(); ++c)
        for (std::uint32_t m : members[c].order()) process_members_.push_back(m);
    }

    // activeTaskToPrevMember, and standbyTaskToPrevMember: per task the members that held a standby
    // (with their reported offset sum, 0 when none), then those that only report offsets, in member
    // order, stably sorted by (held a standby first, offset sum descending).
    void index_previous_holders() {
      previous_member_.assign(cluster_.task_count(), kNoMember);
      struct Candidate {
        MemberIndex member;
        bool held_standby;
        std::int64_t offset_sum;
      };
      auto reported = [&](MemberIndex m, TaskIndex t) -> std::int64_t {
        const auto* first = g_.offsets.data() + g_.offset_begin[m];
        const auto* last = g_.offsets.data() + g_.offset_begin[m + 1];
        const auto* it =
            std::lower_bound(first, last, t, [](const kip1071::ReportedOffset& o, TaskIndex x) { return o.task < x; });
        return it != last && it->task == t ? it->offset_sum : 0;
      };
      auto held_standby = [&](MemberIndex m, TaskIndex t) {
        const auto* first = g_.previous_standby.data() + g_.standby_begin[m];
        const auto* last = g_.previous_standby.data() + g_.standby_begin[m + 1];
        return std::binary_search(first, last, t);
      };
      auto for_each = [&](auto&& emit) {
        for (MemberIndex m : g_.member_order) {
          for (auto i = g_.standby_begin[m]; i < g_.standby_begin[m + 1]; ++i) {
            const TaskIndex t = g_.previous_standby[i];
            emit(t, Candidate{m, true, reported(m, t)});
          }
          for (auto i = g_.offset_begin[m]; i < g_.offset_begin[m + 1]; ++i) {
            const auto& o = g_.offsets[i];
            if (!held_standby(m, o.task)) emit(o.task, Candidate{m, false, o.offset_sum});
          }
        }
      };
      for (MemberIndex m : g_.member_order)
        for (auto i = g_.active_begin[m]; i < g_.active_begin[m + 1]; ++i) previous_member_[g_.previous_active[i]] = m;
      candidate_begin_.assign(cluster_.task_count() + 1, 0);
      for_each([&](TaskIndex t, const Candidate&) { ++candidate_begin_[t + 1]; });
      for (TaskIndex t = 0; t < cluster_.task_count(); ++t) candidate_begin_[t + 1] += candidate_begin_[t];
      std::vector<Candidate> all(candidate_begin_.back());
      std::vector<std::uint32_t> next(candidate_begin_.begin(), candidate_begin_.end() - 1);
      for_each([&](TaskIndex t, const Candidate& c) { all[next[t]++] = c; });
      candidates_.resize(all.size());
      for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
        auto first = all.begin() + candidate_begin_[t], last = all.begin() + candidate_begin_[t + 1];
        std::stable_sort(first, last, [](const Candidate& a, const Candidate& b) {
          if (a.held_standby != b.held_standby) return a.held_standby;
          return a.offset_sum > b.offset_sum;
        });
        for (auto it = first; it != last; ++it) candidates_[static_cast<std::size_t>(it - all.begin())] = it->member;
      }
    }

    // (partition, sub-topology) with sub-topology ids compared as Kafka's strings.
    bool by_partition(TaskIndex a, TaskIndex b) const noexcept { return keys_.by_partition[a] < keys_.by_partition[b]; }
    bool by_subtopology(TaskIndex a, TaskIndex b) const noexcept {
      return keys_.by_subtopology[a] < keys_.by_subtopology[b];
    }

    // findPrevMemberWithLeastLoad: the first candidate, replaced by a later one only when both its
    // process load and its member's count are strictly lower; for a standby, processes that hold
    // the task are skipped.
    MemberIndex best_previous_member(TaskIndex t, bool for_standby) const {
      MemberIndex best = kNoMember;
      double best_process_load = 0, best_member_load = 0;
      for (auto i = candidate_begin_[t]; i < candidate_begin_[t + 1]; ++i) {
        const MemberIndex m = candidates_[i];
        const ClientIndex c = g_.client_of[m];
        if (for_standby && draft.holds(t, c)) continue;
        const double process_load = load(c), member_load = member_count_[m];
        if (best == kNoMember || (process_load < best_process_load && member_load < best_member_load)) {
          best = m;
          best_process_load = process_load;
          best_member_load = member_load;
        }
      }
      return best;
    }

    // The stateful quota is read only by trunk's stateful pass; keeping it in step costs nothing.
    void add_active(MemberIndex m, TaskIndex t) {
      const bool stateful = cluster_.tasks[t].has_logged_store;
      const std::int64_t n = add_to_member(m, t, true, stateful);
      if (stateful) q_stateful_.placed(n);
      q_active_.placed(n);
      q_total_.placed(n);
    }

    // Steps 1 to 3 over `tasks`, steps 1 and 2 under `quota`.
    void active_pass(const std::vector<TaskIndex>& tasks, const Quota& quota) {
      if (tasks.empty()) return;
      std::vector<TaskIndex> order = tasks;
      std::sort(order.begin(), order.end(), [&](TaskIndex a, TaskIndex b) { return by_partition(a, b); });
      auto under_quota = [&](MemberIndex m) { return member_count_[m] < quota.value(); };
      std::vector<TaskIndex> left;
      for (TaskIndex t : order) {  // 1. the member that ran it
        const MemberIndex m = previous_member_[t];
        if (m != kNoMember && under_quota(m))
          add_active(m, t);
        else
          left.push_back(t);
      }
      std::vector<TaskIndex> rest;
      for (TaskIndex t : left) {  // 2. the best previous copy
        const MemberIndex m = best_previous_member(t, false);
        if (m != kNoMember && under_quota(m))
          add_active(m, t);
        else
          rest.push_back(t);
      }
      std::sort(rest.begin(), rest.end(), [&](TaskIndex a, TaskIndex b) { return by_subtopology(a, b); });
      // 3. the least-loaded process (load; in trunk then stateless active load), on its least-loaded
      // member.
      auto by_load = [this](ClientIndex a, ClientIndex b) {
        const int l = java_compare(load(a), load(b));
        return l != 0 || !trunk_ ? l : java_compare(stateless_active_load(a), stateless_active_load(b));
      };
      JavaPriorityQueue<ClientIndex, decltype(by_load)> queue(by_load);
      queue.reserve(process_order_.size());
      for (ClientIndex c : process_order_) queue.offer(c);
      for (TaskIndex t : rest) {
        if (queue.empty())
          throw StrategyError("streams_sticky: no process to assign active task " + to_string(cluster_.tasks[t].id));
        const ClientIndex c = queue.poll();
        const std::int64_t n = add_to_least_loaded_member(c, t, true, cluster_.tasks[t].has_logged_store);
        q_active_.placed(n);
        q_total_.placed(n);
        queue.offer(c);
      }
    }

    std::uint32_t rack_aware_standbys(TaskIndex t);
    void sticky_standbys(TaskIndex t, std::uint32_t first_replica,
                         std::vector<std::pair<TaskIndex, std::uint32_t>>& left);

    const bool trunk_;  // kafka_version trunk-058944c, else 4.4
    const Cluster& cluster_;
    const AssignmentSettings& settings_;
    const kip1071::Group& g_;
    const kip1071::TaskIdKeys keys_;                                                // Kafka's TaskId orders
    std::vector<std::uint32_t> task_count_, active_count_, stateful_active_count_;  // per process
    std::vector<std::uint32_t> member_count_;
    std::vector<MemberQueue> heaps_;  // per process: membersByLoad
    std::vector<std::uint8_t> heap_valid_;
    std::vector<ClientIndex> process_order_;  // processIdToState.values()
    std::vector<std::uint32_t> process_member_begin_;
    std::vector<MemberIndex> process_members_;  // per process, in memberToTaskCounts order
    std::vector<TaskIndex> stateful_, stateless_;
    std::vector<MemberIndex> previous_member_;  // activeTaskToPrevMember
    std::vector<std::uint32_t> candidate_begin_;
    std::vector<MemberIndex> candidates_;  // standbyTaskToPrevMember, flat
    Quota q_stateful_{0, 0}, q_active_{0, 0}, q_total_{0, 0};

    // RackAwareStandbyPicker's state (rack_aware.tags set).
    struct Picker {
      std::vector<std::vector<std::int32_t>> value;  // [key][process]: value index, -1 when missing
      std::vector<std::vector<std::uint8_t>> used;   // [key][value]
      std::vector<std::vector<std::int32_t>> touched;
      std::size_t priority = 0;
      std::vector<ClientIndex> candidates;
      bool all = true;  // candidates is every process (in process order)
    } picker_;
    void init_picker();
  };

  bool refiner_ = true;
  KafkaVersion version_ = KafkaVersion::trunk_058944c;
  std::atomic<bool> told_tags_ignored_{false};  // said once per strategy object
};

void StreamsSticky::Placer::init_picker() {
  const auto& keys = settings_.rack_aware.tags;
  picker_.value.assign(keys.size(), std::vector<std::int32_t>(cluster_.client_count(), -1));
  picker_.used.assign(keys.size(), {});
  picker_.touched.assign(keys.size(), {});
  for (std::size_t k = 0; k < keys.size(); ++k) {
    std::vector<std::string> values;
    for (ClientIndex c = 0; c < cluster_.client_count(); ++c) {
      const auto& tags = cluster_.clients[c].tags;
      const auto it = tags.find(keys[k]);
      if (it == tags.end()) continue;
      auto v = std::find(values.begin(), values.end(), it->second);
      if (v == values.end()) v = values.insert(values.end(), it->second);
      picker_.value[k][c] = static_cast<std::int32_t>(v - values.begin());
    }
    picker_.used[k].assign(values.size(), 0);
  }
}

// Kafka's assignRackAwareStandbys with RackAwareStandbyPicker.pickNext: returns the standbys placed.
std::uint32_t StreamsSticky::Placer::rack_aware_standbys(TaskIndex t) {
  const std::size_t n_keys = picker_.value.size();
  auto mark_used = [&](ClientIndex c) {
    for (std::size_t k = 0; k < n_keys; ++k) {
      const std::int32_t v = picker_.value[k][c];
      if (v >= 0 && !picker_.used[k][static_cast<std::size_t>(v)]) {
        picker_.used[k][static_cast<std::size_t>(v)] = 1;
        picker_.touched[k].push_back(v);
      }
    }
  };
  auto unused = [&](ClientIndex c, std::size_t k) {
    const std::int32_t v = picker_.value[k][c];
    return v >= 0 && !picker_.used[k][static_cast<std::size_t>(v)];
  };
  // startTask(), then the active owner is the only holder.
  for (std::size_t k = 0; k < n_keys; ++k) {
    for (std::int32_t v : picker_.touched[k]) picker_.used[k][static_cast<std::size_t>(v)] = 0;
    picker_.touched[k].clear();
  }
  picker_.priority = 0;
  picker_.all = true;
  if (draft.active(t) != kNoClient) mark_used(draft.active(t));

  // The previous holders by process: standby holders ranked from 1 in candidate order (first
  // member of a process kept), the previous active member's process ranked 0.
  constexpr std::uint32_t kNotHolder = UINT32_MAX;
  std::vector<std::pair<ClientIndex, std::pair<std::uint32_t, MemberIndex>>> holders;
  auto holder_of = [&](ClientIndex c) -> const std::pair<std::uint32_t, MemberIndex>* {
    for (const auto& h : holders)
      if (h.first == c) return &h.second;
    return nullptr;
  };
  for (auto i = candidate_begin_[t]; i < candidate_begin_[t + 1]; ++i) {
    const MemberIndex m = candidates_[i];
    if (holder_of(g_.client_of[m]) == nullptr) holders.push_back({g_.client_of[m], {1 + (i - candidate_begin_[t]), m}});
  }
  if (const MemberIndex pm = previous_member_[t]; pm != kNoMember) {
    bool replaced = false;
    for (auto& h : holders)
      if (h.first == g_.client_of[pm]) {
        h.second = {0, pm};
        replaced = true;
      }
    if (!replaced) holders.push_back({g_.client_of[pm], {0, pm}});
  }
  auto rank = [&](ClientIndex c) {
    const auto* h = holder_of(c);
    return h == nullptr ? kNotHolder : h->first;
  };
  auto eligible = [&](ClientIndex c) { return !draft.holds(t, c) && has_room(c); };
  auto tie_break = [&](ClientIndex a, ClientIndex b) {
    const std::uint32_t ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb ? -1 : 1;
    return java_compare(load(a), load(b));
  };
  auto compare_diversity = [&](ClientIndex a, ClientIndex b) {
    for (std::size_t k = picker_.priority + 1; k < n_keys; ++k) {
      const bool ua = unused(a, k), ub = unused(b, k);
      if (ua != ub) return ub ? 1 : -1;  // Boolean.compare(unused(b), unused(a))
    }
    return 0;
  };
  // pickNext(eligible, tieBreak).
  auto pick_next = [&]() -> ClientIndex {
    std::vector<ClientIndex> survivors;
    while (picker_.priority < n_keys) {
      survivors.clear();
      auto consider = [&](ClientIndex c) {
        if (unused(c, picker_.priority) && eligible(c)) survivors.push_back(c);
      };
      if (picker_.all) {
        for (ClientIndex c : process_order_) consider(c);
      } else {
        for (ClientIndex c : picker_.candidates) consider(c);
      }
      if (survivors.empty()) {
        ++picker_.priority;
        picker_.all = true;
        continue;
      }
      std::size_t best = 0;
      for (std::size_t i = 1; i < survivors.size(); ++i) {
        int cmp = compare_diversity(survivors[best], survivors[i]);
        if (cmp == 0) cmp = tie_break(survivors[best], survivors[i]);
        if (cmp > 0) best = i;
      }
      const ClientIndex winner = survivors[best];
      survivors.erase(survivors.begin() + static_cast<std::ptrdiff_t>(best));
      picker_.candidates = survivors;
      picker_.all = false;
      return winner;
    }
    return kNoClient;
  };

  std::uint32_t placed = 0;
  while (placed < settings_.num_standby_replicas) {
    const ClientIndex winner = pick_next();
    if (winner == kNoClient) break;
    const auto* h = holder_of(winner);
    const MemberIndex m =
        h != nullptr && member_count_[h->second] < q_total_.value() ? h->second : least_loaded_member(winner);
    q_total_.placed(add_to_member(m, t, false, true));
    mark_used(winner);
    ++placed;
  }
  return placed;
}

// Kafka's assignStickyStandbys: from replica `first_replica` on, the member that ran the task, else
// the best previous standby member, each under the all-tasks quota; the rest are left for the
// least-loaded pass.
void StreamsSticky::Placer::sticky_standbys(TaskIndex t, std::uint32_t first_replica,
                                            std::vector<std::pair<TaskIndex, std::uint32_t>>& left) {
  const std::uint32_t wanted = settings_.num_standby_replicas;
  for (std::uint32_t i = first_replica; i < wanted; ++i) {
    if (const MemberIndex m = previous_member_[t];
        m != kNoMember && !draft.holds(t, g_.client_of[m]) && member_count_[m] < q_total_.value()) {
      q_total_.placed(add_to_member(m, t, false, true));
      continue;
    }
    if (candidate_begin_[t] != candidate_begin_[t + 1]) {
      const MemberIndex m = best_previous_member(t, true);
      if (m != kNoMember && member_count_[m] < q_total_.value()) {
        q_total_.placed(add_to_member(m, t, false, true));
        continue;
      }
    }
    left.emplace_back(t, wanted - i);
    return;
  }
}

void StreamsSticky::Placer::standbys() {
  if (settings_.num_standby_replicas == 0 || stateful_.empty()) return;
  const bool tags = trunk_ && !settings_.rack_aware.tags.empty();
  if (tags) init_picker();
  std::vector<TaskIndex> order = stateful_;
  std::sort(order.begin(), order.end(), [&](TaskIndex a, TaskIndex b) { return by_partition(b, a); });
  std::vector<std::pair<TaskIndex, std::uint32_t>> left;
  for (TaskIndex t : order) sticky_standbys(t, tags ? rack_aware_standbys(t) : 0, left);
  std::sort(left.begin(), left.end(), [&](const auto& a, const auto& b) { return by_subtopology(b.first, a.first); });

  // The least-loaded process without the task: polled, and put back (in reverse order of polling,
  // as Kafka's recursion does) once one took it.
  auto by_load = [this](ClientIndex a, ClientIndex b) { return java_compare(load(a), load(b)); };
  JavaPriorityQueue<ClientIndex, decltype(by_load)> queue(by_load);
  queue.reserve(process_order_.size());
  for (ClientIndex c : process_order_) queue.offer(c);
  std::vector<ClientIndex> polled;
  for (const auto& [t, replicas] : left) {
    for (std::uint32_t r = 0; r < replicas; ++r) {
      bool found = false;
      polled.clear();
      while (!queue.empty()) {
        const ClientIndex c = queue.poll();
        polled.push_back(c);
        if (!draft.holds(t, c)) {
          q_total_.placed(add_to_least_loaded_member(c, t, false, true));
          found = true;
          break;
        }
      }
      for (auto it = polled.rbegin(); it != polled.rend(); ++it) queue.offer(*it);
      if (!found) break;  // every process holds it: the replica is dropped (a shortfall)
    }
  }
}

}  // namespace

ASSIGNOR_PLUGIN(StreamsSticky, "streams_sticky", "1.3.0",
                "Kafka 4.x's KIP-1071 sticky assignor, as Kafka 4.4.0 or the recorded trunk (kafka_version): previous "
                "owners, then previous copies, under per-member quotas; Kafka's tie order and member split; with the "
                "KIP-1071 refiner staging moves behind warmups",
                assignor::kCapabilityConfiguredStandbys)
