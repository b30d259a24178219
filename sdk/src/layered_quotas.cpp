#include "assignor/layered_quotas.hpp"

#include <map>
#include <set>
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

namespace {

// Each task's previous active owner: the client listing it, else one reporting it running (-2).
std::vector<ClientIndex> previous_owners(const Cluster& cluster) {
  const auto listed = cluster.previous_active_owner();
  std::vector<ClientIndex> owner(listed.begin(), listed.end());
  for (ClientIndex c = 0; c < cluster.client_count(); ++c)
    for (const OffsetSum& s : cluster.clients[c].offset_sums)
      if (s.sum == kRunningOffsetSum && owner[s.task] == kNoClient) owner[s.task] = c;
  return owner;
}

}  // namespace

LayeredQuotas LayeredQuotas::by_state(const Cluster& cluster, bool stateless) {
  LayeredQuotas quotas(cluster);
  const auto owner = previous_owners(cluster);
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

bool LayeredQuotas::has_room(TaskIndex t, ClientIndex c) const noexcept { return has_room_in(mask_[t], c); }

bool LayeredQuotas::has_room_in(std::uint8_t layers, ClientIndex c) const noexcept {
  for (std::size_t l = 0; l < quota_.size(); ++l)
    if (((layers >> l) & 1u) && used_[l][c] >= quota_[l][c]) return false;
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
  const auto owner = previous_owners(cluster);
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
  // 3. The least-loaded client with room (any, when none has room). Per set of layers, the clients
  //    with room in an ordered set: a client out of room for a set never gets room back here, so
  //    each task finds its client at the front (a scan over the full clients was quadratic when
  //    most of the least loaded had filled the narrowest layer: seconds at 100k x 1,000).
  struct ByLoad {
    const AssignmentDraft* draft;
    bool operator()(ClientIndex a, ClientIndex b) const noexcept {
      const int cmp =
          compare_load(draft->active_count(a), draft->threads(a), draft->active_count(b), draft->threads(b));
      return cmp != 0 ? cmp < 0 : a < b;
    }
  };
  using Clients = std::set<ClientIndex, ByLoad>;
  std::map<std::uint8_t, Clients> with_room;  // by the layers a task counts in
  Clients everyone(ByLoad{&draft});
  for (ClientIndex c = 0; c < n; ++c) everyone.insert(c);
  const auto clients_for = [&](std::uint8_t layers) -> Clients& {
    auto it = with_room.find(layers);
    if (it != with_room.end()) return it->second;
    Clients& set = with_room.emplace(layers, Clients(ByLoad{&draft})).first->second;
    for (ClientIndex c = 0; c < n; ++c)
      if (quotas.has_room_in(layers, c)) set.insert(c);
    return set;
  };
  const auto first_without = [&](const Clients& set, TaskIndex t) {
    for (ClientIndex c : set)
      if (!draft.holds(t, c)) return c;
    return kNoClient;
  };
  for (TaskIndex t : last) {
    ClientIndex c = first_without(clients_for(quotas.layers_of(t)), t);
    if (c == kNoClient) {
      c = first_without(everyone, t);
      ++result.over_quota;
    } else {
      ++result.to_least_loaded;
    }
    if (c == kNoClient) continue;                        // every client holds a copy of it: the caller placed those
    for (auto& [layers, set] : with_room) set.erase(c);  // before its load changes
    everyone.erase(c);
    place(t, c);
    for (auto& [layers, set] : with_room)
      if (quotas.has_room_in(layers, c)) set.insert(c);
    everyone.insert(c);
  }
  return result;
}

}  // namespace assignor
