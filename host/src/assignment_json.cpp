// Writing the assignment JSON of DESIGN 4.4 (and the metrics of 4.5), and the compact pretty form.
#include "assignor/host/assignment_io.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "assignment_by_client.hpp"

namespace assignor::host {

namespace detail {

using ordered_json = nlohmann::ordered_json;

PerClient group_by_client(const Cluster& cluster, const Assignment& assignment) {
  const std::size_t n_clients = cluster.client_count();
  PerClient out{std::vector<std::vector<TaskIndex>>(n_clients), std::vector<std::vector<TaskIndex>>(n_clients),
                std::vector<std::vector<TaskIndex>>(n_clients)};
  auto fill = [&](const std::vector<Placement>& list, std::vector<std::vector<TaskIndex>>& into,
                  const char* role) {
    for (const auto& p : list) {
      if (p.task >= cluster.task_count() || p.client >= n_clients)
        throw std::invalid_argument(fmt::format("{} placement (task index {}, client index {}) is out of range",
                                                role, p.task, p.client));
      into[p.client].push_back(p.task);
    }
    for (auto& tasks : into) std::sort(tasks.begin(), tasks.end());
  };
  fill(assignment.actives, out.active, "active");
  fill(assignment.standbys, out.standby, "standby");
  fill(assignment.warmups, out.warmup, "warmup");
  return out;
}

ordered_json task_list(const Cluster& cluster, const std::vector<TaskIndex>& tasks) {
  ordered_json list = ordered_json::array();
  for (TaskIndex t : tasks) list.push_back(to_string(cluster.tasks[t].id));
  return list;
}


}  // namespace detail

using ordered_json = nlohmann::ordered_json;
using detail::group_by_client;
using detail::PerClient;
using detail::task_list;

ordered_json metrics_to_json(const Metrics& m) {
  ordered_json out = ordered_json::object();
  out["active_moves"] = m.active_moves;
  out["restoring_actives"] = m.restoring_actives;
  out["cold_actives"] = m.cold_actives;
  out["warmups"] = m.warmups;
  out["standbys"] = m.standbys;
  out["standby_shortfall"] = m.standby_shortfall;
  out["active_load_spread"] = m.active_load_spread;
  out["total_load_spread"] = m.total_load_spread;
  out["weighted_load_spread"] = m.weighted_load_spread;
  out["max_subtopology_skew"] = m.max_subtopology_skew;
  out["cross_rack_traffic"] = m.cross_rack_traffic ? ordered_json(*m.cross_rack_traffic) : ordered_json(nullptr);
  out["restore_offsets"] = m.restore_offsets;
  out["thread_load_spread"] = m.thread_load_spread ? ordered_json(*m.thread_load_spread) : ordered_json(nullptr);
  out["tag_spread_shortfall"] = m.tag_spread_shortfall ? ordered_json(*m.tag_spread_shortfall) : ordered_json(nullptr);
  return out;
}

ordered_json to_json(const Cluster& cluster, const AssignmentReport& report) {
  const PerClient per = group_by_client(cluster, report.assignment);
  ordered_json out = ordered_json::object();
  out["strategy"] = report.strategy;
  ordered_json assignment = ordered_json::object();
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    ordered_json entry = ordered_json::object();
    entry["active"] = task_list(cluster, per.active[c]);
    entry["standby"] = task_list(cluster, per.standby[c]);
    entry["warmup"] = task_list(cluster, per.warmup[c]);
    if (report.threads && c < report.threads->clients.size()) {
      ordered_json threads = ordered_json::object();
      for (const auto& th : report.threads->clients[c].threads)
        threads[th.name] = {{"active", task_list(cluster, th.active)},
                            {"standby", task_list(cluster, th.standby)},
                            {"warmup", task_list(cluster, th.warmup)}};
      entry["threads"] = std::move(threads);
    }
    assignment[cluster.clients[c].id] = std::move(entry);
  }
  out["assignment"] = std::move(assignment);
  out["probing_rebalance"] = {{"needed", report.assignment.probing_rebalance},
                              {"after_ms", report.probing_after_ms}};
  out["metrics"] = metrics_to_json(report.metrics);
  out["assign_ms"] = report.assign_ms;
  return out;
}

namespace {

void write_pretty(const ordered_json& v, std::string& out, std::size_t indent) {
  const bool scalar_array =
      v.is_array() && std::all_of(v.begin(), v.end(), [](const ordered_json& e) { return !e.is_structured(); });
  if (v.is_object() && !v.empty()) {
    out += "{\n";
    std::size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it, ++i) {
      out.append(indent + 2, ' ');
      out += ordered_json(it.key()).dump();
      out += ": ";
      write_pretty(it.value(), out, indent + 2);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
    out.append(indent, ' ');
    out += '}';
  } else if (v.is_array() && !v.empty() && !scalar_array) {
    out += "[\n";
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.append(indent + 2, ' ');
      write_pretty(v[i], out, indent + 2);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
    out.append(indent, ' ');
    out += ']';
  } else if (scalar_array) {
    out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      out += v[i].dump();
    }
    out += ']';
  } else {
    out += v.dump();
  }
}

}  // namespace

std::string pretty_json(const ordered_json& value) {
  std::string out;
  write_pretty(value, out, 0);
  out += '\n';
  return out;
}


}  // namespace assignor::host
