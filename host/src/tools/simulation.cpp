#include "assignor/host/tools/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <utility>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/threads.hpp"

namespace assignor::host {

namespace {

constexpr std::int64_t kMaxOffset = std::numeric_limits<std::int64_t>::max();
constexpr TaskIndex kNoTaskIndex = std::numeric_limits<TaskIndex>::max();

std::int64_t saturating_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return kMaxOffset;
  return out;
}

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

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out;
  if (__builtin_add_overflow(a, b, &out)) return std::numeric_limits<std::uint64_t>::max();
  return out;
}

// The lag a reported offset sum stands for (DESIGN 2, end offsets known); running -> 0.
std::int64_t lag_of(std::int64_t reported, std::int64_t end_sum) noexcept {
  if (reported == kRunningOffsetSum) return 0;
  if (reported < 0 || reported > end_sum) return end_sum;  // suspect state: restore from scratch
  return end_sum - reported;
}

std::string some_members(const std::set<std::string>& members) {
  constexpr std::size_t kShown = 5;
  std::string text;
  std::size_t i = 0;
  for (const auto& m : members) {
    if (i == kShown) return text + fmt::format(", ... ({} in all)", members.size());
    text += (i++ ? ", " : "") + m;
  }
  return text;
}

// What happens in the run, in order: the file's events, a restart with down_ms split into the
// client leaving and coming back. Under Kafka's protocol a client that stops without leaving the
// group first `stops` (no rebalance: its copies stop catching up), and the group notices it a
// session timeout later (the steps marked `noticed`).
struct Step {
  SimulationEvent event;
  enum class Phase : std::uint8_t { once, down, up, stops } phase = Phase::once;
  std::int64_t at_ms = 0;       // timed runs: when it happens
  bool noticed = false;         // follows a `stops` step: the session timeout has passed
  std::int64_t noticed_at = 0;  // a `stops` step: when the group notices it
};

std::vector<Step> plan_steps(std::vector<SimulationEvent> events, bool kafka, std::int64_t session_timeout_ms) {
  std::vector<Step> steps;
  for (auto& e : events) {
    if (kafka && e.at_ms && !e.leaves_group) {
      const std::int64_t t = *e.at_ms;
      const std::int64_t seen = saturating_add(t, session_timeout_ms);
      steps.push_back({e, Step::Phase::stops, t, false, seen});
      if (e.kind == EventKind::restart && e.down_ms) {
        // Back before the session timeout: its join waits for the group to drop the old member, so
        // both happen at one rebalance.
        steps.push_back({e, Step::Phase::down, seen, true, 0});
        steps.push_back({e, Step::Phase::up, std::max(seen, saturating_add(t, *e.down_ms)), true, 0});
      } else {
        steps.push_back({e, Step::Phase::once, seen, true, 0});
      }
    } else if (e.kind == EventKind::restart && e.down_ms && e.at_ms) {
      steps.push_back({e, Step::Phase::down, *e.at_ms, false, 0});
      steps.push_back({e, Step::Phase::up, saturating_add(*e.at_ms, *e.down_ms), false, 0});
    } else {
      steps.push_back({e, Step::Phase::once, e.at_ms.value_or(0), false, 0});
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    if (a.event.at_ms || b.event.at_ms) return a.at_ms < b.at_ms;
    return a.event.round < b.event.round;
  });
  return steps;
}

