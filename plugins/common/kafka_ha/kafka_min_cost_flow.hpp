// Kafka's Graph (streams/.../internals/assignment/Graph.java), the min-cost flow solver behind
// RackAwareTaskAssignor, reproduced so that it picks the optimum Kafka picks among equal-cost ones.
//
// Nodes are Kafka's integer node ids (source -1, tasks, clients, sink). Kafka keeps the adjacency in
// TreeMaps, so every pass visits nodes in id order and each node's edges in destination order.
// solve_min_cost_flow() is Kafka's cycle cancelling: on the residual graph, with a dummy node that
// reaches every node at cost 0 and is visited first, Bellman-Ford from the dummy node runs up to
// node-count sweeps; the first edge still relaxable in the last sweep names a node, its parent chain
// leads into a negative cycle, the cycle's least residual capacity is pushed around it, and all of
// this repeats until a Bellman-Ford run relaxes nothing in its last sweep. max_flow() is Kafka's
// Ford-Fulkerson with breadth-first augmenting paths (balance_subtopology builds a feasible flow
// with it before cancelling cycles).
//
// Shortcuts that keep Kafka's answer and cut its cost: a sweep that relaxes nothing ends the run (no
// later sweep could relax anything, so Kafka would find nothing either); a sweep skips the edges of
// nodes whose distance has not changed since their edges were last scanned (such an edge cannot
// relax: its head was already at most tail + cost, and only went down since); whole periods of
// sweeps are jumped over once the state repeats (see the .cpp); and, for the graphs of
// RackAwareTaskAssignor (set_client_blocks, hint_task), a task's edges to a block of client nodes
// cost traffic(task, client's rack) plus non_overlap unless the client holds the task now, so the
// largest client distance per rack (the second largest when the largest is the task's own closed
// edge) bounds every comparison the task's scan would make: a task whose bound shows nothing
// relaxable is passed over as its scan would leave it, the others are scanned edge by edge. A run
// that finds a negative cycle still ends on the sweep Kafka's ends on, from the same state: which
// node it names depends on all the sweeps before.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace assignor::plugins::kafka_ha {

class KafkaGraph {
 public:
  // Node ids from -1 (Kafka's SOURCE_ID) to max_node.
  explicit KafkaGraph(std::int32_t max_node);

  // Graph.addEdge(u, v, capacity, cost, flow). Returns the edge's index (for flow()).
  std::uint32_t add_edge(std::int32_t u, std::int32_t v, std::int32_t capacity, std::int32_t cost, std::int32_t flow);
  // Speed only (the answer is the same without): the graph's tasks reach blocks of `size` client
  // nodes with consecutive ids, member j on rack rack[j] (0 .. racks - 1); the edge from a hinted
  // task to member j costs traffic[rack[j]] + (j == current ? 0 : non_overlap). hint_task checks
  // this against the edges when solving (std::logic_error if it does not hold).
  struct ClientBlocks {
    std::int32_t size = 0;
    std::vector<std::int32_t> rack;
    std::int32_t racks = 0;
    std::int32_t non_overlap = 0;
  };
  void set_client_blocks(ClientBlocks blocks);
  // `traffic`: racks entries. current: the member now holding the task, or -1.
  void hint_task(std::int32_t task_node, std::int32_t first_client_node, std::int32_t current,
                 const std::int32_t* traffic);
  void set_source(std::int32_t node) { source_ = node; }
  void set_sink(std::int32_t node) { sink_ = node; }

  // calculateMaxFlow(): augments the current flow along breadth-first paths; returns the flow out of
  // the source.
  std::int64_t max_flow();
  // solveMinCostFlow(): cancels negative cycles as Kafka does. Returns the cycles cancelled.
  std::uint64_t solve_min_cost_flow();

  // What solving took: Kafka runs every sweep of every Bellman-Ford run (node count of them for each
  // cycle, and for the final run); this code ran `sweeps_run` and jumped over `sweeps_skipped`.
  struct Stats {
    std::uint64_t cycles = 0, sweeps_run = 0, sweeps_skipped = 0;
  };
  const Stats& stats() const noexcept { return stats_; }
  // For tests: record each cancelled cycle as Kafka's node ids, from the node the walk stopped at.
  void record_cycles(bool on) { record_ = on; }
  const std::vector<std::vector<std::int32_t>>& cycles() const noexcept { return cycles_; }

  std::int32_t flow(std::uint32_t edge) const { return edges_[edge].flow; }
  std::int32_t destination(std::uint32_t edge) const { return edges_[edge].v; }
  // totalCost(): sum of cost x flow over the edges.
  std::int64_t total_cost() const;

