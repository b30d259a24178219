// streams_balanced: Kafka 4.x's broker-side BalancedTaskAssignor (KIP-1071, the `balanced` choice of
// the new Streams rebalance protocol), followed by the KIP-1071 refiner (assignor/refiner.hpp).
//
// Placement across clients ignores history entirely: it is a function of the client ids, their
// thread counts and the tasks.
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
// The refiner (parameter `refiner`, default true) then keeps moved tasks on caught-up clients while
// their targets warm up, as in a Kafka 4.x group.
//
// Differences from Kafka (docs/strategies.md): sub-topologies sort as numbers; the spread over a
// client's threads is the SDK's thread distribution (Kafka keeps a task on the member that holds it
// inside the process).
#include <assignor/sdk.hpp>

#include <numeric>
#include <queue>
#include <set>
#include <vector>

namespace {

using namespace assignor;

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
    std::vector<TaskIndex> stateful, stateless;
    for (TaskIndex t = 0; t < cluster.task_count(); ++t)
      (cluster.tasks[t].has_logged_store ? stateful : stateless).push_back(t);
    std::size_t dealt = 0;
    for (TaskIndex t : stateful) draft.set_active(t, period[dealt++ % period.size()]);
    place_standbys(cluster, stateful, draft);
    balance_standbys(cluster, draft);
    for (TaskIndex t : stateless) draft.set_active(t, period[dealt++ % period.size()]);
    bool probing = false;
    if (refiner_) probing = refine_kip1071(cluster, in.settings, in.lags, draft).probing_rebalance_needed();
    return draft.finish(probing);
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

  // Kafka's skew rule over client pairs, moving standbys only (load: every task held per thread).
  static void balance_standbys(const Cluster& cluster, AssignmentDraft& draft) {
    if (draft.standbys_per_task() == 0) return;
    std::vector<std::set<TaskIndex>> standbys(cluster.client_count());
    for (TaskIndex t = 0; t < cluster.task_count(); ++t)
      for (ClientIndex c : draft.standby_slots(t))
        if (c != kNoClient) standbys[c].insert(t);
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
            const TaskIndex t = *it;
            if (draft.holds(t, d)) {
              ++it;
              continue;
            }
            draft.remove_standby(t, s);
            draft.add_standby(t, d);
            standbys[d].insert(t);
            it = standbys[s].erase(it);
            moved = true;
          }
        }
      }
    }
  }

  bool refiner_ = true;
};

}  // namespace

ASSIGNOR_PLUGIN(StreamsBalanced, "streams_balanced", "1.0.0",
                "Kafka 4.x's KIP-1071 balanced assignor (thread-weighted deal, least-loaded standbys with skew "
                "balancing, no history), with the KIP-1071 refiner staging moves behind warmups",
                0)
