#include "kafka_ha/kafka_min_cost_flow.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace assignor::plugins::kafka_ha {

namespace {
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t kDummy = 0;
}  // namespace

KafkaGraph::KafkaGraph(std::int32_t max_node) : max_node_(max_node) {}

std::uint32_t KafkaGraph::add_edge(std::int32_t u, std::int32_t v, std::int32_t capacity, std::int32_t cost,
                                   std::int32_t flow) {
  if (u < -1 || v < -1 || u > max_node_ || v > max_node_) throw std::logic_error("KafkaGraph: node out of range");
  if (capacity < 0 || flow > capacity) throw std::logic_error("KafkaGraph: bad capacity or flow");
  edges_.push_back({u, v, capacity, cost, flow});
  return static_cast<std::uint32_t>(edges_.size() - 1);
}

void KafkaGraph::set_client_blocks(ClientBlocks blocks) {
  if (blocks.size <= 0 || blocks.rack.size() != static_cast<std::size_t>(blocks.size) || blocks.racks <= 0)
    throw std::logic_error("KafkaGraph: bad client blocks");
  for (std::int32_t r : blocks.rack)
    if (r < 0 || r >= blocks.racks) throw std::logic_error("KafkaGraph: bad client blocks");
  blocks_ = std::move(blocks);
}

void KafkaGraph::hint_task(std::int32_t task_node, std::int32_t first_client_node, std::int32_t current,
                           const std::int32_t* traffic) {
  if (blocks_.size == 0 || current < -1 || current >= blocks_.size) throw std::logic_error("KafkaGraph: bad task hint");
  hints_.push_back({task_node, first_client_node, current, static_cast<std::uint32_t>(traffic_.size())});
  traffic_.insert(traffic_.end(), traffic, traffic + blocks_.racks);
}

// Maps the hints onto the residual graph and checks them against its edges.
void KafkaGraph::prepare_hints() {
  const std::uint32_t n = static_cast<std::uint32_t>(begin_.size() - 1);
  hint_of_.assign(n, kNone);
  block_of_.assign(n, kNone);
  prepared_.clear();
  other_arcs_.clear();
  block_first_.clear();
  if (hints_.empty()) return;
  const auto size = static_cast<std::uint32_t>(blocks_.size);
  members_by_rack_.assign(static_cast<std::size_t>(blocks_.racks), {});
  for (std::int32_t j = 0; j < blocks_.size; ++j)
    members_by_rack_[static_cast<std::size_t>(blocks_.rack[static_cast<std::size_t>(j)])].push_back(j);
  auto bad = [] { throw std::logic_error("KafkaGraph: a task hint does not match the graph"); };
  for (const TaskHint& h : hints_) {
    if (h.node < -1 || h.node > max_node_ || h.first_client < -1 || h.first_client + blocks_.size - 1 > max_node_)
      bad();
    const std::uint32_t u = dense(h.node), first = dense(h.first_client);
    if (hint_of_[u] != kNone || (u >= first && u < first + size)) bad();
    std::uint32_t block = block_of_[first];
    if (block == kNone || block_first_[block] != first) {
      for (std::uint32_t j = 0; j < size; ++j)
        if (block_of_[first + j] != kNone) bad();  // blocks may not overlap
      block = static_cast<std::uint32_t>(block_first_.size());
      block_first_.push_back(first);
      for (std::uint32_t j = 0; j < size; ++j) block_of_[first + j] = block;
    }
    Prepared p{first, h.current, block, kNone, h.traffic, static_cast<std::uint32_t>(other_arcs_.size()), 0, 0, -1};
    // The task's residual edges: one forward edge to each member with the hinted cost, in member
    // order (destination order), and any others outside the block.
    std::uint32_t member = 0;
    for (std::uint32_t e = begin_[u]; e < begin_[u + 1]; ++e) {
      const Residual& r = residual_[e];
      if (r.to < first || r.to >= first + size) {
        other_arcs_.push_back({e, r.to, r.cost});
        continue;
      }
      if (r.to != first + member || !r.forward) bad();
      if (member == 0) p.arc_begin = e;
      const std::int32_t want = traffic_[h.traffic + static_cast<std::uint32_t>(blocks_.rack[member])] +
                                (static_cast<std::int32_t>(member) == h.current ? 0 : blocks_.non_overlap);
      if (r.cost != want) bad();
      if (r.residual <= 0) {
        ++p.closed;
        p.closed_member = static_cast<std::int32_t>(member);
      }
      ++member;
    }
    if (member != size) bad();
    p.other_end = static_cast<std::uint32_t>(other_arcs_.size());
    hint_of_[u] = static_cast<std::uint32_t>(prepared_.size());
    prepared_.push_back(p);
  }
  top_.assign(block_first_.size() * static_cast<std::size_t>(blocks_.racks), Top{kNone, kNone, 0, 0});
}

