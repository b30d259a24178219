// least_movement: the balanced assignment closest to the current one, reached without restores.
//
// Kafka's high_availability spreads stateful actives round-robin, ignoring who had them, then pulls
// most of them back through warmups: on a scale-out it plans moves for most actives where about a
// tenth would do. Here the target is computed directly as a transportation problem:
//
//   source -> task class (supply = tasks in the class) -> [logged node ->] client -> sink
//
// Bounds make the target balanced: per-client active counts proportional to threads (highest
// averages; ties go to the client holding more tasks now, so nothing moves for a tie), and the same
// for the actives with a changelog, which pass through a per-client "logged" node whose arc carries
// that bound (DESIGN 4.6: balanced includes the work that restores; without it, a newcomer would
// get only stateless tasks and never its share of the expensive ones). Costs make it
// close: a task stays with its previous owner for free; a stateless task moves for 1 (so stateless
// tasks absorb the imbalance first); a stateful task costs 10 to move to a caught-up client and
// 100 + (its lag, scaled to 0..1000) to a client that must restore; with racks and rack_aware on,
// each partition whose replicas are outside the client's rack adds traffic_cost. Tasks with the same
// cost row form one class, so the network stays small. LEMON's network simplex solves it.
//
// Then the SDK's warmup planning keeps every stateful active whose target is not caught up on a
// caught-up client, with warmups on the target and a probing rebalance, so no active ever restores;
// each later rebalance moves the warmed-up tasks. Standbys go to clients that already have the
// state, then to the least loaded.
//
// Parameter `balance: weight` (default `count`) balances the sum of task weights per thread instead
// of task counts: the target is then the weighted strategy's (weighted/weighted_packing.hpp: previous
// owners keep tasks within the average weight per thread, the rest heaviest first to the least loaded),
// within the largest task's weight; standbys and warmups as above.
#include <assignor/sdk.hpp>

#include "weighted/weighted_packing.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace {

using namespace assignor;

constexpr std::int64_t kStay = 0;
constexpr std::int64_t kMoveStateless = 1;
constexpr std::int64_t kMoveCaughtUp = 10;
constexpr std::int64_t kMoveCold = 100;
constexpr std::int64_t kLagScale = 1000;

class LeastMovement final : public Strategy {
 public:
  // target_only: return the balanced target itself, before standbys and warmup planning (it may
  // then contain restoring actives). For inspection and for the optimality tests.
  // balance: count (min-cost flow at balanced counts) | weight (weighted.hpp).
  explicit LeastMovement(const StrategyParams& params) {
    params.reject_unknown({"target_only", "balance"});
    target_only_ = params.get_bool("target_only", false);
    by_weight_ = params.get_choice("balance", {"count", "weight"}, 0) == 1;
  }

  Assignment assign(const AssignmentInput& in) override {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    if (cluster.client_count() == 0) return draft.finish(false);
    if (by_weight_)
      plugins::weighted::place_weighted_actives(cluster, in.lags, draft);
    else
      place_target(in, draft);
    if (target_only_) return draft.finish(false);
    place_standbys(in, draft);
    const WarmupPlan plan = plan_warmups(cluster, in.settings, in.lags, draft);
    return draft.finish(plan.probing_rebalance_needed());
  }

 private:
  bool target_only_ = false;
  bool by_weight_ = false;

  static bool equal_threads(const Cluster& cluster) {
    for (const auto& c : cluster.clients)
      if (c.threads != cluster.clients.front().threads) return false;
    return true;
  }

  // Per-client bounds on a count of actives: proportional to threads. With equal threads every
  // client takes floor(count / clients) up to one more, and the flow decides which take the
  // remainder; otherwise the highest-averages quotas exactly, ties to the client that holds more
  // tasks now (so nothing moves for a tie).
  struct Bounds {
    std::vector<std::uint32_t> low, high;
  };
  static Bounds bounds(const Cluster& cluster, std::uint64_t count) {
    const std::size_t n = cluster.client_count();
    if (equal_threads(cluster)) {
      const auto base = static_cast<std::uint32_t>(count / n);
      return {std::vector<std::uint32_t>(n, base), std::vector<std::uint32_t>(n, base + (count % n > 0 ? 1 : 0))};
    }
    std::vector<std::uint32_t> held(n, 0);
    for (ClientIndex c : cluster.previous_active_owner())
      if (c != kNoClient) ++held[c];
    std::vector<std::uint32_t> quota = proportional_quotas(cluster, count, held);
    return {quota, quota};
  }

