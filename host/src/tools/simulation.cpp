// The simulation engine: rounds of assignment over a group that changes (the timeline, simulation_timeline.cpp),
// each applied to the group (the round model, simulation_state.cpp), with the protocol's follow-up
// rebalances and the run's summary. Its records as JSON are in simulation_json.cpp.
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
#include "simulation_model.hpp"

namespace assignor::host {

using namespace simulation_model;

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
    throw InputError(
        fmt::format("--session-timeout-ms must be in [1, {}], got {}", kMaxRebalanceMs, options.session_timeout_ms));
  if (!options.client_restore_rates.empty() && !options.restore_rate)
    throw InputError("per-client restore rates need a restore rate for the other clients (--restore-rate)");
  for (const auto& [client, rate] : options.client_restore_rates)
    if (rate < 1)
      throw InputError(fmt::format("client '{}': restore rate must be >= 1 offset per second, got {}", client, rate));
  const bool kafka = options.protocol == Protocol::kafka;
  if (!kafka)
    for (const auto& e : options.events)
      if (!e.leaves_group)
        throw InputError(
            fmt::format("{}: client '{}' stops without leaving the group: that is Kafka's protocol (the "
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
  std::size_t next = 0;                // the next step
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
    const CatchUp cu{
        options.catch_up, options.restore_rate,     gap_ms, config.settings.acceptable_recovery_lag, client_rate,
        client_gap,       next_cause == "follow-up"};
    const AssignmentCost cost =
        apply_assignment(state, *applied, report.threads, cu, config.settings.num_standby_replicas);
    if (!revoked.empty()) hold_revoked_as_copies(state, revoked);
    round.replayed_offsets = cost.replayed_offsets;
    round.restoring_copies = cost.restoring_copies;
    if (options.restore_rate) round.slowest_restore_ms = cost.slowest_restore_ms;
    add_new_data(state, options.new_data);
    bool group_changed = false;
    while (next < steps.size() &&
           (timed ? next_start && steps[next].at_ms <= boundary : steps[next].event.round == k)) {
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
        summary.time_to_converged_ms =
            saturating_add(round.at_ms, behind && options.restore_rate ? cost.slowest_restore_ms : 0);
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
      summary.stalled =
          settled && !summary.converged && unchanged && (cost.restoring_copies == 0 || cost.replayed_offsets == 0);
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
        log().warn(
            "simulation of '{}' stalled at round {}: nothing triggers another rebalance (no probing, no "
            "revocation, no event) and the group is not converged ({})",
            strategy, k, !is_balanced_once_restored(round.metrics) ? "not balanced" : "copies that never catch up");
      else if (summary.stalled)
        log().warn(
            "simulation of '{}' stalled at round {}: the same assignment again, not converged ({}), with "
            "no copy catching up",
            strategy, k,
            !round.balanced                    ? "not balanced"
            : round.metrics.stale_standbys > 0 ? "stale standbys"
                                               : "probing");
      else if (summary.max_rounds_reached)
        log().warn("simulation of '{}' stopped at --max-rounds {} without converging", strategy, options.max_rounds);
      break;
    }
  }
  result.final_state = std::move(state);
  return result;
}

}  // namespace assignor::host
