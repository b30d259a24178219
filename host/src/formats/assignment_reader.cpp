// Reading an assignment JSON back (`assignor validate`) with the readers' Document and checks (the
// same duplicate-key, number and position rules as the cluster file): structure errors are
// InputErrors naming file, line, column and place; name-level problems (unknown ids, duplicates, the per-thread split) are
// validation errors reported with the others.
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/support/printable.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "assignor/errors.hpp"
#include "assignor/host/formats/yaml_json_reader.hpp"
#include "assignor/task_id.hpp"
#include "cluster_file.hpp"

namespace assignor::host {

namespace {

using namespace detail;  // the readers' shared checks (yaml_json_reader.hpp)

constexpr TaskIndex kNoTask = static_cast<TaskIndex>(-1);

const std::vector<std::string> kTopKeys = {"strategy", "assignment", "probing_rebalance", "metrics", "assign_ms"};
enum TopKey : std::size_t { kStrategy, kAssignment, kProbing, kMetrics, kAssignMs };
const std::vector<std::string> kRoleKeys = {"active", "standby", "warmup"};
const std::vector<std::string> kClientEntryKeys = {"active", "standby", "warmup", "threads"};
enum ClientEntryKey : std::size_t { kThreads = 3 };
const std::vector<std::string> kProbingKeys = {"needed", "after_ms"};
enum ProbingKey : std::size_t { kNeeded, kAfterMs };

bool is_string(const Node& node) { return node.IsScalar() && node.IsQuoted(); }

// A map's keys must be unique even where they are not known in advance (client ids, thread names).
void refuse_repeated_keys(const FieldReader& r, const Node& map, std::string_view place) {
  std::unordered_set<std::string_view> seen;
  for (auto it = map.begin(); it != map.end(); ++it)
    if (!seen.insert(it->first.Scalar()).second)
      r.fail_at(it->first, place, fmt::format("key '{}' given twice", it->first.Scalar()));
}

}  // namespace

// `readable`: bytes that may be read from text.data() (the JSON parser's padding).
ParsedAssignment parse_assignment(std::string_view text, const std::string& source, const Cluster& cluster,
                                  std::size_t readable);

ParsedAssignment read_assignment_file(const std::filesystem::path& path, const Cluster& cluster) {
  const std::string source = detail::source_name(path);
  const std::string text = detail::read_text_file(source, path, "assignment file");
  return parse_assignment(std::string_view(text.data(), text.size()), source, cluster, text.capacity());
}

ParsedAssignment parse_assignment(std::string_view text, const std::string& source, const Cluster& cluster) {
  return parse_assignment(text, source, cluster, text.size());
}

ParsedAssignment parse_assignment(std::string_view text, const std::string& source, const Cluster& cluster,
                                  std::size_t readable) {
  const auto document = detail::load_json_document(text, source, "an assignment JSON object", readable);
  const FieldReader r(source);
  const Node root = document.root();
  const Fields top(r, root, "", kTopKeys);

  ParsedAssignment out;
  if (top.given(kStrategy)) {
    const Node& strategy = top.value(kStrategy);
    if (!is_string(strategy))
      r.fail_at(strategy, "strategy", fmt::format("expected a string, got {}", describe(strategy)));
    out.strategy = r.string(strategy, "strategy", /*allow_empty=*/true);
  }
  if (!top.given(kAssignment)) r.fail_at(root, "", "no \"assignment\" object (not an assignment file?)");
  const Node& assignment = top.value(kAssignment);
  if (!assignment.IsMap())
    r.fail_at(assignment, "assignment", fmt::format("expected an object of clients, got {}", describe(assignment)));
  refuse_repeated_keys(r, assignment, "assignment");

  if (top.given(kProbing)) {
    const Fields probing(r, top.value(kProbing), "probing_rebalance", kProbingKeys);
    if (probing.given(kNeeded))
      out.assignment.probing_rebalance = r.boolean(probing.value(kNeeded), "probing_rebalance.needed");
    if (probing.given(kAfterMs)) (void)r.integer(probing.value(kAfterMs), "probing_rebalance.after_ms");
  }
  if (top.given(kAssignMs)) {
    const Node& ms = top.value(kAssignMs);
    const double value = r.number(ms, "assign_ms");
    if (value < 0) r.fail_at(ms, "assign_ms", fmt::format("must be >= 0 milliseconds, got {}", ms.Scalar()));
    out.assign_ms = value;
  }
  // The split's spread, while every client holding tasks lists a sound one.
  bool split_complete = true;
  std::size_t split_spread = 0;

  // Per task, the client (index) that last listed it in each role: duplicate detection in O(tasks).
  const std::size_t n_tasks = cluster.task_count();
  // Task ids found by table, not by a binary search for each of the hundreds of thousands of entries.
  cluster_file::TaskLookup task_by_id(n_tasks);
  for (std::size_t t = 0; t < n_tasks; ++t) task_by_id.add(cluster.tasks[t].id, static_cast<TaskIndex>(t));
  const auto find_task = [&task_by_id](TaskId id) -> std::optional<TaskIndex> {
    const TaskIndex t = task_by_id.find(id);
    return t == cluster_file::TaskLookup::kNone ? std::nullopt : std::optional<TaskIndex>(t);
  };
  std::vector<ClientIndex> marks[3] = {std::vector<ClientIndex>(n_tasks, kNoClient),
                                       std::vector<ClientIndex>(n_tasks, kNoClient),
                                       std::vector<ClientIndex>(n_tasks, kNoClient)};
  std::vector<Placement>* lists[3] = {&out.assignment.actives, &out.assignment.standbys, &out.assignment.warmups};
  std::vector<bool> present(cluster.client_count(), false);
  // Per task, the (client, thread) whose per-thread split last listed it.
  std::vector<std::pair<ClientIndex, std::uint32_t>> on_thread(n_tasks, {kNoClient, 0});
  // A list of task ids: each entry a string.
  auto expect_task_list = [&](const Node& list, const std::string& list_place) {
    if (!list.IsSequence())
      r.fail_at(list, list_place, fmt::format("expected an array of task id strings, got {}", describe(list)));
    for (const Node& item : list)
      if (!is_string(item))
        r.fail_at(item, list_place, fmt::format("expected an array of task id strings, found {}", describe(item)));
  };

  for (auto client_it = assignment.begin(); client_it != assignment.end(); ++client_it) {
    const std::string client_id(client_it->first.Scalar());
    const std::string place = fmt::format("client '{}'", printable(client_id));
    const std::string entry_place = "assignment: " + place;
    const Node& entry = client_it->second;
    if (!entry.IsMap())
      r.fail_at(
          entry, entry_place,
          fmt::format("expected an object with \"active\", \"standby\" and \"warmup\" lists, got {}", describe(entry)));
    const Fields f(r, entry, entry_place, kClientEntryKeys);

    const auto client = cluster.find_client(client_id);
    if (client) {
      present[*client] = true;
    } else {
      out.errors.push_back({ValidationErrorKind::unknown_client, kNoTask, kNoClient,
                            fmt::format("{} is not a client of the cluster", place)});
    }

    const std::size_t first_placement[3] = {lists[0]->size(), lists[1]->size(), lists[2]->size()};
    for (std::size_t role = 0; role < kRoleKeys.size(); ++role) {
      if (!f.given(role)) continue;  // an absent list is an empty one
      const std::string& role_name = kRoleKeys[role];
      expect_task_list(f.value(role), entry_place + ": " + role_name);
      if (!client) continue;  // reported once as unknown_client
      for (const Node& item : f.value(role)) {
        const auto task_text = [&item] { return printable(item.Scalar()); };  // for a message only
        const auto id = parse_task_id(item.Scalar());
        const auto t = id ? find_task(*id) : std::nullopt;
        if (!t) {
          out.errors.push_back(
              {ValidationErrorKind::unknown_task, kNoTask, *client,
               id ? fmt::format("{}: {}: unknown task '{}'", place, role_name, task_text())
                  : fmt::format("{}: {}: '{}' is not a task id of the form S_P (digits only, no leading zeros)", place,
                                role_name, task_text())});
          continue;
        }
        if (marks[role][*t] == *client) {
          out.errors.push_back(
              {role == 0 ? ValidationErrorKind::active_assigned_multiple_times : ValidationErrorKind::duplicate_standby,
               *t, *client, fmt::format("{}: {}: task '{}' listed twice", place, role_name, task_text())});
          continue;
        }
        marks[role][*t] = *client;
        lists[role]->push_back({*t, *client});
      }
    }

    // Optional per-thread split (its shape is checked as input; what it says is validated): at most
    // `threads` named threads, and every task of the client's lists on exactly one of them, in the
    // same role.
    if (!f.given(kThreads) || !client) {
      if (client && (lists[0]->size() + lists[1]->size() + lists[2]->size() >
                     first_placement[0] + first_placement[1] + first_placement[2]))
        split_complete = false;
      continue;
    }
    const Node& threads = f.value(kThreads);
    const std::string threads_place = entry_place + ": threads";
    if (!threads.IsMap())
      r.fail_at(threads, threads_place, fmt::format("expected an object, got {}", describe(threads)));
    refuse_repeated_keys(r, threads, threads_place);
    auto thread_error = [&](std::string message) {
      out.errors.push_back(
          {ValidationErrorKind::thread_assignment, kNoTask, *client, fmt::format("{}: threads: {}", place, message)});
    };
    const std::uint32_t capacity = cluster.clients[*client].threads;
    if (threads.size() > capacity)
      thread_error(fmt::format("{} thread entries, but the client has {} thread{}", threads.size(), capacity,
                               capacity == 1 ? "" : "s"));
    std::vector<std::string> thread_names;
    std::vector<std::size_t> thread_loads;                       // tasks on each thread, all roles
    const std::size_t thread_errors_before = out.errors.size();  // balance is judged on a sound split only
    for (auto thread_it = threads.begin(); thread_it != threads.end(); ++thread_it) {
      const std::string thread(thread_it->first.Scalar());
      const std::string thread_place = fmt::format("{}.{}", threads_place, printable(thread));
      const Fields roles(r, thread_it->second, thread_place, kRoleKeys);
      if (thread.empty()) thread_error("a thread has an empty name");
      const auto thread_index = static_cast<std::uint32_t>(thread_names.size());
      thread_names.push_back(thread);
      thread_loads.push_back(0);
      for (std::size_t role = 0; role < kRoleKeys.size(); ++role) {
        if (!roles.given(role)) continue;
        const std::string& role_name = kRoleKeys[role];
        expect_task_list(roles.value(role), thread_place + ": " + role_name);
        for (const Node& item : roles.value(role)) {
          const auto task_text = [&item] { return printable(item.Scalar()); };  // for a message only
          const auto id = parse_task_id(item.Scalar());
          const auto t = id ? find_task(*id) : std::nullopt;
          if (!t || marks[role][*t] != *client) {
            thread_error(fmt::format("thread '{}': {}: task '{}' is not in the client's {} list", printable(thread),
                                     role_name, task_text(), role_name));
            continue;
          }
          auto& [seen_client, seen_thread] = on_thread[*t];
          if (seen_client == *client) {
            thread_error(seen_thread == thread_index
                             ? fmt::format("thread '{}': task '{}' is listed twice", printable(thread), task_text())
                             : fmt::format("task '{}' is on two threads, '{}' and '{}'", task_text(),
                                           printable(thread_names[seen_thread]), printable(thread)));
            continue;
          }
          seen_client = *client;
          seen_thread = thread_index;
          ++thread_loads[thread_index];
        }
      }
    }
    for (std::size_t role = 0; role < kRoleKeys.size(); ++role)
      for (std::size_t i = first_placement[role]; i < lists[role]->size(); ++i)  // this client's
        if (const Placement& p = (*lists[role])[i]; on_thread[p.task].first != *client)
          thread_error(
              fmt::format("task '{}' ({}) is on no thread", to_string(cluster.tasks[p.task].id), kRoleKeys[role]));
    // The split is balanced as Kafka balances it: the tasks a thread holds (all roles) within one
    // of every other thread's, a thread that is not listed holding none.
    if (out.errors.size() == thread_errors_before && !thread_loads.empty()) {
      const auto [lo, hi] = std::minmax_element(thread_loads.begin(), thread_loads.end());
      const bool unlisted = thread_names.size() < capacity;
      const std::size_t low = unlisted ? 0 : *lo;
      split_spread = std::max(split_spread, *hi - low);
      if (*hi > low + 1)
        thread_error(fmt::format(
            "thread '{}' holds {} tasks and {} {}: a client's threads must be within one task "
            "of each other",
            printable(thread_names[static_cast<std::size_t>(hi - thread_loads.begin())]), *hi,
            unlisted ? "a thread that is not listed holds"
                     : fmt::format("thread '{}' holds",
                                   printable(thread_names[static_cast<std::size_t>(lo - thread_loads.begin())])),
            low));
    }
  }

  for (ClientIndex c = 0; c < cluster.client_count(); ++c)
    if (!present[c])
      out.errors.push_back({ValidationErrorKind::missing_client, kNoTask, c,
                            fmt::format("client '{}' is missing from the assignment (every client must "
                                        "appear, even with empty lists)",
                                        cluster.clients[c].id)});
  const bool split_errors = std::any_of(out.errors.begin(), out.errors.end(), [](const ValidationError& e) {
    return e.kind == ValidationErrorKind::thread_assignment;
  });
  if (split_complete && !split_errors) out.thread_load_spread = split_spread;
  out.assignment.normalize();
  return out;
}

}  // namespace assignor::host
