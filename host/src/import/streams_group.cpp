#include "assignor/host/import/streams_group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/formats/yaml_json_reader.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/support/temporary_files.hpp"
#include "assignor/host/support/utf8.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/task_id.hpp"
#include "assignor/validation.hpp"

namespace assignor::host {

namespace fs = std::filesystem;

namespace {

// Without an offsets file: the end-offset sum every stateful task is given, so that a member with a
// copy (reporting it) is caught up and the others are far behind.
constexpr std::int64_t kPlaceholderEndOffsets = 1'000'000'000;

enum Role { kActive, kStandby, kWarmup };

struct Member {
  std::string id, process;
  std::vector<TaskId> current[3], target[3];
  std::size_t line = 0;
};

const char* const kRoleNames[3] = {"ACTIVE", "STANDBY", "WARMUP"};

// An id as the cluster reader accepts one: non-empty printable UTF-8 within the id length limit.
void check_id(std::string_view id, std::string_view what, const std::string& where, const InputLimits& limits) {
  std::string problem;
  if (id.empty())
    problem = "is empty";
  else if (const auto bad = invalid_utf8_at(id); bad != std::string_view::npos)
    problem = fmt::format("is not valid UTF-8 (byte {})", bad);
  else if (const auto control = first_control_character(id); control != std::string_view::npos)
    problem =
        fmt::format("holds a control character at byte {} (an escape sequence, a bidirectional override...)", control);
  else if (id.size() > limits.max_id_length)
    problem = fmt::format("is {} bytes long; the limit is {} (limits.max_id_length)", id.size(), limits.max_id_length);
  if (!problem.empty()) throw InputError(fmt::format("{}: {} '{}' {}", where, what, printable(id), problem));
}

std::string trim(std::string_view s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return {};
  const auto b = s.find_last_not_of(" \t\r");
  return std::string(s.substr(a, b - a + 1));
}

// "ACTIVE: 0:[0,1]; 1:[0]; STANDBY: 0:[2]; TARGET-ACTIVE: ..." into the member's lists.
void read_assignments(std::string_view cell, Member& m, const std::string& where) {
  std::istringstream in{std::string(cell)};
  std::string token;
  std::vector<TaskId>* into = nullptr;
  while (in >> token) {
    static const std::pair<const char*, int> kLabels[] = {{"ACTIVE:", 0},         {"STANDBY:", 1},
                                                          {"WARMUP:", 2},         {"TARGET-ACTIVE:", 3},
                                                          {"TARGET-STANDBY:", 4}, {"TARGET-WARMUP:", 5}};
    bool label = false;
    for (const auto& [text, k] : kLabels)
      if (token == text) {
        into = k < 3 ? &m.current[k] : &m.target[k - 3];
        label = true;
      }
    if (label) continue;
    const auto colon = token.find(":[");
    if (into == nullptr || colon == std::string::npos || token.size() < colon + 4 ||
        token.substr(token.size() - 2) != "];")
      throw InputError(fmt::format("{}: cannot read '{}' in the ASSIGNMENTS column (expected 'ACTIVE: 0:[0,1]; ...')",
                                   where, printable(token)));
    const std::string sub = token.substr(0, colon);
    const std::string parts = token.substr(colon + 2, token.size() - colon - 4);
    std::size_t pos = 0;
    while (pos < parts.size()) {
      const std::size_t comma = std::min(parts.find(',', pos), parts.size());
      const auto id = parse_task_id(sub + "_" + parts.substr(pos, comma - pos));
      if (!id)
        throw InputError(
            fmt::format("{}: '{}' is not a sub-topology and partitions (sub-topology ids must be numbers "
                        "here)",
                        where, printable(token)));
      into->push_back(*id);
      pos = comma + 1;
    }
  }
}

struct Offsets {
  std::map<TaskId, std::int64_t> end;
  std::map<std::string, std::map<TaskId, std::int64_t>> sums;
};

Offsets read_offsets(const std::string& path) {
  using namespace detail;
  const std::string source = source_name(path);
  const std::string text = read_text_file(source, path, "offsets file");
  const auto doc = load_document(text, source, "an offsets map (end_offsets, offset_sums)");
  const FieldReader r(source);
  static const std::vector<std::string> kKeys = {"end_offsets", "offset_sums"};
  const Node root = doc.root();
  r.expect_map(root, "");
  const Fields f(r, root, "", kKeys);
  Offsets out;
  auto task = [&](const Node& key, const std::string& place) {
    const auto id = parse_task_id(r.string_view(key, place));
    if (!id) r.fail_at(key, place, fmt::format("'{}' is not a task id of the form S_P", printable(key.Scalar())));
    return *id;
  };
  if (f.has(0)) {
    r.expect_map(f.value(0), "end_offsets");
    for (auto it = f.value(0).begin(); it != f.value(0).end(); ++it)
      out.end[task(it->first, "end_offsets")] = r.integer_in(it->second, "end_offsets", 0);
  }
  if (f.has(1)) {
    r.expect_map(f.value(1), "offset_sums");
    for (auto it = f.value(1).begin(); it != f.value(1).end(); ++it) {
      const std::string process = r.string(it->first, "offset_sums");
      r.expect_map(it->second, "offset_sums." + process);
      for (auto jt = it->second.begin(); jt != it->second.end(); ++jt)
        out.sums[process][task(jt->first, "offset_sums." + process)] = r.integer(jt->second, "offset_sums." + process);
    }
  }
  return out;
}

}  // namespace

StreamsGroup read_streams_group(std::string_view text, const std::string& source,
                                const std::optional<std::string>& offsets_file, const InputLimits& limits) {
  StreamsGroup out;
  std::vector<Member> members;
  std::vector<std::pair<std::string, std::size_t>> columns;  // header word, its column
  bool verbose_seen = false;
  std::size_t number = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = std::min(text.find('\n', pos), text.size());
    const std::string line(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++number;
    const std::string where = fmt::format("{}:{}", source, number);
    if (line.find('\0') != std::string::npos)
      throw InputError(fmt::format("{}: a NUL byte at column {}: not the text kafka-streams-groups.sh prints", where,
                                   line.find('\0') + 1));
    if (trim(line).empty()) continue;
    if (line.rfind("GROUP ", 0) == 0) {
      columns.clear();
      std::istringstream words(line);
      std::string w;
      std::size_t from = 0;
      while (words >> w) {
        const std::size_t at = line.find(w, from);
        columns.emplace_back(w, at);
        from = at + w.size();
      }
      if (columns.empty() || columns.back().first != "ASSIGNMENTS" ||
          std::none_of(columns.begin(), columns.end(), [](const auto& c) { return c.first == "PROCESS"; }))
        throw InputError(
            fmt::format("{}: not the member table of 'kafka-streams-groups.sh --describe --members' (its "
                        "header has GROUP ... PROCESS ... ASSIGNMENTS)",
                        where));
      verbose_seen = verbose_seen || std::any_of(columns.begin(), columns.end(),
                                                 [](const auto& c) { return c.first == "TARGET-ASSIGNMENT-EPOCH"; });
      continue;
    }
    if (line.rfind("Streams group ", 0) == 0) {
      out.notes.push_back(fmt::format("{}: {}", where, printable(trim(line))));
      continue;
    }
    if (columns.empty())
      throw InputError(fmt::format("{}: a line before the member table's header (GROUP ... ASSIGNMENTS)", where));
    Member m;
    m.line = number;
    std::string group;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::size_t start = columns[c].second;
      const std::size_t end = c + 1 < columns.size() ? columns[c + 1].second : line.size();
      const std::string cell = start < line.size() ? trim(std::string_view(line).substr(start, end - start)) : "";
      const std::string& name = columns[c].first;
      if (name == "GROUP")
        group = cell;
      else if (name == "MEMBER")
        m.id = cell;
      else if (name == "PROCESS")
        m.process = cell;
      else if (name == "ASSIGNMENTS")
        read_assignments(start < line.size() ? std::string_view(line).substr(start) : "", m, where);
    }
    if (m.id.empty() || m.process.empty())
      throw InputError(fmt::format("{}: a member row without MEMBER or PROCESS (is the table cut?)", where));
    // The ids become the cluster file's client and thread names, and the group a file name: each must
    // be what the readers accept, and nothing that could reach a terminal or a file name raw.
    check_id(group.empty() ? std::string_view("group") : std::string_view(group), "group", where, limits);
    check_id(m.process, "PROCESS", where, limits);
    check_id(m.id, "MEMBER", where, limits);
    if (out.group.empty() && members.empty())
      out.group = group;
    else if (group != out.group)
      throw InputError(fmt::format("{}: a second group '{}' (this file describes '{}'); describe one group per file",
                                   where, printable(group), printable(out.group)));
    members.push_back(std::move(m));
  }
  if (members.empty()) throw InputError(fmt::format("{}: no member rows", source));

