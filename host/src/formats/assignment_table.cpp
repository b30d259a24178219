// The assignment as a table for people (`assignor assign --format table`).
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/support/printable.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "assignment_by_client.hpp"

namespace assignor::host {

namespace {

using detail::group_by_client;
using detail::PerClient;

// A ratio for people: at most 3 decimals, no trailing zeros ("1.5", "0.333", "2").
std::string decimal(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// The metrics as (name, text) rows for the table, in contract order.
std::vector<std::pair<std::string, std::string>> metric_rows(const Metrics& m) {
  return {
      {"active_moves", fmt::format("{}", m.active_moves)},
      {"restoring_actives", fmt::format("{}", m.restoring_actives)},
      {"cold_actives", fmt::format("{}", m.cold_actives)},
      {"warmups", fmt::format("{}", m.warmups)},
      {"standbys", fmt::format("{}", m.standbys)},
      {"standby_shortfall", fmt::format("{}", m.standby_shortfall)},
      {"active_load_spread", decimal(m.active_load_spread)},
      {"total_load_spread", decimal(m.total_load_spread)},
      {"weighted_load_spread", decimal(m.weighted_load_spread)},
      {"max_subtopology_skew", fmt::format("{}", m.max_subtopology_skew)},
      {"cross_rack_traffic", m.cross_rack_traffic ? fmt::format("{}", *m.cross_rack_traffic) : "n/a (no racks)"},
      {"restore_offsets", fmt::format("{}", m.restore_offsets)},
      {"thread_load_spread", m.thread_load_spread ? fmt::format("{}", *m.thread_load_spread) : "n/a"},
      {"tag_spread_shortfall", m.tag_spread_shortfall ? fmt::format("{}", *m.tag_spread_shortfall) : "n/a (no tags)"},
      {"stateful_load_spread", decimal(m.stateful_load_spread)},
      {"stale_standbys", fmt::format("{}", m.stale_standbys)},
      {"copy_restore_offsets", fmt::format("{}", m.copy_restore_offsets)},
      {"colocated_standbys",
       m.colocated_standbys ? fmt::format("{}", *m.colocated_standbys) : "n/a (no racks or tags)"},
  };
}

}  // namespace

std::string to_table(const Cluster& cluster, const AssignmentReport& report) {
  constexpr std::size_t kMaxListed = 10;
  const PerClient per = group_by_client(cluster, report.assignment);

  std::size_t id_width = 6;  // "client"
  for (const auto& c : cluster.clients) id_width = std::max(id_width, c.id.size());
  // Where each client sits, when the group says (racks, tags): the column a rack- or tag-aware
  // placement is read against. Absent when no client has either.
  std::vector<std::string> place(cluster.client_count());
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    const Client& client = cluster.clients[c];
    if (client.rack != kNoRack && client.rack < cluster.racks.size()) place[c] = printable(cluster.racks[client.rack]);
    for (const auto& [key, value] : client.tags)
      place[c] += (place[c].empty() ? "" : " ") + printable(key) + "=" + printable(value);
  }
  const bool placed = std::any_of(place.begin(), place.end(), [](const std::string& p) { return !p.empty(); });
  std::size_t place_width = 4;  // "rack"
  for (auto& p : place) {
    if (p.empty()) p = "-";
    place_width = std::max(place_width, p.size());
  }
  const auto place_cell = [&](const std::string& text) {
    return placed ? fmt::format("{:<{}}  ", text, place_width) : std::string();
  };

  std::string out = fmt::format("strategy: {}\n", report.strategy);
  out += fmt::format("{:<{}}  {}{:>7}  {:>6}  {:>7}  {:>6}  {}\n", "client", id_width, place_cell("rack"), "threads",
                     "active", "standby", "warmup", "tasks");
  auto list = [&](const char* role, const std::vector<TaskIndex>& tasks) {
    std::string text = role;
    for (std::size_t i = 0; i < tasks.size() && i < kMaxListed; ++i)
      text += ' ' + to_string(cluster.tasks[tasks[i]].id);
    if (tasks.size() > kMaxListed) text += fmt::format(" \u2026 (+{} more)", tasks.size() - kMaxListed);
    return text;
  };
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    std::string tasks = per.active[c].empty() ? "-" : list("active", per.active[c]);
    if (!per.standby[c].empty()) tasks += " | " + list("standby", per.standby[c]);
    if (!per.warmup[c].empty()) tasks += " | " + list("warmup", per.warmup[c]);
    out += fmt::format("{:<{}}  {}{:>7}  {:>6}  {:>7}  {:>6}  {}\n", cluster.clients[c].id, id_width,
                       place_cell(place[c]), cluster.clients[c].threads, per.active[c].size(), per.standby[c].size(),
                       per.warmup[c].size(), tasks);
  }
  if (report.assignment.probing_rebalance)
    out += fmt::format("probing rebalance: needed, after {} ms\n", report.probing_after_ms);
  else
    out += "probing rebalance: not needed\n";
  out += "metrics:\n";
  const auto rows = metric_rows(report.metrics);
  std::size_t name_width = 0;
  for (const auto& [name, value] : rows) name_width = std::max(name_width, name.size());
  for (const auto& [name, value] : rows) out += fmt::format("  {:<{}}  {}\n", name, name_width, value);
  if (report.timed)
    out += fmt::format("  {:<{}}  {:.3f}\n", "assign_ms", name_width, report.assign_ms);
  else
    out += fmt::format("  {:<{}}  n/a\n", "assign_ms", name_width);
  return out;
}

}  // namespace assignor::host
