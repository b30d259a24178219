// Writing the assignment JSON of DESIGN 4.4 (and the metrics of 4.5), and the compact pretty form.
#include "assignor/host/formats/assignment_io.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "assignment_by_client.hpp"
#include "assignor/host/formats/record_json.hpp"
#include "json_text.hpp"

namespace assignor::host {

namespace detail {

using ordered_json = nlohmann::ordered_json;

PerClient group_by_client(const Cluster& cluster, const Assignment& assignment) {
  const std::size_t n_clients = cluster.client_count();
  PerClient out{std::vector<std::vector<TaskIndex>>(n_clients), std::vector<std::vector<TaskIndex>>(n_clients),
                std::vector<std::vector<TaskIndex>>(n_clients)};
  auto fill = [&](const std::vector<Placement>& list, std::vector<std::vector<TaskIndex>>& into, const char* role) {
    for (const auto& p : list) {
      if (p.task >= cluster.task_count() || p.client >= n_clients)
        throw std::invalid_argument(
            fmt::format("{} placement (task index {}, client index {}) is out of range", role, p.task, p.client));
      into[p.client].push_back(p.task);
    }
    for (auto& tasks : into) std::sort(tasks.begin(), tasks.end());
  };
  fill(assignment.actives, out.active, "active");
  fill(assignment.standbys, out.standby, "standby");
  fill(assignment.warmups, out.warmup, "warmup");
  return out;
}

}  // namespace detail

using ordered_json = nlohmann::ordered_json;
using detail::group_by_client;
using detail::PerClient;

ordered_json probing_json(bool needed, std::int64_t after_ms) { return {{"needed", needed}, {"after_ms", after_ms}}; }

}  // namespace assignor::host

namespace assignor {

namespace {

using host::record_json::adapted;
using host::record_json::field;

const auto kMetricsFields = std::make_tuple(
    field("active_moves", &Metrics::active_moves), field("restoring_actives", &Metrics::restoring_actives),
    field("cold_actives", &Metrics::cold_actives), field("warmups", &Metrics::warmups),
    field("standbys", &Metrics::standbys), field("standby_shortfall", &Metrics::standby_shortfall),
    field("active_load_spread", &Metrics::active_load_spread), field("total_load_spread", &Metrics::total_load_spread),
    field("weighted_load_spread", &Metrics::weighted_load_spread),
    field("max_subtopology_skew", &Metrics::max_subtopology_skew),
    adapted(  // {"3": 4}: the sub-topologies not spread within one, by id
        "subtopology_skews",
        [](const Metrics& m) {
          nlohmann::ordered_json skews = nlohmann::ordered_json::object();
          for (const auto& [subtopology, skew] : m.subtopology_skews) skews[std::to_string(subtopology)] = skew;
          return skews;
        },
        [](Metrics& m, const nlohmann::json& skews) {
          m.subtopology_skews.clear();
          for (const auto& [id, skew] : skews.items())
            m.subtopology_skews.emplace_back(std::stoi(id), skew.get<std::uint64_t>());
          std::sort(m.subtopology_skews.begin(), m.subtopology_skews.end());  // by id, as computed
        }),
    field("cross_rack_traffic", &Metrics::cross_rack_traffic), field("restore_offsets", &Metrics::restore_offsets),
    field("thread_load_spread", &Metrics::thread_load_spread),
    field("tag_spread_shortfall", &Metrics::tag_spread_shortfall),
    field("stateful_load_spread", &Metrics::stateful_load_spread), field("stale_standbys", &Metrics::stale_standbys),
    field("copy_restore_offsets", &Metrics::copy_restore_offsets),
    field("colocated_standbys", &Metrics::colocated_standbys));

}  // namespace

void to_json(nlohmann::ordered_json& j, const Metrics& metrics) {
  host::record_json::write(j, metrics, kMetricsFields);
}
void from_json(const nlohmann::json& j, Metrics& metrics) { host::record_json::read(j, metrics, kMetricsFields); }

}  // namespace assignor

namespace assignor::host {

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

namespace {

// `"key": ["0_1", "0_2"]` as pretty_json lays out a list of task ids.
void append_task_list(std::string& out, std::size_t indent, std::string_view key, const Cluster& cluster,
                      const std::vector<TaskIndex>& tasks) {
  out.append(indent, ' ');
  out.push_back('"');
  out.append(key);
  out.append("\": [");
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (i > 0) out.append(", ");
    out.push_back('"');
    detail::append_task_id(out, cluster.tasks[tasks[i]].id);
    out.push_back('"');
  }
  out.push_back(']');
}

// The three role lists of a client or a thread, one per line, as pretty_json lays out an object.
void append_roles(std::string& out, std::size_t indent, const Cluster& cluster, const std::vector<TaskIndex>& active,
                  const std::vector<TaskIndex>& standby, const std::vector<TaskIndex>& warmup) {
  append_task_list(out, indent, "active", cluster, active);
  out.append(",\n");
  append_task_list(out, indent, "standby", cluster, standby);
  out.append(",\n");
  append_task_list(out, indent, "warmup", cluster, warmup);
}

}  // namespace

