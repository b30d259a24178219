// The outputs of `assignor compare`: table, JSON, CSV and the HTML report.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/report/compare_output.hpp"
#include "assignor/host/report/recommend.hpp"
#include "assignor/host/report/report_html.hpp"
#include "assignor/host/support/printable.hpp"
#include "text_table.hpp"

namespace assignor::host {

namespace {

using namespace detail;  // the report tables' shared pieces (text_table.hpp)

using ordered_json = nlohmann::ordered_json;

constexpr std::size_t kListedValidationErrors = 10;

std::string ms_text(double v) { return fmt::format("{:.3f}", v); }

// Milliseconds rounded to the nanosecond for CSV, as in the JSON: finer digits are noise.
double nanosecond_ms(double v) { return std::round(v * 1e6) / 1e6; }

// ---- table ----------------------------------------------------------------------------------

std::vector<Column> table_columns() {
  std::vector<Column> columns{{"", "strategy", false}, {"", "status", false}};
  for (const auto& name : metric_names()) columns.push_back(metric_column(name));
  columns.push_back({"", "probing", false});
  columns.push_back({"assign_ms", "median", true});
  columns.push_back({"", "min..max", false});
  return columns;
}

std::vector<std::string> table_cells(const CompareRow& row, std::size_t n_columns) {
  std::vector<std::string> cells{row.strategy, row.status == CompareStatus::ok ? "ok" : to_string(row.status)};
  if (row.status != CompareStatus::ok) {
    for (auto& c : cells[1]) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    while (cells.size() < n_columns) cells.emplace_back("-");
    return cells;
  }
  if (row.ran != row.strategy) cells[1] = "ok*";
  const ordered_json metrics = row.metrics;
  for (const auto& name : metric_names()) cells.push_back(metric_text(metrics[name], "n/a"));
  cells.push_back(row.probing_rebalance ? "yes" : "no");
  cells.push_back(ms_text(row.assign_ms.median));
  cells.push_back(fmt::format("{}..{}", ms_text(row.assign_ms.min), ms_text(row.assign_ms.max)));
  return cells;
}

std::string scenario_heading(const ScenarioComparison& s) {
  std::string text = fmt::format("scenario {}: {} tasks ({} stateful), {} clients, {} threads", s.name, s.tasks,
                                 s.stateful_tasks, s.clients, s.threads);
  if (s.source != s.name) text += fmt::format(" ({})", s.source);
  return text;
}

// ---- CSV ------------------------------------------------------------------------------------

std::string failure_text(const CompareRow& row) {
  std::string text = row.error;
  for (const auto& e : row.validation_errors) text += "; " + e;
  return text;
}

// ---- HTML -----------------------------------------------------------------------------------

struct ChartSpec {
  const char* name;
  const char* description;
  const char* unit;
  double (*value)(const CompareRow&);
};

const std::vector<ChartSpec> kCharts = {
    {"active_moves", "Tasks whose active client changed (lower is better).", "tasks",
     [](const CompareRow& r) { return static_cast<double>(r.metrics.active_moves); }},
    {"restoring_actives",
     "Stateful actives on a client that is not caught up while a caught-up client exists: what KIP-441 prevents "
     "(0 is the goal).",
     "tasks", [](const CompareRow& r) { return static_cast<double>(r.metrics.restoring_actives); }},
    {"warmups", "Warmup replicas placed to move tasks later.", "replicas",
     [](const CompareRow& r) { return static_cast<double>(r.metrics.warmups); }},
    {"active_load_spread", "Max - min over clients of active tasks per thread (lower is better).", "tasks per thread",
     [](const CompareRow& r) { return r.metrics.active_load_spread; }},
    {"total_load_spread", "The same for every copy held: active, standby and warmup.", "tasks per thread",
     [](const CompareRow& r) { return r.metrics.total_load_spread; }},
    {"restore_offsets", "Offsets to restore before the cold actives can process (lower is better).", "offsets",
     [](const CompareRow& r) { return static_cast<double>(r.metrics.restore_offsets); }},
    {"stateful_load_spread",
     "Max - min over clients of actives with a changelog per thread: is the work that restores spread, or only the "
     "free kind? (lower is better)",
     "tasks per thread", [](const CompareRow& r) { return r.metrics.stateful_load_spread; }},
    {"stale_standbys", "Standbys behind acceptable_recovery_lag: redundancy on paper only (lower is better).", "copies",
     [](const CompareRow& r) { return static_cast<double>(r.metrics.stale_standbys); }},
};

// ---- simulations (compare --simulate) ---------------------------------------------------------

std::string simulation_outcome(const SimulationSummary& s) {
  return s.converged ? "converged" : s.stalled ? "stalled" : "round limit";
}

std::string optional_duration(const std::optional<std::int64_t>& ms, const char* none) {
  return ms ? format_duration_ms(*ms) : none;
}

// The second block of a scenario in the table: one line per strategy simulated.
std::string simulation_block(const ScenarioComparison& scenario) {
  const std::vector<std::string> header{"strategy",         "outcome",         "rounds",  "balanced after",
                                        "converged after",  "active moves",    "warmups", "restoring task-time",
                                        "under-replicated", "replayed offsets"};
  std::vector<std::vector<std::string>> rows{header};
  for (const auto& row : scenario.rows) {
    if (row.simulation) {
      const SimulationSummary& s = *row.simulation;
      rows.push_back({row.strategy, simulation_outcome(s), fmt::format("{}", s.rounds),
                      optional_duration(s.time_to_balanced_ms, "never"), optional_duration(s.time_to_converged_ms, "-"),
                      fmt::format("{}", s.active_moves), fmt::format("{}", s.warmups),
                      optional_duration(s.restoring_task_ms, "n/a"), format_duration_ms(s.under_replicated_task_ms),
                      format_number(static_cast<double>(s.replayed_offsets), true)});
    } else {
      rows.push_back(
          {row.strategy, row.simulation_error.empty() ? "not run" : "FAILED", "-", "-", "-", "-", "-", "-", "-", "-"});
    }
  }
  std::vector<bool> right(header.size(), true);
  right[0] = right[1] = false;  // strategy, outcome
  std::string out = "simulated:\n" + aligned_rows(rows, right, "  ");
  for (const auto& row : scenario.rows)
    if (!row.simulation_error.empty())
      out += fmt::format("  {}: simulation failed: {}\n", row.strategy, row.simulation_error);
  return out;
}

const std::vector<ChartSpec> kSimulationCharts = {
    {"simulated_rounds", "Rebalances until the simulated group converged (or the run ended).", "rounds",
     [](const CompareRow& r) { return static_cast<double>(r.simulation->rounds); }},
    {"simulated_hours_to_converged",
     "Hours from the first rebalance until the group converged: probing intervals and rebalance costs (lower is "
     "better; a \u00d7 where it did not converge).",
     "hours", [](const CompareRow& r) { return static_cast<double>(*r.simulation->time_to_converged_ms) / 3.6e6; }},
    {"simulated_restoring_task_seconds",
     "Task-seconds stateful actives spent restoring before they could process, over the whole run (needs a restore "
     "rate).",
     "task-seconds", [](const CompareRow& r) { return static_cast<double>(*r.simulation->restoring_task_ms) / 1e3; }},
    {"simulated_under_replicated_task_hours",
     "Task-hours with fewer caught-up standbys than wanted: redundancy lost while copies restore (lower is better).",
     "task-hours",
     [](const CompareRow& r) { return static_cast<double>(r.simulation->under_replicated_task_ms) / 3.6e6; }},
    {"simulated_replayed_offsets", "Offsets the copies restored from changelogs over the run: the restore traffic.",
     "offsets", [](const CompareRow& r) { return static_cast<double>(r.simulation->replayed_offsets); }},
};

// Why a simulation chart has no bar for this row, or "" when it has one.
std::string simulation_missing(const CompareRow& row, const ChartSpec& spec) {
  if (row.status != CompareStatus::ok) return to_string(row.status);
  if (!row.simulation) return row.simulation_error.empty() ? "not simulated" : "failed";
  const std::string name = spec.name;
  if (name == "simulated_hours_to_converged" && !row.simulation->time_to_converged_ms) return "not converged";
  if (name == "simulated_restoring_task_seconds" && !row.simulation->restoring_task_ms) return "no restore rate";
  return "";
}

}  // namespace

std::vector<std::string> compare_simulation_chart_names() {
  std::vector<std::string> names;
  for (const auto& c : kSimulationCharts) names.emplace_back(c.name);
  return names;
}

std::vector<std::string> compare_chart_names() {
  std::vector<std::string> names;
  for (const auto& c : kCharts) names.emplace_back(c.name);
  names.emplace_back("assign_ms");
  return names;
}

// The recommendation per scenario: with simulations, the strategies no other beats on time to
// converged, restoring and under-replicated task-time (as sweep weighs them); without, on what the
// assignment itself costs: restoring actives, stateful balance, stale standbys, active moves.
std::vector<std::string> compare_recommendation(const Comparison& comparison) {
  std::vector<std::string> out;
  constexpr double kNever = std::numeric_limits<double>::infinity();
  for (const auto& scenario : comparison.scenarios) {
    std::vector<Candidate> candidates;
    for (const auto& row : scenario.rows) {
      if (row.status != CompareStatus::ok) continue;
      if (comparison.simulated) {
        const auto& sim = row.simulation;
        if (!sim || !sim->converged || !sim->time_to_converged_ms) {
          candidates.push_back({row.strategy, {kNever, kNever, kNever}});
          continue;
        }
        candidates.push_back(
            {row.strategy,
             {static_cast<double>(*sim->time_to_converged_ms), static_cast<double>(sim->restoring_task_ms.value_or(0)),
              static_cast<double>(sim->under_replicated_task_ms)}});
      } else {
        const Metrics& m = row.metrics;
        candidates.push_back({row.strategy,
                              {static_cast<double>(m.restoring_actives), m.stateful_load_spread,
                               static_cast<double>(m.stale_standbys), static_cast<double>(m.active_moves)}});
      }
    }
    const std::string where = "recommended for " + scenario.name;
    if (comparison.simulated) {
      out.push_back(recommendation_line(where, candidates, describe_simulation_costs));
    } else {
      out.push_back(recommendation_line(where, candidates, [](const std::vector<double>& c) {
        return fmt::format(
            "{} restoring active{}, stateful load spread {}, {} stale standby{}, {} active move{}; "
            "simulate (--simulate) to weigh the time to converge",
            c[0], c[0] == 1 ? "" : "s", format_number(c[1]), c[2], c[2] == 1 ? "" : "s", c[3], c[3] == 1 ? "" : "s");
      }));
    }
  }
  return out;
}

std::string compare_table(const Comparison& comparison) {
  std::string out = fmt::format("compare: {} strateg{} x {} scenario{}; assign_ms: median of {} run{} (min..max)\n",
                                comparison.strategies.size(), comparison.strategies.size() == 1 ? "y" : "ies",
                                comparison.scenarios.size(), comparison.scenarios.size() == 1 ? "" : "s",
                                comparison.runs, comparison.runs == 1 ? "" : "s");
  const std::vector<Column> columns = table_columns();
  const std::vector<std::string> recommended = compare_recommendation(comparison);
  for (std::size_t si = 0; si < comparison.scenarios.size(); ++si) {
    const auto& scenario = comparison.scenarios[si];
    out += '\n' + scenario_heading(scenario) + '\n';
    std::vector<std::vector<std::string>> rows(2);  // the two header lines, then one row per strategy
    std::vector<bool> right;
    for (const auto& column : columns) {
      rows[0].push_back(column.top);
      rows[1].push_back(column.bottom);
      right.push_back(column.right);
    }
    for (const auto& row : scenario.rows) rows.push_back(table_cells(row, columns.size()));
    out += aligned_rows(rows, right);

    if (comparison.simulated) out += simulation_block(scenario);
    for (const auto& row : scenario.rows) {
      for (const auto& note : row.notes) out += fmt::format("  {}: {}\n", row.strategy, note);
      if (row.status == CompareStatus::ok) continue;
      out += fmt::format("  {}: {}: {}\n", row.strategy, to_string(row.status), row.error);
      for (std::size_t i = 0; i < row.validation_errors.size() && i < kListedValidationErrors; ++i)
        out += fmt::format("    - {}\n", row.validation_errors[i]);
      if (row.validation_errors.size() > kListedValidationErrors)
        out += fmt::format("    ... and {} more\n", row.validation_errors.size() - kListedValidationErrors);
    }
    out += printable(recommended[si]) + "\n";
  }
  return out;
}

ordered_json compare_json(const Comparison& comparison) { return comparison; }

std::string compare_csv(const Comparison& comparison) {
  const std::vector<std::string> metrics = metric_names();
  std::vector<std::string> header{"scenario", "strategy", "status", "ran"};
  header.insert(header.end(), metrics.begin(), metrics.end());
  for (const char* h :
       {"probing_rebalance", "probing_after_ms", "assign_ms_median", "assign_ms_min", "assign_ms_max", "runs"})
    header.emplace_back(h);
  static const std::vector<std::string> kSimulationColumns = {"sim_converged",
                                                              "sim_stalled",
                                                              "sim_rounds",
                                                              "sim_active_moves",
                                                              "sim_warmups",
                                                              "sim_time_to_balanced_ms",
                                                              "sim_time_to_converged_ms",
                                                              "sim_restoring_task_ms",
                                                              "sim_under_replicated_task_ms",
                                                              "sim_replayed_offsets",
                                                              "sim_peak_restoring_copies",
                                                              "sim_max_rounds_reached",
                                                              "sim_followup_rounds",
                                                              "sim_error"};
  if (comparison.simulated) header.insert(header.end(), kSimulationColumns.begin(), kSimulationColumns.end());
  header.emplace_back("error");
  auto simulation_fields = [&](const CompareRow& row, std::vector<std::string>& f) {
    if (!comparison.simulated) return;
    auto opt = [](const auto& v) { return v ? fmt::format("{}", *v) : std::string(); };
    if (row.simulation) {
      const SimulationSummary& s = *row.simulation;
      for (const std::string& v :
           {std::string(s.converged ? "true" : "false"), std::string(s.stalled ? "true" : "false"),
            fmt::format("{}", s.rounds), fmt::format("{}", s.active_moves), fmt::format("{}", s.warmups),
            opt(s.time_to_balanced_ms), opt(s.time_to_converged_ms), opt(s.restoring_task_ms),
            fmt::format("{}", s.under_replicated_task_ms), fmt::format("{}", s.replayed_offsets),
            fmt::format("{}", s.peak_restoring_copies), std::string(s.max_rounds_reached ? "true" : "false"),
            fmt::format("{}", s.followup_rounds)})
        f.push_back(v);
    } else {
      for (std::size_t i = 0; i + 1 < kSimulationColumns.size(); ++i) f.emplace_back("");
    }
    f.push_back(row.simulation_error);
  };
  auto write_row = [](std::string& out, const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i) out += ',';
      out += csv_field(fields[i]);
    }
    out += '\n';
  };
  std::string out;
  write_row(out, header);
  for (const auto& s : comparison.scenarios) {
    for (const auto& row : s.rows) {
      std::vector<std::string> f{s.name, row.strategy, to_string(row.status), row.ran};
      if (row.status == CompareStatus::ok) {
        // Full precision here (machines read it): shortest text that reads back to the same double.
        const ordered_json values = row.metrics;
        for (const auto& name : metrics) f.push_back(values[name].is_null() ? "" : values[name].dump());
        f.push_back(row.probing_rebalance ? "true" : "false");
        f.push_back(fmt::format("{}", row.probing_after_ms));
        f.push_back(fmt::format("{}", nanosecond_ms(row.assign_ms.median)));
        f.push_back(fmt::format("{}", nanosecond_ms(row.assign_ms.min)));
        f.push_back(fmt::format("{}", nanosecond_ms(row.assign_ms.max)));
        f.push_back(fmt::format("{}", row.assign_ms.runs));
        simulation_fields(row, f);
        f.emplace_back("");
      } else {
        while (f.size() + 1 < header.size()) f.emplace_back("");
        f.push_back(failure_text(row));
      }
      write_row(out, f);
    }
  }
  return out;
}

