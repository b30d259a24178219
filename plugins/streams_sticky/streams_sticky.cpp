// streams_sticky: Kafka 4.x's broker-side StickyTaskAssignor (KIP-1071, the default assignor of the
// new Streams rebalance protocol), followed by the KIP-1071 assignment refiner (assignor/refiner.hpp).
//
// A client is Kafka's process; each of its threads is a member. Three per-member quotas, each
// ceil(tasks / members) and recomputed whenever a member's count (actives + standbys) reaches it
// exactly: stateful actives, all actives, all tasks (actives + standbys).
//
// Actives, stateful tasks (those with a changelog) first, then stateless ones, each pass in
// (partition, sub-topology) order:
//   1. the previous active owner keeps the task while its member is under the pass's quota;
//   2. else the best previous copy: candidates are the clients that held a standby or warmup (first),
//      then those that report the task's offsets, each group by offset sum, highest first; the first
//      candidate wins unless a later one has both a strictly lower client load and a strictly less
//      loaded member; it takes the task only under the quota (no second choice);
//   3. the rest, in task order, go to the least-loaded client (tasks per thread, then stateless
//      actives per thread), on its least-loaded member.
// Standbys, in reverse (partition, sub-topology) order, replica by replica: the previous active
// owner, else the best previous copy as in 2, each under the all-tasks quota; what is left goes,
// in reverse task order, to the least-loaded client without the task.
//
// The assignor itself ignores lags: a task whose owner is gone goes where the rule says, caught up
// or not. The refiner (parameter `refiner`, default true, as in a Kafka 4.x group with warmup
// replicas) then keeps every moved task on a caught-up client while its target warms up, within
// max_warmup_replicas for the group, and asks for a probing rebalance until the moves are done.
//
// Differences from Kafka (docs/strategies.md): ties Kafka leaves to Java's HashMap and
// PriorityQueue order go to the lowest client or thread index; sub-topologies sort as numbers
// (Kafka's ids are strings: "10" before "2"); the member a task lands on is the SDK's thread
// distribution, not this strategy's choice; with rack_aware.tags set, standbys use the SDK's
// tag-spreading placement instead of Kafka's rack-tag picker.
#include <assignor/sdk.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

namespace {

using namespace assignor;

constexpr std::uint32_t kNoMember = UINT32_MAX;

// ceil(tasks / members), recomputed whenever a member reaches it exactly.
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
  void recompute() noexcept { value_ = members_ <= 0 || tasks_ <= 0 ? 0 : (tasks_ + members_ - 1) / members_; }
  std::int64_t tasks_, members_, value_ = 0;
};

struct Candidate {
  ClientIndex client;
  std::uint32_t member;  // kNoMember: the client's least-loaded member when used
  bool held_copy;        // standby or warmup before, not only offsets on disk
  std::int64_t offset_sum;
};

class StreamsSticky final : public Strategy {
 public:
  explicit StreamsSticky(const StrategyParams& params) {
    params.reject_unknown({"refiner"});
    refiner_ = params.get_bool("refiner", true);
  }

  Assignment assign(const AssignmentInput& in) override {
    Placer placer(in);
    placer.actives();
    placer.standbys();
    bool probing = false;
    if (refiner_) probing = refine_kip1071(in.cluster, in.settings, in.lags, placer.draft).probing_rebalance_needed();
    return placer.draft.finish(probing);
  }

 private:
  class Placer {
   public:
    explicit Placer(const AssignmentInput& in)
        : cluster_(in.cluster),
          settings_(in.settings),
          draft(in.cluster, in.settings.num_standby_replicas),
          member_begin_(cluster_.client_count() + 1, 0),
          tasks_(cluster_.client_count(), 0),
          actives_(cluster_.client_count(), 0),
          stateful_actives_(cluster_.client_count(), 0) {
      for (ClientIndex c = 0; c < cluster_.client_count(); ++c)
        member_begin_[c + 1] = member_begin_[c] + cluster_.clients[c].threads;
      member_count_.assign(member_begin_.back(), 0);
      member_client_.resize(member_begin_.back());
      for (ClientIndex c = 0; c < cluster_.client_count(); ++c)
        std::fill(member_client_.begin() + member_begin_[c], member_client_.begin() + member_begin_[c + 1], c);
      for (TaskIndex t = 0; t < cluster_.task_count(); ++t)
        (has_changelog(t) ? stateful_ : stateless_).push_back(t);
      index_previous_members();
      index_candidates();
      const auto members = static_cast<std::int64_t>(member_begin_.back());
      const auto all = static_cast<std::int64_t>(cluster_.task_count());
      const auto stateful = static_cast<std::int64_t>(stateful_.size());
      q_stateful_ = Quota(stateful, members);
      q_active_ = Quota(all, members);
      q_total_ = Quota(all + stateful * settings_.num_standby_replicas, members);
    }

