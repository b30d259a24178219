// Reading an assignment JSON back (`assignor validate`): structure errors are InputErrors naming
// file and place; name-level problems (unknown ids, duplicates, the per-thread split) are
// validation errors reported with the others.
#include "assignor/host/assignment_io.hpp"
#include "assignor/host/printable.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unordered_set>

#include "assignor/errors.hpp"
#include "assignor/task_id.hpp"
#include "yaml_json_reader.hpp"

namespace assignor::host {

namespace {

using json = nlohmann::json;

constexpr TaskIndex kNoTask = static_cast<TaskIndex>(-1);

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