std::vector<std::string> compare_metric_names() { return metric_names(); }

std::vector<std::string> check_chart_names(const std::vector<std::string>& names) {
  const std::vector<std::string> known = metric_names();
  std::vector<std::string> out;
  for (const auto& name : names) {
    if (name == "all") {
      out.insert(out.end(), known.begin(), known.end());
      continue;
    }
    if (std::find(known.begin(), known.end(), name) != known.end()) {
      out.push_back(name);
      continue;
    }
    std::string message = fmt::format("--chart: unknown metric '{}'", printable(name));
    if (const std::string near = nearest(name, known); !near.empty())
      message += fmt::format(" (did you mean '{}'?)", near);
    throw InputError(message + "; the metrics are: " + fmt::format("{}", fmt::join(known, ", ")) + ", or all");
  }
  return out;
}

std::string compare_html(const Comparison& comparison, const std::vector<std::string>& extra_charts) {
  HtmlReport page;
  page.title = "Assignor: strategy comparison";
  page.summary.push_back(fmt::format(
      "{} strateg{} on {} scenario{}; assign_ms is the median of {} run{}, whiskers "
      "from the fastest to the slowest run.",
      comparison.strategies.size(), comparison.strategies.size() == 1 ? "y" : "ies", comparison.scenarios.size(),
      comparison.scenarios.size() == 1 ? "" : "s", comparison.runs, comparison.runs == 1 ? "" : "s"));
  for (const auto& s : comparison.scenarios) page.summary.push_back(scenario_heading(s));
  for (const auto& line : compare_recommendation(comparison)) page.sections.push_back(Paragraph{line});
  if (!comparison.all_ok())
    page.summary.push_back("A \u00d7 marks a strategy that failed or returned an invalid assignment (see the table).");

  std::vector<std::string> groups;
  for (const auto& s : comparison.scenarios) groups.push_back(s.name);
  auto bars_of = [&](auto value_of, bool whiskers) {
    std::vector<std::vector<Bar>> bars;
    for (const auto& s : comparison.scenarios) {
      std::vector<Bar> group;
      for (const auto& row : s.rows) {
        Bar bar;
        if (row.status == CompareStatus::ok) {
          bar.value = value_of(row);
          if (whiskers) bar.low = row.assign_ms.min, bar.high = row.assign_ms.max;
        } else {
          bar.missing = to_string(row.status);
        }
        group.push_back(std::move(bar));
      }
      bars.push_back(std::move(group));
    }
    return bars;
  };
  for (const auto& spec : kCharts)
    page.sections.emplace_back(
        BarChart{spec.name, spec.description, spec.unit, groups, comparison.strategies, bars_of(spec.value, false)});
  std::vector<std::string> drawn;
  for (const auto& spec : kCharts) drawn.emplace_back(spec.name);
  for (const auto& name : extra_charts) {
    if (std::find(drawn.begin(), drawn.end(), name) != drawn.end()) continue;
    drawn.push_back(name);
    BarChart chart{name,
                   fmt::format("The {} metric of every run (docs/formats.md says what it measures); a "
                               "\u00d7 with \"not measured\" where the scenario does not have it.",
                               name),
                   "",
                   groups,
                   comparison.strategies,
                   bars_of([](const CompareRow&) { return 0.0; }, false)};
    for (std::size_t g = 0; g < comparison.scenarios.size(); ++g)
      for (std::size_t r = 0; r < comparison.scenarios[g].rows.size(); ++r) {
        const CompareRow& row = comparison.scenarios[g].rows[r];
        if (row.status != CompareStatus::ok) continue;
        const ordered_json value = nlohmann::ordered_json(row.metrics).value(name, ordered_json());
        Bar& bar = chart.bars[g][r];
        if (value.is_number())
          bar.value = value.get<double>();
        else
          bar.value.reset(), bar.missing = "not measured";
      }
    page.sections.emplace_back(std::move(chart));
  }
  if (comparison.simulated) {
    for (const auto& spec : kSimulationCharts) {
      BarChart chart{spec.name, spec.description,      spec.unit,
                     groups,    comparison.strategies, bars_of([](const CompareRow&) { return 0.0; }, false)};
      for (std::size_t g = 0; g < comparison.scenarios.size(); ++g)
        for (std::size_t r = 0; r < comparison.scenarios[g].rows.size(); ++r) {
          const CompareRow& row = comparison.scenarios[g].rows[r];
          Bar& bar = chart.bars[g][r];
          bar.missing = simulation_missing(row, spec);
          if (bar.missing.empty())
            bar.value = spec.value(row);
          else
            bar.value.reset();
        }
      page.sections.emplace_back(std::move(chart));
    }
  }
  page.sections.emplace_back(
      BarChart{"assign_ms",
               fmt::format("Time of the strategy call plus lag normalisation: median of {} run{}, whiskers min to max.",
                           comparison.runs, comparison.runs == 1 ? "" : "s"),
               "milliseconds", groups, comparison.strategies,
               bars_of([](const CompareRow& r) { return r.assign_ms.median; }, true)});

  HtmlTable table;
  table.caption = "Every figure";
  const std::vector<std::string> metrics = metric_names();
  table.header = {"scenario", "strategy", "status"};
  table.header.insert(table.header.end(), metrics.begin(), metrics.end());
  for (const char* h : {"probing", "assign_ms median", "min", "max", "notes"}) table.header.emplace_back(h);
  table.numeric.assign(table.header.size(), true);
  table.numeric[0] = table.numeric[1] = table.numeric[2] = false;
  table.numeric[table.header.size() - 5] = table.numeric[table.header.size() - 1] = false;
  for (const auto& s : comparison.scenarios) {
    for (const auto& row : s.rows) {
      std::vector<std::string> cells{s.name, row.strategy, to_string(row.status)};
      std::string notes;
      for (const auto& n : row.notes) notes += (notes.empty() ? "" : "; ") + n;
      if (row.status == CompareStatus::ok) {
        const ordered_json values = row.metrics;
        for (const auto& name : metrics) cells.push_back(metric_text(values[name], "n/a"));
        cells.push_back(row.probing_rebalance ? "yes" : "no");
        cells.push_back(ms_text(row.assign_ms.median));
        cells.push_back(ms_text(row.assign_ms.min));
        cells.push_back(ms_text(row.assign_ms.max));
      } else {
        while (cells.size() + 1 < table.header.size()) cells.emplace_back("-");
        notes = failure_text(row) + (notes.empty() ? "" : "; " + notes);
      }
      cells.push_back(notes);
      table.rows.push_back(std::move(cells));
      table.flagged.push_back(row.status != CompareStatus::ok);
    }
  }
  page.sections.emplace_back(std::move(table));
  return render_html(page);
}

}  // namespace assignor::host
