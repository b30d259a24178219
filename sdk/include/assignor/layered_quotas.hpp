// Sticky, lag-aware placement of actives under layered quotas: a balanced target that moves as
// little as it can, and only to clients that need no restore when it has the choice.
//
// A quota layer bounds how many of some tasks (those a predicate selects) each client may run; a
// task counts in every layer that selects it, and a client has room for it when it is under quota
// in all of them. Layers let a strategy balance the expensive work on its own and everything
// together: with by_state(), the tasks with a changelog (what restores) under their own
// proportional_quotas(), and all stateful tasks under theirs; a client's stateful actives per
// thread are then within one task of every other client's, and so are its actives with a
// changelog. The remainder of each quota goes to the clients that ran more of the layer's tasks
// (proportional_quotas' `held`), so a balanced group keeps its layout.
//
// place_actives_sticky() places `tasks` (those without an active in the draft), in three passes:
//   1. a task goes back to its previous active owner (the client listing it as a previous active,
//      else one reporting it running) while that client has room (the order of
//      `tasks` decides which of an overfull client's tasks stay: give the tasks with a changelog
//      first);
//   2. else, for a task some clients are caught up on (and not all), to the least-loaded caught-up
//      client with room (actives per thread, then rank (DESIGN 2), then index): no restore;
//   3. else to the least-loaded client with room (actives per thread, then index).
// Quotas whose sums cover each layer's tasks and that nest (a client's quota of a narrower layer
// never above its quota of a wider one, as by_state's are) always leave room; should they not, the
// task goes to the least-loaded client anyway and counts as over_quota. The result is a target:
// plan_warmups then keeps each moved stateful active on a caught-up client until its target has
// caught up.
//
//   LayeredQuotas quotas = LayeredQuotas::by_state(cluster);
//   std::vector<TaskIndex> stateful;  // with a changelog first, then the other stateful tasks
//   for (TaskIndex t = 0; t < cluster.task_count(); ++t) if (cluster.tasks[t].has_logged_store) stateful.push_back(t);
//   for (TaskIndex t = 0; t < cluster.task_count(); ++t)
//     if (cluster.tasks[t].stateful && !cluster.tasks[t].has_logged_store) stateful.push_back(t);
//   place_actives_sticky(cluster, in.lags, draft, stateful, quotas);
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/model.hpp"

namespace assignor {

class LayeredQuotas {
 public:
  static constexpr std::size_t kMaxLayers = 8;

  // No layer yet: every client has room for every task.
  explicit LayeredQuotas(const Cluster& cluster);

  // A layer over the tasks `member(t)` selects, client c running at most quota[c] of them (one
  // entry per client; std::invalid_argument otherwise, or past kMaxLayers). Returns its index.
  template <class Member>
  std::size_t add_layer(std::vector<std::uint32_t> quota, Member&& member) {
    std::vector<std::uint8_t> selected(task_count_);
    for (TaskIndex t = 0; t < task_count_; ++t) selected[t] = member(t) ? 1 : 0;
    return add_layer_of(std::move(quota), selected);
  }

  // Two layers: the tasks with a changelog, and all stateful tasks (with `stateless`, all tasks),
  // each under proportional_quotas() of its count, the remainder to the clients that held more of
  // it as previous actives (listed, or reported running).
  static LayeredQuotas by_state(const Cluster& cluster, bool stateless = false);

  std::size_t layers() const noexcept { return quota_.size(); }
  // Room for t on c: under quota in every layer that selects t.
  bool has_room(TaskIndex t, ClientIndex c) const noexcept;
  // The layers that select t (bit i: layer i), and room on c for a task selected by `layers`.
  std::uint8_t layers_of(TaskIndex t) const noexcept { return mask_[t]; }
  bool has_room_in(std::uint8_t layers, ClientIndex c) const noexcept;
  // Counts t on c (or no longer) in every layer that selects it.
  void take(TaskIndex t, ClientIndex c) noexcept;
  void release(TaskIndex t, ClientIndex c) noexcept;
  // Counts every active the draft holds now.
  void count_actives(const AssignmentDraft& draft) noexcept;

  std::uint32_t quota(std::size_t layer, ClientIndex c) const noexcept { return quota_[layer][c]; }
  std::uint32_t used(std::size_t layer, ClientIndex c) const noexcept { return used_[layer][c]; }

 private:
  std::size_t add_layer_of(std::vector<std::uint32_t> quota, const std::vector<std::uint8_t>& selected);

  std::size_t task_count_ = 0;
  std::size_t client_count_ = 0;
  std::vector<std::uint8_t> mask_;  // per task: bit i set when layer i selects it
  std::vector<std::vector<std::uint32_t>> quota_;
  std::vector<std::vector<std::uint32_t>> used_;
};

struct StickyQuotaResult {
  std::uint64_t kept_previous = 0;    // back on their previous active owner
  std::uint64_t to_caught_up = 0;     // on a caught-up client that was not their owner
  std::uint64_t to_least_loaded = 0;  // on the least-loaded client with room
  std::uint64_t over_quota = 0;       // no client had room (quotas that do not cover or nest)
};

// Places each of `tasks` that has no active in the draft, as described above; the draft's actives
// must already be counted in `quotas` (count_actives) if it holds any.
StickyQuotaResult place_actives_sticky(const Cluster& cluster, const LagModel& lags, AssignmentDraft& draft,
                                       std::span<const TaskIndex> tasks, LayeredQuotas& quotas);

}  // namespace assignor
