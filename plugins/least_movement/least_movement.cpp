// least_movement: the balanced assignment closest to the current one, reached without restores.
//
// Kafka's high_availability spreads stateful actives round-robin, ignoring who had them, then pulls
// most of them back through warmups: on a scale-out it plans moves for most actives where about a
// tenth would do. Here the target is computed directly as a transportation problem:
//
//   source -> task class (supply = tasks in the class) -> client (cost) -> sink (capacity = quota)
//
// Quotas make the target balanced: per-client active counts proportional to threads (highest
// averages; ties go to the client holding more tasks now, so nothing moves for a tie). Costs make it
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
// of task counts: the target is then the weighted strategy's (plugins/weighted/weighted_packing.hpp: previous owners
// keep tasks within the average weight per thread, the rest heaviest first to the least loaded),
// within the largest task's weight; standbys and warmups as above.
#include <assignor/sdk.hpp>

#include "weighted_packing.hpp"  // plugins/weighted: place_weighted_actives

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
    const std::string balance = params.get_string("balance", "count");
    if (balance != "count" && balance != "weight")
      throw ConfigError("strategy parameter 'balance': expected count or weight, got '" + balance + "'");
    by_weight_ = balance == "weight";
  }

  Assignment assign(const AssignmentInput& in) override {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    if (cluster.client_count() == 0) return draft.finish(false);
    if (by_weight_) place_weighted_actives(cluster, in.lags, draft);
    else place_target(in, draft);
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

  // Per-client active counts: proportional to threads, ties to the client that holds more now.
  // (With equal threads the flow itself decides which clients take the remainder; see below.)
  static std::vector<std::uint32_t> quotas(const Cluster& cluster) {
    std::vector<std::uint32_t> held(cluster.client_count(), 0);
    for (ClientIndex c : cluster.previous_active_owner())
      if (c != kNoClient) ++held[c];
    return proportional_quotas(cluster, cluster.task_count(), held);
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
    std::vector<Arc> arcs;           // sorted by client
    std::vector<std::int64_t> other;  // cost to "any other client" per rack group (1 group without racks)
    friend bool operator<(const Row& a, const Row& b) {
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
        if (prev != kNoClient && std::none_of(row.arcs.begin(), row.arcs.end(),
                                              [&](const Arc& a) { return a.client == prev; }))
          row.arcs.push_back({prev, cold_cost(lags.lag(t, prev))});
        const std::int64_t scratch = cold_cost(task.end_offset_sum > 0 ? Lag::known(task.end_offset_sum) : Lag::known(0));
        for (std::size_t g = 0; g < groups; ++g) row.other[g] = scratch;
      }
      if (racks) {
        for (auto& a : row.arcs) a.cost += rack_cost(task, cluster.clients[a.client].rack);
        for (std::size_t g = 0; g < groups; ++g) row.other[g] += rack_cost(task, static_cast<RackIndex>(g));
      }
      std::sort(row.arcs.begin(), row.arcs.end());
      classes[row].push_back(t);
    }

    // The network: source -> class -> (client | pool[group] -> client) -> sink.
    using Graph = lemon::SmartDigraph;
    Graph g;
    const std::vector<std::uint32_t> quota = quotas(cluster);
    std::vector<Graph::Node> client_node(n), pool(groups);
    for (auto& node : client_node) node = g.addNode();
    for (auto& node : pool) node = g.addNode();
    const Graph::Node sink = g.addNode();
    Graph::ArcMap<std::int64_t> capacity(g), cost(g);
    Graph::NodeMap<std::int64_t> supply(g, 0);
    const std::int64_t unbounded = static_cast<std::int64_t>(cluster.task_count());
    auto arc = [&](Graph::Node from, Graph::Node to, std::int64_t cap, std::int64_t c) {
      const Graph::Arc a = g.addArc(from, to);
      capacity[a] = cap;
      cost[a] = c;
      return a;
    };
    // Equal threads: every client gets floor(tasks / clients), and the flow chooses which clients
    // take one of the r remaining tasks (through an "extra" node of capacity r), so that the
    // remainder lands where it moves the least. Otherwise the quotas above are exact.
    const bool free_remainder = equal_threads(cluster);
    const std::uint64_t base = cluster.task_count() / n;
    const std::uint64_t remainder = cluster.task_count() % n;
    const Graph::Node extra = g.addNode();
    if (free_remainder && remainder > 0) arc(extra, sink, static_cast<std::int64_t>(remainder), 0);
    for (ClientIndex c = 0; c < n; ++c) {
      if (free_remainder) {
        arc(client_node[c], sink, static_cast<std::int64_t>(base), 0);
        if (remainder > 0) arc(client_node[c], extra, 1, 0);
      } else {
        arc(client_node[c], sink, quota[c], 0);
      }
      const RackIndex rack = cluster.clients[c].rack;
      const std::size_t group = racks ? rack : 0;
      arc(pool[group], client_node[c], unbounded, 0);
    }
    supply[sink] = -unbounded;
    struct ClassArcs {
      const std::vector<TaskIndex>* tasks;
      std::vector<std::pair<Graph::Arc, ClientIndex>> direct;
      std::vector<std::pair<Graph::Arc, std::size_t>> pooled;
    };
    std::vector<ClassArcs> class_arcs;
    class_arcs.reserve(classes.size());
    for (const auto& [r, tasks] : classes) {
      const Graph::Node node = g.addNode();
      const auto size = static_cast<std::int64_t>(tasks.size());
      supply[node] = size;
      ClassArcs ca{&tasks, {}, {}};
      for (const Arc& a : r.arcs) ca.direct.push_back({arc(node, client_node[a.client], size, a.cost), a.client});
      for (std::size_t grp = 0; grp < groups; ++grp) ca.pooled.push_back({arc(node, pool[grp], size, r.other[grp]), grp});
      class_arcs.push_back(std::move(ca));
    }

    lemon::NetworkSimplex<Graph, std::int64_t, std::int64_t> solver(g);
    solver.upperMap(capacity).costMap(cost).supplyMap(supply).supplyType(solver.GEQ);
    if (solver.run() != solver.OPTIMAL) throw StrategyError("least_movement: the balanced target has no solution");

    // Read the flow back: direct arcs give tasks to named clients; pooled flow goes to the clients
    // with room left in the group, least loaded first (any such choice has the same cost).
    // Room per client = what the flow sent into it (the flow is the target's per-client count).
    std::vector<std::int64_t> room(n, 0);
    for (ClientIndex c = 0; c < n; ++c)
      for (Graph::OutArcIt a(g, client_node[c]); a != lemon::INVALID; ++a) room[c] += solver.flow(a);
    std::vector<std::vector<std::pair<TaskIndex, std::size_t>>> pooled_tasks(groups);
    for (auto& ca : class_arcs) {
      std::size_t next = 0;
      const auto& tasks = *ca.tasks;
      // Prefer the previous owner's arc for the tasks that had one, so "stay" flow keeps tasks home.
      for (auto& [a, client] : ca.direct) {
        for (std::int64_t f = solver.flow(a); f > 0; --f) {
          draft.set_active(tasks[next++], client);
          --room[client];
        }
      }
      for (auto& [a, grp] : ca.pooled)
        for (std::int64_t f = solver.flow(a); f > 0; --f) pooled_tasks[grp].push_back({tasks[next++], grp});
    }
    for (std::size_t grp = 0; grp < groups; ++grp) {
      auto& list = pooled_tasks[grp];
      std::sort(list.begin(), list.end());
      ClientIndex cursor = 0;
      for (const auto& [t, unused] : list) {
        (void)unused;
        for (std::size_t tried = 0; tried < n; ++tried, cursor = static_cast<ClientIndex>((cursor + 1) % n)) {
          const bool in_group = !racks || cluster.clients[cursor].rack == grp;
          if (in_group && room[cursor] > 0 && !draft.holds(t, cursor)) break;
        }
        draft.set_active(t, cursor);
        --room[cursor];
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
        if (lag.kind != LagKind::running && !(lag.kind == LagKind::known && lag.offsets < cluster.tasks[t].end_offset_sum))
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