  // One member per row, a task on one member of a process at most (Kafka never puts two copies of a
  // task in one process), and active on one process at most, now and in the target.
  {
    std::map<std::string, std::size_t> line_of_member;
    for (const Member& m : members)
      if (const auto [it, fresh] = line_of_member.emplace(m.id, m.line); !fresh)
        throw InputError(
            fmt::format("{}:{}: MEMBER '{}' is also on line {}", source, m.line, printable(m.id), it->second));
    for (const bool target : {false, true}) {
      const char* prefix = target ? "TARGET-" : "";
      std::map<std::pair<std::string, TaskId>, std::pair<const Member*, int>> in_process;  // (process, task)
      std::map<TaskId, const Member*> active_on;
      for (const Member& m : members)
        for (int r = 0; r < 3; ++r)
          for (const TaskId t : (target ? m.target : m.current)[r]) {
            const auto [it, fresh] = in_process.emplace(std::pair{m.process, t}, std::pair{&m, r});
            if (!fresh) {
              const auto& [other, role] = it->second;
              throw InputError(fmt::format(
                  "{}:{}: task {} is {}{} on member '{}' and {}{} on member '{}' (line {}) of one process '{}': a "
                  "process holds a task once",
                  source, m.line, to_string(t), prefix, kRoleNames[r], printable(m.id), prefix, kRoleNames[role],
                  printable(other->id), other->line, printable(m.process)));
            }
            if (r != kActive) continue;
            if (const auto [at, first] = active_on.emplace(t, &m); !first)
              throw InputError(
                  fmt::format("{}:{}: task {} is {}ACTIVE on process '{}' and on process '{}' (line {}): "
                              "a task is active on one process",
                              source, m.line, to_string(t), prefix, printable(m.process),
                              printable(at->second->process), at->second->line));
          }
    }
  }

