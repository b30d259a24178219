#include "assignor/host/assignment_io.hpp"
#include "assignor/host/printable.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "assignor/errors.hpp"
#include "assignor/task_id.hpp"
#include "yaml_helpers.hpp"

namespace assignor::host {

namespace {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;

constexpr TaskIndex kNoTask = static_cast<TaskIndex>(-1);

// Task indices per client and role, each list sorted by task order.
struct PerClient {
  std::vector<std::vector<TaskIndex>> active, standby, warmup;
};

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
  };
}

}  // namespace

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

std::string to_table(const Cluster& cluster, const AssignmentReport& report) {
  constexpr std::size_t kMaxListed = 10;
  const PerClient per = group_by_client(cluster, report.assignment);

  std::size_t id_width = 6;  // "client"
  for (const auto& c : cluster.clients) id_width = std::max(id_width, c.id.size());

  std::string out = fmt::format("strategy: {}\n", report.strategy);
  out += fmt::format("{:<{}}  {:>7}  {:>6}  {:>7}  {:>6}  {}\n", "client", id_width, "threads", "active",
                     "standby", "warmup", "tasks");
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
    out += fmt::format("{:<{}}  {:>7}  {:>6}  {:>7}  {:>6}  {}\n", cluster.clients[c].id, id_width,
                       cluster.clients[c].threads, per.active[c].size(), per.standby[c].size(),
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
  out += fmt::format("  {:<{}}  {:.3f}\n", "assign_ms", name_width, report.assign_ms);
  return out;
}

namespace {

const std::vector<std::string> kTopKeys = {"strategy", "assignment", "probing_rebalance", "metrics",
                                           "assign_ms"};
const std::vector<std::string> kClientKeys = {"active", "standby", "warmup"};  // the roles
const std::vector<std::string> kClientEntryKeys = {"active", "standby", "warmup", "threads"};
const std::vector<std::string> kProbingKeys = {"needed", "after_ms"};

std::string json_type(const json& j) { return j.type_name(); }

std::string unknown_key_problem(const std::string& key, const std::vector<std::string>& known) {
  std::string problem = fmt::format("unknown key '{}'", printable(key));
  if (const std::string near = nearest(key, known); !near.empty())
    return problem + fmt::format("; did you mean '{}'?", near);
  problem += "; known keys:";
  for (std::size_t i = 0; i < known.size(); ++i) problem += (i ? ", " : " ") + known[i];
  return problem;
}

// nlohmann keeps the last of duplicate keys silently; this parser callback refuses them instead.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& source) : source_(source) {}
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        keys_.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys_.empty()) keys_.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys_.empty() && !keys_.back().insert(parsed.get<std::string>()).second)
          throw InputError(
              fmt::format("{}: key '{}' given twice in one JSON object", source_, printable(parsed.get<std::string>())));
        break;
      default:
        break;
    }
    return true;
  }

 private:
  const std::string& source_;
  std::vector<std::unordered_set<std::string>> keys_;
};

}  // namespace

