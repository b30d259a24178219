// The cluster reader (DESIGN 4.1): every check of a cluster file, with its message and place, on
// the document (document.hpp) of a YAML or JSON file, and the model built from it. This is the
// authority on what is accepted; strict JSON is first offered to the fast path
// (cluster_json_reader.cpp), which reads the files this path would accept without a document and
// leaves every other file to this one.
#include "assignor/host/formats/cluster_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "assignor/errors.hpp"
#include "assignor/host/formats/yaml_json_reader.hpp"
#include "assignor/task_id.hpp"
#include "cluster_file.hpp"

namespace assignor::host {

namespace {

using namespace detail;                // the readers' shared checks (yaml_json_reader.hpp)
using namespace detail::cluster_file;  // the keys and the task table (cluster_file.hpp)

int line_of(const Node& node) { return node.Mark().line + 1; }

// "PLACE: FIELD", made only when a message needs it (see detail::Place).
auto lazy_field(const Place& place, std::string field) {
  return [&place, field = std::move(field)] { return join_place(place.str(), field); };
}

class ClusterParser {
 public:
  ClusterParser(std::string source, const InputLimits& limits)
      : source_(std::move(source)), limits_(limits), r_(source_, limits.max_id_length) {}

  Cluster parse(std::string_view text, std::size_t readable) {
    const auto document =
        detail::load_document(text, source_, "a map with 'tasks' and 'clients'", limits_.max_file_bytes, readable);
    const Node root = document.root();
    if (!root.IsMap())
      r_.fail_at(root, "",
                 fmt::format("expected a map with 'tasks' and 'clients' at the top level, got {}", describe(root)));
    const Fields top(r_, root, "", kTopKeys);

    if (top.has(kVersion)) {
      const std::int64_t version = r_.integer(top.value(kVersion), "version");
      if (version != 1)
        r_.fail_at(top.value(kVersion), "version",
                   fmt::format("unsupported version {} (this reader knows version 1)", version));
    }
    if (top.has(kEndOffsetsKnown))
      cluster_.end_offsets_known = r_.boolean(top.value(kEndOffsetsKnown), "end_offsets_known");

    // Tasks first, whatever the key order in the file: clients refer to them.
    parse_tasks(top.require(kTasks, ""));
    parse_clients(top.require(kClients, ""));

    try {
      cluster_.finalize();
    } catch (const std::invalid_argument& e) {
      // Every user error should have been caught above; this is the last line of defence.
      throw InputError(fmt::format("{}: inconsistent cluster: {}", source_, e.what()));
    }
    return std::move(cluster_);
  }

 private:
  // ---- tasks ---------------------------------------------------------------------------------

  void parse_tasks(const Node& list) {
    r_.expect_list(list, "tasks");
    const std::size_t n = list.size();
    if (n > limits_.max_tasks || n > std::numeric_limits<TaskIndex>::max() - 1)
      r_.fail_at(
          list, "tasks",
          fmt::format("too many tasks ({}); the limit is {} (limits.max_tasks in the config)", n, limits_.max_tasks));
    cluster_.tasks.reserve(n);
    task_line_.reserve(n);
    task_by_id_ = TaskLookup(n);
    std::size_t i = 0;
    for (const Node& node : list) parse_task(node, i++);
  }

  void parse_task(const Node& node, std::size_t i) {
    const auto index_text = [i] { return fmt::format("tasks[{}]", i); };
    const Place index_place(index_text);
    if (!node.IsMap()) r_.fail_at(node, index_place, fmt::format("expected a map, got {}", describe(node)));
    const Fields f(r_, node, index_place, kTaskKeys, Fields::defer_checks);

    if (!f.given(kTaskId)) f.check(index_place);  // "unknown key 'idd'; did you mean 'id'?" first
    const Node& id_node = f.require(kTaskId, index_place);
    const auto id_place = lazy_field(index_place, "id");
    const std::string_view id_text = r_.string_view(id_node, id_place);
    const auto id = parse_task_id(id_text);
    if (!id)
      r_.fail_at(
          id_node, id_place,
          fmt::format("'{}' is not a task id of the form S_P (e.g. 0_3; digits only, no leading zeros)", id_text));
    const auto place_text = [id_text] { return fmt::format("task '{}'", id_text); };
    const Place place(place_text);
    f.check(place);

    const auto index = static_cast<TaskIndex>(cluster_.tasks.size());
    if (const TaskIndex first = task_by_id_.add(*id, index); first != TaskLookup::kNone)
      r_.fail_at(id_node, place,
                 fmt::format("duplicate task id (first defined at line {}, here at line {})", task_line_[first],
                             line_of(id_node)));

    Task task;
    task.id = *id;
    if (f.has(kStores)) parse_stores(f.value(kStores), task, place);
    if (f.has(kWeight)) {
      const Node& w = f.value(kWeight);
      const auto weight_place = lazy_field(place, "weight");
      task.weight = r_.number(w, weight_place);
      if (!(task.weight > 0)) r_.fail_at(w, weight_place, fmt::format("must be > 0, got {}", w.Scalar()));
    }
    if (f.has(kPartitions)) parse_partitions(f.value(kPartitions), task, place);

    cluster_.tasks.push_back(std::move(task));
    task_line_.push_back(line_of(id_node));
  }

