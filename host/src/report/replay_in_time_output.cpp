// What `assignor replay --in-time` shows (DESIGN 4.10): the real path and each simulated run side
// by side, as a table, JSON (the design's keys), CSV and an HTML report with a time axis.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/report/report_html.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/tools/replay.hpp"
#include "text_table.hpp"

namespace assignor::host {

namespace {

using ordered_json = nlohmann::ordered_json;
using namespace detail;

std::string run_name(const InTimeRun& run) { return run.calibration ? run.strategy + " (calibration)" : run.strategy; }

std::string outcome(const InTimeRun& run) {
  if (!run.error.empty()) return "failed";
  if (run.summary.converged) return "converged";
  if (run.summary.stalled) return "stalled";
  return "not converged";
}

// "+12% (27 vs 24)": how far a simulated figure is from the real one.
std::optional<double> relative_error(double simulated, double real) {
  if (real == 0) return std::nullopt;
  return (simulated - real) / real;
}

std::string percent(std::optional<double> e) {
  if (!e) return "n/a";
  return fmt::format("{:+.1f}%", *e * 100);
}

const InTimeRun* calibration_run(const InTimeReplay& r) {
  for (const auto& run : r.runs)
    if (run.calibration) return &run;
  return nullptr;
}

ordered_json optional_ms(const std::optional<std::int64_t>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

std::string duration_or_dash(const std::optional<std::int64_t>& ms) { return ms ? format_duration_ms(*ms) : "-"; }

// The calibration errors: (rebalances, time to converged), simulated against real.
std::pair<std::optional<double>, std::optional<double>> calibration_errors(const InTimeReplay& r) {
  const InTimeRun* c = calibration_run(r);
  if (c == nullptr || !c->error.empty()) return {};
  const RealTimeline& t = r.timeline;
  std::optional<double> time;
  if (t.time_to_converged_ms && c->time_to_converged_ms)
    time = relative_error(static_cast<double>(*c->time_to_converged_ms), static_cast<double>(*t.time_to_converged_ms));
  return {relative_error(static_cast<double>(c->summary.rounds), static_cast<double>(t.rebalances_to_converged)), time};
}

}  // namespace

std::vector<std::string> in_time_chart_names() { return {"paths", "rebalances_so_far", "active_moves_so_far"}; }

nlohmann::ordered_json in_time_json(const InTimeReplay& r) {
  const RealTimeline& t = r.timeline;
  ordered_json timeline;
  timeline["from"] = t.from;
  timeline["from_timestamp"] = t.from_timestamp;
  timeline["rebalances"] = t.rebalances_to_converged;
  timeline["time_to_converged_ms"] = optional_ms(t.time_to_converged_ms);
  timeline["converged"] = t.converged_index.has_value();
  timeline["converged_at"] =
      t.converged_index ? ordered_json(t.rebalances[*t.converged_index].name) : ordered_json(nullptr);
  timeline["rebalances_logged"] = t.rebalances.size();
  timeline["active_moves"] = t.active_moves;
  timeline["warmups"] = t.warmups;
  ordered_json causes = ordered_json::object();
  for (const auto& rb : t.rebalances) causes[rb.cause] = causes.value(rb.cause, 0) + 1;
  timeline["causes"] = std::move(causes);
  ordered_json events = ordered_json::array();
  for (const auto& e : t.events) {
    static constexpr const char* kKinds[] = {"join", "leave", "back", "restart"};
    ordered_json j;
    j["at_ms"] = e.at_ms;
    j["rebalance"] = e.rebalance;
    j["kind"] = kKinds[static_cast<int>(e.kind)];
    j["client"] = e.client;
    if (e.kind == TimelineEvent::Kind::join || e.kind == TimelineEvent::Kind::back) j["threads"] = e.threads;
    if (e.replaces) j["replaces"] = *e.replaces;
    if (e.kind == TimelineEvent::Kind::back) j["gone_ms"] = e.gone_ms;
    events.push_back(std::move(j));
  }
  timeline["events"] = std::move(events);
  const TimelineSettings& s = t.settings;
  ordered_json settings;
  settings["from"] = s.from;
  settings["assumed"] = s.assumed;
  settings["acceptable_recovery_lag"] = s.config.settings.acceptable_recovery_lag;
  settings["max_warmup_replicas"] = s.config.settings.max_warmup_replicas;
  settings["num_standby_replicas"] = s.config.settings.num_standby_replicas;
  settings["probing_rebalance_interval_ms"] = s.config.settings.probing_rebalance_interval_ms;
  settings["rebalance_ms"] = s.rebalance_ms;
  settings["rebalance_ms_measured"] = s.rebalance_ms_measured;
  settings["restore_rate"] = s.restore_rate > 0 ? ordered_json(s.restore_rate) : ordered_json(nullptr);
  settings["restore_rate_measured"] = s.restore_rate_measured;
  settings["client_restore_rates"] = s.client_rates;
  settings["notes"] = s.notes;
  timeline["settings"] = std::move(settings);
  timeline["path"] = r.real_path;

  ordered_json runs = ordered_json::array();
  for (const auto& run : r.runs) {
    ordered_json j;
    j["strategy"] = run.strategy;
    j["calibration"] = run.calibration;
    j["rebalances"] = run.summary.rounds;
    j["time_to_converged_ms"] = optional_ms(run.time_to_converged_ms);
    j["restoring_task_ms"] = optional_ms(run.summary.restoring_task_ms);
    j["under_replicated_task_ms"] = run.summary.under_replicated_task_ms;
    j["active_moves"] = run.summary.active_moves;
    j["replayed_offsets"] = run.summary.replayed_offsets;
    if (run.calibration) {
      j["decisions_equal"] = run.decisions_equal;
      j["decisions_compared"] = run.decisions_compared;
    }
    j["outcome"] = outcome(run);
    j["warmups"] = run.summary.warmups;
    j["followup_rebalances"] = run.summary.followup_rounds;
    j["probing_rebalances"] = run.summary.probing_rounds;
    j["error"] = run.error.empty() ? ordered_json(nullptr) : ordered_json(run.error);
    j["path"] = run.path;
    runs.push_back(std::move(j));
  }
  ordered_json out;
  out["timeline"] = std::move(timeline);
  out["runs"] = std::move(runs);
  const auto [rebalance_error, time_error] = calibration_errors(r);
  out["calibration_error"] = {{"rebalances", rebalance_error ? ordered_json(*rebalance_error) : ordered_json(nullptr)},
                              {"time_to_converged", time_error ? ordered_json(*time_error) : ordered_json(nullptr)}};
  out["kafka_assignor"] = r.kafka_assignor;
  out["settings_assumed"] = t.settings.assumed;
  return out;
}

std::string in_time_table(const InTimeReplay& r) {
  const RealTimeline& t = r.timeline;
  std::string out =
      fmt::format("replay in time from {} ({}): {} rebalance{} logged from there; Kafka ran {}\n", t.from,
                  t.from_timestamp, t.rebalances.size(), t.rebalances.size() == 1 ? "" : "s", r.kafka_assignor);
  for (const auto& note : t.settings.notes) out += "  " + printable(note) + "\n";
  if (t.settings.assumed)
    out +=
        "  (the calibration and every run below are computed under these assumed settings: give the import "
        "--streams-config to be sure)\n";
  out += "\nevents:\n";
  if (t.events.empty()) out += "  none\n";
  for (const auto& e : t.events)
    out += fmt::format("  +{:<9} {}  {}\n", format_duration_ms(e.at_ms), e.rebalance, printable(describe(e)));
  out += "\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"path", "outcome", "rebalances", "converged after", "active moves", "warmups", "follow-ups",
                  "restoring task-time", "under-replicated", "replayed offsets", "same decisions"});
  std::size_t followups = 0;
  for (std::size_t i = 0; i < t.rebalances_to_converged && i < t.rebalances.size(); ++i)
    followups += t.rebalances[i].cause == "follow-up" ? 1 : 0;
  rows.push_back({"real (the log)", t.converged_index ? "converged" : "not converged",
                  std::to_string(t.rebalances_to_converged), duration_or_dash(t.time_to_converged_ms),
                  std::to_string(t.active_moves), std::to_string(t.warmups), std::to_string(followups), "-", "-", "-",
                  "-"});
  for (const auto& run : r.runs) {
    if (!run.error.empty()) {
      rows.push_back(
          {run_name(run), "FAILED", std::to_string(run.path.size()), "-", "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    const SimulationSummary& s = run.summary;
    rows.push_back({run_name(run), outcome(run), std::to_string(s.rounds), duration_or_dash(run.time_to_converged_ms),
                    std::to_string(s.active_moves), std::to_string(s.warmups), std::to_string(s.followup_rounds),
                    s.restoring_task_ms ? format_duration_ms(*s.restoring_task_ms) : "-",
                    format_duration_ms(s.under_replicated_task_ms),
                    format_number(static_cast<double>(s.replayed_offsets), true),
                    run.calibration ? fmt::format("{}/{}", run.decisions_equal, run.decisions_compared) : "-"});
  }
  out += aligned_rows(rows, {false, false, true, true, true, true, true, true, true, true, true}, "  ");
  const auto [rebalance_error, time_error] = calibration_errors(r);
  if (const InTimeRun* c = calibration_run(r)) {
    if (c->error.empty())
      out += fmt::format(
          "\ncalibration ({} on the real timeline): rebalances {} ({} vs {} logged), time to converged "
          "{} ({} vs {}); {} of its {} decisions equal Kafka's\n",
          c->strategy, percent(rebalance_error), c->summary.rounds, t.rebalances_to_converged, percent(time_error),
          duration_or_dash(c->time_to_converged_ms), duration_or_dash(t.time_to_converged_ms), c->decisions_equal,
          c->decisions_compared);
    else
      out += fmt::format("\ncalibration ({}): failed: {}\n", c->strategy, printable(c->error));
  }
  for (const auto& run : r.runs)
    if (!run.error.empty() && !run.calibration)
      out += fmt::format("{} failed: {}\n", run.strategy, printable(run.error));
  return out;
}

std::string in_time_csv(const InTimeReplay& r) {
  std::string out =
      "path,strategy,calibration,outcome,rebalances,time_to_converged_ms,active_moves,warmups,restoring_task_ms,"
      "under_replicated_task_ms,replayed_offsets,decisions_equal,decisions_compared,error\n";
  auto line = [&](const std::vector<std::string>& f) {
    for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + csv_field(f[i]);
    out += "\n";
  };
  const RealTimeline& t = r.timeline;
  auto ms = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); };
  line({"real", "", "", t.converged_index ? "converged" : "not converged", std::to_string(t.rebalances_to_converged),
        ms(t.time_to_converged_ms), std::to_string(t.active_moves), std::to_string(t.warmups), "", "", "", "", "", ""});
  for (const auto& run : r.runs) {
    const SimulationSummary& s = run.summary;
    line({"simulated", run.strategy, run.calibration ? "true" : "false", outcome(run), std::to_string(s.rounds),
          ms(run.time_to_converged_ms), std::to_string(s.active_moves), std::to_string(s.warmups),
          ms(s.restoring_task_ms), std::to_string(s.under_replicated_task_ms), std::to_string(s.replayed_offsets),
          run.calibration ? std::to_string(run.decisions_equal) : "",
          run.calibration ? std::to_string(run.decisions_compared) : "", run.error});
  }
  return out;
}

std::string in_time_html(const InTimeReplay& r) {
  const RealTimeline& t = r.timeline;
  HtmlReport page;
  page.title = "Replay in time of a real group";
  page.summary.push_back(fmt::format("From {} ({}), {} rebalances logged from there; Kafka ran {}", t.from,
                                     t.from_timestamp, t.rebalances.size(), r.kafka_assignor));
  const auto [rebalance_error, time_error] = calibration_errors(r);
  if (const InTimeRun* c = calibration_run(r); c != nullptr && c->error.empty())
    page.summary.push_back(
        fmt::format("Calibration ({} on the real timeline): rebalances {} ({} vs {}), time to converged {} ({} vs {}); "
                    "{}/{} decisions "
                    "equal Kafka's",
                    c->strategy, percent(rebalance_error), c->summary.rounds, t.rebalances_to_converged,
                    percent(time_error), duration_or_dash(c->time_to_converged_ms),
                    duration_or_dash(t.time_to_converged_ms), c->decisions_equal, c->decisions_compared));
  for (const auto& note : t.settings.notes) page.summary.push_back(note);
  if (t.settings.assumed)
    page.summary.push_back(
        "Every run is computed under these assumed settings: import with --streams-config to be sure.");

  // Minutes on every axis when the paths are long, else seconds.
  std::int64_t longest = 1;
  for (const auto& s : r.real_path) longest = std::max(longest, s.at_ms);
  for (const auto& run : r.runs)
    for (const auto& s : run.path) longest = std::max(longest, s.at_ms);
  const bool minutes = longest > 20 * 60 * 1000;
  const double unit = minutes ? 60000.0 : 1000.0;
  const std::string x_label = fmt::format("{} since {}", minutes ? "minutes" : "seconds", t.from);

  TimelineChart lanes;
  lanes.title = "paths";
  lanes.description =
      "Every rebalance of the real path and of each simulated run on one time axis; the shape says why "
      "it happened, the green bar where the path converged.";
  lanes.x_label = x_label;
  auto lane_of = [&](const std::string& name, const std::vector<InTimeStep>& path,
                     std::optional<std::int64_t> converged, std::size_t shown, const std::string& note) {
    TimelineLane lane;
    lane.name = name;
    lane.note = note;
    for (std::size_t i = 0; i < path.size() && i < shown; ++i) {
      const InTimeStep& s = path[i];
      std::string label = fmt::format("{} rebalance {} at +{}: {}", name, i + 1, format_duration_ms(s.at_ms), s.cause);
      if (s.revoked) label += fmt::format(", {} revoked", s.revoked);
      if (s.probing) label += ", asks for probing";
      for (const auto& e : s.events) label += "; " + e;
      lane.marks.push_back({static_cast<double>(s.at_ms) / unit, s.cause, label});
    }
    if (converged) lane.converged = static_cast<double>(*converged) / unit;
    return lane;
  };
  lanes.lanes.push_back(
      lane_of("real (the log)", r.real_path, t.time_to_converged_ms, r.real_path.size(),
              fmt::format("{} rebalances, {}", t.rebalances_to_converged, duration_or_dash(t.time_to_converged_ms))));
  for (const auto& run : r.runs)
    lanes.lanes.push_back(lane_of(run_name(run), run.path, run.time_to_converged_ms, run.path.size(),
                                  run.error.empty() ? fmt::format("{} rebalances, {}", run.summary.rounds,
                                                                  duration_or_dash(run.time_to_converged_ms))
                                                    : "failed"));
  page.sections.push_back(std::move(lanes));

  // Cumulative figures against time, every path on one axis (the union of their times).
  std::set<std::int64_t> times;
  for (const auto& s : r.real_path) times.insert(s.at_ms);
  for (const auto& run : r.runs)
    for (const auto& s : run.path) times.insert(s.at_ms);
  auto cumulative = [&](const char* title, const char* description, const char* y_label,
                        std::uint64_t (*figure)(const InTimeStep&)) {
    LineChart chart;
    chart.title = title;
    chart.description = description;
    chart.x_label = x_label;
    chart.y_label = y_label;
    for (std::int64_t at : times) chart.x.push_back(static_cast<double>(at) / unit);
    auto series = [&](const std::string& name, const std::vector<InTimeStep>& path) {
      LineSeries line{name, {}};
      std::size_t i = 0;
      std::uint64_t total = 0;
      const std::int64_t end = path.empty() ? 0 : path.back().at_ms;
      for (std::int64_t at : times) {
        while (i < path.size() && path[i].at_ms <= at) total += figure(path[i++]);
        line.values.push_back(at <= end ? std::optional<double>(static_cast<double>(total)) : std::nullopt);
      }
      chart.lines.push_back(std::move(line));
    };
    series("real (the log)", r.real_path);
    for (const auto& run : r.runs) series(run_name(run), run.path);
    page.sections.push_back(std::move(chart));
  };
  cumulative("rebalances_so_far", "Rebalances since the start of each path", "rebalances",
             [](const InTimeStep&) -> std::uint64_t { return 1; });
  cumulative("active_moves_so_far", "Active tasks moved since the start of each path", "active moves",
             [](const InTimeStep& s) { return s.active_moves; });

  HtmlTable table;
  table.caption = "Each path to converged";
  table.header = {"path",
                  "outcome",
                  "rebalances",
                  "converged after",
                  "active moves",
                  "warmups",
                  "restoring task-time",
                  "under-replicated task-time",
                  "replayed offsets",
                  "decisions equal Kafka's"};
  table.numeric = {false, false, true, true, true, true, true, true, true, true};
  table.rows.push_back({"real (the log)", t.converged_index ? "converged" : "not converged",
                        std::to_string(t.rebalances_to_converged), duration_or_dash(t.time_to_converged_ms),
                        std::to_string(t.active_moves), std::to_string(t.warmups), "-", "-", "-", "-"});
  table.flagged.push_back(false);
  for (const auto& run : r.runs) {
    const SimulationSummary& s = run.summary;
    table.rows.push_back(
        {run_name(run), outcome(run), std::to_string(s.rounds), duration_or_dash(run.time_to_converged_ms),
         std::to_string(s.active_moves), std::to_string(s.warmups),
         s.restoring_task_ms ? format_duration_ms(*s.restoring_task_ms) : "-",
         format_duration_ms(s.under_replicated_task_ms), format_number(static_cast<double>(s.replayed_offsets), true),
         run.calibration ? fmt::format("{}/{}", run.decisions_equal, run.decisions_compared) : "-"});
    table.flagged.push_back(!run.error.empty());
  }
  page.sections.push_back(std::move(table));

  HtmlTable events;
  events.caption = "Events on the real timeline (each at the rebalance that first showed it)";
  events.header = {"at", "rebalance", "event"};
  for (const auto& e : t.events) events.rows.push_back({"+" + format_duration_ms(e.at_ms), e.rebalance, describe(e)});
  if (!events.rows.empty()) page.sections.push_back(std::move(events));
  return render_html(page);
}

}  // namespace assignor::host
