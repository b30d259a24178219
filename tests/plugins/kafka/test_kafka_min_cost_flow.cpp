// KafkaGraph (plugins/common/kafka_ha/kafka_min_cost_flow.hpp) against a literal transcription of
// Kafka's Graph: residual graph in ordered maps, a dummy node that sorts first, Bellman-Ford from it
// with every one of its node-count sweeps and a distance map in which a node is unreached until
// relaxed, the node relaxed first in the last sweep walked back into its cycle, the cycle cancelled,
// all repeated until a run finds nothing; breadth-first augmenting paths for the max flow. The fast
// version ends sweeps early, skips unchanged nodes and jumps over periods of sweeps: it must end with
// exactly the same flow on every edge, on random graphs shaped like Kafka's (tasks and clients with
// min_traffic's or balance_subtopology's layout, and two-client standby graphs) and on arbitrary small
// graphs with many equal costs, where the optimum Kafka picks is one of many.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "kafka_ha/kafka_min_cost_flow.hpp"

namespace assignor::plugins::kafka_ha {
namespace {

// ---- the literal transcription ----------------------------------------------------------------

constexpr int kNull = INT_MIN;  // Kafka's null dummy node, first in its nullsFirst order

struct LEdge {
  int destination, capacity, cost, residualFlow, flow;
  LEdge* counterEdge = nullptr;
  bool forwardEdge = true;
};

struct Literal {
  std::map<int, std::map<int, std::shared_ptr<LEdge>>> adjList;
  std::set<int> nodes;
  int source = -1, sink = -1;
  std::vector<std::vector<std::int32_t>> cycles;  // each cancelled cycle, as Kafka walked it