  void parse_stores(const Node& list, Task& task, const Place& place) {
    r_.expect_list(list, lazy_field(place, "stores"));
    task.stores.reserve(list.size());
    std::unordered_map<std::string, std::size_t> long_store_list;  // name -> position, for long lists
    std::size_t i = 0;
    for (const Node& node : list) {
      const std::size_t k = i++;
      const auto at = [&place, k](std::string_view leaf) {
        return [&place, k, leaf] { return join_place(place.str(), fmt::format("stores[{}]{}", k, leaf)); };
      };
      const auto store_place = at("");
      const Fields f(r_, node, store_place, kStoreKeys);
      Store store;
      const Node& name_node = f.require(kStoreName, store_place);
      const auto name_place = at(".name");
      store.name = r_.string(name_node, name_place);
      // Tasks have a few stores: a linear search finds a repeated name without a set per task; a
      // long list (a hostile file) gets a hash set, so that reading stays linear.
      std::size_t first = task.stores.size();
      if (list.size() <= kLinearSearch) {
        for (std::size_t j = 0; j < task.stores.size() && first == task.stores.size(); ++j)
          if (task.stores[j].name == store.name) first = j;
      } else if (const auto [it, inserted] = long_store_list.emplace(store.name, k); !inserted) {
        first = it->second;
      }
      if (first != task.stores.size())
        r_.fail_at(name_node, name_place,
                   fmt::format("duplicate store name '{}' (first at line {})", store.name, store_line_[first]));
      if (f.has(kLogged)) store.logged = r_.boolean(f.value(kLogged), at(".logged"));
      const auto offset_place = at(".changelog_end_offset");
      if (store.logged) {
        if (!f.has(kEndOffset))
          r_.fail_at(node, store_place,
                     fmt::format("store '{}' is logged but has no changelog_end_offset (add one, or "
                                 "'logged: false' for a store without changelog)",
                                 store.name));
        store.changelog_end_offset = r_.integer(f.value(kEndOffset), offset_place);
        if (store.changelog_end_offset < 0)
          r_.fail_at(f.value(kEndOffset), offset_place,
                     fmt::format("must be >= 0, got {}", store.changelog_end_offset));
      } else if (f.given(kEndOffset)) {
        r_.fail_at(f.key(kEndOffset), offset_place,
                   fmt::format("changelog_end_offset given for store '{}', which is not logged "
                               "(logged: false); remove one of them",
                               store.name));
      }
      if (store_line_.size() <= task.stores.size()) store_line_.resize(task.stores.size() + 1);
      store_line_[task.stores.size()] = line_of(name_node);
      task.stores.push_back(std::move(store));
    }
  }

  void parse_partitions(const Node& list, Task& task, const Place& place_ref) {
    const std::string place = place_ref.str();
    r_.expect_list(list, join_place(place, "partitions"));
    std::unordered_map<std::string, int> seen;  // "topic-partition" -> line
    std::size_t i = 0;
    for (const Node& node : list) {
      const std::string field = fmt::format("partitions[{}]", i++);
      const std::string part_place = join_place(place, field);
      const Fields f(r_, node, part_place, kPartitionKeys);
      PartitionRef ref;
      ref.topic = r_.string(f.require(kTopic, part_place), join_place(place, field + ".topic"));
      const Node& p = f.require(kPartition, part_place);
      ref.partition = static_cast<std::int32_t>(
          r_.integer_in(p, join_place(place, field + ".partition"), 0, std::numeric_limits<std::int32_t>::max()));
      const std::string tp = fmt::format("{}-{}", ref.topic, ref.partition);
      if (const auto [it, inserted] = seen.emplace(tp, line_of(node)); !inserted)
        r_.fail_at(node, part_place,
                   fmt::format("partition {} of topic '{}' listed twice (first at line {})", ref.partition, ref.topic,
                               it->second));
      if (f.has(kRacks)) {
        const std::string racks_place = join_place(place, field + ".racks");
        r_.expect_list(f.value(kRacks), racks_place);
        ++rack_list_serial_;  // marks racks seen in this list: linear, however long the list
        for (const Node& rack : f.value(kRacks)) {
          const RackIndex r = rack_index(r_.string(rack, racks_place));
          if (rack_mark_[r] == rack_list_serial_)
            r_.fail_at(rack, racks_place, fmt::format("rack '{}' listed twice", rack.Scalar()));
          rack_mark_[r] = rack_list_serial_;
          ref.racks.push_back(r);
        }
      }
      task.partitions.push_back(std::move(ref));
    }
  }