    void actives() {
      active_pass(stateful_, true);
      active_pass(stateless_, false);
    }

    void standbys() {
      if (settings_.num_standby_replicas == 0) return;
      if (!settings_.rack_aware.tags.empty()) {
        TagAwareStandbyOptions options;
        options.prefer_previous_holders = true;
        place_standbys_tag_aware(cluster_, settings_.rack_aware.tags, draft, options);
        return;
      }
      std::vector<TaskIndex> order = stateful_;
      std::sort(order.begin(), order.end(), [&](TaskIndex a, TaskIndex b) { return by_partition(b, a); });
      struct Left {
        TaskIndex task;
        std::uint32_t replicas;
      };
      std::vector<Left> left;
      const std::uint32_t wanted = settings_.num_standby_replicas;
      for (TaskIndex t : order) {
        for (std::uint32_t i = 0; i < wanted; ++i) {
          const ClientIndex owner = cluster_.previous_active_owner()[t];
          std::uint32_t m = kNoMember;
          if (owner != kNoClient && !draft.holds(t, owner)) {
            const std::uint32_t pm = resolve(owner, previous_member_[t]);
            if (member_count_[pm] < q_total_.value()) m = pm;
          }
          if (m == kNoMember) {
            const std::uint32_t best = best_previous_member(t, /*for_standby=*/true);
            if (best != kNoMember && member_count_[best] < q_total_.value()) m = best;
          }
          if (m == kNoMember) {
            left.push_back({t, wanted - i});
            break;
          }
          add_standby(t, m);
        }
      }
      // The rest: reverse task order, to the least-loaded client (tasks per thread) without the task.
      std::sort(left.begin(), left.end(), [](const Left& a, const Left& b) { return a.task > b.task; });
      auto by_load = [&](ClientIndex a, ClientIndex b) {
        const int l = compare_load(tasks_[a], cluster_.clients[a].threads, tasks_[b], cluster_.clients[b].threads);
        return l != 0 ? l < 0 : a < b;
      };
      std::set<ClientIndex, decltype(by_load)> queue(by_load);
      for (ClientIndex c = 0; c < cluster_.client_count(); ++c) queue.insert(c);
      for (const Left& l : left) {
        for (std::uint32_t r = 0; r < l.replicas; ++r) {
          auto it = std::find_if(queue.begin(), queue.end(), [&](ClientIndex c) { return !draft.holds(l.task, c); });
          if (it == queue.end()) break;  // every client holds it: the replica is dropped (a shortfall)
          const ClientIndex c = *it;
          queue.erase(it);
          add_standby(l.task, least_loaded_member(c));
          queue.insert(c);
        }
      }
    }

    const Cluster& cluster_;
    const AssignmentSettings& settings_;
    AssignmentDraft draft;

   private:
    bool has_changelog(TaskIndex t) const noexcept { return cluster_.tasks[t].has_logged_store; }

    // (partition, sub-topology) order.
    bool by_partition(TaskIndex a, TaskIndex b) const noexcept {
      const TaskId& x = cluster_.tasks[a].id;
      const TaskId& y = cluster_.tasks[b].id;
      return x.partition != y.partition ? x.partition < y.partition : x.subtopology < y.subtopology;
    }

    // The thread of `client` that ran (or held a copy of) the task, from the per-thread history.
    std::uint32_t history_member(ClientIndex c, TaskIndex t, bool standby) const {
      const Client& client = cluster_.clients[c];
      for (std::uint32_t th = 0; th < client.threads_history.size() && th < client.threads; ++th) {
        const auto& list = standby ? client.threads_history[th].previous_standby : client.threads_history[th].previous_active;
        if (std::binary_search(list.begin(), list.end(), t)) return member_begin_[c] + th;
      }
      return kNoMember;
    }