// Checks, before round 1, that every event can apply to the group as it will be by then.
void check_events(const Cluster& cluster, const std::vector<Step>& ordered) {
  std::set<std::string> members, down;
  for (const auto& c : cluster.clients) members.insert(c.id);
  for (const auto& s : ordered) {
    const SimulationEvent& e = s.event;
    const bool present = members.count(e.client) != 0;
    const std::string where = e.at_ms ? fmt::format("{}: at {} ms: client '{}'", e.where, s.at_ms, e.client)
                                      : fmt::format("{}: round {}: client '{}'", e.where, e.round, e.client);
    if (down.count(e.client) != 0 && s.phase != Step::Phase::up && !s.noticed)
      throw InputError(where + " is down (restarting or stopped) then: an event for it must come after it is back");
    if (s.phase == Step::Phase::stops) {
      if (!present)
        throw InputError(fmt::format("{} stops but is not in the group (members then: {})", where,
                                     some_members(members)));
      down.insert(e.client);
      continue;
    }
    switch (e.kind) {
      case EventKind::join:
        if (present) throw InputError(where + " joins but is already in the group");
        members.insert(e.client);
        break;
      case EventKind::leave:
        if (!present)
          throw InputError(fmt::format("{} leaves but is not in the group (members then: {})", where,
                                       some_members(members)));
        if (members.size() == 1) throw InputError(where + " is the last client: the group cannot become empty");
        members.erase(e.client);
        down.erase(e.client);
        break;
      case EventKind::restart:
        if (s.phase == Step::Phase::up) {
          down.erase(e.client);
          members.insert(e.client);
          break;
        }
        if (!present)
          throw InputError(fmt::format("{} restarts but is not in the group (members then: {})", where,
                                       some_members(members)));
        if (s.phase == Step::Phase::down) {
          if (members.size() == 1) throw InputError(where + " is the last client: the group cannot become empty");
          members.erase(e.client);
          down.insert(e.client);
        } else {
          down.erase(e.client);
        }
        break;
    }
  }
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
  std::span<const TaskIndex> of(ClientIndex c) const {
    return {tasks.data() + begin[c], tasks.data() + begin[c + 1]};
  }
};

// What one assignment costs while it holds (DESIGN 4.6): the task-milliseconds its stateful
// actives spend restoring before they process, and its tasks spend with fewer caught-up standbys
// than they can have, up to the next rebalance and until done; the offsets the copies replay; the
// copies not caught up when it takes effect.
struct AssignmentCost {
  std::int64_t restoring_until_next = 0;
  std::int64_t restoring_in_full = 0;
  std::int64_t under_replicated_until_next = 0;
  std::int64_t under_replicated_in_full = 0;
  std::uint64_t replayed_offsets = 0;
  std::uint64_t restoring_copies = 0;
  std::int64_t slowest_restore_ms = 0;  // with a rate: until the copy furthest behind is caught up
  std::int64_t slowest_active_restore_ms = 0;  // with a rate: until every active has restored
};

// How copies catch up between two rebalances `gap_ms` apart: by `catch_up` offsets (per round),
// fully (neither), or in time at `restore_rate` offsets per second.
struct CatchUp {
  std::optional<std::int64_t> per_round;
  std::optional<std::int64_t> rate;
  std::int64_t gap_ms = 0;
  std::int64_t acceptable = 0;  // acceptable_recovery_lag: caught up at or below it
  // Per client (by ClientIndex), when not empty: its own rate (a timeline's measured rates), and
  // how long it catches up (less than gap_ms when it stops during the interval).
  std::span<const std::int64_t> client_rate;
  std::span<const std::int64_t> client_gap_ms;
  // Per round (no rate): the next rebalance is this one's follow-up, seconds away, not a round of
  // catching up: nothing restores in between.
  bool instant = false;

  CatchUp of_client(ClientIndex c) const {
    CatchUp mine = *this;
    if (!client_rate.empty()) mine.rate = client_rate[c];
    if (!client_gap_ms.empty()) mine.gap_ms = client_gap_ms[c];
    return mine;
  }
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

// What the group reports after a round: the assignment becomes the history, every task held
// catches up, tasks no longer run are no longer "running". Linear in the assignment plus the
// offset sums on record; also what the assignment costs (AssignmentCost).
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

// The clients as the run knows them: under Kafka's protocol a client restarted with its state
// wiped is a new process, so it comes back under a new id (`c2~1`); events keep naming it as the
// file does.
class Incarnations {
 public:
  const std::string& current(const std::string& named) const {
    const auto it = current_.find(named);
    return it == current_.end() ? named : it->second;
  }
  // A new id for `named`, used by no client the run has seen ("c2~1", "c2~2", ...).
  std::string renew(const std::string& named, const Cluster& state, const std::map<std::string, Client>& away) {
    for (std::uint32_t n = ++count_[named];; n = ++count_[named]) {
      std::string id = fmt::format("{}~{}", named, n);
      if (!state.find_client(id) && away.count(id) == 0 && used_.insert(id).second) return current_[named] = id;
    }
  }
  void forget(const std::string& named) { current_.erase(named); }