  RackIndex rack_index(const std::string& name) {
    const auto [it, inserted] = rack_by_name_.emplace(name, static_cast<RackIndex>(cluster_.racks.size()));
    if (inserted) {
      cluster_.racks.push_back(name);
      rack_mark_.push_back(0);
    }
    return it->second;
  }

  // ---- clients -------------------------------------------------------------------------------

  void parse_clients(const Node& list) {
    r_.expect_list(list, "clients");
    if (list.size() == 0) r_.fail_at(list, "clients", "no clients (an empty group cannot be assigned)");
    if (list.size() > limits_.max_clients || list.size() >= kUnmarked)
      r_.fail_at(list, "clients",
                 fmt::format("too many clients ({}); the limit is {} (limits.max_clients in the config)", list.size(),
                             limits_.max_clients));
    const std::size_t n_tasks = cluster_.tasks.size();
    prev_owner_.assign(n_tasks, kUnmarked);
    standby_mark_.assign(n_tasks, kUnmarked);
    offset_mark_.assign(n_tasks, kUnmarked);
    cluster_.clients.reserve(list.size());
    std::size_t i = 0;
    for (const Node& node : list) parse_client(node, i++);
  }

  void parse_client(const Node& node, std::size_t i) {
    const std::string index_place = fmt::format("clients[{}]", i);
    if (!node.IsMap()) r_.fail_at(node, index_place, fmt::format("expected a map, got {}", describe(node)));
    const Fields f(r_, node, index_place, kClientKeys, Fields::defer_checks);

    if (!f.given(kClientId)) f.check(index_place);  // "unknown key 'idd'; did you mean 'id'?" first
    const Node& id_node = f.require(kClientId, index_place);
    Client client;
    client.id = r_.string(id_node, join_place(index_place, "id"));
    const std::string place = fmt::format("client '{}'", client.id);
    f.check(place);
    const auto c = static_cast<ClientIndex>(cluster_.clients.size());
    if (const auto [it, inserted] = client_by_id_.emplace(client.id, c); !inserted)
      r_.fail_at(id_node, place,
                 fmt::format("duplicate client id (first defined at line {}, here at line {})",
                             client_line_[it->second], line_of(id_node)));

    const Node& threads = f.require(kThreads, place);
    const std::int64_t thread_count =
        r_.integer_in(threads, join_place(place, "threads"), 1, std::numeric_limits<std::uint32_t>::max());
    if (static_cast<std::uint64_t>(thread_count) > limits_.max_threads_per_client)
      r_.fail_at(threads, join_place(place, "threads"),
                 fmt::format("{} is more than the limit of {} (limits.max_threads_per_client in the config)",
                             thread_count, limits_.max_threads_per_client));
    client.threads = static_cast<std::uint32_t>(thread_count);
    total_threads_ += client.threads;
    if (total_threads_ > limits_.max_total_threads)
      r_.fail_at(threads, join_place(place, "threads"),
                 fmt::format("the clients so far have {} threads in all, more than the limit of {} "
                             "(limits.max_total_threads in the config)",
                             total_threads_, limits_.max_total_threads));

    if (f.has(kRack)) client.rack = rack_index(r_.string(f.value(kRack), join_place(place, "rack")));

    if (f.has(kTags)) {
      const Node& tags = f.value(kTags);
      r_.expect_map(tags, join_place(place, "tags"));
      for (auto it = tags.begin(); it != tags.end(); ++it) {
        const std::string key = r_.string(it->first, join_place(place, "tags"));
        const std::string tag_place = join_place(place, "tags." + key);
        std::string value = r_.string(it->second, tag_place, /*allow_empty=*/true);
        if (!client.tags.emplace(key, std::move(value)).second)
          r_.fail_at(it->first, join_place(place, "tags"), fmt::format("tag '{}' given twice", key));
      }
    }

    // previous_active before previous_standby whatever the key order, so that "in both lists" is
    // reported on the standby entry.
    read_task_list(f, kPreviousActive, place, "previous_active", c, prev_owner_, client.previous_active,
                   [&](const Node& entry, const std::string& list_place, TaskIndex t) {
                     if (prev_owner_[t] == kUnmarked) return;
                     const Client& other = cluster_.clients[prev_owner_[t]];
                     r_.fail_at(entry, list_place,
                                fmt::format("task '{}' is also previous active on client '{}' (line {}); a task has "
                                            "at most one previous active client",
                                            entry.Scalar(), other.id, client_line_[prev_owner_[t]]));
                   });
    read_task_list(f, kPreviousStandby, place, "previous_standby", c, standby_mark_, client.previous_standby,
                   [&](const Node& entry, const std::string& list_place, TaskIndex t) {
                     if (prev_owner_[t] == c)
                       r_.fail_at(entry, list_place,
                                  fmt::format("task '{}' is also in previous_active of this client; a client holds a "
                                              "task as active or as standby, not both",
                                              entry.Scalar()));
                   });

    if (f.has(kPreviousByThread)) parse_threads(f.value(kPreviousByThread), place, client);

    if (f.has(kOffsetSums)) {
      const std::string map_place = join_place(place, "offset_sums");
      const Node& sums = f.value(kOffsetSums);
      r_.expect_map(sums, map_place);
      client.offset_sums.reserve(sums.size());
      for (auto it = sums.begin(); it != sums.end(); ++it) {
        const TaskIndex t = resolve_task(it->first, map_place);
        if (offset_mark_[t] == c)
          r_.fail_at(it->first, map_place, fmt::format("task '{}' is listed twice", it->first.Scalar()));
        offset_mark_[t] = c;
        // Any integer: negative sums other than -2 are suspect state, reported by the lag model.
        const std::int64_t sum = r_.integer(
            it->second, [&] { return join_place(place, fmt::format("offset_sums.{}", it->first.Scalar())); });
        client.offset_sums.push_back({t, sum});
      }
    }

    cluster_.clients.push_back(std::move(client));
    client_line_.push_back(line_of(id_node));
  }