void KafkaGraph::refresh_top(std::uint32_t block, std::int32_t rack) {
  Top& t = top_[block * static_cast<std::uint32_t>(blocks_.racks) + static_cast<std::uint32_t>(rack)];
  constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min();
  t = Top{kNone, kNone, kLowest, kLowest};
  const std::uint32_t first = block_first_[block];
  for (std::int32_t j : members_by_rack_[static_cast<std::size_t>(rack)]) {
    const std::uint32_t c = first + static_cast<std::uint32_t>(j);
    const std::int64_t d = distance_[c];
    if (t.first == kNone || d > t.first_distance) {
      t.second = t.first;
      t.second_distance = t.first_distance;
      t.first = c;
      t.first_distance = d;
    } else if (t.second == kNone || d > t.second_distance) {
      t.second = c;
      t.second_distance = d;
    }
  }
}

void KafkaGraph::refresh_tops() {
  for (std::uint32_t b = 0; b < block_first_.size(); ++b)
    for (std::int32_t r = 0; r < blocks_.racks; ++r) refresh_top(b, r);
}

// Whether scanning `node` at distance `du` could relax any of its edges: its edges outside the block
// as they are; the edge to its current member exactly; every other member edge is bounded by the
// member of its rack with the largest distance whose edge is open (the second largest when the
// largest is the task's closed edge; a bound too high only costs a scan).
inline bool KafkaGraph::may_relax(std::uint32_t node, std::int64_t du) const {
  const Prepared& p = prepared_[hint_of_[node]];
  if (p.closed > 1) return true;  // not the shape the bound is for (one edge in use)
  for (std::uint32_t k = p.other_begin; k < p.other_end; ++k) {
    const OtherArc& a = other_arcs_[k];
    if (distance_[a.to] > du + a.cost && residual_[a.edge].residual > 0) return true;
  }
  const std::int32_t* traffic = &traffic_[p.traffic];
  const std::int32_t closed = p.closed == 1 ? p.closed_member : -1;
  if (p.current >= 0 && p.current != closed &&
      distance_[p.first_client + static_cast<std::uint32_t>(p.current)] >
          du + traffic[blocks_.rack[static_cast<std::size_t>(p.current)]])
    return true;
  const Top* top = &top_[p.block * static_cast<std::uint32_t>(blocks_.racks)];
  const std::int64_t base = du + blocks_.non_overlap;
  for (std::int32_t r = 0; r < blocks_.racks; ++r) {
    const Top& t = top[r];
    if (t.first == kNone) continue;
    // A missing second has the lowest distance: it bounds nothing.
    const std::int64_t d =
        static_cast<std::int32_t>(t.first - p.first_client) == closed ? t.second_distance : t.first_distance;
    if (d > base + traffic[r]) return true;
  }
  return false;
}

// Keeps a hinted task's count of closed member edges when `edge` (from anywhere) opens or closes.
void KafkaGraph::note_block_edge(std::uint32_t edge, bool open) {
  if (residual_[edge].counter == kNone) return;
  const std::uint32_t tail = residual_[residual_[edge].counter].to;
  if (hint_of_[tail] == kNone) return;
  Prepared& p = prepared_[hint_of_[tail]];
  if (edge < p.arc_begin || edge >= p.arc_begin + static_cast<std::uint32_t>(blocks_.size)) return;
  if (!open) {
    ++p.closed;
    p.closed_member = static_cast<std::int32_t>(edge - p.arc_begin);
    return;
  }
  --p.closed;
  if (p.closed == 1)
    for (std::uint32_t e = p.arc_begin; e < p.arc_begin + static_cast<std::uint32_t>(blocks_.size); ++e)
      if (residual_[e].residual <= 0) p.closed_member = static_cast<std::int32_t>(e - p.arc_begin);
}