 private:
  std::map<std::string, std::string> current_;
  std::map<std::string, std::uint32_t> count_;
  std::set<std::string> used_;
};

// `end_before` holds each task's end-offset sum before this round's new data: a restarted client
// that was running a task checkpointed it there. `away` holds the clients down for a restart (by
// the id the events give). `renew` (Kafka's protocol): a wiped restart comes back as a new process.
// Returns the step as the round's events show it.
std::string apply_step(Cluster& state, const Step& step, const std::vector<std::int64_t>& end_before,
                       std::map<std::string, Client>& away, Incarnations& incarnations, bool renew) {
  const SimulationEvent& e = step.event;
  const std::string id = incarnations.current(e.client);
  auto find = [&state](const std::string& client) {
    return std::lower_bound(state.clients.begin(), state.clients.end(), client,
                            [](const Client& c, const std::string& x) { return c.id < x; });
  };
  auto it = find(id);
  const bool present = it != state.clients.end() && it->id == id;
  auto checkpoint = [&](Client& c) {  // what a stopped client has on disk: running tasks at their end
    c.previous_active.clear();
    c.previous_standby.clear();
    c.threads_history.clear();
    for (auto& sum : c.offset_sums)
      if (sum.sum == kRunningOffsetSum) sum.sum = end_before[sum.task];
  };
  // Back with its state, or with nothing on disk: under Kafka's protocol, as a new process.
  auto come_back = [&](Client client) {
    std::string text = fmt::format("{} comes back, {} its state", id, e.keep_state ? "keeping" : "losing");
    if (!e.keep_state) {
      client.offset_sums.clear();
      if (renew) {
        client.id = incarnations.renew(e.client, state, away);
        text += fmt::format(" (a new process: {})", client.id);
      }
    }
    const auto at = find(client.id);
    state.clients.insert(at, std::move(client));
    return text;
  };
  if (step.phase == Step::Phase::stops) {
    if (!present) throw InputError(fmt::format("{}: client '{}' stops but is not in the group", e.where, id));
    return fmt::format("{} stops without leaving the group (noticed after the session timeout)", id);
  }
  switch (e.kind) {
    case EventKind::join: {
      if (present) throw InputError(fmt::format("{}: client '{}' joins but is already in the group", e.where, e.client));
      Client client;
      client.id = e.client;
      client.threads = e.threads;
      client.tags = e.tags;
      if (e.rack) {
        auto r = std::find(state.racks.begin(), state.racks.end(), *e.rack);
        client.rack = static_cast<RackIndex>(r - state.racks.begin());
        if (r == state.racks.end()) state.racks.push_back(*e.rack);
      }
      state.clients.insert(it, std::move(client));  // keeps clients in id order
      return describe(e);
    }
    case EventKind::leave:
      if (!present) throw InputError(fmt::format("{}: client '{}' leaves but is not in the group", e.where, id));
      state.clients.erase(it);
      incarnations.forget(e.client);
      return step.noticed ? fmt::format("{} is gone (the session timeout noticed it)", id)
                          : fmt::format("{} leaves", id);
    case EventKind::restart:
      if (step.phase == Step::Phase::up) {
        auto stashed = away.find(e.client);
        if (present || stashed == away.end())
          throw InputError(fmt::format("{}: client '{}' cannot come back: it is not down", e.where, e.client));
        Client back = std::move(stashed->second);
        away.erase(stashed);
        return come_back(std::move(back));
      }
      if (!present) throw InputError(fmt::format("{}: client '{}' restarts but is not in the group", e.where, id));
      checkpoint(*it);
      if (step.phase == Step::Phase::down) {
        away.emplace(e.client, std::move(*it));
        state.clients.erase(it);
        return step.noticed ? fmt::format("{} is gone (the session timeout noticed it; restarting)", id)
                            : fmt::format("{} goes down (restart)", id);
      }
      if (step.noticed || (!e.keep_state && renew)) {
        Client client = std::move(*it);
        state.clients.erase(it);
        return come_back(std::move(client));
      }
      if (!e.keep_state) it->offset_sums.clear();
      return describe(e);
  }
  return describe(e);
}

// After a round that revoked actives (Kafka's protocol): the new owner's thread holds each one as
// a copy, not as an active, until the follow-up rebalance hands it over.
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

}  // namespace