  // previous_by_thread: {<thread name>: {active: [...], standby: [...]}}: which thread held which of
  // the client's previous tasks. Optional; every task must be in the client's own lists, on one
  // thread only, and there can be no more named threads than `threads`.
  // A client's list of task ids (previous_active, previous_standby): each resolved, a task named
  // twice refused (marks[t] == c: the list's marks), then the list's own rule `check`, then kept.
  template <typename Check>
  void read_task_list(const Fields& f, std::size_t key, const std::string& place, const char* name, ClientIndex c,
                      std::vector<std::uint32_t>& marks, std::vector<TaskIndex>& into, Check check) {
    if (!f.has(key)) return;
    const std::string list_place = join_place(place, name);
    const Node& list = f.value(key);
    r_.expect_list(list, list_place);
    into.reserve(list.size());
    for (const Node& entry : list) {
      const TaskIndex t = resolve_task(entry, list_place);
      if (marks[t] == c) r_.fail_at(entry, list_place, fmt::format("task '{}' is listed twice", entry.Scalar()));
      check(entry, list_place, t);
      marks[t] = c;
      into.push_back(t);
    }
  }

  void parse_threads(const Node& map, const std::string& place, Client& client) {
    const std::string map_place = join_place(place, "previous_by_thread");
    r_.expect_map(map, map_place);
    if (map.size() > client.threads)
      r_.fail_at(map, map_place,
                 fmt::format("{} threads named but the client has threads: {}", map.size(), client.threads));
    std::unordered_map<TaskIndex, std::string> thread_of;
    std::unordered_set<std::string> names;
    const auto c = static_cast<std::uint32_t>(cluster_.clients.size());  // this client's marks
    for (auto it = map.begin(); it != map.end(); ++it) {
      ThreadHistory thread;
      thread.name = r_.string(it->first, map_place);
      const std::string thread_place = join_place(map_place, thread.name);
      if (!names.insert(thread.name).second)
        r_.fail_at(it->first, map_place, fmt::format("thread '{}' given twice", thread.name));
      const Node roles = it->second;
      if (roles.IsNull()) {  // a thread that held nothing
        client.threads_history.push_back(std::move(thread));
        continue;
      }
      const Fields tf(r_, roles, thread_place, kThreadKeys);
      for (const ThreadKey role : {kThreadActive, kThreadStandby}) {
        if (!tf.has(role)) continue;
        const std::string list_place = join_place(thread_place, kThreadKeys[role]);
        const Node& list = tf.value(role);
        r_.expect_list(list, list_place);
        const bool active = role == kThreadActive;
        // The client's own lists were marked while reading them (prev_owner_, standby_mark_).
        const std::vector<std::uint32_t>& owned = active ? prev_owner_ : standby_mark_;
        for (const Node& entry : list) {
          const TaskIndex t = resolve_task(entry, list_place);
          if (owned[t] != c)
            r_.fail_at(entry, list_place,
                       fmt::format("task '{}' is not in the client's previous_{}", entry.Scalar(),
                                   active ? "active" : "standby"));
          if (const auto [seen, inserted] = thread_of.emplace(t, thread.name); !inserted)
            r_.fail_at(entry, list_place,
                       fmt::format("task '{}' is also on thread '{}'", entry.Scalar(), seen->second));
          (active ? thread.previous_active : thread.previous_standby).push_back(t);
        }
      }
      client.threads_history.push_back(std::move(thread));
    }
  }