std::int64_t KafkaGraph::total_cost() const {
  std::int64_t total = 0;
  for (const Edge& e : edges_) total += static_cast<std::int64_t>(e.cost) * e.flow;
  return total;
}

void KafkaGraph::build_residual(bool with_dummy) {
  const std::uint32_t n = dense(max_node_) + 1;
  present_.assign(n, 0);
  for (const Edge& e : edges_) present_[dense(e.u)] = present_[dense(e.v)] = 1;
  struct Entry {
    std::uint32_t from;
    Residual r;
    std::uint32_t original;  // the original edge of a forward entry, else kNone
  };
  std::vector<Entry> entries;
  entries.reserve(2 * edges_.size() + (with_dummy ? n : 0));
  for (std::uint32_t i = 0; i < edges_.size(); ++i) {
    const Edge& e = edges_[i];
    entries.push_back({dense(e.u), {dense(e.v), e.cost, e.capacity - e.flow, e.flow, kNone, true}, i});
    entries.push_back({dense(e.v), {dense(e.u), -e.cost, e.flow, 0, kNone, false}, kNone});
  }
  nodes_ = 0;
  for (std::uint32_t x = 1; x < n; ++x) nodes_ += present_[x];
  if (with_dummy) {
    for (std::uint32_t x = 1; x < n; ++x)
      if (present_[x]) entries.push_back({kDummy, {x, 0, 1, 0, kNone, true}, kNone});
    ++nodes_;
  }
  // Each node's edges in destination order (Kafka's TreeMaps); a pair (u, v) occurs once.
  // By tail (counting sort), then each tail's edges by head (mostly in order already).
  std::vector<std::uint32_t> order(entries.size());
  {
    std::vector<std::uint32_t> at(n + 1, 0);
    for (const Entry& en : entries) ++at[en.from + 1];
    for (std::uint32_t x = 0; x < n; ++x) at[x + 1] += at[x];
    std::vector<std::uint32_t> start(at.begin(), at.end());
    for (std::uint32_t i = 0; i < entries.size(); ++i) order[at[entries[i].from]++] = i;
    auto by_head = [&](std::uint32_t a, std::uint32_t b) { return entries[a].r.to < entries[b].r.to; };
    for (std::uint32_t x = 0; x < n; ++x) {
      auto first = order.begin() + start[x], last = order.begin() + start[x + 1];
      if (!std::is_sorted(first, last, by_head)) std::sort(first, last, by_head);
    }
  }
  std::vector<std::uint32_t> position(entries.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  begin_.assign(n + 1, 0);
  residual_.resize(entries.size());
  forward_of_.assign(edges_.size(), kNone);
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    const Entry& en = entries[order[i]];
    residual_[i] = en.r;
    ++begin_[en.from + 1];
    if (en.original != kNone) forward_of_[en.original] = i;
  }
  for (std::uint32_t x = 0; x < n; ++x) begin_[x + 1] += begin_[x];
  // Counter edges: the forward entry of original edge i sits at 2i, its backward one at 2i + 1.
  for (std::uint32_t i = 0; i < edges_.size(); ++i) {
    const std::uint32_t f = position[2 * i], b = position[2 * i + 1];
    residual_[f].counter = b;
    residual_[b].counter = f;
  }
}

void KafkaGraph::write_back() {
  for (std::uint32_t i = 0; i < edges_.size(); ++i) edges_[i].flow = residual_[forward_of_[i]].flow;
}

void KafkaGraph::push(std::uint32_t edge, std::int32_t amount) {
  Residual& e = residual_[edge];
  const bool was_open = e.residual > 0;
  e.residual -= amount;
  if (e.forward) e.flow += amount;
  if (track_active_ && was_open && e.residual <= 0) {
    set_active(edge, false);
    if (!prepared_.empty()) note_block_edge(edge, false);
  }
  if (e.counter == kNone) return;
  Residual& c = residual_[e.counter];
  const bool was_closed = c.residual <= 0;
  c.residual += amount;
  if (c.forward && c.flow >= amount) c.flow -= amount;
  if (track_active_ && was_closed && c.residual > 0) {
    set_active(e.counter, true);
    if (!prepared_.empty()) note_block_edge(e.counter, true);
  }
}

