// What `assignor replay` shows: a table, JSON, CSV and an HTML report with a timeline.
#include <fmt/format.h>

#include <algorithm>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/report/replay_output.hpp"
#include "assignor/host/report/report_html.hpp"
#include "assignor/host/support/printable.hpp"
#include "text_table.hpp"

namespace assignor::host {

namespace {

using ordered_json = nlohmann::ordered_json;
using namespace detail;

// The metrics the table shows (every metric is in JSON and CSV).
const std::vector<std::string> kTableMetrics = {"active_moves",      "restoring_actives",  "warmups",
                                                "standby_shortfall", "active_load_spread", "restore_offsets"};

constexpr const char* kKafka = "kafka (logged)";

std::size_t same_count(const Replay& r, std::size_t s) {
  std::size_t n = 0;
  for (const auto& rb : r.rebalances) n += rb.runs[s].ok && rb.runs[s].same_as_kafka ? 1 : 0;
  return n;
}

// x of the timeline: hours since the first rebalance when every one has a time, else its number.
std::pair<std::vector<double>, std::string> timeline_x(const Replay& r) {
  std::vector<double> x;
  const bool timed = !r.rebalances.empty() && std::all_of(r.rebalances.begin(), r.rebalances.end(),
                                                          [](const auto& rb) { return rb.entry.time_ms.has_value(); });
  for (std::size_t i = 0; i < r.rebalances.size(); ++i)
    x.push_back(timed ? static_cast<double>(*r.rebalances[i].entry.time_ms - *r.rebalances[0].entry.time_ms) / 3.6e6
                      : static_cast<double>(i + 1));
  return {x, timed ? "hours since the first rebalance (" + r.rebalances[0].entry.timestamp + ")" : "rebalance"};
}

}  // namespace

std::vector<std::string> replay_agreement(const Replay& r) {
  std::vector<std::string> out;
  const std::size_t n = r.rebalances.size();
  for (std::size_t s = 0; s < r.strategies.size(); ++s) {
    const std::string& name = r.strategies[s];
    const std::size_t same = same_count(r, s);
    std::string line = fmt::format("{} gave Kafka's decision at {}/{} of your rebalances", name, same, n);
    if (is_kafka_named_for(name, r.kafka_assignor))
      line += fmt::format(" (it carries the name of the assignor Kafka ran, {})", r.kafka_assignor);
    out.push_back(std::move(line));
  }
  return out;
}

std::optional<std::string> replay_assumed_settings(const Replay& r) {
  if (r.assumed_settings.empty()) return std::nullopt;
  return fmt::format(
      "agreement computed under assumed settings: Kafka's defaults stood in for the application's at "
      "{}/{} rebalances (the log has no StreamsConfig dump and no --streams-config was given); import "
      "with --streams-config to be sure",
      r.assumed_settings.size(), r.rebalances.size());
}

std::string replay_table(const Replay& r) {
  std::string out;
  if (!r.rebalances.empty())
    out += fmt::format("replay of {} rebalance{} ({} to {}); Kafka ran {}\n\n", r.rebalances.size(),
                       r.rebalances.size() == 1 ? "" : "s", r.rebalances.front().entry.timestamp,
                       r.rebalances.back().entry.timestamp, r.kafka_assignor);
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right{false, false, true, true, false};
  std::vector<std::string> top{"", "", "", "", ""}, bottom{"rebalance", "timestamp", "clients", "tasks", "strategy"};
  for (const auto& m : kTableMetrics) {
    const Column c = metric_column(m);
    top.push_back(c.top);
    bottom.push_back(c.bottom);
    right.push_back(true);
  }
  for (const char* extra : {"probing", "same as"}) {
    top.push_back(std::string(extra) == "same as" ? "same as" : "");
    bottom.push_back(std::string(extra) == "same as" ? "Kafka" : extra);
    right.push_back(false);
  }
  rows.push_back(top);
  rows.push_back(bottom);
  auto cells = [&](const Metrics& m) {
    std::vector<std::string> c;
    const ordered_json j = m;
    for (const auto& name : kTableMetrics) c.push_back(metric_text(j[name], "n/a"));
    return c;
  };
  for (const auto& rb : r.rebalances) {
    std::vector<std::string> row{rb.entry.name, rb.entry.timestamp, std::to_string(rb.entry.clients),
                                 std::to_string(rb.entry.tasks), kKafka};
    for (auto& c : cells(rb.kafka)) row.push_back(std::move(c));
    row.push_back(rb.kafka_probing ? "yes" : "no");
    row.push_back("");
    rows.push_back(std::move(row));
    for (const auto& run : rb.runs) {
      std::vector<std::string> line{"", "", "", "", run.strategy};
      if (!run.ok) {
        for (std::size_t i = 0; i < kTableMetrics.size(); ++i) line.push_back("-");
        line.push_back("-");
        line.push_back("FAILED");
      } else {
        for (auto& c : cells(run.metrics)) line.push_back(std::move(c));
        line.push_back(run.probing ? "yes" : "no");
        line.push_back(run.same_as_kafka ? "yes" : "no");
      }
      rows.push_back(std::move(line));
    }
  }
  out += aligned_rows(rows, right);

  // Totals over the replay, Kafka first.
  out += "\ntotals over every rebalance:\n";
  std::vector<std::vector<std::string>> totals;
  std::vector<bool> tright{false};
  std::vector<std::string> head{"strategy"};
  for (const char* m : {"active_moves", "restoring_actives", "warmups", "restore_offsets"}) {
    head.push_back(m);
    tright.push_back(true);
  }
  head.push_back("same as Kafka");
  tright.push_back(true);
  totals.push_back(head);
  auto sum = [&](auto get) {
    std::vector<std::uint64_t> s(r.strategies.size() + 1, 0);
    for (const auto& rb : r.rebalances) {
      s[0] += get(rb.kafka);
      for (std::size_t k = 0; k < rb.runs.size(); ++k)
        if (rb.runs[k].ok) s[k + 1] += get(rb.runs[k].metrics);
    }
    return s;
  };
  const auto moves = sum([](const Metrics& m) { return m.active_moves; });
  const auto restoring = sum([](const Metrics& m) { return m.restoring_actives; });
  const auto warmups = sum([](const Metrics& m) { return m.warmups; });
  const auto restore = sum([](const Metrics& m) { return m.restore_offsets; });
  for (std::size_t k = 0; k <= r.strategies.size(); ++k) {
    totals.push_back({k == 0 ? kKafka : r.strategies[k - 1], std::to_string(moves[k]), std::to_string(restoring[k]),
                      std::to_string(warmups[k]), std::to_string(restore[k]),
                      k == 0 ? "" : fmt::format("{}/{}", same_count(r, k - 1), r.rebalances.size())});
  }
  out += aligned_rows(totals, tright, "  ");
  out += "\n";
  for (const auto& line : replay_agreement(r)) out += line + "\n";
  if (const auto assumed = replay_assumed_settings(r)) out += *assumed + "\n";
  // The first differences of each strategy that should have agreed and did not.
  for (std::size_t s = 0; s < r.strategies.size(); ++s) {
    if (!is_kafka_named_for(r.strategies[s], r.kafka_assignor)) continue;
    std::size_t shown = 0;
    for (const auto& rb : r.rebalances) {
      const auto& run = rb.runs[s];
      if (run.ok && run.same_as_kafka) continue;
      if (shown++ == 3) break;
      out += fmt::format("  {} at {} ({}):\n", r.strategies[s], rb.entry.name, rb.entry.source);
      if (!run.ok) out += "    failed: " + printable(run.failure) + "\n";
      for (const auto& d : run.differences) out += "    " + printable(d) + "\n";
    }
  }
  return out;
}

ordered_json replay_json(const Replay& r) {
  ordered_json out;
  out["kafka_assignor"] = r.kafka_assignor;
  out["strategies"] = r.strategies;
  ordered_json list = ordered_json::array();
  for (const auto& rb : r.rebalances) {
    ordered_json e;
    e["name"] = rb.entry.name;
    e["timestamp"] = rb.entry.timestamp;
    e["time_ms"] = rb.entry.time_ms ? ordered_json(*rb.entry.time_ms) : ordered_json(nullptr);
    e["source"] = rb.entry.source;
    e["clients"] = rb.entry.clients;
    e["tasks"] = rb.entry.tasks;
    e["kafka"] = {{"probing_rebalance", rb.kafka_probing}, {"metrics", nlohmann::ordered_json(rb.kafka)}};
    ordered_json runs = ordered_json::object();
    for (const auto& run : rb.runs) {
      ordered_json j;
      j["ok"] = run.ok;
      if (!run.ok) {
        j["failure"] = run.failure;
      } else {
        j["same_as_kafka"] = run.same_as_kafka;
        j["probing_rebalance"] = run.probing;
        j["metrics"] = nlohmann::ordered_json(run.metrics);
        j["differences"] = run.differences;
        j["assign_ms"] = run.ms;
      }
      runs[run.strategy] = std::move(j);
    }
    e["strategies"] = std::move(runs);
    list.push_back(std::move(e));
  }
  out["rebalances"] = std::move(list);
  ordered_json agreement = ordered_json::object();
  for (std::size_t s = 0; s < r.strategies.size(); ++s)
    agreement[r.strategies[s]] = {{"same_as_kafka", same_count(r, s)},
                                  {"rebalances", r.rebalances.size()},
                                  {"kafka_named", is_kafka_named_for(r.strategies[s], r.kafka_assignor)}};
  out["agreement"] = std::move(agreement);
  const auto assumed = replay_assumed_settings(r);
  out["settings_assumed"] = assumed.has_value();
  out["settings_note"] = assumed ? ordered_json(*assumed) : ordered_json(nullptr);
  return out;
}

std::string replay_csv(const Replay& r) {
  const std::vector<std::string> metrics = metric_names();
  std::string out = "rebalance,timestamp,time_ms,source,clients,tasks,strategy,ok,same_as_kafka,probing_rebalance";
  for (const auto& m : metrics) out += "," + m;
  out += "\n";
  auto row = [&](const ReplayedRebalance& rb, const std::string& who, bool ok, const std::string& same, bool probing,
                 const Metrics* m) {
    std::vector<std::string> f{rb.entry.name,
                               rb.entry.timestamp,
                               rb.entry.time_ms ? std::to_string(*rb.entry.time_ms) : "",
                               rb.entry.source,
                               std::to_string(rb.entry.clients),
                               std::to_string(rb.entry.tasks),
                               who,
                               ok ? "true" : "false",
                               same,
                               ok ? (probing ? "true" : "false") : ""};
    if (m != nullptr) {
      const ordered_json j = *m;
      for (const auto& name : metrics) f.push_back(metric_text(j[name], ""));
    } else {
      f.resize(f.size() + metrics.size());
    }
    for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + csv_field(f[i]);
    out += "\n";
  };
  for (const auto& rb : r.rebalances) {
    row(rb, "kafka", true, "", rb.kafka_probing, &rb.kafka);
    for (const auto& run : rb.runs)
      row(rb, run.strategy, run.ok, run.ok ? (run.same_as_kafka ? "true" : "false") : "", run.probing,
          run.ok ? &run.metrics : nullptr);
  }
  return out;
}

std::string replay_html(const Replay& r) {
  HtmlReport page;
  page.title = "Replay of a real group";
  if (!r.rebalances.empty())
    page.summary.push_back(fmt::format("{} rebalances from {} to {}, Kafka ran {}", r.rebalances.size(),
                                       r.rebalances.front().entry.timestamp, r.rebalances.back().entry.timestamp,
                                       r.kafka_assignor));
  for (const auto& line : replay_agreement(r)) page.summary.push_back(line);
  if (const auto assumed = replay_assumed_settings(r)) page.summary.push_back(*assumed);
  const auto [x, x_label] = timeline_x(r);
  struct Figure {
    const char* metric;
    const char* description;
    std::uint64_t (*get)(const Metrics&);
  };
  const Figure figures[] = {
      {"active_moves", "tasks whose active moved at each rebalance", [](const Metrics& m) { return m.active_moves; }},
      {"restoring_actives", "stateful actives restoring while a caught-up copy existed",
       [](const Metrics& m) { return m.restoring_actives; }},
      {"warmups", "warmup copies placed at each rebalance", [](const Metrics& m) { return m.warmups; }},
      {"restore_offsets", "offsets the cold actives must restore before processing",
       [](const Metrics& m) { return m.restore_offsets; }},
  };
  for (const Figure& f : figures) {
    LineChart chart;
    chart.title = f.metric;
    chart.description = f.description;
    chart.x_label = x_label;
    chart.y_label = f.metric;
    chart.x = x;
    LineSeries kafka{kKafka, {}};
    for (const auto& rb : r.rebalances) kafka.values.push_back(static_cast<double>(f.get(rb.kafka)));
    chart.lines.push_back(std::move(kafka));
    for (std::size_t s = 0; s < r.strategies.size(); ++s) {
      LineSeries line{r.strategies[s], {}};
      for (const auto& rb : r.rebalances)
        line.values.push_back(rb.runs[s].ok ? std::optional<double>(static_cast<double>(f.get(rb.runs[s].metrics)))
                                            : std::nullopt);
      chart.lines.push_back(std::move(line));
    }
    page.sections.push_back(std::move(chart));
  }
  HtmlTable table;
  table.caption = "Each rebalance: Kafka's decision and whether each strategy gave it";
  table.header = {"rebalance", "timestamp", "source", "clients", "tasks", "kafka moves", "kafka warmups"};
  for (const auto& s : r.strategies) table.header.push_back(s);
  table.numeric = {false, false, false, true, true, true, true};
  for (const auto& rb : r.rebalances) {
    std::vector<std::string> row{rb.entry.name,
                                 rb.entry.timestamp,
                                 rb.entry.source,
                                 std::to_string(rb.entry.clients),
                                 std::to_string(rb.entry.tasks),
                                 std::to_string(rb.kafka.active_moves),
                                 std::to_string(rb.kafka.warmups)};
    bool flagged = false;
    for (const auto& run : rb.runs) {
      row.push_back(!run.ok             ? "failed"
                    : run.same_as_kafka ? "same"
                                        : fmt::format("{} moves", run.metrics.active_moves));
      flagged = flagged || !run.ok;
    }
    table.rows.push_back(std::move(row));
    table.flagged.push_back(flagged);
  }
  page.sections.push_back(std::move(table));
  return render_html(page);
}

}  // namespace assignor::host