    void index_previous_members() {
      previous_member_.assign(cluster_.task_count(), kNoMember);
      const auto owners = cluster_.previous_active_owner();
      for (TaskIndex t = 0; t < cluster_.task_count(); ++t)
        if (owners[t] != kNoClient && !cluster_.clients[owners[t]].threads_history.empty())
          previous_member_[t] = history_member(owners[t], t, false);
    }

    // Per task: the clients that held a copy, then those with offsets on disk, each by offset sum
    // (highest first), ties in client order. Flat: candidates of t are cand_[cand_begin_[t] ..).
    void index_candidates() {
      cand_begin_.assign(cluster_.task_count() + 1, 0);
      auto for_each_entry = [&](auto&& emit) {
        for (ClientIndex c = 0; c < cluster_.client_count(); ++c) {
          const Client& client = cluster_.clients[c];
          auto sum_of = [&](TaskIndex t) -> std::int64_t {
            auto it = std::lower_bound(client.offset_sums.begin(), client.offset_sums.end(), t,
                                       [](const OffsetSum& s, TaskIndex x) { return s.task < x; });
            return it != client.offset_sums.end() && it->task == t && it->sum >= 0 ? it->sum : 0;
          };
          for (TaskIndex t : client.previous_standby)
            if (has_changelog(t)) emit(t, Candidate{c, kNoMember, true, sum_of(t)});
          for (const OffsetSum& s : client.offset_sums)
            if (s.sum >= 0 && has_changelog(s.task) &&
                !std::binary_search(client.previous_standby.begin(), client.previous_standby.end(), s.task))
              emit(s.task, Candidate{c, kNoMember, false, s.sum});
        }
      };
      for_each_entry([&](TaskIndex t, const Candidate&) { ++cand_begin_[t + 1]; });
      for (TaskIndex t = 0; t < cluster_.task_count(); ++t) cand_begin_[t + 1] += cand_begin_[t];
      cand_.resize(cand_begin_.back());
      std::vector<std::uint32_t> next(cand_begin_.begin(), cand_begin_.end() - 1);
      for_each_entry([&](TaskIndex t, const Candidate& c) { cand_[next[t]++] = c; });
      for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
        auto first = cand_.begin() + cand_begin_[t], last = cand_.begin() + cand_begin_[t + 1];
        std::stable_sort(first, last, [](const Candidate& a, const Candidate& b) {
          if (a.held_copy != b.held_copy) return a.held_copy;
          return a.offset_sum > b.offset_sum;
        });
        for (auto it = first; it != last; ++it)
          if (it->held_copy && !cluster_.clients[it->client].threads_history.empty())
            it->member = history_member(it->client, t, true);
      }
    }

    std::uint32_t least_loaded_member(ClientIndex c) const noexcept {
      std::uint32_t best = member_begin_[c];
      for (std::uint32_t m = best + 1; m < member_begin_[c + 1]; ++m)
        if (member_count_[m] < member_count_[best]) best = m;
      return best;
    }
    std::uint32_t resolve(ClientIndex c, std::uint32_t member) const noexcept {
      return member != kNoMember ? member : least_loaded_member(c);
    }
    int compare_client_load(ClientIndex a, ClientIndex b) const noexcept {
      return compare_load(tasks_[a], cluster_.clients[a].threads, tasks_[b], cluster_.clients[b].threads);
    }

    // Kafka's findPrevMemberWithLeastLoad: the first candidate, replaced by a later one only when
    // both its client load and its member's count are strictly lower.
    std::uint32_t best_previous_member(TaskIndex t, bool for_standby) const {
      std::uint32_t best = kNoMember;
      for (std::uint32_t i = cand_begin_[t]; i < cand_begin_[t + 1]; ++i) {
        const Candidate& cand = cand_[i];
        if (for_standby && draft.holds(t, cand.client)) continue;
        const std::uint32_t m = resolve(cand.client, cand.member);
        if (best == kNoMember ||
            (compare_client_load(cand.client, member_client_[best]) < 0 && member_count_[m] < member_count_[best]))
          best = m;
      }
      return best;
    }