void KafkaGraph::set_active(std::uint32_t edge, bool open) {
  // The tail of a residual edge is the head of its counter edge; dummy edges never close.
  const std::uint32_t tail = residual_[residual_[edge].counter].to;
  std::vector<Arc>& list = active_[tail];
  auto it = std::lower_bound(list.begin(), list.end(), edge, [](const Arc& a, std::uint32_t e) { return a.edge < e; });
  if (open)
    list.insert(it, Arc{residual_[edge].to, residual_[edge].cost, edge});  // edge order is destination order
  else
    list.erase(it);
}

std::int64_t KafkaGraph::max_flow() {
  build_residual(false);
  const std::uint32_t n = static_cast<std::uint32_t>(begin_.size() - 1);
  const std::uint32_t s = dense(source_), t = dense(sink_);
  std::vector<std::uint8_t> visited(n);
  std::vector<std::uint32_t> via(n);  // the residual edge that reached a node
  std::deque<std::uint32_t> queue;
  for (;;) {
    std::fill(visited.begin(), visited.end(), 0);
    queue.clear();
    queue.push_back(s);
    visited[s] = 1;
    bool found = false;
    while (!queue.empty() && !found) {
      const std::uint32_t node = queue.front();
      queue.pop_front();
      for (std::uint32_t e = begin_[node]; e < begin_[node + 1]; ++e) {
        const std::uint32_t next = residual_[e].to;
        if (visited[next] || residual_[e].residual <= 0) continue;
        via[next] = e;
        if (next == t) {
          found = true;
          break;
        }
        queue.push_back(next);
        visited[next] = 1;
      }
    }
    if (!found) break;
    // The path back from the sink; each step's tail is the head of the counter edge.
    std::int32_t amount = std::numeric_limits<std::int32_t>::max();
    for (std::uint32_t x = t; x != s; x = residual_[residual_[via[x]].counter].to)
      amount = std::min(amount, residual_[via[x]].residual);
    for (std::uint32_t x = t; x != s;) {
      const std::uint32_t e = via[x];
      x = residual_[residual_[e].counter].to;
      push(e, amount);
    }
  }
  write_back();
  std::int64_t total = 0;
  for (const Edge& e : edges_)
    if (e.u == source_) total += e.flow;
  return total;
}

std::uint32_t KafkaGraph::detect_negative_cycle() {
  const std::uint32_t n = static_cast<std::uint32_t>(begin_.size() - 1);
  seen_.clear();
  pending_.armed = false;
  recent_count_ = 0;
  log_.clear();
  log_base_ = 0;
  // Sweep 0 opens with the dummy node's edges, visited first: every node at distance 0, its parent
  // the dummy node. Then the sweeps as Kafka runs them.
  std::uint64_t clock = 1;
  for (std::uint32_t x = 0; x < n; ++x) {
    distance_[x] = 0;
    parent_[x] = kDummy;
    parent_edge_[x] = kNone;
    scanned_[x] = 0;
    updated_[x] = present_[x] ? ++clock : 0;
  }
  for (std::uint32_t e = begin_[kDummy]; e < begin_[kDummy + 1]; ++e) parent_edge_[residual_[e].to] = e;
  const bool hinted = !prepared_.empty();
  for (std::uint32_t i = 0; i < nodes_; ++i) {
    ++stats_.sweeps_run;
    bool relaxed = false;
    if (hinted) refresh_tops();
    for (std::uint32_t u = 1; u < n; ++u) {
      if (updated_[u] < scanned_[u]) continue;  // unchanged since its edges were scanned: relaxes nothing
      scanned_[u] = ++clock;
      const std::int64_t du = distance_[u];
      if (hinted && hint_of_[u] != kNone && !may_relax(u, du)) continue;
      for (const Arc& a : active_[u]) {  // the edges with residual capacity, by destination
        const std::int64_t d = du + a.cost;
        if (distance_[a.to] > d) {
          distance_[a.to] = d;
          parent_[a.to] = u;
          parent_edge_[a.to] = a.edge;
          updated_[a.to] = ++clock;
          relaxed = true;
          if (hinted && block_of_[a.to] != kNone) {
            const std::uint32_t b = block_of_[a.to];
            const std::int32_t rack = blocks_.rack[a.to - block_first_[b]];
            const Top& t = top_[b * static_cast<std::uint32_t>(blocks_.racks) + static_cast<std::uint32_t>(rack)];
            if (a.to == t.first || a.to == t.second) refresh_top(b, rack);
          }
          if (i + 1 == nodes_) return a.to;
          log_.emplace_back(u, a.to);
        }
      }
    }
    if (!relaxed) return kNone;  // no later sweep relaxes anything either
    if (i + 2 < nodes_) i = skip_periods(i, clock);
  }
  return kNone;
}

