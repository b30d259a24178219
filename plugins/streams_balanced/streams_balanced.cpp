// streams_balanced: Kafka 4.x's broker-side BalancedTaskAssignor (KIP-1071, the `balanced` choice of
// the new Streams rebalance protocol, in its newest stored form: the Sainte-Lague deal), followed by
// the KIP-1071 refiner (assignor/refiner.hpp).
//
// Placement across clients ignores history entirely: it is a function of the client ids, their
// thread counts and the tasks. Tasks go in Kafka's TaskId order (sub-topology ids are strings: "10"
// before "2", then partition).
//   1. Actives are dealt over the clients (in id order) by a thread-weighted deal: with w = threads
//      divided by the gcd of all thread counts, one period holds w slots per client, ordered by the
//      smallest (2 x dealt + 1) / w, ties to the lower index (Sainte-Lague; plain round-robin when
//      thread counts are equal). The i-th task with a changelog goes to slot i of the period
//      (cyclically); the tasks without one continue the same deal after them.
//   2. Standbys (before the stateless tasks): each replica of each task with a changelog, in task
//      order, to the least-loaded client (tasks held per thread, ties to the lower index) that does
//      not hold the task; then Kafka's skew balancing moves standbys between clients: passes over
//      (source, destination) pairs in index order, moving the source's standbys in task order while
//      the move lowers the load gap without reversing it, until a pass moves nothing.
//   3. Within a client, Kafka's distributeTasksOverMembers spreads the tasks over its members
//      (kip1071/kip1071_group.hpp: member ids and what each held) in three rounds, stateful actives, then
//      standbys, then stateless actives, each levelling the members' counts: a stateful task stays
//      on the member that held it (any role; the smaller member id when two did) while that member is
//      below the level, the members below the level take the rest in turn in member id order, and
//      the few left over go to their holder if it is at the level, else to the next member at the
//      level in id order.
// The refiner (parameter `refiner`, default true) then keeps moved tasks on caught-up clients while
// their targets warm up, as in a Kafka 4.x group; placements it makes go to their client's
// least-loaded member.
#include <assignor/java_order.hpp>
#include <assignor/sdk.hpp>

#include <algorithm>
#include <deque>
#include <numeric>
#include <queue>
#include <set>
#include <string_view>
#include <vector>

#include "kip1071/kip1071_group.hpp"

namespace {

using namespace assignor;
namespace kip1071 = assignor::plugins::kip1071;

class StreamsBalanced final : public Strategy {
 public:
  explicit StreamsBalanced(const StrategyParams& params) {
    params.reject_unknown({"refiner"});
    refiner_ = params.get_bool("refiner", true);
  }

  Assignment assign(const AssignmentInput& in) override {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    const std::vector<ClientIndex> period = deal_period(cluster);
    // Kafka's TaskId order: sub-topology ids compared as strings, then partition.
    std::vector<TaskIndex> order(cluster.task_count());
    std::iota(order.begin(), order.end(), TaskIndex{0});
    const kip1071::TaskIdKeys keys(cluster);
    std::sort(order.begin(), order.end(),
              [&](TaskIndex a, TaskIndex b) { return keys.by_subtopology[a] < keys.by_subtopology[b]; });
    std::vector<std::uint32_t> rank(cluster.task_count());
    for (std::uint32_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
    std::vector<TaskIndex> stateful, stateless;
    for (TaskIndex t : order) (cluster.tasks[t].has_logged_store ? stateful : stateless).push_back(t);
    std::size_t dealt = 0;
    for (TaskIndex t : stateful) draft.set_active(t, period[dealt++ % period.size()]);
    place_standbys(cluster, stateful, draft);
    balance_standbys(cluster, rank, draft);
    for (TaskIndex t : stateless) draft.set_active(t, period[dealt++ % period.size()]);
    const kip1071::Group group = kip1071::build_group(cluster);
    kip1071::MemberChoice choice = split_over_members(cluster, group, order, draft);
    bool probing = false;
    if (refiner_) probing = refine_kip1071(cluster, in.settings, in.lags, draft).probing_rebalance_needed();
    Assignment out = draft.finish(probing);
    kip1071::name_threads(group, std::move(choice), out);
    return out;
  }

 private:
  // One period of the thread-weighted deal: client c appears threads(c) / gcd times.
  static std::vector<ClientIndex> deal_period(const Cluster& cluster) {
    std::uint64_t g = 0;
    for (const Client& c : cluster.clients) g = std::gcd(g, std::uint64_t{c.threads});
    struct Slot {
      std::uint64_t dealt, weight;
      ClientIndex client;
    };
    // Smallest (2 dealt + 1) / weight first, exactly; ties to the lower index.
    auto later = [](const Slot& a, const Slot& b) {
      const auto l = (2 * a.dealt + 1) * b.weight, r = (2 * b.dealt + 1) * a.weight;
      return l != r ? l > r : a.client > b.client;
    };
    std::priority_queue<Slot, std::vector<Slot>, decltype(later)> heap(later);
    std::uint64_t length = 0;
    for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
      const std::uint64_t w = cluster.clients[c].threads / g;
      heap.push({0, w, c});
      length += w;
    }
    std::vector<ClientIndex> period;
    period.reserve(length);
    while (!heap.empty()) {
      Slot s = heap.top();
      heap.pop();
      period.push_back(s.client);
      if (++s.dealt < s.weight) heap.push(s);
    }
    return period;
  }