  struct Arc {
    ClientIndex client;
    std::int64_t cost;
    friend bool operator<(const Arc& a, const Arc& b) {
      return a.client != b.client ? a.client < b.client : a.cost < b.cost;
    }
    friend bool operator==(const Arc& a, const Arc& b) = default;
  };

  // The cost row of one task: explicit arcs to the clients where it is cheap, and the cost of
  // sending it anywhere else (per rack when rack costs apply).
  struct Row {
    bool logged = false;              // has a changelog: counts against the logged bounds
    std::vector<Arc> arcs;            // sorted by client
    std::vector<std::int64_t> other;  // cost to "any other client" per rack group (1 group without racks)
    friend bool operator<(const Row& a, const Row& b) {
      if (a.logged != b.logged) return a.logged < b.logged;
      return a.arcs != b.arcs ? a.arcs < b.arcs : a.other < b.other;
    }
  };

  static void place_target(const AssignmentInput& in, AssignmentDraft& draft) {
    const Cluster& cluster = in.cluster;
    const LagModel& lags = in.lags;
    const std::size_t n = cluster.client_count();
    const auto previous = cluster.previous_active_owner();
    const bool racks = cluster.has_racks() && in.settings.rack_aware.strategy != RackAwareStrategy::none;
    const std::int64_t traffic = in.settings.rack_aware.traffic_cost.value_or(10);
    const std::size_t groups = racks ? cluster.racks.size() : 1;

    std::int64_t max_end = 1;
    for (const auto& t : cluster.tasks) max_end = std::max(max_end, t.end_offset_sum);
    auto cold_cost = [&](const Lag& lag) {
      if (lag.kind != LagKind::known) return kMoveCold + kLagScale;
      return kMoveCold + static_cast<std::int64_t>(static_cast<long double>(lag.offsets) * kLagScale / max_end);
    };
    auto rack_cost = [&](const Task& task, RackIndex rack) {
      std::int64_t cost = 0;
      for (const auto& p : task.partitions)
        if (!p.racks.empty() && !std::binary_search(p.racks.begin(), p.racks.end(), rack)) cost += traffic;
      return cost;
    };

    // Classes of tasks with one cost row.
    std::map<Row, std::vector<TaskIndex>> classes;
    Row row;
    for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
      const Task& task = cluster.tasks[t];
      row.logged = task.has_logged_store;
      row.arcs.clear();
      row.other.assign(groups, 0);
      const ClientIndex prev = previous[t];
      if (!task.stateful) {
        if (prev != kNoClient) row.arcs.push_back({prev, kStay});
        for (std::size_t g = 0; g < groups; ++g) row.other[g] = kMoveStateless;
      } else if (lags.everyone_caught_up(t)) {
        if (prev != kNoClient) row.arcs.push_back({prev, kStay});
        for (std::size_t g = 0; g < groups; ++g) row.other[g] = kMoveCaughtUp;
      } else {
        // Clients with state (explicit lag entries) get their own arcs; everybody else restores
        // from scratch.
        for (ClientIndex c : lags.ranked(t)) {
          const Lag lag = lags.lag(t, c);
          if (lag.kind != LagKind::running && !(lag.kind == LagKind::known && lag.offsets < task.end_offset_sum))
            break;  // the implicit tail: no state on disk
          std::int64_t cost = c == prev && lags.caught_up(t, c) ? kStay
                              : lags.caught_up(t, c)            ? kMoveCaughtUp
                                                                : cold_cost(lag);
          row.arcs.push_back({c, cost});
        }
        if (prev != kNoClient &&
            std::none_of(row.arcs.begin(), row.arcs.end(), [&](const Arc& a) { return a.client == prev; }))
          row.arcs.push_back({prev, cold_cost(lags.lag(t, prev))});
        const std::int64_t scratch =
            cold_cost(task.end_offset_sum > 0 ? Lag::known(task.end_offset_sum) : Lag::known(0));
        for (std::size_t g = 0; g < groups; ++g) row.other[g] = scratch;
      }
      if (racks) {
        for (auto& a : row.arcs) a.cost += rack_cost(task, cluster.clients[a.client].rack);
        for (std::size_t g = 0; g < groups; ++g) row.other[g] += rack_cost(task, static_cast<RackIndex>(g));
      }
      std::sort(row.arcs.begin(), row.arcs.end());
      classes[row].push_back(t);
    }