std::string assignment_json(const Cluster& cluster, const AssignmentReport& report) {
  const PerClient per = group_by_client(cluster, report.assignment);
  // Written straight from the model (no JSON tree: 100k tasks would cost a few hundred bytes each),
  // in exactly the layout pretty_json() gives the same object; the small parts go through it.
  std::string out;
  out.reserve(
      256 +
      16 * (report.assignment.actives.size() + report.assignment.standbys.size() + report.assignment.warmups.size()) *
          (report.threads ? 2 : 1) +
      256 * cluster.client_count());
  out.append("{\n  \"strategy\": ");
  detail::append_json_string(out, report.strategy);
  out.append(",\n  \"assignment\": {");
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    out.append(c == 0 ? "\n    " : ",\n    ");
    detail::append_json_string(out, cluster.clients[c].id);
    out.append(": {\n");
    append_roles(out, 6, cluster, per.active[c], per.standby[c], per.warmup[c]);
    if (report.threads && c < report.threads->clients.size()) {
      const auto& threads = report.threads->clients[c].threads;
      out.append(",\n      \"threads\": {");
      for (std::size_t i = 0; i < threads.size(); ++i) {
        out.append(i == 0 ? "\n        " : ",\n        ");
        detail::append_json_string(out, threads[i].name);
        out.append(": {\n");
        append_roles(out, 10, cluster, threads[i].active, threads[i].standby, threads[i].warmup);
        out.append("\n        }");
      }
      out.append(threads.empty() ? "}" : "\n      }");
    }
    out.append("\n    }");
  }
  out.append(cluster.client_count() == 0 ? "}" : "\n  }");
  out.append(",\n  \"probing_rebalance\": ");
  write_pretty(probing_json(report.assignment.probing_rebalance, report.probing_after_ms), out, 2);
  out.append(",\n  \"metrics\": ");
  write_pretty(ordered_json(report.metrics), out, 2);
  out.append(",\n  \"assign_ms\": ");
  out.append(ordered_json(report.assign_ms).dump());
  out.append("\n}\n");
  return out;
}

namespace {

// Per client, sorted: actives and copies (standby and warmup together: Kafka's log prints them as
// one list, and a copy is a copy wherever it counts).
struct Holdings {
  std::vector<std::vector<TaskIndex>> active, copies;
};

Holdings holdings(const Cluster& cluster, const Assignment& a) {
  Holdings h;
  h.active.resize(cluster.client_count());
  h.copies.resize(cluster.client_count());
  for (const auto& p : a.actives) h.active[p.client].push_back(p.task);
  for (const auto* list : {&a.standbys, &a.warmups})
    for (const auto& p : *list) h.copies[p.client].push_back(p.task);
  for (auto* side : {&h.active, &h.copies})
    for (auto& l : *side) std::sort(l.begin(), l.end());
  return h;
}

std::string tasks_text(const Cluster& cluster, const std::vector<TaskIndex>& tasks) {
  std::string out = "[";
  for (std::size_t i = 0; i < tasks.size(); ++i) out += (i ? " " : "") + to_string(cluster.tasks[tasks[i]].id);
  return out + "]";
}

}  // namespace

AssignmentComparison compare_assignments(const Cluster& cluster, const Assignment& kafka, const Assignment& got,
                                         std::size_t limit) {
  const Holdings k = holdings(cluster, kafka), g = holdings(cluster, got);
  AssignmentComparison result;
  auto& out = result.differences;
  bool& same = result.same;
  same = kafka.probing_rebalance == got.probing_rebalance;
  if (!same)
    out.push_back(fmt::format("probing rebalance: Kafka {}, this strategy {}", kafka.probing_rebalance ? "yes" : "no",
                              got.probing_rebalance ? "yes" : "no"));
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    if (k.active[c] != g.active[c]) {
      same = false;
      if (out.size() < limit)
        out.push_back(fmt::format("client {}: actives {} (Kafka {})", cluster.clients[c].id,
                                  tasks_text(cluster, g.active[c]), tasks_text(cluster, k.active[c])));
    }
    if (k.copies[c] != g.copies[c]) {
      same = false;
      if (out.size() < limit)
        out.push_back(fmt::format("client {}: standby and warmup copies {} (Kafka {})", cluster.clients[c].id,
                                  tasks_text(cluster, g.copies[c]), tasks_text(cluster, k.copies[c])));
    }
  }
  return result;
}

}  // namespace assignor::host
