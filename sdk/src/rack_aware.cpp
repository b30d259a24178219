// The rack-aware optimiser (rack_aware.hpp): transportation problems over classes of identical
// placements, solved by LEMON's network simplex.
//
// One pass builds this graph (arcs left to right):
//   class K (supply = placements in K) --cost--> client d                 (K's allowed clients)
//   class K --cost--> hub(group, sub-topology, rack r [, block b]) --0--> the group's clients in rack r
//                                                                          [in block b]
//   [balance_subtopology: client d is replaced by (sub-topology, d) --cap bound--> d]
//   client d (demand = its current count of the pass's placements)
// A class gathers placements with the same key: tag group, sub-topology (balance_subtopology only),
// rack signature (cross-rack partitions per rack), current holders and allowed clients. A class that
// may go anywhere in its group except a few clients (those holding another copy of the task) reaches
// a rack through one shared hub when none of its excluded clients is in that rack. Otherwise the
// rack's clients are split into about sqrt(n) blocks with shared hubs of their own: the class reaches
// the blocks without an excluded client through their hubs and the rest of the other blocks directly,
// about 2 sqrt(n) arcs instead of n. A class's flow to one client is capped at the class size: with
// several copies per placement (standbys), copies are then dealt to the class's tasks round-robin so
// that no task gets two copies on one client.
//
// Passes:
//   stateful actives: (1) swap: the active may trade roles with one of the task's standby holders that
//     is caught up: active counts are kept by the flow, so standby counts are too (a swap leaves both
//     clients' totals unchanged); (2) move: to a caught-up client holding no copy. After a task's
//     active and standbys end up on caught-up clients (what warmup planning does), a swap is often its
//     only option.
//   stateless actives: move anywhere.
//   standbys: copies on caught-up clients move among caught-up clients, the others among the rest, so
//     no task loses a caught-up copy; never onto the task's active or warmup holders.
#include "assignor/rack_aware.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "assignor/errors.hpp"

// LEMON is a third-party header library: keep its warnings out of our -Werror build.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>
#pragma GCC diagnostic pop

namespace assignor {

namespace {

// Is task t in the active set a pass optimises (stateful or stateless actives)?
bool in_active_set(const Task& task, const RackAwareOptions& options) {
  const bool stateful = options.stateful_means_logged ? task.has_logged_store : task.stateful;
  return stateful == (options.tasks == RackAwareTasks::stateful_actives);
}

}  // namespace

RackAwareCosts rack_aware_costs(const RackAwareSettings& settings, RackAwareCosts defaults) noexcept {
  return {settings.traffic_cost.value_or(defaults.traffic), settings.non_overlap_cost.value_or(defaults.non_overlap)};
}

namespace {

using Graph = lemon::SmartDigraph;
using Solver = lemon::NetworkSimplex<Graph, std::int64_t, std::int64_t>;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

enum class Pass : std::uint8_t { swap_actives, move_actives, move_standbys };

// How a key lists the allowed clients of a placement.
constexpr std::uint32_t kAllExcept = 0;  // every client of the group except the listed ones
constexpr std::uint32_t kOnly = 1;       // the listed clients (the holders among them)

// A placement to re-place: one active, or some standby copies of a task inside one tag group.
struct Unit {
  TaskIndex task;
  std::uint32_t key_begin;  // [group, sub, signature, copies, holders..., mode, clients...]
  std::uint32_t key_end;
};

struct KeyView {
  std::uint32_t group, sub, signature;
  std::span<const std::uint32_t> holders;  // sorted
  std::uint32_t mode;
  std::span<const std::uint32_t> clients;  // sorted
};

struct Class {
  std::uint32_t first;  // into the sorted unit order
  std::uint32_t size;   // units (tasks) in the class
  std::uint32_t node;
};

// A read map over a vector indexed by LEMON ids (LEMON only needs operator[]).
template <class Item>
struct VectorMap {
  using Key = Item;
  using Value = std::int64_t;
  const std::vector<std::int64_t>* values;
  Value operator[](const Item& item) const { return (*values)[static_cast<std::size_t>(Graph::id(item))]; }
};

bool contains(std::span<const std::uint32_t> sorted, std::uint32_t x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b, bool& overflow) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) overflow = true;
  return out;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, bool& overflow) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) overflow = true;
  return out;
}

// Partitions of `task` whose (known) replica racks exclude `rack`.
std::uint32_t cross_rack(const Task& task, RackIndex rack) {
  std::uint32_t n = 0;
  for (const auto& p : task.partitions)
    if (!p.racks.empty() && !std::binary_search(p.racks.begin(), p.racks.end(), rack)) ++n;
  return n;
}

class Optimiser {
 public:
  Optimiser(const Cluster& cluster, const LagModel& lags, AssignmentDraft& draft, const RackAwareOptions& options,
            Pass pass)
      : cluster_(cluster),
        lags_(lags),
        draft_(draft),
        options_(options),
        pass_(pass),
        n_clients_(static_cast<std::uint32_t>(cluster.client_count())),
        n_racks_(static_cast<std::uint32_t>(cluster.racks.size())),
        balance_(options.strategy == RackAwareStrategy::balance_subtopology) {}