// A sweep is the same sequence of comparisons d(v) > d(u) + cost every time, so once the state
// repeats with the distances lowered, the sweeps repeat. Precisely: let the states after sweeps
// i - c and i have the same parents, give each node its change delta(v) <= 0 over those c sweeps,
// and let every relaxation of those sweeps join two nodes with the same delta. Then the next c
// sweeps make the same relaxations in the same order, each node lowered again by its delta, for as
// long as no edge from a faster-falling node u to a slower one v turns relaxable. In the window just
// run, such an edge was compared with d(u) >= d_i(u) and d(v) <= d_{i-c}(v), so it stays
// unrelaxable for m more periods while m (delta(v) - delta(u)) <= d_i(u) + cost - d_{i-c}(v); edges
// the other way only move further from relaxing. The state m periods on is then written down
// directly, and Kafka's last sweep, the only one whose outcome counts, starts from exactly the state
// it would have reached. Periods of one or two sweeps are checked against copies of the last two
// states; longer ones are spotted by a repeat of the parents' hash and checked one period later.
std::uint32_t KafkaGraph::try_jump(const State& old, std::uint32_t i, std::uint64_t& clock) {
  const std::size_t n = distance_.size();
  const std::uint32_t period = i - old.sweep;
  delta_.assign(n, 0);
  std::int64_t fastest = 0;
  for (std::size_t v = 1; v < n; ++v) {
    if (!present_[v]) continue;
    delta_[v] = distance_[v] - old.distance[v];
    fastest = std::min(fastest, delta_[v]);
    if (delta_[v] != 0 && (parent_[v] != old.parent[v] || parent_edge_[v] != old.parent_edge[v])) return i;
  }
  if (fastest == 0) return i;
  for (std::size_t k = old.log_end - log_base_; k < log_.size(); ++k)
    if (delta_[log_[k].first] != delta_[log_[k].second]) return i;
  // Edges u -> v with u falling faster than v: only into nodes slower than the fastest, read from
  // their residual in-edges (the counters of their own edges).
  std::uint64_t jumps = (nodes_ - 2 - i) / period;  // stop before Kafka's last sweep
  for (std::size_t v = 1; jumps > 0 && v < n; ++v) {
    if (!present_[v] || delta_[v] == fastest) continue;
    for (std::uint32_t out = begin_[v]; out < begin_[v + 1]; ++out) {
      const std::uint32_t e = residual_[out].counter;  // an edge into v
      if (e == kNone || residual_[e].residual <= 0) continue;
      const std::uint32_t u = residual_[out].to;
      if (delta_[u] >= delta_[v]) continue;
      const std::int64_t margin = distance_[u] + residual_[e].cost - (distance_[v] - delta_[v]);
      jumps =
          margin < 0 ? 0 : std::min<std::uint64_t>(jumps, static_cast<std::uint64_t>(margin / (delta_[v] - delta_[u])));
    }
  }
  if (jumps == 0) return i;
  const auto m = static_cast<std::int64_t>(jumps);
  for (std::size_t v = 1; v < n; ++v)
    if (delta_[v] != 0) {
      distance_[v] += delta_[v] * m;
      updated_[v] = ++clock;  // rescan them next sweep
    }
  seen_.clear();
  pending_.armed = false;
  recent_count_ = 0;
  log_base_ += log_.size();
  log_.clear();
  stats_.sweeps_skipped += jumps * period;
  return i + static_cast<std::uint32_t>(jumps) * period;
}

