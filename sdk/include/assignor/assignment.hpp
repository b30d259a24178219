// What a strategy returns (Assignment) and the working state strategies build it in (AssignmentDraft).
//
// An Assignment is a plain value: lists of (task, client) placements per role and the probing flag.
// It can express invalid results (a task active twice, two roles on one client) so that validation
// can name them; a strategy normally builds it through an AssignmentDraft, which cannot.
//
//   AssignmentDraft draft(cluster, settings.num_standby_replicas);
//   draft.set_active(t, c);
//   draft.add_standby(t, other);
//   Assignment result = draft.finish(/*probing_rebalance=*/false);
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "assignor/model.hpp"

namespace assignor {

// A strategy that chose which of the client's threads runs a copy (the KIP-1071 strategies, whose
// members are threads) says so in Placement::thread; kAnyThread leaves it to the SDK's thread
// distribution (threads.hpp). An assignment names a thread for every placement or for none.
inline constexpr std::uint32_t kAnyThread = static_cast<std::uint32_t>(-1);

struct Placement {
  TaskIndex task;
  ClientIndex client;
  std::uint32_t thread = kAnyThread;  // index into thread_names(client) (threads.hpp), or kAnyThread
  friend constexpr bool operator==(const Placement&, const Placement&) = default;
};

struct Assignment {
  std::vector<Placement> actives;
  std::vector<Placement> standbys;  // the num_standby_replicas copies
  std::vector<Placement> warmups;   // extra copies placed to move a task later
  bool probing_rebalance = false;

  // Sorts every list by (client, task): the canonical form used for output and comparisons.
  void normalize();
  friend bool operator==(const Assignment&, const Assignment&) = default;
};

enum class Role : std::uint8_t { none, active, standby, warmup };

// A task's roles as flat per-task slots (no per-task allocation): the active client, up to
// `standbys_per_task` standbys and up to `standbys_per_task + 1` warmups. Keeps per-client counts so
// that load comparisons are O(1). A task has at most one copy per client, so the slots are capped
// at clients - 1 (standbys_per_task() is the cap, standbys_wanted() what was asked for): a huge
// num_standby_replicas costs what clients - 1 costs, and the SDK's standby placements count the
// difference as shortfall.
class AssignmentDraft {
 public:
  AssignmentDraft(const Cluster& cluster, std::uint32_t standbys_per_task);

  std::size_t task_count() const noexcept { return active_.size(); }
  std::size_t client_count() const noexcept { return threads_.size(); }
  std::uint32_t standbys_per_task() const noexcept { return standbys_per_task_; }
  std::uint32_t standbys_wanted() const noexcept { return standbys_wanted_; }
  // Standbys per logged task that cannot exist, whatever the placement: wanted - clients + 1.
  std::uint32_t standbys_beyond_clients() const noexcept { return standbys_wanted_ - standbys_per_task_; }

  ClientIndex active(TaskIndex t) const noexcept { return active_[t]; }
  // Replaces the task's active client (kNoClient to unassign). The client must not hold another
  // role of the task.
  void set_active(TaskIndex t, ClientIndex c);

  Role role(TaskIndex t, ClientIndex c) const noexcept;
  bool holds(TaskIndex t, ClientIndex c) const noexcept { return role(t, c) != Role::none; }

  // Standby and warmup copies. add_* require that the client holds no role of the task and that a
  // slot is free; remove_* require the role to be there.
  void add_standby(TaskIndex t, ClientIndex c);
  void remove_standby(TaskIndex t, ClientIndex c);
  void add_warmup(TaskIndex t, ClientIndex c);
  void remove_warmup(TaskIndex t, ClientIndex c);
  std::uint32_t standby_count(TaskIndex t) const noexcept;
  // The standby clients of a task (kNoClient entries are empty slots).
  std::span<const ClientIndex> standby_slots(TaskIndex t) const noexcept;
  // The warmup clients of a task, the same way: O(1) to find who warms a task up.
  std::span<const ClientIndex> warmup_slots(TaskIndex t) const noexcept;

  // Swaps the roles of two clients on one task (e.g. an active and a standby holder).
  void swap_roles(TaskIndex t, ClientIndex a, ClientIndex b);

  // Per-client counts.
  std::uint32_t active_count(ClientIndex c) const noexcept { return active_count_[c]; }
  std::uint32_t standby_count_of(ClientIndex c) const noexcept { return standby_count_[c]; }
  std::uint32_t warmup_count_of(ClientIndex c) const noexcept { return warmup_count_[c]; }
  std::uint32_t total_count(ClientIndex c) const noexcept {
    return active_count_[c] + standby_count_[c] + warmup_count_[c];
  }
  std::uint32_t threads(ClientIndex c) const noexcept { return threads_[c]; }
  std::uint32_t warmup_total() const noexcept { return warmup_total_; }

  // The assignment, asking for a probing rebalance when `probing_rebalance` is set or any warmup
  // was placed (a warmup prepares a move that only a probing rebalance completes).
  Assignment finish(bool probing_rebalance) const;

 private:
  std::uint32_t standbys_wanted_;
  std::uint32_t standbys_per_task_;
  std::uint32_t warmups_per_task_;
  std::vector<ClientIndex> active_;
  std::vector<ClientIndex> standby_;  // task * standbys_per_task_
  std::vector<ClientIndex> warmup_;   // task * warmups_per_task_
  std::vector<std::uint32_t> threads_;
  std::vector<std::uint32_t> active_count_;
  std::vector<std::uint32_t> standby_count_;
  std::vector<std::uint32_t> warmup_count_;
  std::uint32_t warmup_total_ = 0;
};

// Exact comparison of loads count/threads (cross-multiplied: no floating point, deterministic).
// Returns <0, 0, >0 like strcmp.
inline int compare_load(std::uint64_t count_a, std::uint64_t threads_a, std::uint64_t count_b,
                        std::uint64_t threads_b) noexcept {
  const std::uint64_t l = count_a * threads_b;
  const std::uint64_t r = count_b * threads_a;
  return l < r ? -1 : (l > r ? 1 : 0);
}

}  // namespace assignor