  // Solves and applies the pass; returns the flow graph's (nodes, arcs), (0, 0) when nothing could move.
  std::pair<std::uint64_t, std::uint64_t> run() {
    index_clients();
    index_warmups();
    collect_units();
    if (units_.empty()) return {0, 0};
    form_classes();
    build_graph();
    choose_costs();
    solve_and_apply();
    return {supply_.size(), capacity_.size()};
  }

 private:
  // --- clients: tag groups and (group, rack) lists ------------------------------------------------

  std::vector<std::string> tag_values(ClientIndex c) const {
    std::vector<std::string> values;
    values.reserve(options_.tags.size());
    for (const auto& key : options_.tags) {
      auto it = cluster_.clients[c].tags.find(key);
      values.push_back(it == cluster_.clients[c].tags.end() ? std::string() : it->second);
    }
    return values;
  }

  // Group 0 is every client; with tags, groups 1.. are the clients with equal tag values. Copies of
  // a task with a logged store (standbys, and its active) move only inside their tag group, which
  // keeps the task's tag spread exactly.
  void index_clients() {
    group_of_.assign(n_clients_, 0);
    std::uint32_t groups = 1;
    if (!options_.tags.empty()) {
      std::map<std::vector<std::string>, std::uint32_t> ids;
      for (ClientIndex c = 0; c < n_clients_; ++c) ids.emplace(tag_values(c), 0);
      for (auto& [values, id] : ids) id = groups++;
      for (ClientIndex c = 0; c < n_clients_; ++c) group_of_[c] = ids.at(tag_values(c));
    }
    by_group_.assign(groups, {});
    by_group_rack_.assign(std::size_t{groups} * n_racks_, {});
    for (ClientIndex c = 0; c < n_clients_; ++c) {
      for (std::uint32_t g : {0u, group_of_[c]}) {
        by_group_[g].push_back(c);
        by_group_rack_[std::size_t{g} * n_racks_ + cluster_.clients[c].rack].push_back(c);
        if (group_of_[c] == 0) break;
      }
    }
  }

  // The group a copy of task t held by c may move in.
  std::uint32_t group_for(TaskIndex t, ClientIndex c) const {
    return cluster_.tasks[t].has_logged_store ? group_of_[c] : 0;
  }

  // Warmup holders per task (compressed rows): no placement may land on one.
  void index_warmups() {
    warmup_offsets_.assign(cluster_.task_count() + 1, 0);
    if (draft_.warmup_total() == 0) return;
    const Assignment snapshot = draft_.finish(false);
    for (const auto& p : snapshot.warmups) ++warmup_offsets_[p.task + 1];
    for (std::size_t t = 0; t < cluster_.task_count(); ++t) warmup_offsets_[t + 1] += warmup_offsets_[t];
    warmup_clients_.resize(snapshot.warmups.size());
    std::vector<std::uint32_t> fill(warmup_offsets_.begin(), warmup_offsets_.end() - 1);
    for (const auto& p : snapshot.warmups) warmup_clients_[fill[p.task]++] = p.client;
  }

  std::span<const ClientIndex> warmups_of(TaskIndex t) const {
    return {warmup_clients_.data() + warmup_offsets_[t], warmup_offsets_[t + 1] - warmup_offsets_[t]};
  }

  // --- units and their keys -----------------------------------------------------------------------

  std::uint32_t sub_of(TaskIndex t) {
    if (!balance_) return 0;
    auto [it, inserted] =
        sub_index_.emplace(cluster_.tasks[t].id.subtopology, static_cast<std::uint32_t>(sub_index_.size()));
    return it->second;
  }

  // Interned per-rack count of the task's partitions whose replica racks exclude that rack.
  std::uint32_t signature_of(TaskIndex t) {
    if (signature_of_task_.empty()) signature_of_task_.assign(cluster_.task_count(), kNone);
    if (signature_of_task_[t] != kNone) return signature_of_task_[t];
    scratch_.assign(n_racks_, 0);
    std::uint32_t with_racks = 0;
    for (const auto& p : cluster_.tasks[t].partitions) {
      if (p.racks.empty()) continue;  // unknown replicas: no traffic counted, as in the metric
      ++with_racks;
      for (RackIndex r : p.racks) ++scratch_[r];
    }
    for (auto& v : scratch_) v = with_racks - v;
    auto it = signatures_.find(scratch_);
    if (it == signatures_.end()) {
      it = signatures_.emplace(scratch_, static_cast<std::uint32_t>(signatures_.size())).first;
      signature_rows_.insert(signature_rows_.end(), scratch_.begin(), scratch_.end());
      max_signature_ = std::max(max_signature_, with_racks);
    }
    return signature_of_task_[t] = it->second;
  }