  static void place_standbys(const Cluster& cluster, const std::vector<TaskIndex>& stateful, AssignmentDraft& draft) {
    const std::uint32_t replicas = draft.standbys_per_task();
    if (replicas == 0) return;
    auto by_load = [&](ClientIndex a, ClientIndex b) {
      const int l = compare_load(draft.total_count(a), draft.threads(a), draft.total_count(b), draft.threads(b));
      return l != 0 ? l < 0 : a < b;
    };
    std::set<ClientIndex, decltype(by_load)> queue(by_load);
    for (ClientIndex c = 0; c < cluster.client_count(); ++c) queue.insert(c);
    for (TaskIndex t : stateful) {
      for (std::uint32_t r = 0; r < replicas; ++r) {
        auto it = std::find_if(queue.begin(), queue.end(), [&](ClientIndex c) { return !draft.holds(t, c); });
        if (it == queue.end()) break;  // every client holds it: fewer replicas (a shortfall)
        const ClientIndex c = *it;
        queue.erase(it);
        draft.add_standby(t, c);
        queue.insert(c);
      }
    }
  }

  // Kafka's skew rule over client pairs, moving standbys only (load: every task held per thread);
  // each client's standbys in Kafka's task order (`rank`).
  static void balance_standbys(const Cluster& cluster, const std::vector<std::uint32_t>& rank, AssignmentDraft& draft) {
    if (draft.standbys_per_task() == 0) return;
    std::vector<TaskIndex> by_rank(rank.size());
    for (TaskIndex t = 0; t < rank.size(); ++t) by_rank[rank[t]] = t;
    std::vector<std::set<std::uint32_t>> standbys(cluster.client_count());  // ranks
    for (TaskIndex t = 0; t < cluster.task_count(); ++t)
      for (ClientIndex c : draft.standby_slots(t))
        if (c != kNoClient) standbys[c].insert(rank[t]);
    auto load = [&](ClientIndex c, int delta) {
      return (static_cast<double>(draft.total_count(c)) + delta) / draft.threads(c);
    };
    auto should_move = [&](ClientIndex s, ClientIndex d) {
      const double skew = load(s, 0) - load(d, 0);
      if (skew <= 0) return false;
      const double proposed = load(s, -1) - load(d, +1);
      return proposed >= 0 && proposed < skew;
    };
    for (bool moved = true; moved;) {
      moved = false;
      for (ClientIndex s = 0; s < cluster.client_count(); ++s) {
        for (ClientIndex d = 0; d < cluster.client_count(); ++d) {
          if (s == d || !should_move(s, d)) continue;
          for (auto it = standbys[s].begin(); it != standbys[s].end() && should_move(s, d);) {
            const TaskIndex t = by_rank[*it];
            if (draft.holds(t, d)) {
              ++it;
              continue;
            }
            draft.remove_standby(t, s);
            draft.add_standby(t, d);
            standbys[d].insert(*it);
            it = standbys[s].erase(it);
            moved = true;
          }
        }
      }
    }
  }