bool is_balanced_once_restored(const Metrics& metrics) noexcept {
  constexpr double kEpsilon = 1e-9;  // spreads are differences of ratios
  return metrics.active_load_spread <= 1 + kEpsilon && metrics.stateful_load_spread <= 1 + kEpsilon &&
         (!metrics.thread_load_spread || *metrics.thread_load_spread <= 1);
}

bool is_balanced(const Metrics& metrics) noexcept {
  return is_balanced_once_restored(metrics) && metrics.restoring_actives == 0;
}

bool is_converged(const Metrics& metrics, bool probing_rebalance) noexcept {
  return is_balanced(metrics) && !probing_rebalance && metrics.stale_standbys == 0;
}

SimulationOptions simulation_options(const Config& config) {
  SimulationOptions options;
  options.restore_rate = config.simulation.restore_rate;
  options.rebalance_ms = config.simulation.rebalance_ms;
  options.protocol = config.simulation.protocol;
  options.session_timeout_ms = config.simulation.session_timeout_ms;
  return options;
}

SimulationResult simulate(const PluginRegistry& registry, const Config& config, Cluster state,
                          const SimulationOptions& options) {
  if (options.max_rounds == 0) throw InputError("--max-rounds must be at least 1");
  if (options.catch_up && *options.catch_up < 0)
    throw InputError(fmt::format("--catch-up must be >= 0 offsets, got {}", *options.catch_up));
  if (options.new_data < 0) throw InputError(fmt::format("--new-data must be >= 0 offsets, got {}", options.new_data));
  if (options.restore_rate && *options.restore_rate < 1)
    throw InputError(fmt::format("--restore-rate must be >= 1 offset per second, got {}", *options.restore_rate));
  if (options.restore_rate && options.catch_up)
    throw InputError("--catch-up and --restore-rate are two models of catching up (per round, in time): give one");
  if (options.rebalance_ms < 0 || options.rebalance_ms > kMaxRebalanceMs)
    throw InputError(fmt::format("--rebalance-ms must be in [0, {}], got {}", kMaxRebalanceMs, options.rebalance_ms));
  if (options.session_timeout_ms < 1 || options.session_timeout_ms > kMaxRebalanceMs)
    throw InputError(fmt::format("--session-timeout-ms must be in [1, {}], got {}", kMaxRebalanceMs,
                                 options.session_timeout_ms));
  if (!options.client_restore_rates.empty() && !options.restore_rate)
    throw InputError("per-client restore rates need a restore rate for the other clients (--restore-rate)");
  for (const auto& [client, rate] : options.client_restore_rates)
    if (rate < 1) throw InputError(fmt::format("client '{}': restore rate must be >= 1 offset per second, got {}", client, rate));
  const bool kafka = options.protocol == Protocol::kafka;
  if (!kafka)
    for (const auto& e : options.events)
      if (!e.leaves_group)
        throw InputError(fmt::format("{}: client '{}' stops without leaving the group: that is Kafka's protocol (the "
                                     "session timeout); simulate with --protocol kafka",
                                     e.where, e.client));
  const std::string strategy = strategy_to_run(config, options.strategy);
  (void)registry.require(strategy);

  const std::vector<Step> steps = plan_steps(options.events, kafka, options.session_timeout_ms);
  const bool timed = std::any_of(steps.begin(), steps.end(), [](const Step& st) { return st.event.at_ms.has_value(); });
  check_events(state, steps);
  if (!timed)
    for (const auto& st : steps)
      if (st.event.round > options.max_rounds)
        log().warn("{}: round {} is after the last round ({}): '{}' never happens", st.event.where, st.event.round,
                   options.max_rounds, describe(st.event));

  SimulationResult result;
  SimulationSummary& summary = result.summary;
  summary.strategy = strategy;
  std::size_t next = 0;  // the next step
  std::optional<Assignment> previous;  // the previous round's assignment, when the group did not change since
  std::vector<std::int64_t> end_before;
  std::map<std::string, Client> away;  // clients down for a restart
  Incarnations incarnations;
  std::vector<std::int64_t> client_rate, client_gap;
  std::int64_t now_ms = 0;  // round 1's rebalance starts at 0
  std::string cause = "start";
  if (options.restore_rate) summary.restoring_task_ms = 0;

  for (std::uint32_t k = 1; k <= options.max_rounds; ++k) {
    RunOutcome outcome;
    try {
      outcome = run_assignment(registry, config, state, strategy);
    } catch (const AssignmentFailed& e) {
      throw AssignmentFailed(fmt::format("round {}: {}", k, e.what()), e.errors());
    }
    AssignmentReport& report = outcome.report;
    if (options.on_decision) options.on_decision(k, state, report.assignment);

    SimulationRound round;
    round.round = k;
    round.strategy = report.strategy;
    round.used_fallback = outcome.used_fallback;
    round.clients = state.client_count();
    round.metrics = report.metrics;
    round.probing_rebalance = report.assignment.probing_rebalance;
    round.probing_after_ms = report.probing_after_ms;
    round.balanced = is_balanced(report.metrics);
    round.assign_ms = report.assign_ms;
    round.cause = cause;
    if (cause == "follow-up") ++summary.followup_rounds;
    now_ms = saturating_add(now_ms, options.rebalance_ms);
    round.at_ms = now_ms;

    summary.rounds = k;
    summary.active_moves = saturating_add(summary.active_moves, report.metrics.active_moves);
    summary.restore_offsets = saturating_add(summary.restore_offsets, report.metrics.restore_offsets);
    summary.warmups = saturating_add(summary.warmups, report.metrics.warmups);
    if (round.probing_rebalance) ++summary.probing_rounds;
    if (round.balanced && !summary.first_balanced_round) {
      summary.first_balanced_round = k;
      summary.time_to_balanced_ms = round.at_ms;
    }

    const bool unchanged = previous && *previous == report.assignment;
    for (const auto* list : {&report.assignment.standbys, &report.assignment.warmups})
      for (const Placement& p : *list) {
        const Client& holder = state.clients[p.client];
        if (!std::binary_search(holder.previous_standby.begin(), holder.previous_standby.end(), p.task) &&
            !std::binary_search(holder.previous_active.begin(), holder.previous_active.end(), p.task))
          ++round.standby_moves;
      }

    // Kafka's protocol: an active taken from a client still here that ran it is handed over only
    // once that client released it, at a follow-up rebalance; until then its new owner holds it as
    // a copy (StreamsPartitionAssignor: "Adding removed stateful active task ... as a standby").
    const Assignment* applied = &report.assignment;
    Assignment withheld;
    std::vector<Placement> revoked;
    if (kafka) {
      const auto owner = state.previous_active_owner();
      for (const Placement& p : report.assignment.actives)
        if (p.task < owner.size() && owner[p.task] != kNoClient && owner[p.task] != p.client) revoked.push_back(p);
      // Kafka revokes a task moved between two threads of one client too (each thread is a
      // consumer); the SDK's split is not Kafka's thread for thread, and its moves there would be
      // its own, not the group's: only moves between clients count (docs/compare-and-simulate.md).
      if (!revoked.empty()) {
        withheld = report.assignment;
        std::vector<char> withheld_task(state.task_count(), 0);
        for (const Placement& p : revoked) withheld_task[p.task] = 1;
        std::erase_if(withheld.actives, [&](const Placement& p) { return withheld_task[p.task] != 0; });
        for (const Placement& p : revoked)
          if (state.tasks[p.task].stateful) withheld.warmups.push_back({p.task, p.client});
        applied = &withheld;
      }
    }
    round.revoked = revoked.size();

    // When the next rebalance starts, and why.
    std::optional<std::int64_t> next_start;
    std::string next_cause;
    const std::int64_t interval =
        round.probing_rebalance ? round.probing_after_ms : config.settings.probing_rebalance_interval_ms;
    if (kafka) {
      if (!revoked.empty()) {
        next_start = round.at_ms;
        next_cause = "follow-up";
      } else if (round.probing_rebalance) {
        next_start = saturating_add(round.at_ms, round.probing_after_ms);
        next_cause = "probing";
      }
      if (timed) {
        // The next event that changes the group (a client stopping does not, until noticed).
        for (std::size_t i = next; i < steps.size(); ++i) {
          if (steps[i].phase == Step::Phase::stops) continue;
          const std::int64_t at = std::max(steps[i].at_ms, round.at_ms);
          if (!next_start || at < *next_start) {
            next_start = at;
            next_cause = "events";
          }
          break;
        }
        // A client that stopped without leaving holds every rebalance until the session timeout
        // drops it: the join phase waits for its members.
        for (bool moved = true; moved && next_start;) {
          moved = false;
          for (std::size_t i = next; i < steps.size() && steps[i].at_ms <= *next_start; ++i)
            if (steps[i].phase == Step::Phase::stops && steps[i].noticed_at > *next_start) {
              next_start = steps[i].noticed_at;
              next_cause = "events";
              moved = true;
            }
        }
      } else if (next < steps.size() && steps[next].event.round == k) {
        if (!next_start || *next_start > round.at_ms) next_cause = "events";
        next_start = round.at_ms;
      } else if (!next_start && next < steps.size() && steps[next].event.round <= options.max_rounds) {
        next_start = saturating_add(round.at_ms, interval);
        next_cause = "interval";
      }
    } else {
      // Until the next rebalance: the probing interval (the config's when none was asked for), cut
      // short by the next event: at once when this round's events trigger one (events by round),
      // when the next one happens (events in time; at once for one that came during the rebalance).
      std::int64_t gap = interval;
      next_cause = round.probing_rebalance ? "probing" : "interval";
      if (timed) {
        if (next < steps.size() && steps[next].at_ms - round.at_ms < interval) {
          gap = std::clamp<std::int64_t>(steps[next].at_ms - round.at_ms, 0, interval);
          next_cause = "events";
        }
      } else if (next < steps.size() && steps[next].event.round == k) {
        gap = 0;
        next_cause = "events";
      }
      next_start = saturating_add(round.at_ms, gap);
    }
    // No next rebalance: the last assignment holds; its costs are counted over one interval (and,
    // in time, until done).
    const std::int64_t gap_ms = next_start ? *next_start - round.at_ms : interval;
    const std::int64_t boundary = saturating_add(round.at_ms, gap_ms);

    // Clients that stop during the interval catch up only until they stop; measured rates per client.
    client_gap.clear();
    if (kafka && timed)
      for (std::size_t i = next; i < steps.size() && steps[i].at_ms <= boundary; ++i) {
        if (steps[i].phase != Step::Phase::stops) continue;
        const auto c = state.find_client(incarnations.current(steps[i].event.client));
        if (!c) continue;
        if (client_gap.empty()) client_gap.assign(state.client_count(), gap_ms);
        client_gap[*c] = std::clamp<std::int64_t>(steps[i].at_ms - round.at_ms, 0, gap_ms);
      }
    client_rate.clear();
    if (!options.client_restore_rates.empty()) {
      client_rate.assign(state.client_count(), *options.restore_rate);
      for (ClientIndex c = 0; c < state.client_count(); ++c) {
        const auto it = options.client_restore_rates.find(state.clients[c].id);
        if (it != options.client_restore_rates.end()) client_rate[c] = it->second;
      }
    }

    // The group acts on the assignment, data arrives, then the events due.
    end_before.resize(state.task_count());
    for (TaskIndex t = 0; t < state.task_count(); ++t) end_before[t] = state.tasks[t].end_offset_sum;
    const CatchUp cu{options.catch_up,          options.restore_rate, gap_ms, config.settings.acceptable_recovery_lag,
                     client_rate,               client_gap,
                     next_cause == "follow-up"};
    const AssignmentCost cost = apply_assignment(state, *applied, report.threads, cu, config.settings.num_standby_replicas);
    if (!revoked.empty()) hold_revoked_as_copies(state, revoked);
    round.replayed_offsets = cost.replayed_offsets;
    round.restoring_copies = cost.restoring_copies;
    if (options.restore_rate) round.slowest_restore_ms = cost.slowest_restore_ms;
    add_new_data(state, options.new_data);
    bool group_changed = false;
    while (next < steps.size() && (timed ? next_start && steps[next].at_ms <= boundary : steps[next].event.round == k)) {
      group_changed = group_changed || steps[next].phase != Step::Phase::stops;
      round.events.push_back(apply_step(state, steps[next], end_before, away, incarnations, kafka));
      ++next;
    }
    // Balance before the group changed says nothing about the group after: count from the change.
    if (group_changed) {
      summary.first_balanced_round.reset();
      summary.time_to_balanced_ms.reset();
    }
    const bool more_events = next < steps.size() && (timed || steps[next].event.round <= options.max_rounds);
    state.end_offsets_known = true;  // the probing rebalance of round 1 finds them
    state.finalize();
    previous.reset();
    if (!group_changed && revoked.empty()) previous = std::move(report.assignment);

    const bool settled = !round.probing_rebalance && revoked.empty() && !group_changed && !more_events;
    if (kafka) {
      // Nothing will trigger another rebalance: the group stays with this assignment. Its stale
      // standbys still catch up (unless copies never do), so it converges if it is balanced, once
      // the last of them is caught up; otherwise it stays as it is (stalled).
      const bool copies_catch_up = !options.catch_up || *options.catch_up > 0;
      const bool behind = round.metrics.stale_standbys > 0 || round.metrics.restoring_actives > 0;
      summary.converged = settled && is_balanced_once_restored(round.metrics) && (!behind || copies_catch_up);
      summary.stalled = settled && !summary.converged;
      if (summary.converged) {
        summary.time_to_converged_ms = saturating_add(round.at_ms, behind && options.restore_rate ? cost.slowest_restore_ms : 0);
        // Balanced once its restoring actives are done, which needs no rebalance either.
        if (!summary.first_balanced_round) {
          summary.first_balanced_round = k;
          summary.time_to_balanced_ms =
              saturating_add(round.at_ms, options.restore_rate ? cost.slowest_active_restore_ms : 0);
        }
      }
    } else {
      summary.converged = settled && is_converged(round.metrics, round.probing_rebalance);
      // Stalled: the same answer again, and the next round would see the same state: no copy was
      // behind at the start (or none moved on), so nothing that could change the answer changes.
      summary.stalled = settled && !summary.converged && unchanged &&
                        (cost.restoring_copies == 0 || cost.replayed_offsets == 0);
      if (summary.converged) summary.time_to_converged_ms = round.at_ms;
    }
    const bool last = summary.converged || summary.stalled || k == options.max_rounds;
    summary.max_rounds_reached = last && !summary.converged && !summary.stalled;
    // The last assignment holds: its actives restore, and its standbys catch up, to the end.
    const bool in_full = last && options.restore_rate;
    if (options.restore_rate) {
      round.restoring_task_ms = in_full ? cost.restoring_in_full : cost.restoring_until_next;
      summary.restoring_task_ms = saturating_add(*summary.restoring_task_ms, *round.restoring_task_ms);
    }
    round.under_replicated_task_ms = in_full ? cost.under_replicated_in_full : cost.under_replicated_until_next;
    summary.under_replicated_task_ms = saturating_add(summary.under_replicated_task_ms, round.under_replicated_task_ms);
    summary.replayed_offsets = saturating_add(summary.replayed_offsets, round.replayed_offsets);
    summary.peak_restoring_copies = std::max(summary.peak_restoring_copies, round.restoring_copies);
    now_ms = boundary;
    cause = next_cause.empty() ? "events" : next_cause;

    result.rounds.push_back(round);
    if (options.on_round) options.on_round(result.rounds.back());
    if (last) {
      if (summary.stalled && kafka)
        log().warn("simulation of '{}' stalled at round {}: nothing triggers another rebalance (no probing, no "
                   "revocation, no event) and the group is not converged ({})",
                   strategy, k, !is_balanced_once_restored(round.metrics) ? "not balanced" : "copies that never catch up");
      else if (summary.stalled)
        log().warn("simulation of '{}' stalled at round {}: the same assignment again, not converged ({}), with "
                   "no copy catching up",
                   strategy, k,
                   !round.balanced ? "not balanced" : round.metrics.stale_standbys > 0 ? "stale standbys" : "probing");
      else if (summary.max_rounds_reached)
        log().warn("simulation of '{}' stopped at --max-rounds {} without converging", strategy, options.max_rounds);
      break;
    }
  }
  result.final_state = std::move(state);
  return result;
}