std::uint32_t KafkaGraph::skip_periods(std::uint32_t i, std::uint64_t& clock) {
  const std::size_t n = distance_.size();
  const std::size_t log_now = log_base_ + log_.size();
  for (std::uint32_t back = 1; back <= recent_count_; ++back) {
    const std::uint32_t moved = try_jump(recent_[(recent_head_ + kRecent - back) % kRecent], i, clock);
    if (moved != i) return moved;
  }
  if (pending_.armed && pending_.state.sweep + pending_.period == i) {
    pending_.armed = false;
    const std::uint32_t moved = try_jump(pending_.state, i, clock);
    if (moved != i) return moved;
  }
  std::uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (std::size_t v = 0; v < n; ++v)
    h ^= (static_cast<std::uint64_t>(parent_[v]) << 32 | parent_edge_[v]) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
  const auto [it, fresh] = seen_.emplace(h, i);
  const std::uint32_t period = i - it->second;
  if (!fresh && !pending_.armed && period > kRecent && i + period + 2 <= nodes_) {
    pending_.armed = true;
    pending_.period = period;
    pending_.state.sweep = i;
    pending_.state.distance = distance_;
    pending_.state.parent = parent_;
    pending_.state.parent_edge = parent_edge_;
    pending_.state.log_end = log_now;
  }
  it->second = i;
  // A copy of this state for periods of one and two sweeps.
  State& slot = recent_[recent_head_];
  slot.sweep = i;
  slot.distance = distance_;
  slot.parent = parent_;
  slot.parent_edge = parent_edge_;
  slot.log_end = log_now;
  recent_head_ = (recent_head_ + 1) % kRecent;
  recent_count_ = std::min(recent_count_ + 1, kRecent);
  // Forget the relaxations no check reads any more.
  std::size_t keep = recent_[recent_head_ % kRecent].log_end;  // the oldest copy's
  if (recent_count_ < kRecent) keep = recent_[(recent_head_ + kRecent - recent_count_) % kRecent].log_end;
  if (pending_.armed) keep = std::min(keep, pending_.state.log_end);
  if (keep > log_base_ && keep - log_base_ > log_.size() / 2) {
    log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(keep - log_base_));
    log_base_ = keep;
  }
  return i;
}

std::uint64_t KafkaGraph::solve_min_cost_flow() {
  build_residual(true);
  const std::size_t n = begin_.size() - 1;
  active_.assign(n, {});
  for (std::uint32_t u = 0; u < n; ++u)
    for (std::uint32_t e = begin_[u]; e < begin_[u + 1]; ++e)
      if (residual_[e].residual > 0) active_[u].push_back(Arc{residual_[e].to, residual_[e].cost, e});
  track_active_ = true;
  prepare_hints();
  distance_.assign(n, 0);
  parent_.assign(n, kNone);
  parent_edge_.assign(n, kNone);
  updated_.assign(n, 0);
  scanned_.assign(n, 0);
  std::vector<std::uint8_t> visited(n);
  std::uint64_t cancelled = 0;
  for (;;) {
    const std::uint32_t found = detect_negative_cycle();
    if (found == kNone) break;
    // Walk the parents until a node repeats: it is on the cycle.
    std::fill(visited.begin(), visited.end(), 0);
    std::uint32_t x = found;
    while (!visited[x]) {
      visited[x] = 1;
      x = parent_[x];
      if (x == kNone) throw std::logic_error("KafkaGraph: a parent chain left the graph");
    }
    std::int32_t amount = residual_[parent_edge_[x]].residual;
    for (std::uint32_t cur = parent_[x]; cur != x; cur = parent_[cur])
      amount = std::min(amount, residual_[parent_edge_[cur]].residual);
    if (record_) {
      std::vector<std::int32_t> cycle{static_cast<std::int32_t>(x) - 2};
      for (std::uint32_t cur = parent_[x]; cur != x; cur = parent_[cur])
        cycle.push_back(static_cast<std::int32_t>(cur) - 2);
      cycles_.push_back(std::move(cycle));
    }
    push(parent_edge_[x], amount);
    for (std::uint32_t cur = parent_[x]; cur != x; cur = parent_[cur]) push(parent_edge_[cur], amount);
    ++cancelled;
  }
  stats_.cycles += cancelled;
  track_active_ = false;
  write_back();
  return cancelled;
}

}  // namespace assignor::plugins::kafka_ha