    void add_active(TaskIndex t, std::uint32_t m, bool stateful_pass, bool sticky) {
      const ClientIndex c = member_client_[m];
      draft.set_active(t, c);
      ++member_count_[m];
      ++tasks_[c];
      ++actives_[c];
      if (stateful_pass) ++stateful_actives_[c];
      const std::int64_t n = member_count_[m];
      if (sticky && stateful_pass) q_stateful_.placed(n);
      q_active_.placed(n);
      q_total_.placed(n);
    }

    void add_standby(TaskIndex t, std::uint32_t m) {
      const ClientIndex c = member_client_[m];
      draft.add_standby(t, c);
      ++member_count_[m];
      ++tasks_[c];
      q_total_.placed(member_count_[m]);
    }

    void active_pass(const std::vector<TaskIndex>& tasks, bool stateful_pass) {
      if (tasks.empty() || member_begin_.back() == 0) return;
      std::vector<TaskIndex> order = tasks;
      std::sort(order.begin(), order.end(), [&](TaskIndex a, TaskIndex b) { return by_partition(a, b); });
      auto quota = [&] { return stateful_pass ? q_stateful_.value() : q_active_.value(); };
      const auto owners = cluster_.previous_active_owner();
      std::vector<TaskIndex> rest;
      std::vector<TaskIndex> step2;
      for (TaskIndex t : order) {  // 1. the previous active owner
        const ClientIndex owner = owners[t];
        if (owner != kNoClient) {
          const std::uint32_t m = resolve(owner, previous_member_[t]);
          if (member_count_[m] < quota()) {
            add_active(t, m, stateful_pass, true);
            continue;
          }
        }
        step2.push_back(t);
      }
      for (TaskIndex t : step2) {  // 2. the best previous copy
        const std::uint32_t m = best_previous_member(t, false);
        if (m != kNoMember && member_count_[m] < quota()) add_active(t, m, stateful_pass, true);
        else rest.push_back(t);
      }
      // 3. the least-loaded client: tasks per thread, then stateless actives per thread.
      std::sort(rest.begin(), rest.end());
      auto by_load = [&](ClientIndex a, ClientIndex b) {
        if (const int l = compare_client_load(a, b); l != 0) return l < 0;
        const int s = compare_load(actives_[a] - stateful_actives_[a], cluster_.clients[a].threads,
                                   actives_[b] - stateful_actives_[b], cluster_.clients[b].threads);
        return s != 0 ? s < 0 : a < b;
      };
      std::set<ClientIndex, decltype(by_load)> queue(by_load);
      for (ClientIndex c = 0; c < cluster_.client_count(); ++c) queue.insert(c);
      for (TaskIndex t : rest) {
        const ClientIndex c = *queue.begin();
        queue.erase(queue.begin());
        add_active(t, least_loaded_member(c), stateful_pass, false);
        queue.insert(c);
      }
    }

    std::vector<std::uint32_t> member_begin_;   // members of client c: [member_begin_[c], member_begin_[c+1])
    std::vector<std::uint32_t> member_count_;   // actives + standbys per member
    std::vector<ClientIndex> member_client_;
    std::vector<std::uint32_t> tasks_;          // per client: actives + standbys
    std::vector<std::uint32_t> actives_;
    std::vector<std::uint32_t> stateful_actives_;
    std::vector<TaskIndex> stateful_, stateless_;
    std::vector<std::uint32_t> previous_member_;  // per task: the member that ran it, when known
    std::vector<std::uint32_t> cand_begin_;
    std::vector<Candidate> cand_;
    Quota q_stateful_{0, 0}, q_active_{0, 0}, q_total_{0, 0};
  };

  bool refiner_ = true;
};

}  // namespace

ASSIGNOR_PLUGIN(StreamsSticky, "streams_sticky", "1.0.0",
                "Kafka 4.x's KIP-1071 sticky assignor (previous owners, then previous copies, under per-thread "
                "quotas), with the KIP-1071 refiner staging moves behind warmups",
                0)