  std::uint32_t traffic(std::uint32_t signature, RackIndex rack) const {
    return signature_rows_[std::size_t{signature} * n_racks_ + rack];
  }

  void push_unit(TaskIndex t, std::uint32_t group, std::span<const ClientIndex> holders, std::uint32_t mode,
                 std::span<const ClientIndex> clients) {
    // Nothing to choose: leave it out (its clients' counts only cover what can move).
    if (mode == kOnly && clients.size() <= holders.size()) return;
    Unit u{t, static_cast<std::uint32_t>(keys_.size()), 0};
    keys_.push_back(group);
    keys_.push_back(sub_of(t));
    keys_.push_back(signature_of(t));
    keys_.push_back(static_cast<std::uint32_t>(holders.size()));
    keys_.insert(keys_.end(), holders.begin(), holders.end());
    keys_.push_back(mode);
    keys_.insert(keys_.end(), clients.begin(), clients.end());
    u.key_end = static_cast<std::uint32_t>(keys_.size());
    units_.push_back(u);
  }

  KeyView key(const Unit& u) const {
    const std::uint32_t* k = keys_.data() + u.key_begin;
    const std::uint32_t copies = k[3];
    return {k[0], k[1], k[2], {k + 4, copies}, k[4 + copies], {k + 5 + copies, u.key_end - u.key_begin - 5 - copies}};
  }

  // May the active of stateful task t, now on c, run on d? Only if d is no less caught up: caught up
  // when someone is (never a restoring active), else a lag no larger than c's (nothing more to restore).
  bool as_caught_up(TaskIndex t, ClientIndex c, ClientIndex d) const {
    if (everyone_caught_up(t) || lags_.caught_up(t, d)) return true;
    return lags_.caught_up_count(t) == 0 && !less_lag(lags_.lag(t, c), lags_.lag(t, d));
  }

  // Every client counts as caught up on t: really, or because the pass ignores lags.
  bool everyone_caught_up(TaskIndex t) const { return !options_.respect_lags || lags_.everyone_caught_up(t); }

  static void sort_unique(std::vector<ClientIndex>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }

  void collect_units() {
    switch (pass_) {
      case Pass::swap_actives: collect_swaps(); break;
      case Pass::move_actives: collect_moves(); break;
      case Pass::move_standbys: collect_standbys(); break;
    }
  }

