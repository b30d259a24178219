#include "assignor/host/import/streams_group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "assignor/host/formats/yaml_json_reader.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/task_id.hpp"

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
};

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
    static const std::pair<const char*, int> kLabels[] = {{"ACTIVE:", 0},        {"STANDBY:", 1},        {"WARMUP:", 2},
                                                          {"TARGET-ACTIVE:", 3}, {"TARGET-STANDBY:", 4}, {"TARGET-WARMUP:", 5}};
    bool label = false;
    for (const auto& [text, k] : kLabels)
      if (token == text) {
        into = k < 3 ? &m.current[k] : &m.target[k - 3];
        label = true;
      }
    if (label) continue;
    const auto colon = token.find(":[");
    if (into == nullptr || colon == std::string::npos || token.size() < colon + 4 || token.substr(token.size() - 2) != "];")
      throw InputError(fmt::format("{}: cannot read '{}' in the ASSIGNMENTS column (expected 'ACTIVE: 0:[0,1]; ...')",
                                   where, printable(token)));
    const std::string sub = token.substr(0, colon);
    const std::string parts = token.substr(colon + 2, token.size() - colon - 4);
    std::size_t pos = 0;
    while (pos < parts.size()) {
      const std::size_t comma = std::min(parts.find(',', pos), parts.size());
      const auto id = parse_task_id(sub + "_" + parts.substr(pos, comma - pos));
      if (!id)
        throw InputError(fmt::format("{}: '{}' is not a sub-topology and partitions (sub-topology ids must be numbers "
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

StreamsGroupImport import_streams_group(const StreamsGroupOptions& options) {
  std::ifstream in(options.file);
  if (!in) throw InputError(fmt::format("{}: cannot read the group description", options.file));
  StreamsGroupImport out;
  std::vector<Member> members;
  std::vector<std::pair<std::string, std::size_t>> columns;  // header word, its column
  bool verbose_seen = false;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = fmt::format("{}:{}", options.file, number);
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
        throw InputError(fmt::format("{}: not the member table of 'kafka-streams-groups.sh --describe --members' (its "
                                     "header has GROUP ... PROCESS ... ASSIGNMENTS)",
                                     where));
      verbose_seen = verbose_seen || std::any_of(columns.begin(), columns.end(),
                                                 [](const auto& c) { return c.first == "TARGET-ASSIGNMENT-EPOCH"; });
      continue;
    }
    if (line.rfind("Streams group ", 0) == 0) {
      out.notes.push_back(fmt::format("{}: {}", where, trim(line)));
      continue;
    }
    if (columns.empty())
      throw InputError(fmt::format("{}: a line before the member table's header (GROUP ... ASSIGNMENTS)", where));
    Member m;
    std::string group;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::size_t start = columns[c].second;
      const std::size_t end = c + 1 < columns.size() ? columns[c + 1].second : line.size();
      const std::string cell = start < line.size() ? trim(std::string_view(line).substr(start, end - start)) : "";
      const std::string& name = columns[c].first;
      if (name == "GROUP") group = cell;
      else if (name == "MEMBER") m.id = cell;
      else if (name == "PROCESS") m.process = cell;
      else if (name == "ASSIGNMENTS") read_assignments(start < line.size() ? std::string_view(line).substr(start) : "", m, where);
    }
    if (m.id.empty() || m.process.empty())
      throw InputError(fmt::format("{}: a member row without MEMBER or PROCESS (is the table cut?)", where));
    if (out.group.empty()) out.group = group;
    else if (group != out.group)
      throw InputError(fmt::format("{}: a second group '{}' (this file describes '{}'); describe one group per file",
                                   where, printable(group), printable(out.group)));
    members.push_back(std::move(m));
  }
  if (members.empty()) throw InputError(fmt::format("{}: no member rows", options.file));

  std::optional<Offsets> offsets;
  if (options.offsets) offsets = read_offsets(*options.offsets);

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
    out.notes.push_back(fmt::format("no --offsets: the description has no lags, so every member holding a copy of a "
                                    "task counts as caught up on it and the others as {} offsets behind (a "
                                    "placeholder); stateful = the {} tasks with a standby or warmup somewhere",
                                    kPlaceholderEndOffsets, stateful.size()));

  Cluster cluster;
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
    client.threads = static_cast<std::uint32_t>(list.size());
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
    for (TaskId t : copies)
      if (active.count(t) == 0) client.previous_standby.push_back(index.at(t));
    if (offsets) {
      if (const auto it = offsets->sums.find(process); it != offsets->sums.end())
        for (const auto& [t, s] : it->second) {
          if (index.count(t) == 0 || stateful.count(t) == 0)
            throw InputError(fmt::format("{}: offset_sums.{}: task {} is not a stateful task of the group",
                                         *options.offsets, process, to_string(t)));
          client.offset_sums.push_back({index.at(t), s});
        }
    } else {
      for (TaskId t : active)
        if (stateful.count(t) != 0) client.offset_sums.push_back({index.at(t), kRunningOffsetSum});
      for (TaskId t : copies)
        if (active.count(t) == 0) client.offset_sums.push_back({index.at(t), kPlaceholderEndOffsets});
    }
    std::sort(client.offset_sums.begin(), client.offset_sums.end(),
              [](const OffsetSum& a, const OffsetSum& b) { return a.task < b.task; });
    cluster.clients.push_back(std::move(client));
  }
  try {
    cluster.finalize();
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: the members' tasks do not make a group: {}", options.file, e.what()));
  }

  std::error_code ec;
  fs::create_directories(options.output_dir, ec);
  const std::string name = out.group.empty() ? "group" : out.group;
  for (char c : name)
    if (c == '/' || c == '\0')
      throw InputError(fmt::format("{}: group name '{}' cannot be a file name", options.file, printable(name)));
  out.cluster_file = (options.output_dir / (name + ".cluster.json")).string();
  {
    std::ofstream file(out.cluster_file, std::ios::trunc);
    file << cluster_to_json(cluster);
    if (!file) throw InputError(fmt::format("{}: cannot write", out.cluster_file));
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
    out.target_file = (options.output_dir / (name + ".target.json")).string();
    std::ofstream file(*out.target_file, std::ios::trunc);
    file << assignment_json(cluster, report);
    if (!file) throw InputError(fmt::format("{}: cannot write", *out.target_file));
  }
  out.clients = cluster.client_count();
  out.members = members.size();
  out.tasks = cluster.task_count();
  out.stateful_tasks = cluster.logged_task_count();
  return out;
}

}  // namespace assignor::host