  std::optional<Offsets> offsets;
  if (offsets_file) offsets = read_offsets(*offsets_file);

  // Tasks, and which are stateful: with copies anywhere, or with an end offset given.
  std::set<TaskId> all, stateful;
  bool any_target = false;
  for (const Member& m : members)
    for (int r = 0; r < 3; ++r) {
      for (TaskId t : m.current[r]) all.insert(t), r > 0 ? (void)stateful.insert(t) : (void)0;
      for (TaskId t : m.target[r]) all.insert(t), any_target = true, r > 0 ? (void)stateful.insert(t) : (void)0;
    }
  if (offsets)
    for (const auto& [t, e] : offsets->end) all.insert(t), stateful.insert(t);
  else
    out.notes.push_back(
        fmt::format("no --offsets: the description has no lags, so every member holding a copy of a "
                    "task counts as caught up on it and the others as {} offsets behind (a "
                    "placeholder); stateful = the {} tasks with a standby or warmup somewhere",
                    kPlaceholderEndOffsets, stateful.size()));

  Cluster& cluster = out.cluster;
  std::map<TaskId, TaskIndex> index;
  for (TaskId t : all) {
    Task task;
    task.id = t;
    if (stateful.count(t) != 0) {
      const std::int64_t e = offsets ? (offsets->end.count(t) ? offsets->end.at(t) : 0) : kPlaceholderEndOffsets;
      task.stores.push_back(Store{"changelog", true, e});
    }
    index.emplace(t, static_cast<TaskIndex>(cluster.tasks.size()));
    cluster.tasks.push_back(std::move(task));
  }
  std::map<std::string, std::vector<const Member*>> by_process;
  for (const Member& m : members) by_process[m.process].push_back(&m);
  for (auto& [process, list] : by_process) {
    std::sort(list.begin(), list.end(), [](const Member* a, const Member* b) { return a->id < b->id; });
    Client client;
    client.id = process;
    client.threads = static_cast<std::uint32_t>(std::min<std::size_t>(list.size(), UINT32_MAX));
    std::set<TaskId> active, copies;
    for (const Member* m : list) {
      ThreadHistory thread;
      thread.name = m->id;
      for (TaskId t : m->current[kActive]) thread.previous_active.push_back(index.at(t)), active.insert(t);
      for (int r : {kStandby, kWarmup})
        for (TaskId t : m->current[r]) thread.previous_standby.push_back(index.at(t)), copies.insert(t);
      std::sort(thread.previous_active.begin(), thread.previous_active.end());
      std::sort(thread.previous_standby.begin(), thread.previous_standby.end());
      client.threads_history.push_back(std::move(thread));
    }
    for (TaskId t : active) client.previous_active.push_back(index.at(t));
    for (TaskId t : copies) client.previous_standby.push_back(index.at(t));
    if (offsets) {
      if (const auto it = offsets->sums.find(process); it != offsets->sums.end())
        for (const auto& [t, s] : it->second) {
          if (index.count(t) == 0 || stateful.count(t) == 0)
            throw InputError(fmt::format("{}: offset_sums.{}: task {} is not a stateful task of the group",
                                         *offsets_file, printable(process), to_string(t)));
          client.offset_sums.push_back({index.at(t), s});
        }
    } else {
      for (TaskId t : active)
        if (stateful.count(t) != 0) client.offset_sums.push_back({index.at(t), kRunningOffsetSum});
      for (TaskId t : copies) client.offset_sums.push_back({index.at(t), kPlaceholderEndOffsets});
    }
    std::sort(client.offset_sums.begin(), client.offset_sums.end(),
              [](const OffsetSum& a, const OffsetSum& b) { return a.task < b.task; });
    cluster.clients.push_back(std::move(client));
  }
  try {
    cluster.finalize();
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: the members' tasks do not make a group: {}", source, e.what()));
  }

