// Per-client counts of each sub-topology's actives, O(1) to read and to update: what a strategy
// that spreads sub-topologies (one hot input topic, one side of a join) consults for every task.
//
// A sub-topology's rank is its position among the cluster's distinct sub-topology ids (ascending);
// tasks are in (sub-topology, partition) order, so a sub-topology is a run of task indices and the
// rank of a task is one array read. The counts are a clients x sub-topologies table when that is
// small (at most 4 entries per task plus 64k), else a hash table of the non-zero entries: memory
// stays within the input's size whatever the ids (a group of 100k single-task sub-topologies over
// 1,000 clients does not allocate 10^8 counters).
//
//   SubtopologyCounts spread(cluster, draft);           // the draft's actives as they stand
//   if (spread.of(t, c) < spread.of(t, d)) ...          // c holds fewer of t's sub-topology
//   draft.set_active(t, c);
//   spread.add(t, c);                                   // keep it in step with the draft
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"

namespace assignor {

class SubtopologyCounts {
 public:
  // All counts zero.
  explicit SubtopologyCounts(const Cluster& cluster);
  // The actives of `draft`.
  SubtopologyCounts(const Cluster& cluster, const AssignmentDraft& draft);

  std::size_t subtopology_count() const noexcept { return subtopologies_; }
  // t's sub-topology's rank.
  std::uint32_t rank(TaskIndex t) const noexcept { return rank_[t]; }
  // Actives of t's sub-topology on client c (of the sub-topology of rank r).
  std::uint32_t of(TaskIndex t, ClientIndex c) const noexcept { return at(rank_[t], c); }
  std::uint32_t at(std::uint32_t rank, ClientIndex c) const noexcept;
  // One more (delta = -1: one fewer) active of t's sub-topology on c; a count never goes below 0.
  void add(TaskIndex t, ClientIndex c, std::int32_t delta = 1);

 private:
  std::uint64_t key(std::uint32_t rank, ClientIndex c) const noexcept {
    return static_cast<std::uint64_t>(rank) * clients_ + c;
  }
  std::size_t clients_ = 0;
  std::size_t subtopologies_ = 0;
  std::vector<std::uint32_t> rank_;                          // per task
  std::vector<std::uint32_t> dense_;                         // rank * clients + client, when small
  std::unordered_map<std::uint64_t, std::uint32_t> sparse_;  // otherwise, non-zero entries only
  bool is_dense_ = true;
};

}  // namespace assignor