 private:
  struct Edge {
    std::int32_t u, v, capacity, cost, flow;
  };
  struct Residual {
    std::uint32_t to;  // dense node index
    std::int32_t cost;
    std::int32_t residual;  // residualFlow
    std::int32_t flow;      // Kafka's bookkeeping of the flow on forward edges
    std::uint32_t counter;  // the edge in the other direction
    bool forward;
  };
  std::uint32_t dense(std::int32_t node) const { return static_cast<std::uint32_t>(node + 2); }  // dummy at 0
  void build_residual(bool with_dummy);
  void write_back();
  void push(std::uint32_t edge, std::int32_t amount);
  // detectNegativeCycles from the dummy node: the node Kafka returns, or UINT32_MAX.
  std::uint32_t detect_negative_cycle();
  struct State {
    std::uint32_t sweep = 0;
    std::vector<std::int64_t> distance;
    std::vector<std::uint32_t> parent, parent_edge;
    std::size_t log_end = 0;  // relaxations logged before it
  };
  // After sweep i: when the state repeats an earlier one with the distances lowered, jumps whole
  // periods ahead (see the .cpp). Returns the sweep the state then stands after.
  std::uint32_t skip_periods(std::uint32_t i, std::uint64_t& clock);
  std::uint32_t try_jump(const State& old, std::uint32_t i, std::uint64_t& clock);
  void set_active(std::uint32_t edge, bool open);
  // The block filter (see the top of this file).
  void prepare_hints();
  void refresh_top(std::uint32_t block, std::int32_t rack);
  void refresh_tops();
  bool may_relax(std::uint32_t node, std::int64_t distance) const;

  std::int32_t max_node_;
  std::int32_t source_ = -1, sink_ = -1;
  std::vector<Edge> edges_;
  // Residual graph in CSR form, each node's edges by destination.
  std::vector<std::uint32_t> begin_;
  std::vector<Residual> residual_;
  std::vector<std::uint32_t> forward_of_;  // original edge -> its forward residual edge
  std::vector<std::uint8_t> present_;      // nodes Kafka's graph holds (it iterates only those)
  std::uint32_t nodes_ = 0;                // node count Kafka's Bellman-Ford uses
  // Bellman-Ford state.
  std::vector<std::int64_t> distance_;
  std::vector<std::uint32_t> parent_, parent_edge_;
  std::vector<std::uint64_t> updated_, scanned_;
  // Per node, its residual edges with capacity left, in destination order (kept up to date while
  // cycles are cancelled).
  struct Arc {
    std::uint32_t to;
    std::int32_t cost;
    std::uint32_t edge;
  };
  std::vector<std::vector<Arc>> active_;
  bool track_active_ = false;
  // Periodic-regime detection.
  static constexpr std::uint32_t kRecent = 2;
  State recent_[kRecent];
  std::uint32_t recent_head_ = 0, recent_count_ = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> seen_;  // hash of the parents -> last sweep with it
  struct Pending {
    bool armed = false;
    std::uint32_t period = 0;
    State state;
  } pending_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> log_;  // (tail, head) of the relaxations since log_base_
  std::size_t log_base_ = 0;
  std::vector<std::int64_t> delta_;
  // Hints as given (Kafka node ids) and as prepared for the residual graph (dense indices).
  ClientBlocks blocks_;
  struct TaskHint {
    std::int32_t node, first_client, current;
    std::uint32_t traffic;  // offset into traffic_
  };
  std::vector<TaskHint> hints_;
  std::vector<std::int32_t> traffic_;
  struct Prepared {
    std::uint32_t first_client;  // dense
    std::int32_t current;
    std::uint32_t block;
    std::uint32_t arc_begin;  // residual position of the edge to member 0
    std::uint32_t traffic;
    std::uint32_t other_begin, other_end;  // into other_arcs_: the task's residual edges outside its block
    std::uint32_t closed;                  // member edges without residual capacity
    std::int32_t closed_member;            // the one when closed == 1
  };
  void note_block_edge(std::uint32_t edge, bool open);
  std::vector<std::uint32_t> hint_of_;  // dense node -> index into prepared_, or none
  std::vector<Prepared> prepared_;
  struct OtherArc {
    std::uint32_t edge, to;
    std::int32_t cost;
  };
  std::vector<OtherArc> other_arcs_;        // copies of head and cost: read first, without touching residual_
  std::vector<std::uint32_t> block_first_;  // dense first node of each block
  std::vector<std::uint32_t> block_of_;     // dense node -> its block, or none
  std::vector<std::vector<std::int32_t>> members_by_rack_;
  struct Top {
    std::uint32_t first, second;  // dense nodes of the block's rack with the largest distances
    std::int64_t first_distance, second_distance;
  };
  std::vector<Top> top_;  // block x rack
  Stats stats_;
  bool record_ = false;
  std::vector<std::vector<std::int32_t>> cycles_;
};

}  // namespace assignor::plugins::kafka_ha