namespace {

template <typename T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json round_to_json(const SimulationRound& round) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["round"] = round.round;
  out["strategy"] = round.strategy;
  if (round.used_fallback) out["used_fallback"] = true;
  out["clients"] = round.clients;
  out["metrics"] = metrics_to_json(round.metrics);
  out["probing_rebalance"] = {{"needed", round.probing_rebalance}, {"after_ms", round.probing_after_ms}};
  out["balanced"] = round.balanced;
  out["assign_ms"] = std::round(round.assign_ms * 1000) / 1000;
  out["events"] = round.events;
  out["at_ms"] = round.at_ms;
  out["cause"] = round.cause;
  out["revoked"] = round.revoked;
  out["restoring_task_ms"] = optional_json(round.restoring_task_ms);
  out["replayed_offsets"] = round.replayed_offsets;
  out["restoring_copies"] = round.restoring_copies;
  out["under_replicated_task_ms"] = round.under_replicated_task_ms;
  out["standby_moves"] = round.standby_moves;
  out["slowest_restore_ms"] = optional_json(round.slowest_restore_ms);
  return out;
}

nlohmann::ordered_json summary_to_json(const SimulationSummary& summary) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["converged"] = summary.converged;
  out["stalled"] = summary.stalled;
  out["rounds"] = summary.rounds;
  out["active_moves"] = summary.active_moves;
  out["restore_offsets"] = summary.restore_offsets;
  out["first_balanced_round"] = optional_json(summary.first_balanced_round);
  out["warmups"] = summary.warmups;
  out["probing_rounds"] = summary.probing_rounds;
  out["strategy"] = summary.strategy;
  out["time_to_balanced_ms"] = optional_json(summary.time_to_balanced_ms);
  out["time_to_converged_ms"] = optional_json(summary.time_to_converged_ms);
  out["restoring_task_ms"] = optional_json(summary.restoring_task_ms);
  out["under_replicated_task_ms"] = summary.under_replicated_task_ms;
  out["replayed_offsets"] = summary.replayed_offsets;
  out["peak_restoring_copies"] = summary.peak_restoring_copies;
  out["max_rounds_reached"] = summary.max_rounds_reached;
  out["followup_rounds"] = summary.followup_rounds;
  return out;
}

