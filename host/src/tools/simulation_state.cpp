// The simulation's round model: what an assignment does to the group (the history it becomes, the
// copies that catch up, the offsets they replay) and what it costs while it holds (DESIGN 4.6).
#include <algorithm>
#include <initializer_list>
#include <iterator>

#include "simulation_model.hpp"

namespace assignor::host::simulation_model {

namespace {

constexpr TaskIndex kNoTaskIndex = std::numeric_limits<TaskIndex>::max();

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) noexcept {  // a, b >= 0
  std::int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return kMaxOffset;
  return out;
}

// Milliseconds one copy needs to restore `lag` offsets at `rate` offsets per second, rounded up.
std::int64_t restore_ms(std::int64_t lag, std::int64_t rate) noexcept {
  const std::int64_t whole = saturating_mul(lag / rate, 1000);
  return saturating_add(whole, saturating_add(saturating_mul(lag % rate, 1000), rate - 1) / rate);
}

// The lag a reported offset sum stands for (DESIGN 2, end offsets known); running -> 0.
std::int64_t lag_of(std::int64_t reported, std::int64_t end_sum) noexcept {
  if (reported == kRunningOffsetSum) return 0;
  if (reported < 0 || reported > end_sum) return end_sum;  // suspect state: restore from scratch
  return end_sum - reported;
}

// Placements grouped by client (counting sort): tasks of client c are tasks[begin[c] .. begin[c+1]).
struct ByClient {
  std::vector<std::uint32_t> begin;
  std::vector<TaskIndex> tasks;

  ByClient(std::size_t clients, std::initializer_list<const std::vector<Placement>*> lists) : begin(clients + 1, 0) {
    std::size_t total = 0;
    for (const auto* list : lists) {
      total += list->size();
      for (const auto& p : *list) ++begin[p.client + 1];
    }
    for (std::size_t c = 0; c < clients; ++c) begin[c + 1] += begin[c];
    tasks.resize(total);
    std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
    for (const auto* list : lists)
      for (const auto& p : *list) tasks[next[p.client]++] = p.task;
    for (std::size_t c = 0; c < clients; ++c) std::sort(tasks.begin() + begin[c], tasks.begin() + begin[c + 1]);
  }
  std::span<const TaskIndex> of(ClientIndex c) const { return {tasks.data() + begin[c], tasks.data() + begin[c + 1]}; }
};

// When a copy that starts `lag` behind is caught up (lag <= acceptable), in ms from the start of
// the interval: 0 when it already is; with a rate, the time to restore the difference; else at the
// end of the interval when this round's catch-up gets it there, never (INT64_MAX) otherwise.
std::int64_t caught_up_after(std::int64_t lag, const CatchUp& cu) noexcept {
  if (lag <= cu.acceptable) return 0;
  if (cu.rate) return restore_ms(lag - cu.acceptable, *cu.rate);
  if (!cu.per_round || lag - *cu.per_round <= cu.acceptable) return cu.gap_ms;
  return kMaxOffset;
}

}  // namespace

