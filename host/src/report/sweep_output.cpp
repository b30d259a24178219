// What `assignor sweep` shows: the recommendation first, then a table, CSV, JSON and an HTML report
// with each figure charted against the varied value.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "assignor/host/report/recommend.hpp"
#include "assignor/host/report/report_html.hpp"
#include "assignor/host/report/sweep_output.hpp"
#include "assignor/host/support/printable.hpp"
#include "text_table.hpp"

namespace assignor::host {

namespace {

using namespace detail;
constexpr double kNever = std::numeric_limits<double>::infinity();

std::string combo_label(const Sweep& s, std::size_t c) {
  std::string out;
  for (std::size_t k = 0; k < s.keys.size(); ++k)
    out += fmt::format("{}{}={}", k ? ", " : "", s.keys[k], s.combinations[c][k]);
  return out.empty() ? "the config" : out;
}

// The three costs the recommendation weighs (DESIGN 4.8), in ms; a run that did not converge (or
// failed) is infinitely slow, and so is everything about it.
std::vector<double> costs(const SweepRun& r) {
  if (!r.summary || !r.summary->converged || !r.summary->time_to_converged_ms) return {kNever, kNever, kNever};
  const auto& s = *r.summary;
  return {static_cast<double>(*s.time_to_converged_ms), static_cast<double>(s.restoring_task_ms.value_or(0)),
          static_cast<double>(s.under_replicated_task_ms)};
}

std::string front_text(const std::string& where, const std::vector<Candidate>& candidates) {
  return recommendation_line(where, candidates, describe_simulation_costs);
}

std::string outcome(const SweepRun& r) {
  if (!r.summary) return "FAILED";
  return r.summary->converged ? "converged" : r.summary->stalled ? "stalled" : "round limit";
}

// A run's first cells in the table and the report: its scenario, its combination's values, its outcome.
std::vector<std::string> run_cells(const Sweep& s, const SweepRun& r) {
  std::vector<std::string> cells{s.scenarios[r.scenario]};
  cells.insert(cells.end(), s.combinations[r.combination].begin(), s.combinations[r.combination].end());
  cells.push_back(outcome(r));
  return cells;
}

std::string duration(const std::optional<std::int64_t>& ms, const char* none) {
  return ms ? format_duration_ms(*ms) : none;
}

bool numeric(const std::vector<std::string>& values) {
  return std::all_of(values.begin(), values.end(), [](const std::string& v) {
    char* end = nullptr;
    std::strtod(v.c_str(), &end);
    return !v.empty() && end == v.c_str() + v.size();
  });
}

}  // namespace

std::vector<std::string> sweep_recommendation(const Sweep& s) {
  std::vector<std::string> out;
  const std::size_t n = s.scenarios.size();
  std::vector<Candidate> overall(s.combinations.size());
  for (std::size_t c = 0; c < s.combinations.size(); ++c) overall[c] = {combo_label(s, c), {0, 0, 0}};
  for (std::size_t si = 0; si < n; ++si) {
    std::vector<Candidate> candidates;
    for (const auto& r : s.runs) {
      if (r.scenario != si) continue;
      candidates.push_back({combo_label(s, r.combination), costs(r)});
      for (std::size_t k = 0; k < 3; ++k) overall[r.combination].costs[k] += candidates.back().costs[k];
    }
    out.push_back(front_text("recommended for " + s.scenarios[si], candidates));
  }
  if (n > 1) out.push_back(front_text("recommended over all scenarios", overall));
  return out;
}

nlohmann::ordered_json sweep_output_json(const Sweep& s) {
  nlohmann::ordered_json out = sweep_json(s);
  if (!s.shard) out["recommendation"] = sweep_recommendation(s);
  return out;
}

std::string sweep_table(const Sweep& s) {
  std::string out;
  for (const auto& line : sweep_recommendation(s)) out += printable(line) + "\n";
  out += "\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"scenario"};
  for (const auto& k : s.keys) head.push_back(k);
  for (const char* h : {"outcome", "rounds", "balanced after", "converged after", "restoring", "under-replicated",
                        "active moves", "replayed offsets"})
    head.emplace_back(h);
  rows.push_back(head);
  std::vector<bool> right(head.size(), false);
  for (std::size_t i = 1 + s.keys.size() + 1; i < head.size(); ++i) right[i] = true;
  for (const auto& r : s.runs) {
    std::vector<std::string> row = run_cells(s, r);
    if (r.summary) {
      const auto& x = *r.summary;
      for (const std::string& v : {fmt::format("{}", x.rounds), duration(x.time_to_balanced_ms, "never"),
                                   duration(x.time_to_converged_ms, "-"), duration(x.restoring_task_ms, "n/a"),
                                   format_duration_ms(x.under_replicated_task_ms), fmt::format("{}", x.active_moves),
                                   format_number(static_cast<double>(x.replayed_offsets), true)})
        row.push_back(v);
    } else {
      while (row.size() < head.size()) row.emplace_back("-");
    }
    rows.push_back(std::move(row));
  }
  out += aligned_rows(rows, right);
  for (const auto& r : s.runs)
    if (!r.error.empty())
      out += fmt::format("{} on {}: failed: {}\n", combo_label(s, r.combination), s.scenarios[r.scenario],
                         printable(r.error));
  return out;
}

std::string sweep_csv(const Sweep& s) {
  std::vector<std::string> head{"scenario"};
  for (const auto& k : s.keys) head.push_back(k);
  for (const char* h : {"converged", "stalled", "max_rounds_reached", "rounds", "time_to_balanced_ms",
                        "time_to_converged_ms", "restoring_task_ms", "under_replicated_task_ms", "replayed_offsets",
                        "peak_restoring_copies", "active_moves", "warmups", "error"})
    head.emplace_back(h);
  std::string out;
  auto write = [&](const std::vector<std::string>& f) {
    for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + csv_field(f[i]);
    out += "\n";
  };
  write(head);
  auto opt = [](const auto& v) { return v ? fmt::format("{}", *v) : std::string(); };
  for (const auto& r : s.runs) {
    std::vector<std::string> f{s.scenarios[r.scenario]};
    for (const auto& v : s.combinations[r.combination]) f.push_back(v);
    if (r.summary) {
      const auto& x = *r.summary;
      for (const std::string& v :
           {std::string(x.converged ? "true" : "false"), std::string(x.stalled ? "true" : "false"),
            std::string(x.max_rounds_reached ? "true" : "false"), fmt::format("{}", x.rounds),
            opt(x.time_to_balanced_ms), opt(x.time_to_converged_ms), opt(x.restoring_task_ms),
            fmt::format("{}", x.under_replicated_task_ms), fmt::format("{}", x.replayed_offsets),
            fmt::format("{}", x.peak_restoring_copies), fmt::format("{}", x.active_moves),
            fmt::format("{}", x.warmups)})
        f.push_back(v);
    } else {
      f.resize(f.size() + 12);
    }
    f.push_back(r.error);
    write(f);
  }
  return out;
}

std::string sweep_html(const Sweep& s) {
  HtmlReport page;
  page.title = "Sweep";
  page.summary.push_back(
      fmt::format("{} combination{} x {} scenario{} ({})", s.combinations.size(), s.combinations.size() == 1 ? "" : "s",
                  s.scenarios.size(), s.scenarios.size() == 1 ? "" : "s",
                  s.keys.empty() ? std::string("no --vary") : fmt::format("varied: {}", fmt::join(s.keys, ", "))));
  for (const auto& line : sweep_recommendation(s)) page.sections.push_back(Paragraph{line});
  page.sections.push_back(Paragraph{
      "A combination is recommended when no other converges sooner, with less restoring and less under-replicated "
      "task-time, all at once; a run that never converged counts as infinitely slow."});
  // The axis charted along x: the first numeric one that is not `strategy`; the others make the lines.
  std::optional<std::size_t> x_axis;
  for (std::size_t k = 0; k < s.keys.size() && !x_axis; ++k) {
    std::set<std::string> values;
    for (const auto& c : s.combinations) values.insert(c[k]);
    std::vector<std::string> v(values.begin(), values.end());
    if (s.keys[k] != "strategy" && numeric(v)) x_axis = k;
  }
  struct Figure {
    const char* name;
    const char* unit;
    std::optional<double> (*get)(const SimulationSummary&);
  };
  const Figure figures[] = {
      {"hours to converged", "hours",
       [](const SimulationSummary& x) -> std::optional<double> {
         if (!x.converged || !x.time_to_converged_ms) return std::nullopt;
         return static_cast<double>(*x.time_to_converged_ms) / 3.6e6;
       }},
      {"restoring task-hours", "task-hours",
       [](const SimulationSummary& x) -> std::optional<double> {
         return static_cast<double>(x.restoring_task_ms.value_or(0)) / 3.6e6;
       }},
      {"under-replicated task-hours", "task-hours",
       [](const SimulationSummary& x) -> std::optional<double> {
         return static_cast<double>(x.under_replicated_task_ms) / 3.6e6;
       }},
      {"active moves", "tasks",
       [](const SimulationSummary& x) -> std::optional<double> { return static_cast<double>(x.active_moves); }},
      {"replayed offsets", "offsets",
       [](const SimulationSummary& x) -> std::optional<double> { return static_cast<double>(x.replayed_offsets); }},
  };
  for (std::size_t si = 0; si < s.scenarios.size(); ++si) {
    for (const Figure& f : figures) {
      if (x_axis) {
        LineChart chart;
        chart.title = fmt::format("{}: {}", s.scenarios[si], f.name);
        chart.description = fmt::format("{} against {} (a gap: did not converge)", f.name, s.keys[*x_axis]);
        chart.x_label = s.keys[*x_axis];
        chart.y_label = f.unit;
        std::vector<std::string> xs;
        for (const auto& c : s.combinations)
          if (std::find(xs.begin(), xs.end(), c[*x_axis]) == xs.end()) xs.push_back(c[*x_axis]);
        std::sort(xs.begin(), xs.end(),
                  [](const std::string& a, const std::string& b) { return std::stod(a) < std::stod(b); });
        for (const auto& v : xs) chart.x.push_back(std::stod(v));
        // One line per combination of the other axes.
        std::vector<std::string> line_labels;
        for (const auto& r : s.runs) {
          if (r.scenario != si) continue;
          std::string other;
          for (std::size_t k = 0; k < s.keys.size(); ++k)
            if (k != *x_axis)
              other += fmt::format("{}{}={}", other.empty() ? "" : ", ", s.keys[k], s.combinations[r.combination][k]);
          if (other.empty()) other = f.name;
          auto it = std::find(line_labels.begin(), line_labels.end(), other);
          if (it == line_labels.end()) {
            line_labels.push_back(other);
            chart.lines.push_back({other, std::vector<std::optional<double>>(xs.size())});
            it = line_labels.end() - 1;
          }
          const auto xi = static_cast<std::size_t>(
              std::find(xs.begin(), xs.end(), s.combinations[r.combination][*x_axis]) - xs.begin());
          chart.lines[static_cast<std::size_t>(it - line_labels.begin())].values[xi] =
              r.summary ? f.get(*r.summary) : std::nullopt;
        }
        page.sections.push_back(std::move(chart));
      } else {
        BarChart chart;
        chart.title = fmt::format("{}: {}", s.scenarios[si], f.name);
        chart.description = f.name;
        chart.unit = f.unit;
        chart.groups = {s.scenarios[si]};
        std::vector<Bar> bars;
        for (const auto& r : s.runs) {
          if (r.scenario != si) continue;
          chart.series.push_back(combo_label(s, r.combination));
          Bar b;
          b.value = r.summary ? f.get(*r.summary) : std::nullopt;
          if (!b.value) b.missing = r.summary ? "not converged" : "failed";
          bars.push_back(b);
        }
        chart.bars.push_back(std::move(bars));
        page.sections.push_back(std::move(chart));
      }
    }
  }
  HtmlTable table;
  table.caption = "Every run";
  table.header = {"scenario"};
  for (const auto& k : s.keys) table.header.push_back(k);
  for (const char* h : {"outcome", "rounds", "converged after", "restoring", "under-replicated", "active moves"})
    table.header.emplace_back(h);
  for (const auto& r : s.runs) {
    std::vector<std::string> row = run_cells(s, r);
    if (r.summary) {
      const auto& x = *r.summary;
      for (const std::string& v :
           {fmt::format("{}", x.rounds), duration(x.time_to_converged_ms, "-"), duration(x.restoring_task_ms, "n/a"),
            format_duration_ms(x.under_replicated_task_ms), fmt::format("{}", x.active_moves)})
        row.push_back(v);
    }
    while (row.size() < table.header.size()) row.emplace_back("-");
    table.flagged.push_back(!r.summary);
    table.rows.push_back(std::move(row));
  }
  page.sections.push_back(std::move(table));
  return render_html(page);
}

}  // namespace assignor::host