    // The network: source -> class -> (client | pool[group] -> client) -> sink, in two layers: a
    // task with a changelog enters through its client's "logged" node, whose arc on to the client
    // bounds the logged actives it takes; every task then counts against the client's total. So
    // the target balances the work that restores (a new client gets its share of it, through
    // warmups) as well as the task count; stateless tasks still absorb what is left of the total
    // imbalance first, since they move for 1.
    using Graph = lemon::SmartDigraph;
    Graph g;
    std::vector<Graph::Node> client_node(n), logged_node(n), pool(groups), logged_pool(groups);
    for (auto& node : client_node) node = g.addNode();
    for (auto& node : logged_node) node = g.addNode();
    for (auto& node : pool) node = g.addNode();
    for (auto& node : logged_pool) node = g.addNode();
    const Graph::Node sink = g.addNode();
    Graph::ArcMap<std::int64_t> lower(g, 0), capacity(g), cost(g);
    Graph::NodeMap<std::int64_t> supply(g, 0);
    const std::int64_t unbounded = static_cast<std::int64_t>(cluster.task_count());
    auto arc = [&](Graph::Node from, Graph::Node to, std::int64_t low, std::int64_t cap, std::int64_t c) {
      const Graph::Arc a = g.addArc(from, to);
      lower[a] = low;
      capacity[a] = cap;
      cost[a] = c;
      return a;
    };
    // Per-client bounds. Equal threads: floor(tasks / clients) to one more, so that the flow
    // chooses which clients take the remainder (where it moves the least); otherwise the exact
    // highest-averages quotas. The logged bounds come from the same method on the logged count,
    // which never gives a client more than its total (a divisor method is house-monotone).
    const std::uint64_t logged_count = static_cast<std::uint64_t>(
        std::count_if(cluster.tasks.begin(), cluster.tasks.end(), [](const Task& t) { return t.has_logged_store; }));
    const Bounds total = bounds(cluster, cluster.task_count());
    Bounds logged = bounds(cluster, logged_count);
    for (ClientIndex c = 0; c < n; ++c)
      if (logged.high[c] > total.high[c])
        logged = Bounds{std::vector<std::uint32_t>(n, 0), total.high};  // never: safety
    std::vector<Graph::Arc> logged_arc(n), total_arc(n);
    for (ClientIndex c = 0; c < n; ++c) {
      total_arc[c] = arc(client_node[c], sink, total.low[c], total.high[c], 0);
      logged_arc[c] = arc(logged_node[c], client_node[c], logged.low[c], logged.high[c], 0);
      const std::size_t group = racks ? cluster.clients[c].rack : 0;
      arc(pool[group], client_node[c], 0, unbounded, 0);
      arc(logged_pool[group], logged_node[c], 0, unbounded, 0);
    }
    // Supplies sum to zero, so GEQ means equality: every class sends exactly its tasks.
    supply[sink] = -unbounded;
    struct ClassArcs {
      const std::vector<TaskIndex>* tasks;
      bool logged;
      std::vector<std::pair<Graph::Arc, ClientIndex>> direct;
      std::vector<std::pair<Graph::Arc, std::size_t>> pooled;
    };
    std::vector<ClassArcs> class_arcs;
    class_arcs.reserve(classes.size());
    for (const auto& [r, tasks] : classes) {
      const Graph::Node node = g.addNode();
      const auto size = static_cast<std::int64_t>(tasks.size());
      supply[node] = size;
      const bool is_logged = r.logged;
      ClassArcs ca{&tasks, is_logged, {}, {}};
      const auto& to_client = is_logged ? logged_node : client_node;
      const auto& to_pool = is_logged ? logged_pool : pool;
      for (const Arc& a : r.arcs) ca.direct.push_back({arc(node, to_client[a.client], 0, size, a.cost), a.client});
      for (std::size_t grp = 0; grp < groups; ++grp)
        ca.pooled.push_back({arc(node, to_pool[grp], 0, size, r.other[grp]), grp});
      class_arcs.push_back(std::move(ca));
    }