AssignmentCost apply_assignment(Cluster& state, const Assignment& assignment,
                                const std::optional<ThreadDistribution>& threads, const CatchUp& round_cu,
                                std::uint32_t standbys_wanted) {
  AssignmentCost cost;
  const ByClient actives(state.client_count(), {&assignment.actives});
  const ByClient copies(state.client_count(), {&assignment.standbys, &assignment.warmups});
  // Per task: when each of its standbys (not warmups) is caught up, to find when it is fully
  // replicated. Filled while the offset sums are walked (the lag of a copy is known there).
  std::vector<std::pair<TaskIndex, ClientIndex>> standby_pairs;
  standby_pairs.reserve(assignment.standbys.size());
  for (const auto& p : assignment.standbys) standby_pairs.emplace_back(p.task, p.client);
  std::sort(standby_pairs.begin(), standby_pairs.end());
  // standby_ready[i]: when the copy standby_pairs[i] is caught up (flat, beside the sorted pairs:
  // one vector per task was thousands of allocations a round).
  std::vector<std::int64_t> standby_ready(standby_pairs.size(), kMaxOffset);
  CatchUp cu = round_cu;
  const auto caught_up_amount = [&](std::int64_t lag) {
    if (cu.rate) return std::min(lag, saturating_mul(*cu.rate, cu.gap_ms) / 1000);
    if (cu.instant) return std::int64_t{0};
    return cu.per_round ? std::min(lag, *cu.per_round) : lag;
  };
  std::vector<OffsetSum> sums;
  for (ClientIndex c = 0; c < state.client_count(); ++c) {
    Client& client = state.clients[c];
    if (!round_cu.client_rate.empty() || !round_cu.client_gap_ms.empty()) cu = round_cu.of_client(c);
    const auto active = actives.of(c);
    const auto copy = copies.of(c);
    // Merge the offset sums on record with the tasks held now (all three sorted by task).
    sums.clear();
    auto old = client.offset_sums.begin();
    std::size_t a = 0, s = 0;
    for (;;) {
      const TaskIndex next_old = old != client.offset_sums.end() ? old->task : kNoTaskIndex;
      const TaskIndex next_active = a < active.size() ? active[a] : kNoTaskIndex;
      const TaskIndex next_copy = s < copy.size() ? copy[s] : kNoTaskIndex;
      const TaskIndex t = std::min({next_old, next_active, next_copy});
      if (t == kNoTaskIndex) break;
      const bool on_record = next_old == t;
      const std::int64_t reported = on_record ? old->sum : std::numeric_limits<std::int64_t>::min();
      if (on_record) ++old;
      const Task& task = state.tasks[t];
      const std::int64_t end = task.end_offset_sum;
      const std::int64_t lag = on_record ? lag_of(reported, end) : end;
      const bool held = next_active == t || next_copy == t;
      if (held && task.has_logged_store) {
        const std::int64_t done = caught_up_amount(lag);
        cost.replayed_offsets = saturating_add(cost.replayed_offsets, static_cast<std::uint64_t>(done));
        if (lag > cu.acceptable) {
          ++cost.restoring_copies;
          if (cu.rate) cost.slowest_restore_ms = std::max(cost.slowest_restore_ms, caught_up_after(lag, cu));
        }
      }
      if (next_active == t) {
        ++a;
        if (!task.stateful) continue;  // stateless tasks have nothing to report
        if (cu.rate && lag > 0) {
          const std::int64_t ms = restore_ms(lag, *cu.rate);
          cost.restoring_in_full = saturating_add(cost.restoring_in_full, ms);
          cost.slowest_active_restore_ms = std::max(cost.slowest_active_restore_ms, ms);
          cost.restoring_until_next = saturating_add(cost.restoring_until_next, std::min(ms, cu.gap_ms));
        }
        const std::int64_t left = lag - caught_up_amount(lag);
        sums.push_back({t, left == 0 ? kRunningOffsetSum : end - left});
      } else if (next_copy == t) {
        ++s;
        if (task.has_logged_store) {
          const std::pair<TaskIndex, ClientIndex> key{t, c};
          const auto it = std::lower_bound(standby_pairs.begin(), standby_pairs.end(), key);
          if (it != standby_pairs.end() && *it == key) {
            std::int64_t ready = caught_up_after(lag, cu);
            if (cu.gap_ms < round_cu.gap_ms && ready > cu.gap_ms) ready = kMaxOffset;  // its client stopped first
            standby_ready[static_cast<std::size_t>(it - standby_pairs.begin())] = ready;
          }
        }
        sums.push_back({t, end - (lag - caught_up_amount(lag))});
      } else {
        // Not held any more: a task it was running stops at the end offsets of this round.
        sums.push_back({t, reported == kRunningOffsetSum ? end : reported});
      }
    }
    client.offset_sums.swap(sums);
    client.previous_active.assign(active.begin(), active.end());
    client.previous_standby.assign(copy.begin(), copy.end());
    // The split becomes the per-thread history, reusing last round's storage where it can.
    const std::size_t n_threads = threads && c < threads->clients.size() ? threads->clients[c].threads.size() : 0;
    client.threads_history.resize(n_threads);
    for (std::size_t i = 0; i < n_threads; ++i) {
      const ThreadTasks& th = threads->clients[c].threads[i];
      ThreadHistory& history = client.threads_history[i];
      history.name = th.name;
      history.previous_active.assign(th.active.begin(), th.active.end());
      history.previous_standby.resize(th.standby.size() + th.warmup.size());
      std::merge(th.standby.begin(), th.standby.end(), th.warmup.begin(), th.warmup.end(),
                 history.previous_standby.begin());
    }
  }
  // Under-replicated until the target-th standby is caught up (the whole interval, and for good,
  // when fewer standbys than the target were placed).
  const std::size_t others = state.client_count() > 0 ? state.client_count() - 1 : 0;
  const std::size_t target = std::min<std::size_t>(standbys_wanted, others);
  if (target > 0)
    for (TaskIndex t = 0, i = 0; t < state.task_count(); ++t) {
      const std::size_t first = i;  // standby_pairs[first, i): the standbys of task t
      while (i < standby_pairs.size() && standby_pairs[i].first == t) ++i;
      if (!state.tasks[t].has_logged_store) continue;
      const auto ready = standby_ready.begin() + static_cast<std::ptrdiff_t>(first);
      std::int64_t until = kMaxOffset;
      if (i - first >= target) {
        std::nth_element(ready, ready + static_cast<std::ptrdiff_t>(target - 1),
                         standby_ready.begin() + static_cast<std::ptrdiff_t>(i));
        until = ready[static_cast<std::ptrdiff_t>(target - 1)];
      }
      cost.under_replicated_until_next =
          saturating_add(cost.under_replicated_until_next, std::min(until, round_cu.gap_ms));
      cost.under_replicated_in_full =
          saturating_add(cost.under_replicated_in_full, until == kMaxOffset ? round_cu.gap_ms : until);
    }
  return cost;
}

void add_new_data(Cluster& state, std::int64_t new_data) {
  if (new_data == 0) return;
  for (auto& task : state.tasks)
    for (auto& store : task.stores)
      if (store.logged) store.changelog_end_offset = saturating_add(store.changelog_end_offset, new_data);
}

void hold_revoked_as_copies(Cluster& state, const std::vector<Placement>& revoked) {
  for (const Placement& p : revoked)
    for (ThreadHistory& thread : state.clients[p.client].threads_history) {
      auto it = std::lower_bound(thread.previous_active.begin(), thread.previous_active.end(), p.task);
      if (it == thread.previous_active.end() || *it != p.task) continue;
      thread.previous_active.erase(it);
      if (state.tasks[p.task].stateful)
        thread.previous_standby.insert(
            std::lower_bound(thread.previous_standby.begin(), thread.previous_standby.end(), p.task), p.task);
    }
}

}  // namespace assignor::host::simulation_model