SimulationSummary summary_from_json(const nlohmann::json& j) {
  SimulationSummary s;
  auto opt64 = [&](const char* key) -> std::optional<std::int64_t> {
    if (j.contains(key) && j[key].is_number()) return j[key].get<std::int64_t>();
    return std::nullopt;
  };
  s.converged = j.value("converged", false);
  s.stalled = j.value("stalled", false);
  s.rounds = j.value("rounds", 0u);
  s.active_moves = j.value("active_moves", std::uint64_t{0});
  s.restore_offsets = j.value("restore_offsets", std::uint64_t{0});
  if (j.contains("first_balanced_round") && j["first_balanced_round"].is_number())
    s.first_balanced_round = j["first_balanced_round"].get<std::uint32_t>();
  s.warmups = j.value("warmups", std::uint64_t{0});
  s.probing_rounds = j.value("probing_rounds", 0u);
  s.strategy = j.value("strategy", "");
  s.time_to_balanced_ms = opt64("time_to_balanced_ms");
  s.time_to_converged_ms = opt64("time_to_converged_ms");
  s.restoring_task_ms = opt64("restoring_task_ms");
  s.under_replicated_task_ms = j.value("under_replicated_task_ms", std::int64_t{0});
  s.replayed_offsets = j.value("replayed_offsets", std::uint64_t{0});
  s.peak_restoring_copies = j.value("peak_restoring_copies", std::uint64_t{0});
  s.max_rounds_reached = j.value("max_rounds_reached", false);
  s.followup_rounds = j.value("followup_rounds", 0u);
  return s;
}

}  // namespace assignor::host