    lemon::NetworkSimplex<Graph, std::int64_t, std::int64_t> solver(g);
    solver.lowerMap(lower).upperMap(capacity).costMap(cost).supplyMap(supply).supplyType(solver.GEQ);
    if (solver.run() != solver.OPTIMAL) throw StrategyError("least_movement: the balanced target has no solution");

    // Read the flow back: direct arcs give tasks to named clients; pooled flow goes to the clients
    // with room left in the group and layer, in client order (any such choice has the same cost).
    // Room per client and layer = what the flow sent through it.
    std::vector<std::int64_t> room_logged(n, 0), room_other(n, 0);
    for (ClientIndex c = 0; c < n; ++c) {
      room_logged[c] = solver.flow(logged_arc[c]);
      room_other[c] = solver.flow(total_arc[c]) - room_logged[c];
    }
    std::vector<std::vector<TaskIndex>> pooled_tasks(groups), pooled_logged(groups);
    for (auto& ca : class_arcs) {
      std::size_t next = 0;
      const auto& tasks = *ca.tasks;
      auto& room = ca.logged ? room_logged : room_other;
      for (auto& [a, client] : ca.direct) {
        for (std::int64_t f = solver.flow(a); f > 0; --f) {
          draft.set_active(tasks[next++], client);
          --room[client];
        }
      }
      auto& pooled = ca.logged ? pooled_logged : pooled_tasks;
      for (auto& [a, grp] : ca.pooled)
        for (std::int64_t f = solver.flow(a); f > 0; --f) pooled[grp].push_back(tasks[next++]);
    }
    for (std::size_t grp = 0; grp < groups; ++grp) {
      for (auto* layer : {&pooled_logged, &pooled_tasks}) {
        auto& list = (*layer)[grp];
        auto& room = layer == &pooled_logged ? room_logged : room_other;
        std::sort(list.begin(), list.end());
        ClientIndex cursor = 0;
        for (TaskIndex t : list) {
          for (std::size_t tried = 0; tried < n; ++tried, cursor = static_cast<ClientIndex>((cursor + 1) % n)) {
            const bool in_group = !racks || cluster.clients[cursor].rack == grp;
            if (in_group && room[cursor] > 0 && !draft.holds(t, cursor)) break;
          }
          draft.set_active(t, cursor);
          --room[cursor];
        }
      }
    }
  }

  // Standbys: clients that already have the task's state first (in rank order, not above an even
  // share of copies per thread), then the least loaded without the task.
  static void place_standbys(const AssignmentInput& in, AssignmentDraft& draft) {
    const Cluster& cluster = in.cluster;
    const std::uint32_t k = draft.standbys_per_task();
    if (k == 0) return;
    std::uint64_t copies = 0;
    for (const auto& t : cluster.tasks) copies += 1 + (t.has_logged_store ? k : 0);
    const std::uint64_t per_thread = (copies + cluster.total_threads() - 1) / cluster.total_threads();
    for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
      if (!cluster.tasks[t].has_logged_store || in.lags.everyone_caught_up(t)) continue;
      for (ClientIndex c : in.lags.ranked(t)) {
        if (draft.standby_count(t) >= k) break;
        const Lag lag = in.lags.lag(t, c);
        if (lag.kind != LagKind::running &&
            !(lag.kind == LagKind::known && lag.offsets < cluster.tasks[t].end_offset_sum))
          break;
        if (draft.holds(t, c) || draft.total_count(c) + 1 > per_thread * draft.threads(c)) continue;
        draft.add_standby(t, c);
      }
    }
    place_standbys_least_loaded(cluster, draft);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(LeastMovement, "least_movement", "1.0.0",
                "The balanced assignment closest to the current one (min-cost flow over stickiness, lag "
                "and racks), reached through warmups with no restoring actives",
                assignor::kCapabilityHighAvailability)
