#include "assignor/standby_spread.hpp"

#include <algorithm>
#include <map>

#include "assignor/balance.hpp"

namespace assignor {

StandbyDomains::StandbyDomains(const Cluster& cluster, std::span<const std::string> tag_keys)
    : domain_(cluster.client_count(), kNone) {
  if (tag_keys.empty()) {
    std::vector<std::uint32_t> dense(cluster.racks.size(), kNone);
    for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
      const RackIndex r = cluster.clients[c].rack;
      if (r == kNoRack || r >= dense.size()) continue;
      if (dense[r] == kNone) dense[r] = static_cast<std::uint32_t>(count_++);
      domain_[c] = dense[r];
    }
    return;
  }
  std::map<std::vector<std::string>, std::uint32_t> ids;  // the combinations of values in use
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    std::vector<std::string> values;
    for (const auto& key : tag_keys) {
      const auto it = cluster.clients[c].tags.find(key);
      if (it == cluster.clients[c].tags.end()) break;
      values.push_back(it->second);
    }
    if (values.size() != tag_keys.size()) continue;  // lacks a key: no domain
    const auto [it, inserted] = ids.emplace(std::move(values), static_cast<std::uint32_t>(ids.size()));
    domain_[c] = it->second;
  }
  count_ = ids.size();
}

bool StandbyDomains::shares_with_copies(const AssignmentDraft& draft, TaskIndex t, ClientIndex c) const noexcept {
  if (domain_[c] == kNone) return false;
  const ClientIndex a = draft.active(t);
  if (a != kNoClient && a != c && domain_[a] == domain_[c]) return true;
  for (ClientIndex s : draft.standby_slots(t))
    if (s != kNoClient && s != c && domain_[s] == domain_[c]) return true;
  return false;
}

std::uint64_t place_standbys_diverse(const Cluster& cluster, const StandbyDomains& domains, AssignmentDraft& draft,
                                     const DiverseStandbyOptions& options) {
  const std::size_t n = cluster.client_count();
  std::uint64_t shortfall = 0;
  if (n == 0) return shortfall;
  std::vector<std::uint32_t> counts(n);
  for (ClientIndex c = 0; c < n; ++c) counts[c] = draft.total_count(c);
  LoadQueue queue(client_threads(cluster), std::move(counts));
  // Previous holders of each task (standbys, then the previous active), only when asked for.
  std::vector<std::vector<ClientIndex>> previous;
  if (options.prefer_previous_holders) {
    previous.resize(cluster.task_count());
    for (ClientIndex c = 0; c < n; ++c) {
      for (TaskIndex t : cluster.clients[c].previous_standby) previous[t].push_back(c);
      for (TaskIndex t : cluster.clients[c].previous_active) previous[t].push_back(c);
    }
  }
  const auto better_loaded = [&](ClientIndex a, ClientIndex b) {
    const int cmp = compare_load(draft.total_count(a), draft.threads(a), draft.total_count(b), draft.threads(b));
    return cmp != 0 ? cmp < 0 : a < b;
  };
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    const ClientIndex active = draft.active(t);
    while (draft.standby_count(t) < draft.standbys_per_task()) {
      // The tiers, best first: outside every copy's domain, outside the active's, anywhere.
      const auto in_tier = [&](ClientIndex c, int tier) {
        if (draft.holds(t, c)) return false;
        if (tier == 0) return !domains.shares_with_copies(draft, t, c);
        if (tier == 1) return active == kNoClient || !domains.colocated(active, c);
        return true;
      };
      ClientIndex chosen = kNoClient;
      for (int tier = 0; tier < 3 && chosen == kNoClient; ++tier) {
        if (options.prefer_previous_holders)
          for (ClientIndex c : previous[t])
            if (in_tier(c, tier) && (chosen == kNoClient || better_loaded(c, chosen))) chosen = c;
        if (chosen == kNoClient) chosen = queue.least_where([&](ClientIndex c) { return in_tier(c, tier); });
      }
      if (chosen == kNoClient) {
        shortfall += draft.standbys_per_task() - draft.standby_count(t);
        break;
      }
      draft.add_standby(t, chosen);
      queue.add(chosen, 1);
    }
  }
  return shortfall + static_cast<std::uint64_t>(draft.standbys_beyond_clients()) * cluster.logged_task_count();
}

std::uint64_t colocated_standbys(const StandbyDomains& domains, const AssignmentDraft& draft) {
  std::uint64_t n = 0;
  for (TaskIndex t = 0; t < draft.task_count(); ++t) {
    const ClientIndex a = draft.active(t);
    if (a == kNoClient) continue;
    for (ClientIndex s : draft.standby_slots(t)) n += s != kNoClient && domains.colocated(a, s) ? 1 : 0;
  }
  return n;
}

}  // namespace assignor
