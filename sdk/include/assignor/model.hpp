// The cluster state a strategy assigns: tasks, clients and what each client reported.
//
// Strings live only at the edges. Tasks are stored sorted by TaskId and clients sorted by id, so a
// TaskIndex or ClientIndex is both a dense array index and the tie-breaking order that the contract
// asks for ("ties by client id", "in task order"). Per-task and per-client data are flat vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "assignor/task_id.hpp"

namespace assignor {

using TaskIndex = std::uint32_t;
using ClientIndex = std::uint32_t;
using RackIndex = std::uint32_t;

inline constexpr ClientIndex kNoClient = std::numeric_limits<ClientIndex>::max();
inline constexpr RackIndex kNoRack = std::numeric_limits<RackIndex>::max();

// Offset sum a client reports for a task it is running right now ("running, fully caught up").
inline constexpr std::int64_t kRunningOffsetSum = -2;

// A run of task indices [first, last), for range-for. (Not std::ranges::iota_view: clang 14 cannot
// compile that one against GCC 12's library, and the fuzz build uses clang.)
struct TaskRange {
  class iterator {
   public:
    using value_type = TaskIndex;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit constexpr iterator(TaskIndex t) noexcept : t_(t) {}
    constexpr TaskIndex operator*() const noexcept { return t_; }
    constexpr iterator& operator++() noexcept {
      ++t_;
      return *this;
    }
    constexpr iterator operator++(int) noexcept { return iterator(t_++); }
    friend constexpr bool operator==(iterator a, iterator b) noexcept { return a.t_ == b.t_; }

   private:
    TaskIndex t_ = 0;
  };
  TaskIndex first = 0;
  TaskIndex last = 0;
  constexpr iterator begin() const noexcept { return iterator(first); }
  constexpr iterator end() const noexcept { return iterator(last); }
  constexpr std::size_t size() const noexcept { return last - first; }
  constexpr bool empty() const noexcept { return first == last; }
};

struct Store {
  std::string name;
  bool logged = true;
  std::int64_t changelog_end_offset = 0;  // meaningful only when logged
};

// One input partition of a task and the racks holding its replicas (rack awareness).
struct PartitionRef {
  std::string topic;
  std::int32_t partition = 0;
  std::vector<RackIndex> racks;  // indices into Cluster::racks, sorted, unique
};

struct Task {
  TaskId id;
  std::vector<Store> stores;
  double weight = 1.0;
  std::vector<PartitionRef> partitions;

  // Derived by Cluster::finalize().
  std::int64_t end_offset_sum = 0;  // sum over logged stores; pinned at INT64_MAX on overflow
  bool stateful = false;            // has at least one store
  bool has_logged_store = false;    // has a changelog: gets standbys and warmups
};

struct OffsetSum {
  TaskIndex task;
  std::int64_t sum;  // kRunningOffsetSum for a running active
};

struct ThreadHistory {
  std::string name;
  std::vector<TaskIndex> previous_active;   // sorted
  std::vector<TaskIndex> previous_standby;  // sorted
};

struct Client {
  std::string id;
  std::uint32_t threads = 1;
  RackIndex rack = kNoRack;
  std::map<std::string, std::string> tags;
  std::vector<TaskIndex> previous_active;      // sorted
  std::vector<TaskIndex> previous_standby;     // sorted
  std::vector<OffsetSum> offset_sums;          // sorted by task, one entry per task
  std::vector<ThreadHistory> threads_history;  // optional per-thread previous ownership
};

struct Cluster {
  bool end_offsets_known = true;
  std::vector<Task> tasks;         // sorted by id
  std::vector<Client> clients;     // sorted by id
  std::vector<std::string> racks;  // rack names, indexed by RackIndex

  std::size_t task_count() const noexcept { return tasks.size(); }
  std::size_t client_count() const noexcept { return clients.size(); }
  std::uint64_t total_threads() const noexcept;
  bool has_racks() const noexcept;  // every client has a rack and some task has partition racks

  // Index lookups by name (binary search over the sorted vectors); nullopt when absent.
  std::optional<TaskIndex> find_task(TaskId id) const noexcept;
  std::optional<ClientIndex> find_client(std::string_view id) const noexcept;

  // The tasks of one sub-topology in partition order. Tasks are sorted by (sub-topology,
  // partition), so they are one contiguous run of indices; empty when the sub-topology has none.
  // O(log tasks).
  //   for (TaskIndex t : cluster.tasks_of_subtopology(3)) ...
  TaskRange tasks_of_subtopology(std::int32_t subtopology) const;
  // The distinct sub-topology ids, ascending. O(tasks).
  std::vector<std::int32_t> subtopologies() const;

  // Previous active owner of each task (kNoClient when none), computed by finalize().
  std::span<const ClientIndex> previous_active_owner() const noexcept { return previous_owner_; }
  // Tasks with at least one store (Task::stateful) and tasks with a logged store
  // (Task::has_logged_store: the ones that get standbys and warmups), counted by finalize().
  std::size_t stateful_task_count() const noexcept { return stateful_tasks_; }
  std::size_t logged_task_count() const noexcept { return logged_tasks_; }

  // Sorts tasks and clients, remaps every TaskIndex and RackIndex, and computes derived fields.
  // Builders (the host's readers, generators, tests) call it once after filling the vectors with
  // indices that refer to the vectors' order at the time of the call. Throws std::invalid_argument
  // when the data breaks an invariant the readers are supposed to have checked (duplicate ids, two
  // previous active owners of one task, indices out of range).
  void finalize();

 private:
  std::vector<ClientIndex> previous_owner_;
  std::size_t stateful_tasks_ = 0;
  std::size_t logged_tasks_ = 0;
};

}  // namespace assignor
