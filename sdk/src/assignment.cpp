#include "assignor/assignment.hpp"

#include <algorithm>
#include <stdexcept>

namespace assignor {

void Assignment::normalize() {
  auto by_client_task = [](const Placement& a, const Placement& b) {
    return a.client != b.client ? a.client < b.client : a.task < b.task;
  };
  for (auto* list : {&actives, &standbys, &warmups})
    if (!std::is_sorted(list->begin(), list->end(), by_client_task))
      std::sort(list->begin(), list->end(), by_client_task);
}

namespace {

// Placements listed in task order, regrouped by client (a stable counting sort, O(n + clients)):
// the canonical (client, task) order without a comparison sort.
void group_by_client(std::vector<Placement>& list, std::size_t clients) {
  std::vector<std::size_t> next(clients + 1, 0);
  for (const Placement& p : list) ++next[p.client + 1];
  for (std::size_t c = 0; c < clients; ++c) next[c + 1] += next[c];
  std::vector<Placement> grouped(list.size());
  for (const Placement& p : list) grouped[next[p.client]++] = p;
  list.swap(grouped);
}

}  // namespace

namespace {
// Copies of one task besides its active: at most one per other client.
std::uint32_t capped_standbys(const Cluster& cluster, std::uint32_t wanted) noexcept {
  const std::size_t others = cluster.client_count() > 0 ? cluster.client_count() - 1 : 0;
  return static_cast<std::uint32_t>(std::min<std::size_t>(wanted, others));
}
}  // namespace

AssignmentDraft::AssignmentDraft(const Cluster& cluster, std::uint32_t standbys_per_task)
    : standbys_wanted_(standbys_per_task),
      standbys_per_task_(capped_standbys(cluster, standbys_per_task)),
      warmups_per_task_(standbys_per_task_ + 1),
      active_(cluster.task_count(), kNoClient),
      standby_(cluster.task_count() * standbys_per_task_, kNoClient),
      warmup_(cluster.task_count() * warmups_per_task_, kNoClient),
      threads_(cluster.client_count()),
      active_count_(cluster.client_count(), 0),
      standby_count_(cluster.client_count(), 0),
      warmup_count_(cluster.client_count(), 0) {
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) threads_[c] = cluster.clients[c].threads;
}

Role AssignmentDraft::role(TaskIndex t, ClientIndex c) const noexcept {
  if (active_[t] == c) return Role::active;
  for (std::uint32_t i = 0; i < standbys_per_task_; ++i)
    if (standby_[t * standbys_per_task_ + i] == c) return Role::standby;
  for (std::uint32_t i = 0; i < warmups_per_task_; ++i)
    if (warmup_[t * warmups_per_task_ + i] == c) return Role::warmup;
  return Role::none;
}

void AssignmentDraft::set_active(TaskIndex t, ClientIndex c) {
  if (c != kNoClient && c != active_[t] && holds(t, c))
    throw std::logic_error("AssignmentDraft::set_active: client already holds the task");
  if (active_[t] != kNoClient) --active_count_[active_[t]];
  active_[t] = c;
  if (c != kNoClient) ++active_count_[c];
}

void AssignmentDraft::add_standby(TaskIndex t, ClientIndex c) {
  if (holds(t, c)) throw std::logic_error("AssignmentDraft::add_standby: client already holds the task");
  for (std::uint32_t i = 0; i < standbys_per_task_; ++i) {
    ClientIndex& slot = standby_[t * standbys_per_task_ + i];
    if (slot == kNoClient) {
      slot = c;
      ++standby_count_[c];
      return;
    }
  }
  throw std::logic_error("AssignmentDraft::add_standby: every standby slot of the task is taken");
}

void AssignmentDraft::remove_standby(TaskIndex t, ClientIndex c) {
  for (std::uint32_t i = 0; i < standbys_per_task_; ++i) {
    ClientIndex& slot = standby_[t * standbys_per_task_ + i];
    if (slot == c) {
      slot = kNoClient;
      --standby_count_[c];
      return;
    }
  }
  throw std::logic_error("AssignmentDraft::remove_standby: client holds no standby of the task");
}

void AssignmentDraft::add_warmup(TaskIndex t, ClientIndex c) {
  if (holds(t, c)) throw std::logic_error("AssignmentDraft::add_warmup: client already holds the task");
  for (std::uint32_t i = 0; i < warmups_per_task_; ++i) {
    ClientIndex& slot = warmup_[t * warmups_per_task_ + i];
    if (slot == kNoClient) {
      slot = c;
      ++warmup_count_[c];
      ++warmup_total_;
      return;
    }
  }
  throw std::logic_error("AssignmentDraft::add_warmup: every warmup slot of the task is taken");
}

void AssignmentDraft::remove_warmup(TaskIndex t, ClientIndex c) {
  for (std::uint32_t i = 0; i < warmups_per_task_; ++i) {
    ClientIndex& slot = warmup_[t * warmups_per_task_ + i];
    if (slot == c) {
      slot = kNoClient;
      --warmup_count_[c];
      --warmup_total_;
      return;
    }
  }
  throw std::logic_error("AssignmentDraft::remove_warmup: client holds no warmup of the task");
}

std::uint32_t AssignmentDraft::standby_count(TaskIndex t) const noexcept {
  std::uint32_t n = 0;
  for (ClientIndex c : standby_slots(t)) n += c != kNoClient ? 1 : 0;
  return n;
}

std::span<const ClientIndex> AssignmentDraft::standby_slots(TaskIndex t) const noexcept {
  return {standby_.data() + std::size_t{t} * standbys_per_task_, standbys_per_task_};
}

std::span<const ClientIndex> AssignmentDraft::warmup_slots(TaskIndex t) const noexcept {
  return {warmup_.data() + std::size_t{t} * warmups_per_task_, warmups_per_task_};
}

void AssignmentDraft::swap_roles(TaskIndex t, ClientIndex a, ClientIndex b) {
  const Role ra = role(t, a);
  const Role rb = role(t, b);
  if (ra == rb) return;
  auto clear = [&](ClientIndex c, Role r) {
    if (r == Role::active)
      set_active(t, kNoClient);
    else if (r == Role::standby)
      remove_standby(t, c);
    else if (r == Role::warmup)
      remove_warmup(t, c);
  };
  auto put = [&](ClientIndex c, Role r) {
    if (r == Role::active)
      set_active(t, c);
    else if (r == Role::standby)
      add_standby(t, c);
    else if (r == Role::warmup)
      add_warmup(t, c);
  };
  clear(a, ra);
  clear(b, rb);
  put(a, rb);
  put(b, ra);
}

Assignment AssignmentDraft::finish(bool probing_rebalance) const {
  Assignment out;
  out.probing_rebalance = probing_rebalance;
  out.actives.reserve(active_.size());
  for (TaskIndex t = 0; t < active_.size(); ++t)
    if (active_[t] != kNoClient) out.actives.push_back({t, active_[t]});
  for (std::size_t i = 0; i < standby_.size(); ++i)
    if (standby_[i] != kNoClient) out.standbys.push_back({static_cast<TaskIndex>(i / standbys_per_task_), standby_[i]});
  for (std::size_t i = 0; i < warmup_.size(); ++i)
    if (warmup_[i] != kNoClient) out.warmups.push_back({static_cast<TaskIndex>(i / warmups_per_task_), warmup_[i]});
  for (auto* list : {&out.actives, &out.standbys, &out.warmups}) group_by_client(*list, threads_.size());
  out.probing_rebalance = out.probing_rebalance || !out.warmups.empty();
  return out;
}

}  // namespace assignor
