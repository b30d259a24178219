// The HTML report of `assignor simulate`: convergence curves and a table of the rounds.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "assignor/host/report/report_html.hpp"
#include "assignor/host/report/simulation_output.hpp"

namespace assignor::host {

namespace {

std::string summary_sentence(const SimulationSummary& s) {
  std::string text;
  const std::string followups =
      s.followup_rounds > 0 ? fmt::format(", {} of them follow-ups", s.followup_rounds) : std::string();
  if (s.converged)
    text = fmt::format("Converged in {} ({} round{}{})", format_duration_ms(s.time_to_converged_ms.value_or(0)),
                       s.rounds, s.rounds == 1 ? "" : "s", followups);
  else if (s.stalled)
    text = fmt::format(
        "Stalled after {} round{}{}: not balanced or not fully replicated, and nothing would change it "
        "(no rebalance comes, or the same assignment comes again)",
        s.rounds, s.rounds == 1 ? "" : "s", followups);
  else
    text = fmt::format("Not converged after {} round{} (the round limit)", s.rounds, s.rounds == 1 ? "" : "s");
  text += fmt::format(" with {}: {} active move{}, {} warmup{}, {} offsets replayed by copies; ", s.strategy,
                      s.active_moves, s.active_moves == 1 ? "" : "s", s.warmups, s.warmups == 1 ? "" : "s",
                      format_number(static_cast<double>(s.replayed_offsets), true));
  text += s.first_balanced_round ? fmt::format("first balanced at round {} ({})", *s.first_balanced_round,
                                               format_duration_ms(*s.time_to_balanced_ms))
                                 : std::string("never balanced");
  if (s.restoring_task_ms)
    text += fmt::format("; actives spent {} restoring in all", format_duration_ms(*s.restoring_task_ms));
  text += fmt::format("; {} of task-time under-replicated", format_duration_ms(s.under_replicated_task_ms));
  return text + ".";
}

}  // namespace

std::vector<std::string> simulation_chart_names() {
  return {"active_moves", "copies", "load_spread", "restore_traffic"};
}

std::string simulation_html(const SimulationResult& result, const std::vector<std::string>& context) {
  HtmlReport page;
  page.title = "Assignor: simulation";
  page.summary = context;
  page.summary.push_back(summary_sentence(result.summary));

  // x: hours since the first rebalance (when each round's assignment took effect).
  std::vector<double> x;
  std::vector<std::optional<double>> moves, restoring, standby_moves, warmups, stale, restoring_copies, active_spread,
      stateful_spread, total_spread, thread_spread, replayed;
  auto d = [](auto v) { return std::optional<double>(static_cast<double>(v)); };
  for (const auto& r : result.rounds) {
    x.push_back(static_cast<double>(r.at_ms) / 3.6e6);
    moves.push_back(d(r.metrics.active_moves));
    restoring.push_back(d(r.metrics.restoring_actives));
    standby_moves.push_back(d(r.standby_moves));
    warmups.push_back(d(r.metrics.warmups));
    stale.push_back(d(r.metrics.stale_standbys));
    restoring_copies.push_back(d(r.restoring_copies));
    active_spread.emplace_back(r.metrics.active_load_spread);
    stateful_spread.emplace_back(r.metrics.stateful_load_spread);
    total_spread.emplace_back(r.metrics.total_load_spread);
    thread_spread.push_back(r.metrics.thread_load_spread ? d(*r.metrics.thread_load_spread) : std::nullopt);
    replayed.push_back(d(r.replayed_offsets));
  }
  const std::string hours = "hours since the first rebalance";
  page.sections.emplace_back(
      LineChart{"active_moves",
                "At each rebalance: tasks whose active client changed, restoring actives "
                "(waiting on a restore while a caught-up client exists), and standby or "
                "warmup copies placed on a client that had none.",
                hours,
                "tasks",
                x,
                {{"active_moves", moves}, {"restoring_actives", restoring}, {"standby_moves", standby_moves}}});
  page.sections.emplace_back(
      LineChart{"copies",
                "Warmups placed, stale standbys (behind acceptable_recovery_lag: redundancy on "
                "paper) and every copy not caught up when the assignment took effect.",
                hours,
                "copies",
                x,
                {{"warmups", warmups}, {"stale_standbys", stale}, {"restoring_copies", restoring_copies}}});
  page.sections.emplace_back(LineChart{
      "load_spread",
      "Max - min over clients of tasks per thread (actives; actives with a changelog; every copy held), and the "
      "largest spread between the threads of one client. Balanced: active, stateful and thread spreads at most 1.",
      hours,
      "tasks per thread",
      x,
      {{"active_load_spread", active_spread},
       {"stateful_load_spread", stateful_spread},
       {"total_load_spread", total_spread},
       {"thread_load_spread", thread_spread}}});
  page.sections.emplace_back(LineChart{"restore_traffic",
                                       "Offsets the copies restored from changelogs until the next rebalance.",
                                       hours,
                                       "offsets",
                                       x,
                                       {{"replayed_offsets", replayed}}});

  HtmlTable table;
  table.caption = "Rounds";
  table.header = {"round",
                  "at",
                  "why",
                  "strategy",
                  "clients",
                  "active_moves",
                  "revoked",
                  "restoring_actives",
                  "warmups",
                  "standbys",
                  "active spread",
                  "total spread",
                  "thread spread",
                  "probing",
                  "balanced",
                  "restore_offsets",
                  "restoring task-time",
                  "assign_ms",
                  "events after the round"};
  table.numeric = {true, true, false, false, true,  true, true, true, true, true,
                   true, true, true,  false, false, true, true, true, false};
  for (const auto& r : result.rounds) {
    std::string events;
    for (const auto& e : r.events) events += (events.empty() ? "" : "; ") + e;
    table.rows.push_back({fmt::format("{}", r.round), format_duration_ms(r.at_ms), r.cause,
                          r.strategy + (r.used_fallback ? " (fallback)" : ""), fmt::format("{}", r.clients),
                          fmt::format("{}", r.metrics.active_moves), fmt::format("{}", r.revoked),
                          fmt::format("{}", r.metrics.restoring_actives), fmt::format("{}", r.metrics.warmups),
                          fmt::format("{}", r.metrics.standbys), format_number(r.metrics.active_load_spread),
                          format_number(r.metrics.total_load_spread),
                          r.metrics.thread_load_spread ? fmt::format("{}", *r.metrics.thread_load_spread) : "n/a",
                          r.probing_rebalance ? "yes" : "no", r.balanced ? "yes" : "no",
                          fmt::format("{}", r.metrics.restore_offsets),
                          r.restoring_task_ms ? format_duration_ms(*r.restoring_task_ms) : "n/a",
                          fmt::format("{:.3f}", r.assign_ms), events});
    table.flagged.push_back(r.metrics.restoring_actives > 0);
  }
  page.sections.emplace_back(std::move(table));
  return render_html(page);
}

std::string simulation_progress(const SimulationRound& r, std::uint32_t max_rounds,
                                std::chrono::nanoseconds wall_elapsed) {
  std::string text = fmt::format(
      "simulate: round {}/{} at {} simulated: {} clients, {} active moves, {} warmups, "
      "{} copies restoring",
      r.round, max_rounds, format_duration_ms(r.at_ms), r.clients, r.metrics.active_moves, r.metrics.warmups,
      r.restoring_copies);
  // What remains: at least the slowest copy's restore (simulated time; later moves are unknown
  // until the strategy plans them), at most the round limit (wall time at the pace so far).
  if (r.slowest_restore_ms && *r.slowest_restore_ms > 0)
    text += fmt::format("; the slowest copy is caught up in {}", format_duration_ms(*r.slowest_restore_ms));
  if (r.round > 0 && r.round < max_rounds) {
    const double wall_per_round =
        std::chrono::duration<double, std::milli>(wall_elapsed).count() / static_cast<double>(r.round);
    const std::uint32_t left = max_rounds - r.round;
    text += fmt::format("; at most {} more rounds, ~{} at this pace", left,
                        format_duration_ms(static_cast<std::int64_t>(std::llround(left * wall_per_round))));
  }
  return text;
}

}  // namespace assignor::host