  void collect_swaps() {
    std::vector<ClientIndex> allowed;
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      const ClientIndex c = draft_.active(t);
      if (!in_active_set(cluster_.tasks[t], options_) || c == kNoClient) continue;
      allowed.assign(1, c);
      for (ClientIndex d : draft_.standby_slots(t))
        if (d != kNoClient && as_caught_up(t, c, d)) allowed.push_back(d);
      sort_unique(allowed);
      const ClientIndex self[] = {c};
      push_unit(t, 0, self, kOnly, allowed);
    }
  }

  void collect_moves() {
    const bool stateful = options_.tasks == RackAwareTasks::stateful_actives;
    std::vector<ClientIndex> excluded, allowed;
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      const Task& task = cluster_.tasks[t];
      const ClientIndex c = draft_.active(t);
      if (!in_active_set(task, options_) || c == kNoClient) continue;
      // Never onto a client holding another copy of the task.
      excluded.clear();
      for (ClientIndex d : draft_.standby_slots(t))
        if (d != kNoClient) excluded.push_back(d);
      for (ClientIndex d : warmups_of(t)) excluded.push_back(d);
      sort_unique(excluded);
      const ClientIndex self[] = {c};
      const std::uint32_t g = group_for(t, c);
      std::erase_if(excluded, [&](ClientIndex d) { return g != 0 && group_of_[d] != g; });
      const Lag worst = lags_.end_offsets_known() ? Lag::known(task.end_offset_sum) : Lag::unknown();
      if (!stateful || everyone_caught_up(t) || (lags_.caught_up_count(t) == 0 && !less_lag(lags_.lag(t, c), worst))) {
        // Any client qualifies: stateless, everyone caught up, or nobody caught up and c has the
        // default (largest) lag.
        push_unit(t, g, self, kAllExcept, excluded);
        continue;
      }
      allowed.assign(1, c);
      if (lags_.caught_up_count(t) > 0) {
        for (ClientIndex d : lags_.caught_up_clients(t)) allowed.push_back(d);
      } else {
        for (ClientIndex d : lags_.ranked(t)) {
          if (less_lag(lags_.lag(t, c), lags_.lag(t, d))) break;  // ranked order: the rest are worse still
          allowed.push_back(d);
        }
      }
      sort_unique(allowed);
      std::erase_if(allowed, [&](ClientIndex d) {
        return (g != 0 && group_of_[d] != g) || std::binary_search(excluded.begin(), excluded.end(), d);
      });
      push_unit(t, g, self, kOnly, allowed);
    }
  }

  void collect_standbys() {
    std::vector<ClientIndex> holders, fresh, stale, list;
    std::vector<ClientIndex> caught_up_in_group;
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      holders.clear();
      for (ClientIndex c : draft_.standby_slots(t))
        if (c != kNoClient) holders.push_back(c);
      if (holders.empty()) continue;
      std::sort(holders.begin(), holders.end(), [&](ClientIndex a, ClientIndex b) {
        return group_of_[a] != group_of_[b] ? group_of_[a] < group_of_[b] : a < b;
      });
      const bool everyone = everyone_caught_up(t);
      const ClientIndex active = draft_.active(t);
      for (std::size_t i = 0; i < holders.size();) {
        const std::uint32_t g = group_of_[holders[i]];
        std::size_t j = i;
        while (j < holders.size() && group_of_[holders[j]] == g) ++j;
        // Copies on caught-up clients (fresh) stay among caught-up clients; the others (stale) stay
        // among the rest. The two sets of destinations are disjoint: no client gets two copies.
        fresh.clear();
        stale.clear();
        for (std::size_t x = i; x < j; ++x)
          (everyone || lags_.caught_up(t, holders[x]) ? fresh : stale).push_back(holders[x]);
        caught_up_in_group.clear();
        if (!everyone)
          for (ClientIndex d : lags_.caught_up_clients(t))
            if (group_of_[d] == g) caught_up_in_group.push_back(d);
        auto blocked = [&](ClientIndex d) {
          return d == active || std::find(warmups_of(t).begin(), warmups_of(t).end(), d) != warmups_of(t).end();
        };
        if (!fresh.empty()) {
          if (everyone) {
            list.clear();  // excluded: the active, warmups
            if (active != kNoClient && group_of_[active] == g) list.push_back(active);
            for (ClientIndex d : warmups_of(t))
              if (group_of_[d] == g) list.push_back(d);
            sort_unique(list);
            push_unit(t, g, fresh, kAllExcept, list);
          } else {
            list = fresh;  // allowed: the caught-up clients of the group without another copy
            for (ClientIndex d : caught_up_in_group)
              if (!blocked(d) && std::find(stale.begin(), stale.end(), d) == stale.end()) list.push_back(d);
            sort_unique(list);
            push_unit(t, g, fresh, kOnly, list);
          }
        }
        if (!stale.empty()) {
          list = caught_up_in_group;  // excluded: every caught-up client, the active, warmups
          if (active != kNoClient && group_of_[active] == g) list.push_back(active);
          for (ClientIndex d : warmups_of(t))
            if (group_of_[d] == g) list.push_back(d);
          sort_unique(list);
          push_unit(t, g, stale, kAllExcept, list);
        }
        i = j;
      }
    }
  }

  // --- classes ------------------------------------------------------------------------------------

  void form_classes() {
    order_.resize(units_.size());
    for (std::uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
    auto key_less = [&](std::uint32_t a, std::uint32_t b) {
      const Unit& ua = units_[a];
      const Unit& ub = units_[b];
      return std::lexicographical_compare(keys_.begin() + ua.key_begin, keys_.begin() + ua.key_end,
                                          keys_.begin() + ub.key_begin, keys_.begin() + ub.key_end);
    };
    std::stable_sort(order_.begin(), order_.end(), key_less);  // task order within a class
    for (std::uint32_t i = 0; i < order_.size();) {
      std::uint32_t j = i + 1;
      while (j < order_.size() && !key_less(order_[i], order_[j])) ++j;
      classes_.push_back({i, j - i, 0});
      i = j;
    }
    count_.assign(n_clients_, 0);
    for (const Unit& u : units_) {
      const KeyView k = key(u);
      for (ClientIndex h : k.holders) {
        ++count_[h];
        if (balance_) ++movable_[std::uint64_t{k.sub} * n_clients_ + h];
      }
      placements_ += k.holders.size();
    }
    if (balance_) count_whole_set();
    block_size_.resize(by_group_rack_.size());
    for (std::size_t i = 0; i < by_group_rack_.size(); ++i) {
      std::size_t b = 1;
      while (b * b < by_group_rack_[i].size()) ++b;
      block_size_[i] = b;
    }
  }

  // balance_subtopology bounds shares of the whole set (the pass's placements and those that cannot
  // move), so count the whole set per client and per (sub-topology, client).
  void count_whole_set() {
    set_count_.assign(n_clients_, 0);
    auto add = [&](TaskIndex t, ClientIndex c) {
      const std::uint32_t sub = sub_of(t);
      ++set_count_[c];
      ++set_sub_total_[sub];
      ++set_current_[std::uint64_t{sub} * n_clients_ + c];
      ++set_total_;
    };
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      if (pass_ == Pass::move_standbys) {
        for (ClientIndex c : draft_.standby_slots(t))
          if (c != kNoClient) add(t, c);
      } else if (in_active_set(cluster_.tasks[t], options_) && draft_.active(t) != kNoClient) {
        add(t, draft_.active(t));
      }
    }
  }

  // --- graph --------------------------------------------------------------------------------------

  std::uint32_t add_node(std::int64_t supply) {
    supply_.push_back(supply);
    return static_cast<std::uint32_t>(Graph::id(graph_.addNode()));
  }

  std::uint32_t add_arc(std::uint32_t from, std::uint32_t to, std::int64_t capacity, std::int64_t base_cost,
                        bool moving) {
    const Graph::Arc a =
        graph_.addArc(graph_.nodeFromId(static_cast<int>(from)), graph_.nodeFromId(static_cast<int>(to)));
    capacity_.push_back(capacity);
    base_cost_.push_back(base_cost);
    moving_.push_back(moving ? 1 : 0);
    return static_cast<std::uint32_t>(Graph::id(a));
  }

  // Where a placement of sub-topology `sub` enters client d: d itself, or (sub, d) under
  // balance_subtopology, whose arc into d carries the bound.
  std::uint32_t endpoint(std::uint32_t sub, ClientIndex d) {
    if (!balance_) return client_node_[d];
    const std::uint64_t id = std::uint64_t{sub} * n_clients_ + d;
    auto [it, inserted] = endpoints_.emplace(id, 0);
    if (inserted) {
      it->second = add_node(0);
      // Kafka's bound, ceil(count x n_s / N) over the whole set, or what d holds now if more; the
      // placements of the sub-topology on d that cannot move use part of it.
      const std::uint64_t share = (std::uint64_t{set_count_[d]} * set_sub_total_[sub] + set_total_ - 1) / set_total_;
      auto held = set_current_.find(id);
      auto movable = movable_.find(id);
      const std::uint64_t now = held == set_current_.end() ? 0 : held->second;
      const std::uint64_t fixed = now - (movable == movable_.end() ? 0 : movable->second);
      add_arc(it->second, client_node_[d], static_cast<std::int64_t>(std::max(share, now) - fixed), 0, false);
    }
    return it->second;
  }

  // Rack r's clients of group g in blocks of block_size_ (by client index): clients [b x size, ...).
  std::span<const ClientIndex> block(std::uint32_t g, RackIndex r, std::uint32_t b) const {
    const auto& members = by_group_rack_[std::size_t{g} * n_racks_ + r];
    const std::size_t size = block_size_[std::size_t{g} * n_racks_ + r];
    const std::size_t first = std::min(members.size(), b * size);
    return {members.data() + first, std::min(members.size(), first + size) - first};
  }

  // The shared hub into the group's clients of rack r that hold placements of the pass, all of them
  // or those of one block (b = kNone: the whole rack). kNone when it would lead nowhere.
  std::uint32_t hub(std::uint32_t group, std::uint32_t sub, RackIndex rack, std::uint32_t b) {
    auto [it, inserted] = hubs_.emplace(std::array<std::uint32_t, 4>{group, sub, rack, b}, kNone);
    if (inserted) {
      const auto& members = b == kNone
                                ? std::span<const ClientIndex>(by_group_rack_[std::size_t{group} * n_racks_ + rack])
                                : block(group, rack, b);
      std::uint32_t node = kNone;
      for (ClientIndex d : members) {
        if (count_[d] == 0) continue;
        if (node == kNone) {
          it->second = static_cast<std::uint32_t>(hub_node_.size());
          node = add_node(0);
          hub_node_.push_back(node);
        }
        hub_arcs_.push_back(
            {it->second, d, add_arc(node, endpoint(sub, d), static_cast<std::int64_t>(placements_), 0, false)});
      }
    }
    return it->second;
  }

  void build_graph() {
    client_node_.resize(n_clients_);
    for (ClientIndex d = 0; d < n_clients_; ++d) client_node_[d] = add_node(-static_cast<std::int64_t>(count_[d]));
    const std::int64_t tc = options_.costs.traffic;
    const std::int64_t no = options_.costs.non_overlap;
    std::vector<std::vector<ClientIndex>> excluded_in_rack(n_racks_);
    for (std::uint32_t k = 0; k < classes_.size(); ++k) {
      Class& cls = classes_[k];
      const KeyView v = key(units_[order_[cls.first]]);
      const auto copies = static_cast<std::int64_t>(v.holders.size());
      const auto size = static_cast<std::int64_t>(cls.size);
      cls.node = add_node(size * copies);
      auto direct = [&](ClientIndex d) {
        if (count_[d] == 0) return;
        const bool moving = !contains(v.holders, d);
        const std::int64_t cost = tc * traffic(v.signature, cluster_.clients[d].rack) + (moving ? no : 0);
        class_arcs_.push_back({k, d, false, add_arc(cls.node, endpoint(v.sub, d), size, cost, moving)});
      };
      if (v.mode == kOnly) {
        for (ClientIndex d : v.clients) direct(d);
      } else if (copies == 1) {
        // Anywhere in the group but a few clients: the arc that stays, then per rack the rack's hub,
        // or, when the rack holds an excluded client, the hubs of the blocks without one and direct
        // arcs into the others.
        const ClientIndex holder = v.holders[0];
        direct(holder);
        for (auto& list : excluded_in_rack) list.clear();
        for (ClientIndex d : v.clients)
          if (count_[d] > 0) excluded_in_rack[cluster_.clients[d].rack].push_back(d);
        for (RackIndex r = 0; r < n_racks_; ++r) {
          const std::int64_t cost = tc * traffic(v.signature, r) + no;
          auto via = [&](std::uint32_t h) {
            if (h != kNone) class_arcs_.push_back({k, h, true, add_arc(cls.node, hub_node_[h], size, cost, true)});
          };
          const auto& excluded = excluded_in_rack[r];
          if (excluded.empty()) {
            via(hub(v.group, v.sub, r, kNone));
            continue;
          }
          const std::size_t members = by_group_rack_[std::size_t{v.group} * n_racks_ + r].size();
          const std::size_t bsize = block_size_[std::size_t{v.group} * n_racks_ + r];
          for (std::uint32_t b = 0; b * bsize < members; ++b) {
            const auto clients = block(v.group, r, b);
            const bool clean = std::none_of(excluded.begin(), excluded.end(), [&](ClientIndex e) {
              return std::binary_search(clients.begin(), clients.end(), e);
            });
            if (clean) {
              via(hub(v.group, v.sub, r, b));
            } else {
              for (ClientIndex d : clients)
                if (d != holder && std::find(excluded.begin(), excluded.end(), d) == excluded.end()) direct(d);
            }
          }
        }
      } else {
        for (ClientIndex d : by_group_[v.group])
          if (!contains(v.clients, d)) direct(d);
      }
    }
  }

  // Scales costs so that among placements of equal cost the one with fewest moves wins:
  // cost' = cost x (placements + 1) + moved. Checks that LEMON's internal figures (its artificial
  // arcs cost (max cost + 1) x nodes) fit in 64 bits; without room for the scaling, plain costs.
  void choose_costs() {
    bool overflow = false;
    const std::int64_t max_base =
        checked_add(checked_mul(options_.costs.traffic, std::int64_t{max_signature_}, overflow),
                    options_.costs.non_overlap, overflow);
    const auto nodes = static_cast<std::int64_t>(supply_.size()) + 1;
    const auto total = static_cast<std::int64_t>(placements_);
    auto fits = [&](std::int64_t max_cost, bool o) {
      const std::int64_t art = checked_mul(checked_add(max_cost, 1, o), nodes, o);
      checked_mul(art, 4, o);
      checked_mul(max_cost, total, o);  // our own totals
      return !o;
    };
    bool scaled_overflow = overflow;
    const std::int64_t scale = checked_add(total, 1, scaled_overflow);
    const std::int64_t max_scaled = checked_add(checked_mul(max_base, scale, scaled_overflow), 1, scaled_overflow);
    cost_.resize(base_cost_.size());
    if (fits(max_scaled, scaled_overflow)) {
      for (std::size_t a = 0; a < cost_.size(); ++a) cost_[a] = base_cost_[a] * scale + moving_[a];
    } else if (fits(max_base, overflow)) {
      cost_ = base_cost_;
    } else {
      throw ConfigError(fmt::format(
          "rack_aware: traffic_cost {} and non_overlap_cost {} are too large for {} placements: the total cost "
          "would overflow 64 bits; use smaller costs (only their ratio matters)",
          options_.costs.traffic, options_.costs.non_overlap, placements_));
    }
  }

  // --- solve and apply ----------------------------------------------------------------------------

  void solve_and_apply() {
    Solver solver(graph_);
    solver.upperMap(VectorMap<Graph::Arc>{&capacity_})
        .costMap(VectorMap<Graph::Arc>{&cost_})
        .supplyMap(VectorMap<Graph::Node>{&supply_});
    if (solver.run() != Solver::OPTIMAL)
      throw std::logic_error("optimize_rack_aware: no optimal flow, yet the current placement is feasible");
    auto flow = [&](std::uint32_t arc) { return solver.flow(graph_.arcFromId(static_cast<int>(arc))); };

    // Flow per class and destination client. Flow through a hub is matched to the hub's clients in
    // order: every client behind a hub is allowed for every class that uses it.
    std::vector<std::vector<std::pair<ClientIndex, std::int64_t>>> to(classes_.size());
    std::vector<std::vector<std::pair<std::uint32_t, std::int64_t>>> into_hub(hub_node_.size());
    std::vector<std::vector<std::pair<ClientIndex, std::int64_t>>> out_of_hub(hub_node_.size());
    for (const ClassArc& a : class_arcs_) {
      const std::int64_t f = flow(a.arc);
      if (f == 0) continue;
      if (a.via_hub)
        into_hub[a.target].push_back({a.cls, f});
      else
        to[a.cls].push_back({a.target, f});
    }
    for (const HubArc& a : hub_arcs_) {
      const std::int64_t f = flow(a.arc);
      if (f > 0) out_of_hub[a.hub].push_back({a.client, f});
    }
    for (std::size_t h = 0; h < hub_node_.size(); ++h) {
      auto& in = into_hub[h];
      auto& out = out_of_hub[h];
      for (std::size_t i = 0, j = 0; i < in.size() && j < out.size();) {
        const std::int64_t f = std::min(in[i].second, out[j].second);
        to[in[i].first].push_back({out[j].first, f});
        if ((in[i].second -= f) == 0) ++i;
        if ((out[j].second -= f) == 0) ++j;
      }
    }

    // Deal each class's destinations to its tasks: copies that stay first, then the others by client.
    // With s copies per task, slot i (of s x size) goes to task i mod size: a client's run of at most
    // `size` slots never gives one task two copies.
    std::vector<std::uint32_t> offset(units_.size() + 1, 0);
    for (std::uint32_t u = 0; u < units_.size(); ++u)
      offset[u + 1] = offset[u] + static_cast<std::uint32_t>(key(units_[u]).holders.size());
    std::vector<ClientIndex> placed(offset.back(), kNoClient);
    std::vector<std::uint32_t> filled(units_.size(), 0);
    for (std::uint32_t k = 0; k < classes_.size(); ++k) {
      const Class& cls = classes_[k];
      const KeyView v = key(units_[order_[cls.first]]);
      auto& dest = to[k];
      std::sort(dest.begin(), dest.end(), [&](const auto& a, const auto& b) {
        const bool sa = contains(v.holders, a.first);
        const bool sb = contains(v.holders, b.first);
        return sa != sb ? sa : a.first < b.first;
      });
      std::uint64_t slot = 0;
      for (const auto& [client, amount] : dest) {
        for (std::int64_t i = 0; i < amount; ++i, ++slot) {
          const std::uint32_t u = order_[cls.first + slot % cls.size];
          placed[offset[u] + filled[u]++] = client;
        }
      }
      if (slot != std::uint64_t{cls.size} * v.holders.size())
        throw std::logic_error("optimize_rack_aware: the flow does not cover a class");
    }

    std::vector<std::uint32_t> count_after(n_clients_, 0);
    for (std::uint32_t u = 0; u < units_.size(); ++u) {
      const Unit& unit = units_[u];
      const KeyView v = key(unit);
      const std::span<const ClientIndex> now{placed.data() + offset[u], v.holders.size()};
      for (ClientIndex d : now) ++count_after[d];
      switch (pass_) {
        case Pass::swap_actives:
          if (now[0] != v.holders[0]) draft_.swap_roles(unit.task, v.holders[0], now[0]);
          break;
        case Pass::move_actives:
          if (now[0] != v.holders[0]) draft_.set_active(unit.task, now[0]);
          break;
        case Pass::move_standbys:
          for (ClientIndex h : v.holders)
            if (std::find(now.begin(), now.end(), h) == now.end()) draft_.remove_standby(unit.task, h);
          for (ClientIndex d : now)
            if (!contains(v.holders, d)) draft_.add_standby(unit.task, d);
          break;
      }
    }
    if (count_after != count_) throw std::logic_error("optimize_rack_aware: a client's count changed");
  }

  struct ClassArc {
    std::uint32_t cls;
    std::uint32_t target;  // a client, or a hub index when via_hub
    bool via_hub;
    std::uint32_t arc;
  };
  struct HubArc {
    std::uint32_t hub;
    ClientIndex client;
    std::uint32_t arc;
  };

  const Cluster& cluster_;
  const LagModel& lags_;
  AssignmentDraft& draft_;
  const RackAwareOptions& options_;
  const Pass pass_;
  const std::uint32_t n_clients_;
  const std::uint32_t n_racks_;
  const bool balance_;

  std::vector<std::uint32_t> group_of_;
  std::vector<std::vector<ClientIndex>> by_group_;
  std::vector<std::vector<ClientIndex>> by_group_rack_;
  std::vector<std::size_t> block_size_;  // per (group, rack): about sqrt(clients)
  std::vector<std::uint32_t> warmup_offsets_;
  std::vector<ClientIndex> warmup_clients_;

  std::map<std::int32_t, std::uint32_t> sub_index_;
  std::vector<std::uint32_t> signature_of_task_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> signatures_;
  std::vector<std::uint32_t> signature_rows_;  // signature x rack
  std::uint32_t max_signature_ = 0;
  std::vector<std::uint32_t> scratch_;

  std::vector<Unit> units_;
  std::vector<std::uint32_t> keys_;
  std::vector<std::uint32_t> order_;
  std::vector<Class> classes_;
  std::vector<std::uint32_t> count_;  // placements of the pass per client
  std::uint64_t placements_ = 0;
  // balance_subtopology: the pass's placements per (sub-topology, client), and the whole set's.
  std::unordered_map<std::uint64_t, std::uint64_t> movable_;
  std::vector<std::uint64_t> set_count_;
  std::unordered_map<std::uint32_t, std::uint64_t> set_sub_total_;
  std::unordered_map<std::uint64_t, std::uint64_t> set_current_;
  std::uint64_t set_total_ = 0;

  Graph graph_;
  std::vector<std::int64_t> supply_;
  std::vector<std::int64_t> capacity_;
  std::vector<std::int64_t> base_cost_;
  std::vector<std::uint8_t> moving_;
  std::vector<std::int64_t> cost_;
  std::vector<std::uint32_t> client_node_;
  std::unordered_map<std::uint64_t, std::uint32_t> endpoints_;
  std::map<std::array<std::uint32_t, 4>, std::uint32_t> hubs_;  // (group, sub, rack, block) -> hub
  std::vector<std::uint32_t> hub_node_;
  std::vector<ClassArc> class_arcs_;
  std::vector<HubArc> hub_arcs_;
};