  void addEdge(int u, std::shared_ptr<LEdge> e) {
    nodes.insert(u);
    nodes.insert(e->destination);
    adjList[u][e->destination] = std::move(e);
  }
  void addEdge(int u, int v, int capacity, int cost, int flow) {
    addEdge(u, std::make_shared<LEdge>(LEdge{v, capacity, cost, capacity - flow, flow}));
  }
  Literal residual() const {
    Literal r;
    r.source = source;
    r.sink = sink;
    for (const auto& [node, edges] : adjList)
      for (const auto& [dest, e] : edges) {
        auto fwd = std::make_shared<LEdge>(LEdge{dest, e->capacity, e->cost, e->capacity - e->flow, e->flow});
        auto bwd = std::make_shared<LEdge>(LEdge{node, e->capacity, -e->cost, e->flow, 0});
        bwd->forwardEdge = false;
        fwd->counterEdge = bwd.get();
        bwd->counterEdge = fwd.get();
        r.addEdge(node, fwd);
        r.addEdge(dest, bwd);
      }
    return r;
  }
  void copyFlows(const Literal& r) {
    for (auto& [node, edges] : adjList)
      for (auto& [dest, e] : edges) {
        e->flow = r.adjList.at(node).at(dest)->flow;
        e->residualFlow = r.adjList.at(node).at(dest)->residualFlow;
      }
  }
  static void push(LEdge* e, int amount) {
    e->residualFlow -= amount;
    if (e->forwardEdge) e->flow += amount;
    LEdge* c = e->counterEdge;
    c->residualFlow += amount;
    if (c->forwardEdge && c->flow >= amount) c->flow -= amount;
  }
  std::optional<int> detect(std::map<int, int>& parentNodes, std::map<int, LEdge*>& parentEdges) {
    std::map<int, long long> distance;
    distance[kNull] = 0;
    const int nodeCount = static_cast<int>(nodes.size());
    for (int i = 0; i < nodeCount; ++i)
      for (auto& [start, edges] : adjList)
        for (auto& [end, e] : edges) {
          if (e->residualFlow == 0) continue;
          auto ds = distance.find(start);
          if (ds == distance.end()) continue;
          auto de = distance.find(end);
          if (de == distance.end() || de->second > ds->second + e->cost) {
            distance[end] = ds->second + e->cost;
            parentNodes[end] = start;
            parentEdges[end] = e.get();
            if (i == nodeCount - 1) return end;
          }
        }
    return std::nullopt;
  }
  void solveMinCostFlow() {
    Literal r = residual();
    auto& dummy = r.adjList[kNull];
    for (int node : r.nodes) dummy[node] = std::make_shared<LEdge>(LEdge{node, 1, 0, 1, 0});
    r.nodes.insert(kNull);
    for (;;) {
      std::map<int, int> parentNodes;
      std::map<int, LEdge*> parentEdges;
      const std::optional<int> found = r.detect(parentNodes, parentEdges);
      if (!found) break;
      std::set<int> visited;
      int x = *found;
      while (!visited.count(x)) {
        visited.insert(x);
        x = parentNodes.at(x);
      }
      int amount = parentEdges.at(x)->residualFlow;
      for (int cur = parentNodes.at(x); cur != x; cur = parentNodes.at(cur))
        amount = std::min(amount, parentEdges.at(cur)->residualFlow);
      std::vector<std::int32_t> cycle{x};
      for (int cur = parentNodes.at(x); cur != x; cur = parentNodes.at(cur)) cycle.push_back(cur);
      cycles.push_back(std::move(cycle));
      push(parentEdges.at(x), amount);
      for (int cur = parentNodes.at(x); cur != x; cur = parentNodes.at(cur)) push(parentEdges.at(cur), amount);
    }
    r.adjList.erase(kNull);

    copyFlows(r);
  }
  long long maxFlow() {
    Literal r = residual();
    for (;;) {
      std::map<int, int> parents;
      std::set<int> visited{source};
      std::queue<int> queue;
      queue.push(source);
      bool found = false;
      while (!queue.empty() && !found) {
        const int node = queue.front();
        queue.pop();
        for (auto& [next, e] : r.adjList[node]) {
          if (visited.count(next) || e->residualFlow <= 0) continue;
          if (next == sink) {
            parents[sink] = node;
            found = true;
            break;
          }
          queue.push(next);
          parents[next] = node;
          visited.insert(next);
        }
      }
      if (!found) break;
      int amount = INT_MAX;
      for (int node = sink; node != source; node = parents[node])
        amount = std::min(amount, r.adjList[parents[node]][node]->residualFlow);
      for (int node = sink; node != source; node = parents[node]) push(r.adjList[parents[node]][node].get(), amount);
    }
    copyFlows(r);
    long long total = 0;
    for (auto& [dest, e] : adjList[source]) total += e->flow;
    return total;
  }
};

// ---- random graphs in both implementations ------------------------------------------------------

struct Built {
  Literal literal;
  std::unique_ptr<KafkaGraph> fast;
  std::vector<std::pair<std::pair<int, int>, std::uint32_t>> edges;  // (u, v) -> fast edge index
  void add(int u, int v, int capacity, int cost, int flow) {
    literal.addEdge(u, v, capacity, cost, flow);
    edges.push_back({{u, v}, fast->add_edge(u, v, capacity, cost, flow)});
  }
  void solve_both() {
    fast->record_cycles(true);
    literal.solveMinCostFlow();
    fast->solve_min_cost_flow();
  }
  void expect_same_flows(const std::string& what) const {
    ASSERT_EQ(fast->cycles(), literal.cycles) << what << ": other cycles cancelled, or in another order";
    for (const auto& [uv, e] : edges)
      ASSERT_EQ(fast->flow(e), literal.adjList.at(uv.first).at(uv.second)->flow)
          << what << ": edge " << uv.first << " -> " << uv.second;
  }
};

// The graph's cost structure as KafkaGraph's block hint states it (speed only: the answer must not
// change with it).
void set_blocks(KafkaGraph& g, const std::vector<int>& client_rack, int racks, int non_overlap) {
  g.set_client_blocks({static_cast<std::int32_t>(client_rack.size()),
                       std::vector<std::int32_t>(client_rack.begin(), client_rack.end()), racks, non_overlap});
}

// Kafka's min_traffic layout: tasks 0..T-1, clients T..T+C-1, sink T+C, each task on one client.
Built min_traffic_graph(std::mt19937& rng, int tasks, int clients, int racks, bool hint = false) {
  Built b;
  const int sink = tasks + clients;
  b.fast = std::make_unique<KafkaGraph>(sink);
  std::vector<int> client_rack(clients), count(clients, 0);
  for (int& r : client_rack) r = static_cast<int>(rng() % racks);
  if (hint) set_blocks(*b.fast, client_rack, racks, 1);
  for (int t = 0; t < tasks; ++t) {
    const int holder = static_cast<int>(rng() % clients);
    const int home = static_cast<int>(rng() % racks);
    const int partitions = 1 + static_cast<int>(rng() % 2);
    ++count[holder];
    std::vector<std::int32_t> traffic(static_cast<std::size_t>(racks));
    for (int r = 0; r < racks; ++r) traffic[static_cast<std::size_t>(r)] = r == home ? 0 : 10 * partitions;
    for (int c = 0; c < clients; ++c) {
      const int cost = (client_rack[c] == home ? 0 : 10 * partitions) + (c == holder ? 0 : 1);
      b.add(t, tasks + c, 1, cost, c == holder ? 1 : 0);
    }
    b.add(-1, t, 1, 0, 1);
    if (hint) b.fast->hint_task(t, tasks, holder, traffic.data());
  }
  for (int c = 0; c < clients; ++c) b.add(tasks + c, sink, count[c], 0, count[c]);
  b.literal.source = -1;
  b.literal.sink = sink;
  b.fast->set_source(-1);
  b.fast->set_sink(sink);
  return b;
}

// Kafka's balance_subtopology layout: tasks, (client, group) nodes, second-stage clients, sink; the
// flow starts empty and comes from the max flow.
// Costs per task and rack (0, 10 or 20), clients on random racks.
Built balance_graph(std::mt19937& rng, int tasks, int clients, int groups, bool hint = false) {
  Built b;
  const int second = tasks + clients * groups, sink = second + clients;
  b.fast = std::make_unique<KafkaGraph>(sink);
  constexpr int kRacks = 3;
  std::vector<int> holder(tasks), group(tasks), count(clients, 0), in_group(groups, 0), client_rack(clients);
  std::vector<std::int32_t> traffic(static_cast<std::size_t>(tasks * kRacks));
  for (int& r : client_rack) r = static_cast<int>(rng() % kRacks);
  if (hint) set_blocks(*b.fast, client_rack, kRacks, 1);
  for (int t = 0; t < tasks; ++t) {
    group[t] = t * groups / tasks;
    ++in_group[group[t]];
    holder[t] = static_cast<int>(rng() % clients);
    ++count[holder[t]];
    for (int r = 0; r < kRacks; ++r)
      traffic[static_cast<std::size_t>(t * kRacks + r)] = static_cast<std::int32_t>(rng() % 3) * 10;
  }
  for (int g = 0; g < groups; ++g)
    for (int c = 0; c < clients; ++c) {
      bool any = false;
      for (int t = 0; t < tasks; ++t) {
        if (group[t] != g) continue;
        any = true;
        b.add(t, tasks + clients * g + c, 1,
              traffic[static_cast<std::size_t>(t * kRacks + client_rack[c])] + (holder[t] == c ? 0 : 1), 0);
      }
      if (any && count[c] > 0)
        b.add(tasks + clients * g + c, second + c, static_cast<int>(std::ceil(count[c] * 1.0 / tasks * in_group[g])), 0,
              0);
      else if (any)
        b.add(tasks + clients * g + c, second + c, 0, 0, 0);
    }
  for (int t = 0; t < tasks; ++t) b.add(-1, t, 1, 0, 0);
  for (int c = 0; c < clients; ++c) b.add(second + c, sink, count[c], 0, 0);
  if (hint)
    for (int t = 0; t < tasks; ++t)
      b.fast->hint_task(t, tasks + clients * group[t], holder[t], &traffic[static_cast<std::size_t>(t * kRacks)]);
  b.literal.source = -1;
  b.literal.sink = sink;
  b.fast->set_source(-1);
  b.fast->set_sink(sink);
  return b;
}

// `rounds` random graphs without the block hint, then the same graphs (the generator restarted from
// `seed`) with it: check(rng, hint, round) draws one graph's sizes and edges from rng and checks it.
template <class Check>
void for_random_graphs(std::mt19937::result_type seed, int rounds, Check&& check) {
  for (bool hint : {false, true}) {
    std::mt19937 rng(seed);
    for (int round = 0; round < rounds; ++round) check(rng, hint, round);
  }
}

TEST(KafkaMinCostFlow, MinTrafficGraphsCancelTheCyclesKafkaCancels) {
  for_random_graphs(20261203, 120, [](std::mt19937& rng, bool hint, int round) {
    const int tasks = 2 + static_cast<int>(rng() % 14), clients = 2 + static_cast<int>(rng() % 5);
    Built b = min_traffic_graph(rng, tasks, clients, 1 + static_cast<int>(rng() % 3), hint);
    b.solve_both();
    b.expect_same_flows("min_traffic round " + std::to_string(round) + (hint ? " (block hint)" : ""));
  });
}

TEST(KafkaMinCostFlow, BalanceSubtopologyGraphsFindKafkasMaxFlowThenItsOptimum) {
  for_random_graphs(4242, 80, [](std::mt19937& rng, bool hint, int round) {
    const int tasks = 3 + static_cast<int>(rng() % 10), clients = 2 + static_cast<int>(rng() % 3);
    Built b = balance_graph(rng, tasks, clients, 1 + static_cast<int>(rng() % 3), hint);
    const long long lit = b.literal.maxFlow();
    EXPECT_EQ(b.fast->max_flow(), lit) << "round " << round;
    b.expect_same_flows("max flow, round " + std::to_string(round));
    b.solve_both();
    b.expect_same_flows("balance_subtopology round " + std::to_string(round) + (hint ? " (block hint)" : ""));
  });
}

TEST(KafkaMinCostFlow, AHintThatDoesNotMatchTheEdgesIsRefused) {
  std::mt19937 rng(5);
  Built b = min_traffic_graph(rng, 6, 3, 2, true);
  b.fast->hint_task(0, 6, -1, std::vector<std::int32_t>{0, 0}.data());  // task 0 hinted twice
  EXPECT_THROW(b.fast->solve_min_cost_flow(), std::logic_error);
  Built c;
  c.fast = std::make_unique<KafkaGraph>(4);
  set_blocks(*c.fast, {0, 1}, 2, 1);
  c.add(0, 1, 1, 5, 0);  // costs 5, the hint says 0 + 1
  c.add(0, 2, 1, 1, 0);
  c.fast->hint_task(0, 1, -1, std::vector<std::int32_t>{0, 0}.data());
  EXPECT_THROW(c.fast->solve_min_cost_flow(), std::logic_error);
}

TEST(KafkaMinCostFlow, ArbitraryGraphsWithManyEqualCostsEndAlike) {
  // Random circulations: every edge capacity 1-3 with a random feasible flow on a random cycle
  // structure, costs in -3..3 (many ties, many negative cycles).
  std::mt19937 rng(7);
  for (int round = 0; round < 150; ++round) {
    const int nodes = 3 + static_cast<int>(rng() % 8);
    Built b;
    b.fast = std::make_unique<KafkaGraph>(nodes);
    std::set<std::pair<int, int>> used;
    // Flow around a few random cycles keeps every node balanced.
    std::map<std::pair<int, int>, int> flow;
    for (int k = 0; k < 3; ++k) {
      std::vector<int> cycle;
      for (int x = 0; x < nodes; ++x)
        if (rng() % 2) cycle.push_back(x);
      if (cycle.size() < 3) continue;
      std::shuffle(cycle.begin(), cycle.end(), rng);
      bool clash = false;
      for (std::size_t i = 0; i < cycle.size(); ++i) {
        const int u = cycle[i], v = cycle[(i + 1) % cycle.size()];
        if (flow.count({v, u})) clash = true;
      }
      if (clash) continue;
      for (std::size_t i = 0; i < cycle.size(); ++i) ++flow[{cycle[i], cycle[(i + 1) % cycle.size()]}];
    }
    for (int u = 0; u < nodes; ++u)
      for (int v = 0; v < nodes; ++v) {
        if (u == v || used.count({v, u}) || (rng() % 3 == 0 && !flow.count({u, v}))) continue;
        const int f = flow.count({u, v}) ? flow[{u, v}] : 0;
        b.add(u, v, f + static_cast<int>(rng() % 3), static_cast<int>(rng() % 7) - 3, f);
        used.insert({u, v});
      }
    if (b.edges.empty()) continue;
    b.solve_both();
    b.expect_same_flows("arbitrary round " + std::to_string(round));
  }
}

TEST(KafkaMinCostFlow, LargerGraphsWhereThePeriodsAreSkipped) {
  // Big enough that most Bellman-Ford runs jump over whole periods of sweeps, with nodes falling at
  // different rates (balance_subtopology) so that the jumps stop short where an edge would turn
  // relaxable.
  std::mt19937 rng(99);
  std::uint64_t skipped = 0, run = 0;
  for (int round = 0; round < 16; ++round) {
    const bool hint = round % 4 >= 2;  // the block hint on half of them
    Built b = round % 2 == 0
                  ? min_traffic_graph(rng, 40 + static_cast<int>(rng() % 30), 4 + static_cast<int>(rng() % 4), 3, hint)
                  : balance_graph(rng, 30 + static_cast<int>(rng() % 20), 3 + static_cast<int>(rng() % 3), 4, hint);
    if (round % 2 == 1) {
      b.literal.maxFlow();
      b.fast->max_flow();
    }
    b.solve_both();
    skipped += b.fast->stats().sweeps_skipped;
    run += b.fast->stats().sweeps_run;
    b.expect_same_flows("large round " + std::to_string(round));
    EXPECT_EQ(b.fast->total_cost(), [&] {
      long long total = 0;
      for (auto& [u, edges] : b.literal.adjList)
        for (auto& [v, e] : edges) total += static_cast<long long>(e->cost) * e->flow;
      return total;
    }());
  }
  EXPECT_GT(skipped, run / 10) << "the periods were hardly skipped: the test would not check the skipping";
}

TEST(KafkaMinCostFlow, AnEdgeThatTurnsRelaxableManySweepsLaterIsNotJumpedOver) {
  // Two negative cycles falling at different rates: 0 -> 1 -> 2 -> 0 loses 1 a turn, 3 -> 4 -> 5 -> 3
  // loses 4. The edge 3 -> 0 (cost 60) turns relaxable only after many sweeps, when node 3 has
  // fallen 60 below node 0; from then on node 0 follows the faster cycle and the parents change. A
  // long run (many idle nodes raise the node count) must not jump over that moment.
  for (int idle : {60, 150, 400}) {
    Built b;
    b.fast = std::make_unique<KafkaGraph>(6 + idle);
    for (auto [u, v, cost] : std::vector<std::tuple<int, int, int>>{
             {0, 1, -1}, {1, 2, 0}, {2, 0, 0}, {3, 4, -4}, {4, 5, 0}, {5, 3, 0}, {3, 0, 60}, {2, 5, 90}})
      b.add(u, v, 2, cost, 0);
    for (int p = 6; p + 1 < 6 + idle; ++p) b.add(p, p + 1, 1, 5, 0);
    b.solve_both();
    b.expect_same_flows("idle " + std::to_string(idle));
  }
}

}  // namespace
}  // namespace assignor::plugins::kafka_ha
