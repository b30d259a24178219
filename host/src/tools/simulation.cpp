#include "assignor/host/tools/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <limits>
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

// Checks, before round 1, that every event can apply to the group as it will be by then.
void check_events(const Cluster& cluster, const std::vector<SimulationEvent>& ordered) {
  std::set<std::string> members;
  for (const auto& c : cluster.clients) members.insert(c.id);
  for (const auto& e : ordered) {
    const bool present = members.count(e.client) != 0;
    const std::string where = fmt::format("{}: round {}: client '{}'", e.where, e.round, e.client);
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
        break;
      case EventKind::restart:
        if (!present)
          throw InputError(fmt::format("{} restarts but is not in the group (members then: {})", where,
                                       some_members(members)));
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

// Task-milliseconds the stateful actives of one assignment spend restoring before they process.
struct RestoringTime {
  std::int64_t until_next = 0;  // up to the next rebalance
  std::int64_t in_full = 0;     // until every one of them is restored
};

// What the group reports after a round: the assignment becomes the history, every task held
// catches up, tasks no longer run are no longer "running". Linear in the assignment plus the
// offset sums on record. With a restore rate, also the time actives spent restoring (`gap_ms`:
// the time until the next rebalance).
RestoringTime apply_assignment(Cluster& state, const Assignment& assignment,
                               const std::optional<ThreadDistribution>& threads,
                               const std::optional<std::int64_t>& catch_up,
                               const std::optional<std::int64_t>& restore_rate, std::int64_t gap_ms) {
  RestoringTime restoring;
  const ByClient actives(state.client_count(), {&assignment.actives});
  const ByClient copies(state.client_count(), {&assignment.standbys, &assignment.warmups});
  auto remaining = [&](std::int64_t lag) {
    return catch_up ? std::max<std::int64_t>(0, lag - *catch_up) : std::int64_t{0};
  };
  std::vector<OffsetSum> sums;
  for (ClientIndex c = 0; c < state.client_count(); ++c) {
    Client& client = state.clients[c];
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
      if (next_active == t) {
        ++a;
        if (!task.stateful) continue;  // stateless tasks have nothing to report
        if (restore_rate && lag > 0) {
          const std::int64_t ms = restore_ms(lag, *restore_rate);
          restoring.in_full = saturating_add(restoring.in_full, ms);
          restoring.until_next = saturating_add(restoring.until_next, std::min(ms, gap_ms));
        }
        const std::int64_t left = remaining(lag);
        sums.push_back({t, left == 0 ? kRunningOffsetSum : end - left});
      } else if (next_copy == t) {
        ++s;
        sums.push_back({t, end - remaining(lag)});
      } else {
        // Not held any more: a task it was running stops at the end offsets of this round.
        sums.push_back({t, reported == kRunningOffsetSum ? end : reported});
      }
    }
    client.offset_sums.swap(sums);
    client.previous_active.assign(active.begin(), active.end());
    client.previous_standby.assign(copy.begin(), copy.end());
    client.threads_history.clear();
    if (threads && c < threads->clients.size()) {
      for (const auto& th : threads->clients[c].threads) {
        ThreadHistory history;
        history.name = th.name;
        history.previous_active = th.active;
        history.previous_standby.reserve(th.standby.size() + th.warmup.size());
        std::merge(th.standby.begin(), th.standby.end(), th.warmup.begin(), th.warmup.end(),
                   std::back_inserter(history.previous_standby));
        client.threads_history.push_back(std::move(history));
      }
    }
  }
  return restoring;
}

void add_new_data(Cluster& state, std::int64_t new_data) {
  if (new_data == 0) return;
  for (auto& task : state.tasks)
    for (auto& store : task.stores)
      if (store.logged) store.changelog_end_offset = saturating_add(store.changelog_end_offset, new_data);
}

// `end_before` holds each task's end-offset sum before this round's new data: a restarted client
// that was running a task checkpointed it there.
void apply_event(Cluster& state, const SimulationEvent& e, const std::vector<std::int64_t>& end_before) {
  auto it = std::lower_bound(state.clients.begin(), state.clients.end(), e.client,
                             [](const Client& c, const std::string& id) { return c.id < id; });
  const bool present = it != state.clients.end() && it->id == e.client;
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
      return;
    }
    case EventKind::leave:
      if (!present) throw InputError(fmt::format("{}: client '{}' leaves but is not in the group", e.where, e.client));
      state.clients.erase(it);
      return;
    case EventKind::restart:
      if (!present) throw InputError(fmt::format("{}: client '{}' restarts but is not in the group", e.where, e.client));
      it->previous_active.clear();
      it->previous_standby.clear();
      it->threads_history.clear();
      if (!e.keep_state) {
        it->offset_sums.clear();
        return;
      }
      for (auto& sum : it->offset_sums)
        if (sum.sum == kRunningOffsetSum) sum.sum = end_before[sum.task];
      return;
  }
}

}  // namespace