  // A task id string in a client's lists -> its index (in push order), or an error naming the place.
  TaskIndex resolve_task(const Node& node, const std::string& place) const {
    if (!node.IsScalar()) r_.fail_at(node, place, fmt::format("expected a task id string, got {}", describe(node)));
    r_.check_length(node, place);
    const std::string_view text = node.Scalar();
    const auto id = parse_task_id(text);
    if (!id)
      r_.fail_at(node, place,
                 fmt::format("'{}' is not a task id of the form S_P (e.g. 0_3; digits only, no leading zeros)", text));
    const TaskIndex t = task_by_id_.find(*id);
    if (t == TaskLookup::kNone) r_.fail_at(node, place, fmt::format("unknown task '{}'", text));
    return t;
  }

  std::string source_;
  InputLimits limits_;
  FieldReader r_;
  Cluster cluster_;
  std::uint64_t total_threads_ = 0;
  std::vector<std::uint64_t> rack_mark_;  // per rack: the serial of the last racks list that named it
  std::uint64_t rack_list_serial_ = 0;
  TaskLookup task_by_id_{0};
  std::vector<int> store_line_;  // the current task's stores: line of each name
  std::vector<int> task_line_;
  std::unordered_map<std::string, ClientIndex> client_by_id_;
  std::vector<int> client_line_;
  std::unordered_map<std::string, RackIndex> rack_by_name_;
  // Per task, the client (push index) that marked it: previous active owner, standby and
  // offset_sums entries of the client being read (duplicate detection without per-client sets).
  std::vector<std::uint32_t> prev_owner_;
  std::vector<std::uint32_t> standby_mark_;
  std::vector<std::uint32_t> offset_mark_;
};

// Strict JSON takes the fast path (cluster_json_reader.cpp) when it can; anything it declines,
// the document path reads, and says what is wrong with it.
Cluster read_cluster(std::string_view text, const std::string& source, const InputLimits& limits,
                     std::size_t readable) {
  if (auto cluster = detail::read_cluster_json(text, readable, limits)) return std::move(*cluster);
  return ClusterParser(source, limits).parse(text, readable);
}

}  // namespace

Cluster detail::parse_cluster_document(std::string_view text, const std::string& source, const InputLimits& limits) {
  return ClusterParser(source, limits).parse(text, text.size());
}

Cluster parse_cluster(std::string_view text, const std::string& source_name) {
  return parse_cluster(text, source_name, InputLimits{});
}

Cluster parse_cluster(std::string_view text, const std::string& source_name, const InputLimits& limits) {
  return read_cluster(text, source_name, limits, text.size());
}

Cluster read_cluster_file(const std::filesystem::path& path) { return read_cluster_file(path, InputLimits{}); }

Cluster read_cluster_file(const std::filesystem::path& path, const InputLimits& limits) {
  const std::string source = detail::source_name(path);
  const std::string text = detail::read_text_file(source, path, "cluster file", limits.max_file_bytes);
  return read_cluster(text, source, limits, text.capacity());
}

}  // namespace assignor::host