ParsedAssignment read_assignment_file(const std::filesystem::path& path, const Cluster& cluster) {
  const std::string source = path.string();
  const std::string text = detail::read_text_file(source, path, "assignment file");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(fmt::format("{}: empty file (expected an assignment JSON object)", source));

  json root;
  try {
    DuplicateKeyCheck check(source);
    root = json::parse(text, std::ref(check));
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", source, e.what()));
  }
  if (!root.is_object())
    throw InputError(fmt::format("{}: expected a JSON object with an \"assignment\" object, got {}", source,
                                 json_type(root)));
  for (const auto& [key, value] : root.items())
    if (std::find(kTopKeys.begin(), kTopKeys.end(), key) == kTopKeys.end())
      throw InputError(fmt::format("{}: {}", source, unknown_key_problem(key, kTopKeys)));

  ParsedAssignment out;
  if (const auto it = root.find("strategy"); it != root.end()) {
    if (!it->is_string())
      throw InputError(fmt::format("{}: strategy: expected a string, got {}", source, json_type(*it)));
    out.strategy = it->get<std::string>();
  }
  const auto assignment_it = root.find("assignment");
  if (assignment_it == root.end())
    throw InputError(fmt::format("{}: no \"assignment\" object (not an assignment file?)", source));
  if (!assignment_it->is_object())
    throw InputError(
        fmt::format("{}: assignment: expected an object of clients, got {}", source, json_type(*assignment_it)));

  if (const auto it = root.find("probing_rebalance"); it != root.end()) {
    if (!it->is_object())
      throw InputError(
          fmt::format("{}: probing_rebalance: expected an object, got {}", source, json_type(*it)));
    for (const auto& [key, value] : it->items())
      if (std::find(kProbingKeys.begin(), kProbingKeys.end(), key) == kProbingKeys.end())
        throw InputError(fmt::format("{}: probing_rebalance: {}", source, unknown_key_problem(key, kProbingKeys)));
    if (const auto needed = it->find("needed"); needed != it->end()) {
      if (!needed->is_boolean())
        throw InputError(fmt::format("{}: probing_rebalance.needed: expected true or false, got {}", source,
                                     json_type(*needed)));
      out.assignment.probing_rebalance = needed->get<bool>();
    }
    if (const auto after = it->find("after_ms"); after != it->end() && !after->is_number_integer())
      throw InputError(fmt::format("{}: probing_rebalance.after_ms: expected an integer, got {}", source,
                                   json_type(*after)));
  }

  // Per task, the client (index) that last listed it in each role: duplicate detection in O(tasks).
  const std::size_t n_tasks = cluster.task_count();
  std::vector<ClientIndex> marks[3] = {std::vector<ClientIndex>(n_tasks, kNoClient),
                                       std::vector<ClientIndex>(n_tasks, kNoClient),
                                       std::vector<ClientIndex>(n_tasks, kNoClient)};
  std::vector<Placement>* lists[3] = {&out.assignment.actives, &out.assignment.standbys,
                                      &out.assignment.warmups};
  std::vector<bool> present(cluster.client_count(), false);
  // Per task, the (client, thread) whose per-thread split last listed it.
  std::vector<std::pair<ClientIndex, std::uint32_t>> on_thread(n_tasks, {kNoClient, 0});

  for (const auto& [client_id, entry] : assignment_it->items()) {
    const std::string place = fmt::format("client '{}'", printable(client_id));
    if (!entry.is_object())
      throw InputError(fmt::format("{}: assignment: {}: expected an object with \"active\", \"standby\" and "
                                   "\"warmup\" lists, got {}",
                                   source, place, json_type(entry)));
    for (const auto& [key, value] : entry.items())
      if (std::find(kClientEntryKeys.begin(), kClientEntryKeys.end(), key) == kClientEntryKeys.end())
        throw InputError(
            fmt::format("{}: assignment: {}: {}", source, place, unknown_key_problem(key, kClientEntryKeys)));

    const auto client = cluster.find_client(client_id);
    if (client) {
      present[*client] = true;
    } else {
      out.errors.push_back({ValidationErrorKind::unknown_client, kNoTask, kNoClient,
                            fmt::format("{} is not a client of the cluster", place)});
    }

    const std::size_t first_placement[3] = {lists[0]->size(), lists[1]->size(), lists[2]->size()};
    for (std::size_t role = 0; role < kClientKeys.size(); ++role) {
      const std::string& role_name = kClientKeys[role];
      const auto list_it = entry.find(role_name);
      if (list_it == entry.end()) continue;  // an absent list is an empty one
      if (!list_it->is_array())
        throw InputError(fmt::format("{}: assignment: {}: {}: expected an array of task id strings, got {}",
                                     source, place, role_name, json_type(*list_it)));
      for (const auto& item : *list_it) {
        if (!item.is_string())
          throw InputError(fmt::format("{}: assignment: {}: {}: expected an array of task id strings, found {}",
                                       source, place, role_name, json_type(item)));
        if (!client) continue;  // reported once as unknown_client
        const std::string task_text = printable(item.get_ref<const std::string&>());
        const auto id = parse_task_id(item.get_ref<const std::string&>());
        const auto t = id ? cluster.find_task(*id) : std::nullopt;
        if (!t) {
          out.errors.push_back(
              {ValidationErrorKind::unknown_task, kNoTask, *client,
               id ? fmt::format("{}: {}: unknown task '{}'", place, role_name, task_text)
                  : fmt::format("{}: {}: '{}' is not a task id of the form S_P (digits only, no leading zeros)", place, role_name, task_text)});
          continue;
        }
        if (marks[role][*t] == *client) {
          out.errors.push_back({role == 0 ? ValidationErrorKind::active_assigned_multiple_times
                                          : ValidationErrorKind::duplicate_standby,
                                *t, *client, fmt::format("{}: {}: task '{}' listed twice", place, role_name, task_text)});
          continue;
        }
        marks[role][*t] = *client;
        lists[role]->push_back({*t, *client});
      }
    }

    // Optional per-thread split (its shape is checked as input; what it says is validated): at most
    // `threads` named threads, and every task of the client's lists on exactly one of them, in the
    // same role.
    const auto threads_it = entry.find("threads");
    if (threads_it == entry.end() || !client) continue;
    if (!threads_it->is_object())
      throw InputError(fmt::format("{}: assignment: {}: threads: expected an object, got {}", source, place,
                                   json_type(*threads_it)));
    auto thread_error = [&](std::string message) {
      out.errors.push_back({ValidationErrorKind::thread_assignment, kNoTask, *client,
                            fmt::format("{}: threads: {}", place, message)});
    };
    const std::uint32_t capacity = cluster.clients[*client].threads;
    if (threads_it->size() > capacity)
      thread_error(fmt::format("{} thread entries, but the client has {} thread{}", threads_it->size(), capacity,
                               capacity == 1 ? "" : "s"));
    std::vector<std::string> thread_names;
    for (const auto& [thread, roles] : threads_it->items()) {
      const std::string thread_place = fmt::format("{}: threads.{}", place, printable(thread));
      if (!roles.is_object())
        throw InputError(fmt::format("{}: assignment: {}: expected an object, got {}", source, thread_place,
                                     json_type(roles)));
      if (thread.empty()) thread_error("a thread has an empty name");
      const auto thread_index = static_cast<std::uint32_t>(thread_names.size());
      thread_names.push_back(thread);
      for (const auto& [role_name, list] : roles.items()) {
        const auto role = static_cast<std::size_t>(
            std::find(kClientKeys.begin(), kClientKeys.end(), role_name) - kClientKeys.begin());
        if (role == kClientKeys.size())
          throw InputError(fmt::format("{}: assignment: {}: {}", source, thread_place,
                                       unknown_key_problem(role_name, kClientKeys)));
        if (!list.is_array())
          throw InputError(fmt::format("{}: assignment: {}: {}: expected an array of task ids", source,
                                       thread_place, role_name));
        for (const auto& item : list) {
          if (!item.is_string())
            throw InputError(fmt::format("{}: assignment: {}: {}: expected an array of task id strings, found {}",
                                         source, thread_place, role_name, json_type(item)));
          const std::string task_text = printable(item.get_ref<const std::string&>());
          const auto id = parse_task_id(item.get_ref<const std::string&>());
          const auto t = id ? cluster.find_task(*id) : std::nullopt;
          if (!t || marks[role][*t] != *client) {
            thread_error(fmt::format("thread '{}': {}: task '{}' is not in the client's {} list", printable(thread), role_name,
                                     task_text, role_name));
            continue;
          }
          auto& [seen_client, seen_thread] = on_thread[*t];
          if (seen_client == *client) {
            thread_error(seen_thread == thread_index
                             ? fmt::format("thread '{}': task '{}' is listed twice", printable(thread), task_text)
                             : fmt::format("task '{}' is on two threads, '{}' and '{}'", task_text,
                                           printable(thread_names[seen_thread]), printable(thread)));
            continue;
          }
          seen_client = *client;
          seen_thread = thread_index;
        }
      }
    }
    for (std::size_t role = 0; role < kClientKeys.size(); ++role)
      for (std::size_t i = first_placement[role]; i < lists[role]->size(); ++i)  // this client's
        if (const Placement& p = (*lists[role])[i]; on_thread[p.task].first != *client)
          thread_error(fmt::format("task '{}' ({}) is on no thread", to_string(cluster.tasks[p.task].id),
                                   kClientKeys[role]));
  }

  for (ClientIndex c = 0; c < cluster.client_count(); ++c)
    if (!present[c])
      out.errors.push_back({ValidationErrorKind::missing_client, kNoTask, c,
                            fmt::format("client '{}' is missing from the assignment (every client must "
                                        "appear, even with empty lists)",
                                        cluster.clients[c].id)});
  out.assignment.normalize();
  return out;
}

}  // namespace assignor::host