  if (any_target && verbose_seen) {
    AssignmentReport report;
    report.strategy = "kafka (group coordinator's target assignment)";
    for (const Member& m : members) {
      const ClientIndex c = *cluster.find_client(m.process);
      for (TaskId t : m.target[kActive]) report.assignment.actives.push_back({index.at(t), c});
      for (TaskId t : m.target[kStandby]) report.assignment.standbys.push_back({index.at(t), c});
      for (TaskId t : m.target[kWarmup]) report.assignment.warmups.push_back({index.at(t), c});
    }
    report.assignment.probing_rebalance = !report.assignment.warmups.empty();
    report.assignment.normalize();
    const AssignmentSettings settings;
    const LagModel lags(cluster, settings);
    report.metrics = compute_metrics(cluster, settings, lags, report.assignment);
    out.target = std::move(report);
  }
  out.members = members.size();
  return out;
}

namespace {

// Writes `text` at `path` through a temporary file beside it (a failure or a signal leaves nothing).
void write_in_place(const fs::path& path, const std::string& text) {
  TemporaryPath part(path.string() + ".assignor-part", TemporaryPath::Kind::file);
  {
    std::ofstream file(part.path(), std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) throw InputError(fmt::format("{}: cannot write", printable(path.string())));
  }
  std::error_code ec;
  fs::rename(part.path(), path, ec);
  if (ec) throw InputError(fmt::format("{}: cannot write: {}", printable(path.string()), ec.message()));
  part.release();
}

}  // namespace

StreamsGroupImport import_streams_group(const StreamsGroupOptions& options) {
  const std::string source = printable(detail::source_name(options.file));
  const std::string text =
      detail::read_text_file(source, options.file, "the group description", options.limits.max_file_bytes);
  StreamsGroup group = read_streams_group(text, source, options.offsets, options.limits);

  // What is written is what its readers accept: the cluster file as `assign` reads it (with the same
  // limits), the target as `validate` reads it. A refusal here is a bug of this importer, said as such.
  const std::string cluster_text = cluster_to_json(group.cluster);
  std::string target_text;
  try {
    (void)parse_cluster(cluster_text, "the cluster file", options.limits);
    if (group.target) {
      target_text = assignment_json(group.cluster, *group.target);
      const ParsedAssignment back = parse_assignment(target_text, "the target assignment", group.cluster);
      std::string problems;
      for (const auto& e : back.errors) problems += (problems.empty() ? "" : "; ") + e.message;
      for (const auto& e : validate(group.cluster, AssignmentSettings{}, group.target->assignment))
        if (e.kind != ValidationErrorKind::standby_budget_exceeded &&
            e.kind != ValidationErrorKind::warmup_budget_exceeded)
          problems += (problems.empty() ? "" : "; ") + e.message;
      if (!problems.empty())
        throw InputError(fmt::format("the TARGET- columns are not a whole assignment: {}", problems));
    }
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: the group cannot be written as files its readers accept: {}", source, e.what()));
  }

  StreamsGroupImport out;
  out.group = group.group;
  out.notes = std::move(group.notes);
  std::error_code ec;
  fs::create_directories(options.output_dir, ec);
  if (!fs::is_directory(options.output_dir, ec))
    throw InputError(
        fmt::format("--output-dir {}: cannot create the directory", printable(options.output_dir.string())));
  const std::string name = out.group.empty() ? "group" : out.group;
  for (char c : name)
    if (c == '/') throw InputError(fmt::format("{}: group name '{}' cannot be a file name", source, printable(name)));
  const fs::path cluster_path = options.output_dir / (name + ".cluster.json");
  const fs::path target_path = options.output_dir / (name + ".target.json");
  for (const fs::path& path : {cluster_path, target_path})
    if (fs::exists(fs::symlink_status(path, ec)) && !options.replace)
      throw InputError(
          fmt::format("{}: already exists (from an earlier import?); give another --output-dir, or "
                      "--replace to replace the group's files",
                      printable(path.string())));
  write_in_place(cluster_path, cluster_text);
  out.cluster_file = cluster_path.string();
  if (group.target) {
    write_in_place(target_path, target_text);
    out.target_file = target_path.string();
  } else {
    fs::remove(target_path, ec);  // --replace: an earlier import's target is not this group's
  }
  out.clients = group.cluster.client_count();
  out.members = group.members;
  out.tasks = group.cluster.task_count();
  out.stateful_tasks = group.cluster.logged_task_count();
  return out;
}

}  // namespace assignor::host
