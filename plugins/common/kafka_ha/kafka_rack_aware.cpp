#include "kafka_ha/kafka_rack_aware.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <assignor/log.hpp>

#include "kafka_ha/kafka_min_cost_flow.hpp"

namespace assignor::plugins::kafka_ha {

namespace {

constexpr std::int32_t kSource = -1;

// The racks of the given clients numbered 0.. in order of first appearance, and each task's traffic
// cost on each of them (traffic_cost per partition without a replica there).
struct RackTable {
  std::vector<std::int32_t> rack_of_client;  // per given client
  std::int32_t racks = 0;
  std::vector<std::int32_t> traffic;  // task x rack, for the tasks given

  RackTable(const Cluster& cluster, const std::vector<TaskIndex>& tasks, const std::vector<ClientIndex>& clients,
            RackCosts costs) {
    std::vector<RackIndex> ids;
    for (ClientIndex c : clients) {
      const RackIndex rack = cluster.clients[c].rack;
      auto it = std::find(ids.begin(), ids.end(), rack);
      rack_of_client.push_back(static_cast<std::int32_t>(it - ids.begin()));
      if (it == ids.end()) ids.push_back(rack);
    }
    racks = static_cast<std::int32_t>(ids.size());
    traffic.reserve(tasks.size() * ids.size());
    for (TaskIndex t : tasks)
      for (RackIndex rack : ids) {
        std::int32_t cost = 0;
        for (const PartitionRef& p : cluster.tasks[t].partitions)
          if (!std::binary_search(p.racks.begin(), p.racks.end(), rack)) cost += costs.traffic;
        traffic.push_back(cost);
      }
  }
  const std::int32_t* of(std::size_t task) const { return &traffic[task * static_cast<std::size_t>(racks)]; }
  std::int32_t cost(std::size_t task, std::size_t client, bool current, RackCosts costs) const {
    return of(task)[rack_of_client[client]] + (current ? 0 : costs.non_overlap);
  }
  KafkaGraph::ClientBlocks blocks(RackCosts costs) const {
    return {static_cast<std::int32_t>(rack_of_client.size()), rack_of_client, racks, costs.non_overlap};
  }
};

// The client holding the task in the role being optimised.
using Holder = std::function<ClientIndex(TaskIndex)>;
using Move = std::function<void(TaskIndex, ClientIndex from, ClientIndex to)>;

// MinTrafficGraphConstructor over `tasks` and `clients` (both in Kafka's order), solved, applied.
RackResult min_traffic(const Cluster& cluster, const std::vector<TaskIndex>& tasks,
                       const std::vector<ClientIndex>& clients, const std::vector<std::int32_t>& count,
                       const Holder& holder, const Move& move, RackCosts costs) {
  const auto n_tasks = static_cast<std::int32_t>(tasks.size());
  const auto n_clients = static_cast<std::int32_t>(clients.size());
  const std::int32_t sink = n_tasks + n_clients;
  KafkaGraph graph(sink);
  const RackTable table(cluster, tasks, clients, costs);
  const bool hint = n_clients > 2;  // the pairwise standby graphs gain nothing from it
  if (hint) graph.set_client_blocks(table.blocks(costs));
  std::vector<std::uint32_t> first_edge(tasks.size());
  for (std::int32_t i = 0; i < n_tasks; ++i) {
    const auto ti = static_cast<std::size_t>(i);
    const ClientIndex now = holder(tasks[ti]);
    std::int32_t current = -1;
    for (std::int32_t j = 0; j < n_clients; ++j) {
      const bool here = clients[static_cast<std::size_t>(j)] == now;
      if (here) current = j;
      const std::uint32_t e =
          graph.add_edge(i, n_tasks + j, 1, table.cost(ti, static_cast<std::size_t>(j), here, costs), here ? 1 : 0);
      if (j == 0) first_edge[ti] = e;
    }
    graph.add_edge(kSource, i, 1, 0, 1);
    if (hint) graph.hint_task(i, n_tasks, current, table.of(ti));
  }
  for (std::int32_t j = 0; j < n_clients; ++j)
    graph.add_edge(n_tasks + j, sink, count[static_cast<std::size_t>(j)], 0, count[static_cast<std::size_t>(j)]);
  graph.set_source(kSource);
  graph.set_sink(sink);
  RackResult result;
  result.cycles = graph.solve_min_cost_flow();
  result.cost = graph.total_cost();
  for (std::int32_t i = 0; i < n_tasks; ++i) {
    const TaskIndex t = tasks[static_cast<std::size_t>(i)];
    for (std::int32_t j = 0; j < n_clients; ++j) {
      if (graph.flow(first_edge[static_cast<std::size_t>(i)] + static_cast<std::uint32_t>(j)) <= 0) continue;
      const ClientIndex to = clients[static_cast<std::size_t>(j)];
      const ClientIndex from = holder(t);
      if (to != from) {
        move(t, from, to);
        ++result.moved;
      }
      break;
    }
  }
  return result;
}

// BalanceSubtopologyGraphConstructor over `tasks` (task order) and every client.
RackResult balance_subtopology(const Cluster& cluster, const std::vector<TaskIndex>& tasks,
                               const std::vector<std::int32_t>& count, const Holder& holder, const Move& move,
                               RackCosts costs) {
  // Kafka's tasksForTopicGroup: every sub-topology of the topology, in order, with all its tasks.
  const std::vector<std::int32_t> groups = cluster.subtopologies();
  const auto n_tasks = static_cast<std::int32_t>(tasks.size());
  const auto n_clients = static_cast<std::int32_t>(cluster.client_count());
  const auto n_groups = static_cast<std::int32_t>(groups.size());
  std::vector<std::uint8_t> in_set(cluster.task_count(), 0);
  for (TaskIndex t : tasks) in_set[t] = 1;
  const std::int32_t second_stage = n_tasks + n_clients * n_groups;
  const std::int32_t sink = second_stage + n_clients;
  KafkaGraph graph(sink);
  std::vector<ClientIndex> all(cluster.client_count());
  for (ClientIndex c = 0; c < all.size(); ++c) all[c] = c;
  const RackTable table(cluster, tasks, all, costs);
  std::vector<std::size_t> row_of(cluster.task_count(), 0);  // a task's row in the table
  for (std::size_t k = 0; k < tasks.size(); ++k) row_of[tasks[k]] = k;
  graph.set_client_blocks(table.blocks(costs));
  // Task node ids follow the groups, each group's tasks in order (= task order).
  std::vector<std::int32_t> node_of(cluster.task_count(), -1);
  {
    std::int32_t next = 0;
    for (std::int32_t g : groups)
      for (TaskIndex t : cluster.tasks_of_subtopology(g))
        if (in_set[t]) node_of[t] = next++;
  }
  // (task, client) edges, by task node then client: the edge index of each, for reading flows.
  std::vector<std::uint32_t> edge_of(static_cast<std::size_t>(n_tasks) * static_cast<std::size_t>(n_clients));
  for (std::int32_t gi = 0; gi < n_groups; ++gi) {
    const TaskRange group = cluster.tasks_of_subtopology(groups[static_cast<std::size_t>(gi)]);
    std::size_t in_group = 0;
    for (TaskIndex t : group) in_group += in_set[t];
    if (in_group == 0) continue;
    for (std::int32_t c = 0; c < n_clients; ++c) {
      const std::int32_t client_node = n_tasks + n_clients * gi + c;
      for (TaskIndex t : group) {
        if (!in_set[t]) continue;
        const bool current = holder(t) == static_cast<ClientIndex>(c);
        edge_of[static_cast<std::size_t>(node_of[t]) * static_cast<std::size_t>(n_clients) +
                static_cast<std::size_t>(c)] =
            graph.add_edge(node_of[t], client_node, 1,
                           table.cost(row_of[t], static_cast<std::size_t>(c), current, costs), 0);
      }
      const std::int32_t original = count[static_cast<std::size_t>(c)];
      // (int) Math.ceil(original * 1.0 / taskIdList.size() * taskIds.size()), in doubles as Kafka does;
      // Kafka's map holds no count for a client without tasks of the set.
      const auto capacity =
          original == 0
              ? 0
              : static_cast<std::int32_t>(std::ceil(static_cast<double>(original) * 1.0 / static_cast<double>(n_tasks) *
                                                    static_cast<double>(group.size())));
      graph.add_edge(client_node, second_stage + c, capacity, 0, 0);
    }
  }
  for (std::int32_t i = 0; i < n_tasks; ++i) graph.add_edge(kSource, i, 1, 0, 0);
  for (std::int32_t gi = 0; gi < n_groups; ++gi)
    for (TaskIndex t : cluster.tasks_of_subtopology(groups[static_cast<std::size_t>(gi)]))
      if (in_set[t])
        graph.hint_task(node_of[t], n_tasks + n_clients * gi, static_cast<std::int32_t>(holder(t)),
                        table.of(row_of[t]));
  for (std::int32_t c = 0; c < n_clients; ++c)
    graph.add_edge(second_stage + c, sink, count[static_cast<std::size_t>(c)], 0, 0);
  graph.set_source(kSource);
  graph.set_sink(sink);
  if (graph.max_flow() != n_tasks)
    throw std::runtime_error(
        "high_availability: Kafka's balance_subtopology graph admits no flow for every task "
        "(Kafka throws here too)");
  RackResult result;
  result.cycles = graph.solve_min_cost_flow();
  result.cost = graph.total_cost();
  for (TaskIndex t : tasks) {
    const auto i = static_cast<std::size_t>(node_of[t]);
    for (std::int32_t c = 0; c < n_clients; ++c) {
      if (graph.flow(edge_of[i * static_cast<std::size_t>(n_clients) + static_cast<std::size_t>(c)]) <= 0) continue;
      const ClientIndex from = holder(t);
      if (static_cast<ClientIndex>(c) != from) {
        move(t, from, static_cast<ClientIndex>(c));
        ++result.moved;
      }
      break;
    }
  }
  return result;
}

}  // namespace

bool rack_awareness_enabled(const Cluster& cluster, const RackAwareSettings& settings, const char* strategy_name) {
  if (settings.strategy == RackAwareStrategy::none) return false;
  std::string why;
  for (const Client& c : cluster.clients)
    if (why.empty() && c.rack == kNoRack) why = "client '" + c.id + "' has no rack";
  for (const Task& task : cluster.tasks) {
    if (!why.empty()) break;
    if (task.partitions.empty()) why = "task " + to_string(task.id) + " lists no partitions";
    for (const PartitionRef& p : task.partitions)
      if (why.empty() && p.racks.empty())
        why = "partition " + p.topic + "-" + std::to_string(p.partition) + " of task " + to_string(task.id) +
              " has no replica racks";
  }
  if (why.empty()) return true;
  log(LogLevel::warn, std::string(strategy_name) + ": rack awareness is off although rack_aware.strategy is set: " +
                          why + " (Kafka enables it only when every client and every partition has rack information)");
  return false;
}

std::vector<TaskIndex> tasks_with_changelog(const Cluster& cluster, bool with) {
  std::vector<TaskIndex> out;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (cluster.tasks[t].has_logged_store == with) out.push_back(t);
  return out;
}

RackResult optimize_actives(const Cluster& cluster, RackAwareStrategy strategy, const std::vector<TaskIndex>& tasks,
                            RackCosts costs, AssignmentDraft& draft) {
  if (tasks.empty() || strategy == RackAwareStrategy::none) return {};
  std::vector<std::int32_t> count(cluster.client_count(), 0);
  for (TaskIndex t : tasks) ++count[draft.active(t)];
  const Holder holder = [&](TaskIndex t) { return draft.active(t); };
  const Move move = [&](TaskIndex t, ClientIndex, ClientIndex to) { draft.set_active(t, to); };
  if (strategy == RackAwareStrategy::balance_subtopology)
    return balance_subtopology(cluster, tasks, count, holder, move, costs);
  std::vector<ClientIndex> clients(cluster.client_count());
  for (ClientIndex c = 0; c < clients.size(); ++c) clients[c] = c;
  return min_traffic(cluster, tasks, clients, count, holder, move, costs);
}

bool keeps_tag_spread(const Cluster& cluster, const std::vector<std::string>& tag_keys, const AssignmentDraft& draft,
                      ClientIndex source, ClientIndex destination, TaskIndex task) {
  auto distinct = [&](ClientIndex drop, ClientIndex add) {
    std::vector<std::pair<std::string, std::string>> seen;
    auto take = [&](ClientIndex c) {
      for (const std::string& key : tag_keys) {
        const auto& tags = cluster.clients[c].tags;
        auto it = tags.find(key);
        if (it != tags.end()) seen.emplace_back(key, it->second);
      }
    };
    for (ClientIndex c = 0; c < cluster.client_count(); ++c)
      if (c != drop && (draft.role(task, c) == Role::active || draft.role(task, c) == Role::standby)) take(c);
    if (add != kNoClient) take(add);
    std::sort(seen.begin(), seen.end());
    return static_cast<std::size_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
  };
  return distinct(source, destination) >= distinct(kNoClient, kNoClient);
}

RackResult optimize_standbys(const Cluster& cluster, RackCosts costs, const StandbyMovePredicate& allowed,
                             AssignmentDraft& draft) {
  RackResult total;
  const auto n = static_cast<ClientIndex>(cluster.client_count());
  // Each client's standbys in task order, kept up to date as standbys move.
  std::vector<std::vector<TaskIndex>> standbys(n);
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    for (ClientIndex c : draft.standby_slots(t))
      if (c != kNoClient) standbys[c].push_back(t);
  auto movable = [&](ClientIndex source, ClientIndex destination, std::vector<TaskIndex>& out) {
    for (TaskIndex t : standbys[source])
      if (!draft.holds(t, destination) && (!allowed || allowed(source, destination, t))) out.push_back(t);
  };
  std::vector<TaskIndex> tasks, other;
  bool moved = true;
  for (int round = 0; moved && round < 4; ++round) {  // STANDBY_OPTIMIZER_MAX_ITERATION
    moved = false;
    for (ClientIndex i = 0; i < n; ++i) {
      for (ClientIndex j = i + 1; j < n; ++j) {
        if (cluster.clients[i].rack == cluster.clients[j].rack) continue;  // no traffic to save
        tasks.clear();
        other.clear();
        movable(i, j, tasks);
        if (tasks.empty()) continue;
        movable(j, i, other);
        if (other.empty()) continue;  // only swaps keep both counts
        const std::size_t mid = tasks.size();
        tasks.insert(tasks.end(), other.begin(), other.end());
        std::inplace_merge(tasks.begin(), tasks.begin() + static_cast<std::ptrdiff_t>(mid), tasks.end());
        // Each client's standbys of these tasks (Kafka counts every holder; only these two matter).
        const std::vector<std::int32_t> count{static_cast<std::int32_t>(mid), static_cast<std::int32_t>(other.size())};
        const Holder holder = [&](TaskIndex t) {
          return std::binary_search(standbys[i].begin(), standbys[i].end(), t) ? i : j;
        };
        const Move move = [&](TaskIndex t, ClientIndex from, ClientIndex to) {
          draft.remove_standby(t, from);
          draft.add_standby(t, to);
          auto& f = standbys[from];
          f.erase(std::lower_bound(f.begin(), f.end(), t));
          auto& d = standbys[to];
          d.insert(std::lower_bound(d.begin(), d.end(), t), t);
        };
        const RackResult r = min_traffic(cluster, tasks, {i, j}, count, holder, move, costs);
        total.cycles += r.cycles;
        total.moved += r.moved;
        moved = moved || r.moved > 0;
      }
    }
  }
  return total;
}

RackCosts configured_costs(const RackAwareSettings& settings, RackAwareCosts defaults) {
  const RackAwareCosts configured = rack_aware_costs(settings, defaults);
  return {static_cast<std::int32_t>(configured.traffic), static_cast<std::int32_t>(configured.non_overlap)};
}

}  // namespace assignor::plugins::kafka_ha
