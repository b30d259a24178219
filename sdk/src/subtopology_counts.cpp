#include "assignor/subtopology_counts.hpp"

namespace assignor {

SubtopologyCounts::SubtopologyCounts(const Cluster& cluster)
    : clients_(cluster.client_count()), rank_(cluster.task_count()) {
  std::uint32_t rank = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (t > 0 && cluster.tasks[t].id.subtopology != cluster.tasks[t - 1].id.subtopology) ++rank;
    rank_[t] = rank;
  }
  subtopologies_ = cluster.task_count() > 0 ? std::size_t{rank} + 1 : 0;
  constexpr std::size_t kDenseBase = 1u << 16;
  const std::size_t cells = subtopologies_ * clients_;
  const bool no_overflow = clients_ == 0 || cells / clients_ == subtopologies_;
  is_dense_ = no_overflow && cells <= 4 * cluster.task_count() + kDenseBase;
  if (is_dense_) dense_.assign(cells, 0);
}

SubtopologyCounts::SubtopologyCounts(const Cluster& cluster, const AssignmentDraft& draft)
    : SubtopologyCounts(cluster) {
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (draft.active(t) != kNoClient) add(t, draft.active(t));
}

std::uint32_t SubtopologyCounts::at(std::uint32_t rank, ClientIndex c) const noexcept {
  if (is_dense_) return dense_[key(rank, c)];
  const auto it = sparse_.find(key(rank, c));
  return it == sparse_.end() ? 0 : it->second;
}

void SubtopologyCounts::add(TaskIndex t, ClientIndex c, std::int32_t delta) {
  const std::uint64_t k = key(rank_[t], c);
  std::uint32_t& count = is_dense_ ? dense_[k] : sparse_[k];
  const std::int64_t next = static_cast<std::int64_t>(count) + delta;
  count = next < 0 ? 0 : static_cast<std::uint32_t>(next);
  if (!is_dense_ && count == 0) sparse_.erase(k);
}

}  // namespace assignor
