// The cluster file (DESIGN 4.1) as JSON: the writer of `assignor generate` and `simulate
// --final-state`. docs/generation.md specifies the layout (the generator's files are compared byte
// for byte with a reference implementation).
#include "assignor/host/formats/cluster_writer.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "json_text.hpp"

namespace assignor::host {

namespace {

using detail::append_int;
using detail::append_json_string;
using detail::append_uint;

// `, "key": [a, b]` (or `{...}` with open '{'), each item written by append_item; nothing for an
// empty list: the layout of every list and map of the file.
template <typename List, typename AppendItem>
void append_list(std::string& out, const char* key, char open, const List& list, AppendItem append_item) {
  if (list.empty()) return;
  out.append(", \"").append(key).append("\": ").push_back(open);
  bool first = true;
  for (const auto& item : list) {
    if (!first) out.append(", ");
    first = false;
    append_item(item);
  }
  out.push_back(open == '[' ? ']' : '}');
}

void append_task_list(std::string& out, const char* key, const std::vector<TaskIndex>& tasks,
                      const std::vector<std::string>& ids) {
  append_list(out, key, '[', tasks, [&](TaskIndex t) { out.append("\"").append(ids[t]).push_back('"'); });
}

}  // namespace

std::string cluster_to_json(const Cluster& cluster) {
  std::vector<std::string> ids;
  ids.reserve(cluster.tasks.size());
  std::size_t id_bytes = 0;
  for (const auto& task : cluster.tasks) {
    ids.push_back(to_string(task.id));
    id_bytes += ids.back().size();
  }
  std::size_t held = 0;
  for (const auto& c : cluster.clients)
    held += c.previous_active.size() + c.previous_standby.size() + c.offset_sums.size();
  std::string out;
  out.reserve(64 + cluster.tasks.size() * 160 + id_bytes + held * 20 + cluster.clients.size() * 96);

  std::vector<RackIndex> rack_order(cluster.racks.size());
  std::iota(rack_order.begin(), rack_order.end(), RackIndex{0});
  std::sort(rack_order.begin(), rack_order.end(),
            [&](RackIndex a, RackIndex b) { return cluster.racks[a] < cluster.racks[b]; });
  std::vector<std::uint32_t> rack_rank(cluster.racks.size());
  for (std::uint32_t i = 0; i < rack_order.size(); ++i) rack_rank[rack_order[i]] = i;
  std::vector<RackIndex> by_name;

  out.append("{\"version\": 1, \"end_offsets_known\": ");
  out.append(cluster.end_offsets_known ? "true" : "false");
  out.append(",\n\"tasks\": [");
  for (std::size_t t = 0; t < cluster.tasks.size(); ++t) {
    const Task& task = cluster.tasks[t];
    out.append(t == 0 ? "\n" : ",\n");
    out.append("{\"id\": \"").append(ids[t]).push_back('"');
    append_list(out, "stores", '[', task.stores, [&](const Store& store) {
      out.append("{\"name\": ");
      append_json_string(out, store.name);
      if (store.logged) {
        out.append(", \"changelog_end_offset\": ");
        append_int(out, store.changelog_end_offset);
      } else {
        out.append(", \"logged\": false");
      }
      out.push_back('}');
    });
    if (task.weight != 1.0) {
      if (!std::isfinite(task.weight))
        throw std::invalid_argument("task " + ids[t] + ": weight is not a finite number");
      out.append(", \"weight\": ");
      fmt::format_to(std::back_inserter(out), "{}", task.weight);  // shortest round-trip form
    }
    append_list(out, "partitions", '[', task.partitions, [&](const PartitionRef& p) {
      out.append("{\"topic\": ");
      append_json_string(out, p.topic);
      out.append(", \"partition\": ");
      append_int(out, p.partition);
      // By name, not by index: rack indices depend on the order a reader met the names in.
      by_name.assign(p.racks.begin(), p.racks.end());
      std::sort(by_name.begin(), by_name.end(),
                [&](RackIndex a, RackIndex b) { return rack_rank.at(a) < rack_rank.at(b); });
      append_list(out, "racks", '[', by_name, [&](RackIndex r) { append_json_string(out, cluster.racks.at(r)); });
      out.push_back('}');
    });
    out.push_back('}');
  }
  out.append("\n],\n\"clients\": [");
  for (std::size_t c = 0; c < cluster.clients.size(); ++c) {
    const Client& client = cluster.clients[c];
    out.append(c == 0 ? "\n" : ",\n");
    out.append("{\"id\": ");
    append_json_string(out, client.id);
    out.append(", \"threads\": ");
    append_uint(out, client.threads);
    if (client.rack != kNoRack) {
      out.append(", \"rack\": ");
      append_json_string(out, cluster.racks.at(client.rack));
    }
    append_list(out, "tags", '{', client.tags, [&](const auto& tag) {
      append_json_string(out, tag.first);
      out.append(": ");
      append_json_string(out, tag.second);
    });
    append_task_list(out, "previous_active", client.previous_active, ids);
    append_task_list(out, "previous_standby", client.previous_standby, ids);
    append_list(out, "previous_by_thread", '{', client.threads_history, [&](const ThreadHistory& thread) {
      append_json_string(out, thread.name);
      out.append(": {");
      std::string roles;
      append_task_list(roles, "active", thread.previous_active, ids);
      append_task_list(roles, "standby", thread.previous_standby, ids);
      if (!roles.empty()) out.append(std::string_view(roles).substr(2));  // drop the leading ", "
      out.push_back('}');
    });
    append_list(out, "offset_sums", '{', client.offset_sums, [&](const auto& offset_sum) {
      out.append("\"").append(ids.at(offset_sum.task)).append("\": ");
      append_int(out, offset_sum.sum);
    });
    out.push_back('}');
  }
  out.append("\n]}\n");
  return out;
}

}  // namespace assignor::host
