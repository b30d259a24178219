// The first difference between two clusters, field by field (every field of the model, the rack
// indices and the order of every list included, and what finalize() derives), or "" when they are
// the same. For the tests and the fuzz target that hold the cluster reader's JSON fast path against
// its document path: the fast path must build exactly the cluster the document path builds.
//
//   EXPECT_EQ(assignor::testing::cluster_difference(fast, slow), "");
#pragma once

#include <bit>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "assignor/model.hpp"

namespace assignor::testing {

namespace cluster_difference_detail {

template <class T>
std::string show(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

inline std::string show(const TaskId& id) { return to_string(id); }

template <class T>
std::string show(const std::vector<T>& list) {
  std::string out = "[";
  for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + show(list[i]);
  return out + "]";
}

// Appends "where: a != b" to `diff` when the values differ (and nothing was found before).
template <class T>
void compare(std::string& diff, const std::string& where, const T& a, const T& b) {
  if (diff.empty() && !(a == b)) diff = where + ": " + show(a) + " != " + show(b);
}

// Doubles compare by their bits: -0.0 is not 0.0 here, and the same NaN is the same.
inline void compare_bits(std::string& diff, const std::string& where, double a, double b) {
  if (diff.empty() && std::bit_cast<std::uint64_t>(a) != std::bit_cast<std::uint64_t>(b))
    diff = where + ": " + show(a) + " != " + show(b);
}

}  // namespace cluster_difference_detail

inline std::string cluster_difference(const Cluster& a, const Cluster& b) {
  using cluster_difference_detail::compare;
  std::string diff;
  compare(diff, "end_offsets_known", a.end_offsets_known, b.end_offsets_known);
  compare(diff, "racks", a.racks, b.racks);
  compare(diff, "task count", a.tasks.size(), b.tasks.size());
  compare(diff, "client count", a.clients.size(), b.clients.size());
  if (!diff.empty()) return diff;
  for (std::size_t t = 0; t < a.tasks.size() && diff.empty(); ++t) {
    const Task& x = a.tasks[t];
    const Task& y = b.tasks[t];
    const std::string at = "tasks[" + std::to_string(t) + "]";
    compare(diff, at + ".id", x.id, y.id);
    cluster_difference_detail::compare_bits(diff, at + ".weight", x.weight, y.weight);
    compare(diff, at + ".end_offset_sum", x.end_offset_sum, y.end_offset_sum);
    compare(diff, at + ".stateful", x.stateful, y.stateful);
    compare(diff, at + ".has_logged_store", x.has_logged_store, y.has_logged_store);
    compare(diff, at + ".stores.size", x.stores.size(), y.stores.size());
    for (std::size_t s = 0; s < x.stores.size() && diff.empty(); ++s) {
      const std::string st = at + ".stores[" + std::to_string(s) + "]";
      compare(diff, st + ".name", x.stores[s].name, y.stores[s].name);
      compare(diff, st + ".logged", x.stores[s].logged, y.stores[s].logged);
      compare(diff, st + ".changelog_end_offset", x.stores[s].changelog_end_offset, y.stores[s].changelog_end_offset);
    }
    compare(diff, at + ".partitions.size", x.partitions.size(), y.partitions.size());
    for (std::size_t p = 0; p < x.partitions.size() && diff.empty(); ++p) {
      const std::string pt = at + ".partitions[" + std::to_string(p) + "]";
      compare(diff, pt + ".topic", x.partitions[p].topic, y.partitions[p].topic);
      compare(diff, pt + ".partition", x.partitions[p].partition, y.partitions[p].partition);
      compare(diff, pt + ".racks", x.partitions[p].racks, y.partitions[p].racks);
    }
  }
  for (std::size_t c = 0; c < a.clients.size() && diff.empty(); ++c) {
    const Client& x = a.clients[c];
    const Client& y = b.clients[c];
    const std::string at = "clients[" + std::to_string(c) + "]";
    compare(diff, at + ".id", x.id, y.id);
    compare(diff, at + ".threads", x.threads, y.threads);
    compare(diff, at + ".rack", x.rack, y.rack);
    compare(diff, at + ".tags.size", x.tags.size(), y.tags.size());
    if (diff.empty() && x.tags != y.tags) diff = at + ".tags differ";
    compare(diff, at + ".previous_active", x.previous_active, y.previous_active);
    compare(diff, at + ".previous_standby", x.previous_standby, y.previous_standby);
    compare(diff, at + ".offset_sums.size", x.offset_sums.size(), y.offset_sums.size());
    for (std::size_t i = 0; i < x.offset_sums.size() && diff.empty(); ++i) {
      const std::string ot = at + ".offset_sums[" + std::to_string(i) + "]";
      compare(diff, ot + ".task", x.offset_sums[i].task, y.offset_sums[i].task);
      compare(diff, ot + ".sum", x.offset_sums[i].sum, y.offset_sums[i].sum);
    }
    compare(diff, at + ".threads_history.size", x.threads_history.size(), y.threads_history.size());
    for (std::size_t i = 0; i < x.threads_history.size() && diff.empty(); ++i) {
      const std::string tt = at + ".threads_history[" + std::to_string(i) + "]";
      compare(diff, tt + ".name", x.threads_history[i].name, y.threads_history[i].name);
      compare(diff, tt + ".previous_active", x.threads_history[i].previous_active,
              y.threads_history[i].previous_active);
      compare(diff, tt + ".previous_standby", x.threads_history[i].previous_standby,
              y.threads_history[i].previous_standby);
    }
  }
  const auto owners = [](const Cluster& c) {
    return std::vector<ClientIndex>(c.previous_active_owner().begin(), c.previous_active_owner().end());
  };
  compare(diff, "previous_active_owner", owners(a), owners(b));
  compare(diff, "stateful_task_count", a.stateful_task_count(), b.stateful_task_count());
  compare(diff, "logged_task_count", a.logged_task_count(), b.logged_task_count());
  return diff;
}

}  // namespace assignor::testing