// The set's placements, sorted by (task, client).
std::vector<Placement> snapshot(const Cluster& cluster, const AssignmentDraft& draft, const RackAwareOptions& options) {
  std::vector<Placement> out;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (options.tasks == RackAwareTasks::standbys) {
      const std::size_t first = out.size();
      for (ClientIndex c : draft.standby_slots(t))
        if (c != kNoClient) out.push_back({t, c});
      std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                [](const Placement& a, const Placement& b) { return a.client < b.client; });
    } else if (in_active_set(cluster.tasks[t], options) && draft.active(t) != kNoClient) {
      out.push_back({t, draft.active(t)});
    }
  }
  return out;
}

}  // namespace

RackAwareResult optimize_rack_aware(const Cluster& cluster, const LagModel& lags, AssignmentDraft& draft,
                                    const RackAwareOptions& options) {
  if (options.costs.traffic < 0 || options.costs.non_overlap < 0)
    throw ConfigError(fmt::format("rack_aware: costs must be >= 0, got traffic_cost {} and non_overlap_cost {}",
                                  options.costs.traffic, options.costs.non_overlap));
  RackAwareResult result;
  if (options.strategy == RackAwareStrategy::none || !cluster.has_racks()) return result;
  const std::vector<Placement> before = snapshot(cluster, draft, options);
  if (before.empty()) return result;
  result.applied = true;

  auto pass = [&](Pass p) {
    Optimiser optimiser(cluster, lags, draft, options, p);
    const auto [nodes, arcs] = optimiser.run();
    result.flow_nodes += nodes;
    result.flow_arcs += arcs;
  };
  switch (options.tasks) {
    case RackAwareTasks::stateful_actives:
      pass(Pass::swap_actives);
      pass(Pass::move_actives);
      break;
    case RackAwareTasks::stateless_actives: pass(Pass::move_actives); break;
    case RackAwareTasks::standbys: pass(Pass::move_standbys); break;
  }

  // Account against the input: cross-rack partitions before and after, and placements that moved.
  const std::vector<Placement> after = snapshot(cluster, draft, options);
  auto traffic = [&](const std::vector<Placement>& list) {
    std::uint64_t n = 0;
    for (const auto& p : list) n += cross_rack(cluster.tasks[p.task], cluster.clients[p.client].rack);
    return n;
  };
  auto by_task_client = [](const Placement& a, const Placement& b) {
    return a.task != b.task ? a.task < b.task : a.client < b.client;
  };
  std::vector<Placement> kept;
  std::set_intersection(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(kept),
                        by_task_client);
  result.placements = before.size();
  result.moved = after.size() - kept.size();
  result.traffic_before = traffic(before);
  result.traffic_after = traffic(after);
  result.cost_before = options.costs.traffic * static_cast<std::int64_t>(result.traffic_before);
  result.cost_after = options.costs.traffic * static_cast<std::int64_t>(result.traffic_after) +
                      options.costs.non_overlap * static_cast<std::int64_t>(result.moved);
  return result;
}

RackAwarePasses apply_rack_awareness(const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                                     AssignmentDraft& draft, RackAwareCosts defaults) {
  RackAwarePasses passes;
  if (settings.rack_aware.strategy == RackAwareStrategy::none) return passes;
  RackAwareOptions options;
  options.strategy = settings.rack_aware.strategy;
  options.costs = rack_aware_costs(settings.rack_aware, defaults);
  options.tags = settings.rack_aware.tags;
  options.tasks = RackAwareTasks::stateful_actives;
  passes.stateful_actives = optimize_rack_aware(cluster, lags, draft, options);
  options.tasks = RackAwareTasks::standbys;
  passes.standbys = optimize_rack_aware(cluster, lags, draft, options);
  options.tasks = RackAwareTasks::stateless_actives;
  options.costs = kStatelessRackCosts;
  options.tags.clear();
  passes.stateless_actives = optimize_rack_aware(cluster, lags, draft, options);
  return passes;
}

}  // namespace assignor
