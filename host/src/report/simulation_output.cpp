// The HTML report of `assignor simulate`: convergence curves and a table of the rounds.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "assignor/host/report/report_html.hpp"
#include "assignor/host/tools/simulation.hpp"

namespace assignor::host {

namespace {

std::string summary_sentence(const SimulationSummary& s) {
  std::string text;
  if (s.converged)
    text = fmt::format("Converged after {} round{}", s.rounds, s.rounds == 1 ? "" : "s");
  else if (s.stalled)
    text = fmt::format("Stalled after {} round{}: an unbalanced assignment that no longer changes", s.rounds,
                       s.rounds == 1 ? "" : "s");
  else
    text = fmt::format("Not converged after {} round{} (the round limit)", s.rounds, s.rounds == 1 ? "" : "s");
  text += fmt::format(" with {}: {} active move{}, {} warmup{}, {} offsets restored; ", s.strategy, s.active_moves,
                      s.active_moves == 1 ? "" : "s", s.warmups, s.warmups == 1 ? "" : "s", s.restore_offsets);
  text += s.first_balanced_round ? fmt::format("first balanced at round {} ({})", *s.first_balanced_round,
                                               format_duration_ms(*s.time_to_balanced_ms))
                                 : std::string("never balanced");
  if (s.restoring_task_ms)
    text += fmt::format("; actives spent {} restoring in all", format_duration_ms(*s.restoring_task_ms));
  return text + ".";
}

}  // namespace

std::vector<std::string> simulation_chart_names() { return {"active_moves", "warmups", "load_spread"}; }

std::string simulation_html(const SimulationResult& result, const std::vector<std::string>& context) {
  HtmlReport page;
  page.title = "Assignor: simulation";
  page.summary = context;
  page.summary.push_back(summary_sentence(result.summary));

  std::vector<double> x;
  std::vector<std::optional<double>> moves, restoring, warmups, active_spread, total_spread, thread_spread;
  for (const auto& r : result.rounds) {
    x.push_back(r.round);
    moves.emplace_back(static_cast<double>(r.metrics.active_moves));
    restoring.emplace_back(static_cast<double>(r.metrics.restoring_actives));
    warmups.emplace_back(static_cast<double>(r.metrics.warmups));
    active_spread.emplace_back(r.metrics.active_load_spread);
    total_spread.emplace_back(r.metrics.total_load_spread);
    thread_spread.emplace_back(r.metrics.thread_load_spread
                                   ? std::optional<double>(static_cast<double>(*r.metrics.thread_load_spread))
                                   : std::nullopt);
  }
  page.sections.emplace_back(LineChart{"active_moves",
                                       "Tasks whose active client changed in each round, and restoring actives "
                                       "(stateful actives waiting on a restore while a caught-up client exists).",
                                       "round",
                                       "tasks",
                                       x,
                                       {{"active_moves", moves}, {"restoring_actives", restoring}}});
  page.sections.emplace_back(LineChart{"warmups",
                                       "Warmup replicas placed in each round: copies catching up before a move.",
                                       "round",
                                       "replicas",
                                       x,
                                       {{"warmups", warmups}}});
  page.sections.emplace_back(LineChart{
      "load_spread",
      "Max - min over clients of tasks per thread (actives, and every copy held), and the largest spread between "
      "the threads of one client. The group is balanced when active and thread spreads are at most 1.",
      "round",
      "tasks per thread",
      x,
      {{"active_load_spread", active_spread}, {"total_load_spread", total_spread}, {"thread_load_spread", thread_spread}}});

  HtmlTable table;
  table.caption = "Rounds";
  table.header = {"round",   "at",       "strategy",      "clients",       "active_moves",    "restoring_actives",
                  "warmups", "standbys", "active spread", "total spread",  "thread spread",   "probing",
                  "balanced", "restore_offsets", "restoring task-time", "assign_ms", "events after the round"};
  table.numeric = {true, true, false, true, true, true, true, true, true, true, true, false, false, true, true, true, false};
  for (const auto& r : result.rounds) {
    std::string events;
    for (const auto& e : r.events) events += (events.empty() ? "" : "; ") + e;
    table.rows.push_back({fmt::format("{}", r.round), format_duration_ms(r.at_ms),
                          r.strategy + (r.used_fallback ? " (fallback)" : ""),
                          fmt::format("{}", r.clients), fmt::format("{}", r.metrics.active_moves),
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

}  // namespace assignor::host
