// What the cluster reader's two ways of reading share: the keys of each map of a cluster file
// (DESIGN 4.1) and the table that finds a task by its id.
//
// cluster_reader.cpp reads every file through the document (document.hpp): the authority for
// what is accepted, for every message and its place (FILE:LINE:COL) and for every limit.
// cluster_json_reader.cpp reads a strict JSON file straight from simdjson's on-demand parser into
// the model, without a document, when the file is one the document path would accept, and
// declines anything else (the document path then reads it and says what is wrong). Not installed,
// not public.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "assignor/host/formats/document.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/model.hpp"
#include "assignor/task_id.hpp"

namespace assignor::host::detail {

namespace cluster_file {

inline const std::vector<std::string> kTopKeys = {"version", "end_offsets_known", "tasks", "clients"};
enum TopKey : std::size_t { kVersion, kEndOffsetsKnown, kTasks, kClients };

inline const std::vector<std::string> kTaskKeys = {"id", "stores", "weight", "partitions"};
enum TaskKey : std::size_t { kTaskId, kStores, kWeight, kPartitions };

inline const std::vector<std::string> kStoreKeys = {"name", "logged", "changelog_end_offset"};
enum StoreKey : std::size_t { kStoreName, kLogged, kEndOffset };

inline const std::vector<std::string> kPartitionKeys = {"topic", "partition", "racks"};
enum PartitionKey : std::size_t { kTopic, kPartition, kRacks };

inline const std::vector<std::string> kClientKeys = {
    "id", "threads", "rack", "tags", "previous_active", "previous_standby", "offset_sums", "previous_by_thread"};
enum ClientKey : std::size_t {
  kClientId,
  kThreads,
  kRack,
  kTags,
  kPreviousActive,
  kPreviousStandby,
  kOffsetSums,
  kPreviousByThread
};

inline const std::vector<std::string> kThreadKeys = {"active", "standby"};
enum ThreadKey : std::size_t { kThreadActive, kThreadStandby };

// No client index: the marks of tasks that no client has claimed yet.
inline constexpr std::uint32_t kUnmarked = std::numeric_limits<std::uint32_t>::max();
// Longer lists of store names, partitions or thread names find repeats by hashing.
inline constexpr std::size_t kLinearSearch = 16;

inline std::uint64_t task_key(TaskId id) noexcept {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(id.subtopology)) << 32) |
         static_cast<std::uint32_t>(id.partition);
}

// Task id -> index (in file order): duplicate detection while the tasks are read, and the clients'
// lists, which name each task several times. A table by sub-topology and partition while the ids
// stay dense (in real groups the partitions of a sub-topology are 0..P-1), else a hash map.
class TaskLookup {
 public:
  static constexpr TaskIndex kNone = std::numeric_limits<TaskIndex>::max();

  // `expected`: how many tasks the file lists, when known (bounds the table: at most about 4 slots
  // a task, of the tasks expected or, past them, of the tasks added so far).
  explicit TaskLookup(std::size_t expected) : max_slots_(4 * expected + 4096) {}

  // Adds a task (`index`: how many were added before it); returns the index of an earlier task
  // with the same id, or kNone.
  TaskIndex add(TaskId id, TaskIndex index) {
    max_slots_ = std::max(max_slots_, 4 * (static_cast<std::size_t>(index) + 1) + 4096);
    if (dense_) {
      const auto s = static_cast<std::size_t>(id.subtopology);
      const auto p = static_cast<std::size_t>(id.partition);
      if (s < rows_.size()) {  // the common cases first: a known sub-topology, its next partition
        auto& row = rows_[s];
        if (p < row.size()) {
          if (row[p] != kNone) return row[p];
          row[p] = index;
          return kNone;
        }
        if (p == row.size() && slots_ + p + 1 <= max_slots_) {
          ++slots_;
          row.push_back(index);
          return kNone;
        }
      }
      const std::size_t new_rows = s < rows_.size() ? 0 : s + 1 - rows_.size();
      const std::size_t grow = kRowSlots * new_rows + (s < rows_.size() && p < rows_[s].size() ? 0 : p + 1);
      if (slots_ + grow <= max_slots_) {
        slots_ += kRowSlots * new_rows;
        if (new_rows > 0) rows_.resize(s + 1);
        auto& row = rows_[s];
        if (p == row.size()) {  // the next partition, as files list them: no fill call per task
          ++slots_;
          row.push_back(kNone);
        } else if (p > row.size()) {
          slots_ += p + 1 - row.size();
          row.resize(p + 1, kNone);
        }
        if (row[p] != kNone) return row[p];
        row[p] = index;
        return kNone;
      }
      to_hash();
    }
    const auto [it, inserted] = by_key_.emplace(task_key(id), index);
    return inserted ? kNone : it->second;
  }

  TaskIndex find(TaskId id) const {
    if (!dense_) {
      const auto it = by_key_.find(task_key(id));
      return it == by_key_.end() ? kNone : it->second;
    }
    const auto s = static_cast<std::size_t>(id.subtopology);
    const auto p = static_cast<std::size_t>(id.partition);
    return s < rows_.size() && p < rows_[s].size() ? rows_[s][p] : kNone;
  }

 private:
  void to_hash() {
    dense_ = false;
    for (std::size_t s = 0; s < rows_.size(); ++s)
      for (std::size_t p = 0; p < rows_[s].size(); ++p)
        if (rows_[s][p] != kNone)
          by_key_.emplace(task_key({static_cast<std::int32_t>(s), static_cast<std::int32_t>(p)}), rows_[s][p]);
    rows_ = {};
  }

  static constexpr std::size_t kRowSlots = sizeof(std::vector<TaskIndex>) / sizeof(TaskIndex);  // a row's cost
  bool dense_ = true;
  std::size_t max_slots_;
  std::size_t slots_ = 0;                     // rows_ entries plus kRowSlots a row, counted against max_slots_
  std::vector<std::vector<TaskIndex>> rows_;  // [sub-topology][partition]
  std::unordered_map<std::uint64_t, TaskIndex> by_key_;
};

}  // namespace cluster_file

// The cluster of `text` read through the document alone (what parse_cluster does when the fast
// path declines): for the tests that hold the two ways against each other.
Cluster parse_cluster_document(std::string_view text, const std::string& source, const InputLimits& limits);

// The cluster of a strict JSON `text`, read without a document, when the document path would
// accept the file and build exactly this cluster from it; nullopt when the fast path declines
// (anything it does not take: YAML, JSON with an error, a warning or a limit reached, a key before
// the one it needs, escapes it leaves to the document path). `readable`: bytes that may be read
// from text.data() (parse_json_document). `cost`, when given, receives the DocumentBudget the
// fast path kept: equal to the cost() of the document parse_json_document would have built.
std::optional<Cluster> read_cluster_json(std::string_view text, std::size_t readable, const InputLimits& limits,
                                         DocumentBudget* cost = nullptr);

}  // namespace assignor::host::detail
