#include "assignor/layered_quotas.hpp"

#include <stdexcept>

#include "assignor/balance.hpp"

namespace assignor {

LayeredQuotas::LayeredQuotas(const Cluster& cluster)
    : task_count_(cluster.task_count()), client_count_(cluster.client_count()), mask_(cluster.task_count(), 0) {}

std::size_t LayeredQuotas::add_layer_of(std::vector<std::uint32_t> quota, const std::vector<std::uint8_t>& selected) {
  if (quota.size() != client_count_) throw std::invalid_argument("LayeredQuotas: one quota per client");
  if (quota_.size() == kMaxLayers) throw std::invalid_argument("LayeredQuotas: at most 8 layers");
  const std::size_t layer = quota_.size();
  for (TaskIndex t = 0; t < task_count_; ++t)
    if (selected[t]) mask_[t] = static_cast<std::uint8_t>(mask_[t] | (1u << layer));
  quota_.push_back(std::move(quota));
  used_.emplace_back(client_count_, 0);
  return layer;
}

LayeredQuotas LayeredQuotas::by_state(const Cluster& cluster, bool stateless) {
  LayeredQuotas quotas(cluster);
  const auto owner = cluster.previous_active_owner();
  const auto layer = [&](auto&& member) {
    std::uint64_t total = 0;
    std::vector<std::uint32_t> held(cluster.client_count(), 0);
    for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
      if (!member(t)) continue;
      ++total;
      if (owner[t] != kNoClient) ++held[owner[t]];
    }
    quotas.add_layer(proportional_quotas(cluster, total, held), member);
  };
  layer([&](TaskIndex t) { return cluster.tasks[t].has_logged_store; });
  layer([&](TaskIndex t) { return stateless || cluster.tasks[t].stateful; });
  return quotas;
}

bool LayeredQuotas::has_room(TaskIndex t, ClientIndex c) const noexcept {
  for (std::size_t l = 0; l < quota_.size(); ++l)
    if (((mask_[t] >> l) & 1u) && used_[l][c] >= quota_[l][c]) return false;
  return true;
}

void LayeredQuotas::take(TaskIndex t, ClientIndex c) noexcept {
  for (std::size_t l = 0; l < quota_.size(); ++l)
    if ((mask_[t] >> l) & 1u) ++used_[l][c];
}

void LayeredQuotas::release(TaskIndex t, ClientIndex c) noexcept {
  for (std::size_t l = 0; l < quota_.size(); ++l)
    if (((mask_[t] >> l) & 1u) && used_[l][c] > 0) --used_[l][c];
}

void LayeredQuotas::count_actives(const AssignmentDraft& draft) noexcept {
  for (TaskIndex t = 0; t < draft.task_count() && t < task_count_; ++t)
    if (draft.active(t) != kNoClient) take(t, draft.active(t));
}

StickyQuotaResult place_actives_sticky(const Cluster& cluster, const LagModel& lags, AssignmentDraft& draft,
                                       std::span<const TaskIndex> tasks, LayeredQuotas& quotas) {
  StickyQuotaResult result;
  const std::size_t n = cluster.client_count();
  if (n == 0) return result;
  const auto place = [&](TaskIndex t, ClientIndex c) {
    draft.set_active(t, c);
    quotas.take(t, c);
  };
  // 1. Previous owners, while they have room.
  const auto owner = cluster.previous_active_owner();
  std::vector<TaskIndex> rest;
  for (TaskIndex t : tasks) {
    if (draft.active(t) != kNoClient) continue;
    const ClientIndex c = owner[t];
    if (c != kNoClient && !draft.holds(t, c) && quotas.has_room(t, c)) {
      place(t, c);
      ++result.kept_previous;
    } else {
      rest.push_back(t);
    }
  }
  // 2. The least-loaded caught-up client with room (rank order breaks ties), where being caught up
  //    sets some clients apart.
  std::vector<TaskIndex> last;
  for (TaskIndex t : rest) {
    ClientIndex best = kNoClient;
    if (cluster.tasks[t].stateful && !lags.everyone_caught_up(t)) {
      for (ClientIndex c : lags.caught_up_clients(t)) {
        if (draft.holds(t, c) || !quotas.has_room(t, c)) continue;
        if (best == kNoClient ||
            compare_load(draft.active_count(c), draft.threads(c), draft.active_count(best), draft.threads(best)) < 0)
          best = c;
      }
    }
    if (best == kNoClient) {
      last.push_back(t);
      continue;
    }
    place(t, best);
    ++result.to_caught_up;
  }
  if (last.empty()) return result;
  // 3. The least-loaded client with room (any, when none has room).
  std::vector<std::uint32_t> counts(n);
  for (ClientIndex c = 0; c < n; ++c) counts[c] = draft.active_count(c);
  LoadQueue queue(client_threads(cluster), std::move(counts));
  for (TaskIndex t : last) {
    ClientIndex c = queue.least_where([&](ClientIndex k) { return !draft.holds(t, k) && quotas.has_room(t, k); });
    if (c == kNoClient) {
      c = queue.least_where([&](ClientIndex k) { return !draft.holds(t, k); });
      ++result.over_quota;
    } else {
      ++result.to_least_loaded;
    }
    if (c == kNoClient) continue;  // every client holds a copy of it: the caller placed those
    place(t, c);
    queue.add(c, 1);
  }
  return result;
}

}  // namespace assignor