bool is_balanced(const Metrics& metrics) noexcept {
  constexpr double kEpsilon = 1e-9;  // spreads are differences of ratios
  return metrics.active_load_spread <= 1 + kEpsilon &&
         (!metrics.thread_load_spread || *metrics.thread_load_spread <= 1);
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
  const std::string strategy = options.strategy.empty() ? config.strategy : options.strategy;
  (void)registry.require(strategy);

  std::vector<SimulationEvent> events = options.events;
  std::stable_sort(events.begin(), events.end(),
                   [](const SimulationEvent& a, const SimulationEvent& b) { return a.round < b.round; });
  check_events(state, events);
  for (const auto& e : events)
    if (e.round > options.max_rounds)
      log().warn("{}: round {} is after the last round ({}): '{}' never happens", e.where, e.round,
                 options.max_rounds, describe(e));

  SimulationResult result;
  SimulationSummary& summary = result.summary;
  summary.strategy = strategy;
  std::size_t next_event = 0;
  std::optional<Assignment> previous;  // the previous round's assignment, when the group did not change since
  std::vector<std::int64_t> end_before;
  std::int64_t now_ms = 0;  // round 1's rebalance starts at 0
  if (options.restore_rate) summary.restoring_task_ms = 0;

  for (std::uint32_t k = 1; k <= options.max_rounds; ++k) {
    RunOutcome outcome;
    try {
      outcome = run_assignment(registry, config, state, strategy);
    } catch (const AssignmentFailed& e) {
      throw AssignmentFailed(fmt::format("round {}: {}", k, e.what()), e.errors());
    }
    AssignmentReport& report = outcome.report;

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

    // The group acts on the assignment, data arrives, then the events of this round.
    end_before.resize(state.task_count());
    for (TaskIndex t = 0; t < state.task_count(); ++t) end_before[t] = state.tasks[t].end_offset_sum;
    // Until the next rebalance: none when this round's events trigger one, else a probing interval.
    const bool events_now = next_event < events.size() && events[next_event].round == k;
    const std::int64_t gap_ms = events_now                  ? 0
                                : round.probing_rebalance ? round.probing_after_ms
                                                          : config.settings.probing_rebalance_interval_ms;
    std::optional<std::int64_t> catch_up = options.catch_up;
    if (options.restore_rate) catch_up = saturating_mul(*options.restore_rate, gap_ms) / 1000;
    const RestoringTime restoring =
        apply_assignment(state, report.assignment, report.threads, catch_up, options.restore_rate, gap_ms);
    add_new_data(state, options.new_data);
    const std::size_t first_event = next_event;
    while (next_event < events.size() && events[next_event].round == k) {
      apply_event(state, events[next_event], end_before);
      round.events.push_back(describe(events[next_event]));
      ++next_event;
    }
    const bool group_changed = next_event != first_event;
    // Balance before the group changed says nothing about the group after: count from the change.
    if (group_changed) {
      summary.first_balanced_round.reset();
      summary.time_to_balanced_ms.reset();
    }
    const bool more_events = next_event < events.size() && events[next_event].round <= options.max_rounds;
    state.end_offsets_known = true;  // the probing rebalance of round 1 finds them
    state.finalize();
    previous.reset();
    if (!group_changed) previous = std::move(report.assignment);

    const bool settled = !round.probing_rebalance && !group_changed && !more_events;
    summary.converged = settled && round.balanced;
    summary.stalled = settled && !round.balanced && unchanged;
    const bool last = summary.converged || summary.stalled || k == options.max_rounds;
    if (summary.converged) summary.time_to_converged_ms = round.at_ms;
    if (options.restore_rate) {
      // The last assignment holds: its actives restore to the end.
      round.restoring_task_ms = last ? restoring.in_full : restoring.until_next;
      summary.restoring_task_ms = saturating_add(*summary.restoring_task_ms, *round.restoring_task_ms);
    }
    now_ms = saturating_add(now_ms, gap_ms);

    result.rounds.push_back(round);
    if (options.on_round) options.on_round(result.rounds.back());
    if (last) break;
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
  out["restoring_task_ms"] = optional_json(round.restoring_task_ms);
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
  return out;
}

}  // namespace assignor::host