  // Kafka's ProcessTasks.distributeTasksOverMembers, per client: the member of every placement.
  static kip1071::MemberChoice split_over_members(const Cluster& cluster, const kip1071::Group& g,
                                                  const std::vector<TaskIndex>& order, const AssignmentDraft& draft) {
    kip1071::MemberChoice choice;
    choice.active.assign(cluster.task_count(), kip1071::kNoMember);
    // Each client's tasks in Kafka's task order, by round.
    const std::size_t n = cluster.client_count();
    std::vector<std::vector<TaskIndex>> stateful(n), standby(n), stateless(n);
    for (TaskIndex t : order) {
      const ClientIndex a = draft.active(t);
      if (a != kNoClient) (cluster.tasks[t].has_logged_store ? stateful : stateless)[a].push_back(t);
      for (ClientIndex c : draft.standby_slots(t))
        if (c != kNoClient) standby[c].push_back(t);
    }
    // currentOwner (per client): the member holding the task in any role; the smaller member id
    // when several of one client do.
    std::vector<std::pair<TaskIndex, kip1071::MemberIndex>> held;
    for (kip1071::MemberIndex m = 0; m < g.member_count(); ++m) {
      for (auto i = g.active_begin[m]; i < g.active_begin[m + 1]; ++i) held.emplace_back(g.previous_active[i], m);
      for (auto i = g.standby_begin[m]; i < g.standby_begin[m + 1]; ++i) held.emplace_back(g.previous_standby[i], m);
    }
    std::sort(held.begin(), held.end());
    auto owner_on = [&](TaskIndex t, ClientIndex c) {
      kip1071::MemberIndex best = kip1071::kNoMember;
      for (auto it = std::lower_bound(held.begin(), held.end(), std::make_pair(t, kip1071::MemberIndex{0}));
           it != held.end() && it->first == t; ++it)
        if (g.client_of[it->second] == c && (best == kip1071::kNoMember || g.member_id[it->second] < g.member_id[best]))
          best = it->second;
      return best;
    };
    std::vector<std::uint32_t> count(g.member_count(), 0);
    std::vector<kip1071::MemberIndex> members;  // of one client, in member id order
    for (ClientIndex c = 0; c < n; ++c) {
      members.clear();
      for (auto m = g.member_begin[c]; m < g.member_begin[c + 1]; ++m) members.push_back(m);
      std::sort(members.begin(), members.end(), [&](auto a, auto b) { return g.member_id[a] < g.member_id[b]; });
      auto place = [&](TaskIndex t, kip1071::MemberIndex m, bool active) {
        ++count[m];
        if (active)
          choice.active[t] = m;
        else
          choice.standbys.emplace_back(t, m);
      };
      auto round = [&](const std::vector<TaskIndex>& tasks, bool sticky, bool active) {
        if (tasks.empty()) return;
        std::size_t placed = 0;
        for (auto m : members) placed += count[m];
        const std::size_t level = (placed + tasks.size()) / members.size();
        auto own = [&](TaskIndex t) { return sticky ? owner_on(t, c) : kip1071::kNoMember; };
        std::vector<TaskIndex> unassigned;
        for (TaskIndex t : tasks) {  // 1. the holder while below the level
          const auto o = own(t);
          if (o != kip1071::kNoMember && count[o] < level)
            place(t, o, active);
          else
            unassigned.push_back(t);
        }
        std::deque<kip1071::MemberIndex> to_fill;  // 2. the members below the level, in turn
        for (auto m : members)
          if (count[m] < level) to_fill.push_back(m);
        std::size_t next = 0;
        while (!to_fill.empty() && next < unassigned.size()) {
          const auto m = to_fill.front();
          to_fill.pop_front();
          place(unassigned[next++], m, active);
          if (count[m] < level) to_fill.push_back(m);
        }
        std::vector<kip1071::MemberIndex> at_level;  // 3. the leftovers, one per member at the level
        for (auto m : members)
          if (count[m] == level) at_level.push_back(m);
        std::vector<TaskIndex> without_owner;
        for (std::size_t i = next; i < unassigned.size(); ++i) {
          const TaskIndex t = unassigned[i];
          const auto o = own(t);
          auto it = o == kip1071::kNoMember ? at_level.end() : std::find(at_level.begin(), at_level.end(), o);
          if (it != at_level.end()) {
            at_level.erase(it);
            place(t, o, active);
          } else {
            without_owner.push_back(t);
          }
        }
        for (TaskIndex t : without_owner) {
          if (at_level.empty())
            throw StrategyError("streams_balanced: no member left for task " + to_string(cluster.tasks[t].id));
          const auto m = at_level.front();
          at_level.erase(at_level.begin());
          place(t, m, active);
        }
      };
      round(stateful[c], true, true);
      round(standby[c], true, false);
      round(stateless[c], false, true);
    }
    return choice;
  }

  bool refiner_ = true;
};

}  // namespace

ASSIGNOR_PLUGIN(StreamsBalanced, "streams_balanced", "1.1.0",
                "Kafka 4.x's KIP-1071 balanced assignor (thread-weighted deal, least-loaded standbys with skew "
                "balancing, no history), with the KIP-1071 refiner staging moves behind warmups",
                0)
