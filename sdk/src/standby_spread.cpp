#include "assignor/standby_spread.hpp"

#include <algorithm>
#include <map>

#include "assignor/balance.hpp"

namespace assignor {

namespace {

// Dense domain ids of one dimension: the racks in use, by rack index.
std::size_t rack_domains(const Cluster& cluster, std::vector<std::uint32_t>& of_client) {
  std::vector<std::uint32_t> dense(cluster.racks.size(), StandbyDomains::kNone);
  std::size_t count = 0;
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    const RackIndex r = cluster.clients[c].rack;
    if (r == kNoRack || r >= dense.size()) continue;
    if (dense[r] == StandbyDomains::kNone) dense[r] = static_cast<std::uint32_t>(count++);
    of_client[c] = dense[r];
  }
  return count;
}

// Dense domain ids of the combinations of values of `keys` in use (a client lacking a key has none).
std::size_t tag_domains(const Cluster& cluster, std::span<const std::string> keys,
                        std::vector<std::uint32_t>& of_client) {
  std::map<std::vector<std::string>, std::uint32_t> ids;
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    std::vector<std::string> values;
    for (const auto& key : keys) {
      const auto it = cluster.clients[c].tags.find(key);
      if (it == cluster.clients[c].tags.end()) break;
      values.push_back(it->second);
    }
    if (values.size() != keys.size()) continue;  // lacks a key: no domain
    const auto [it, inserted] = ids.emplace(std::move(values), static_cast<std::uint32_t>(ids.size()));
    of_client[c] = it->second;
  }
  return ids.size();
}

}  // namespace

void StandbyDomains::add_dimension(std::vector<std::uint32_t> of_client, std::size_t count) {
  const std::size_t n = of_client.size();
  const std::size_t k = counts_.size();
  std::vector<std::uint32_t> wider(n * (k + 1));
  for (std::size_t c = 0; c < n; ++c) {
    std::copy_n(domain_.begin() + static_cast<std::ptrdiff_t>(c * k), k,
                wider.begin() + static_cast<std::ptrdiff_t>(c * (k + 1)));
    wider[c * (k + 1) + k] = of_client[c];
  }
  domain_ = std::move(wider);
  counts_.push_back(count);
}

StandbyDomains::StandbyDomains(const Cluster& cluster, std::span<const std::string> tag_keys)
    : StandbyDomains(cluster, DomainKeys{.rack = tag_keys.empty(),
                                         .tags = {tag_keys.begin(), tag_keys.end()},
                                         .tag_match = TagMatch::all_values}) {}

StandbyDomains::StandbyDomains(const Cluster& cluster, const DomainKeys& keys) {
  const std::size_t n = cluster.client_count();
  if (keys.rack) {
    std::vector<std::uint32_t> of_client(n, kNone);
    const std::size_t count = rack_domains(cluster, of_client);
    add_dimension(std::move(of_client), count);
  }
  if (keys.tags.empty()) return;
  if (keys.tag_match == TagMatch::all_values) {
    std::vector<std::uint32_t> of_client(n, kNone);
    const std::size_t count = tag_domains(cluster, keys.tags, of_client);
    add_dimension(std::move(of_client), count);
    return;
  }
  for (const auto& key : keys.tags) {
    std::vector<std::uint32_t> of_client(n, kNone);
    const std::size_t count = tag_domains(cluster, std::span<const std::string>(&key, 1), of_client);
    add_dimension(std::move(of_client), count);
  }
}

StandbyDomains StandbyDomains::of_metrics(const Cluster& cluster, const AssignmentSettings& settings) {
  const bool any_rack =
      std::any_of(cluster.clients.begin(), cluster.clients.end(), [](const Client& c) { return c.rack != kNoRack; });
  return StandbyDomains(
      cluster, DomainKeys{.rack = any_rack, .tags = settings.rack_aware.tags, .tag_match = TagMatch::all_values});
}

bool StandbyDomains::shares_with_copies(const AssignmentDraft& draft, TaskIndex t, ClientIndex c) const noexcept {
  const ClientIndex a = draft.active(t);
  if (a != kNoClient && a != c && colocated(a, c)) return true;
  for (ClientIndex s : draft.standby_slots(t))
    if (s != kNoClient && s != c && colocated(s, c)) return true;
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
  const auto is_previous = [&](TaskIndex t, ClientIndex c) {
    return options.prefer_previous_holders && std::find(previous[t].begin(), previous[t].end(), c) != previous[t].end();
  };
  // With lags: among the clients `ok` accepts that have state of t, those of the best rank
  // (DESIGN 2: running, then caught up, then by lag), previous holders first, then least loaded.
  // kNoClient when none of them has state: the clients without any rank equal, load decides.
  const LagModel* lags = options.lags;
  const auto most_caught_up = [&](TaskIndex t, auto&& ok) {
    ClientIndex best = kNoClient;
    Lag best_lag;
    const auto rank_differs = [&](const Lag& a, const Lag& b) {
      const auto up = [&](const Lag& l) {
        return l.kind == LagKind::running || (l.kind == LagKind::known && l.offsets <= lags->acceptable_recovery_lag());
      };
      const bool a_up = up(a), b_up = up(b);
      if (a.kind != b.kind || a_up != b_up) return true;
      return !a_up && a.offsets != b.offsets;
    };
    for (ClientIndex c : lags->ranked(t)) {
      if (!lags->has_state(t, c)) break;  // ranked() lists every client with state first
      const Lag lag = lags->lag(t, c);
      if (best != kNoClient && rank_differs(best_lag, lag)) break;
      if (!ok(c)) continue;
      if (best == kNoClient || (is_previous(t, c) && !is_previous(t, best)) ||
          (is_previous(t, c) == is_previous(t, best) && better_loaded(c, best))) {
        best = c;
        best_lag = lag;
      }
    }
    return best;
  };
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    const ClientIndex active = draft.active(t);
    const bool ranking = lags != nullptr && !lags->everyone_caught_up(t);
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
        if (ranking) chosen = most_caught_up(t, [&](ClientIndex c) { return in_tier(c, tier); });
        if (chosen == kNoClient && options.prefer_previous_holders)
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

std::vector<Placement> colocated_standby_placements(const StandbyDomains& domains, const Assignment& assignment) {
  std::vector<ClientIndex> active_of;
  for (const Placement& p : assignment.actives) {
    if (p.task >= active_of.size()) active_of.resize(std::size_t{p.task} + 1, kNoClient);
    active_of[p.task] = p.client;
  }
  std::vector<Placement> out;
  for (const Placement& p : assignment.standbys)
    if (p.task < active_of.size() && active_of[p.task] != kNoClient && domains.colocated(active_of[p.task], p.client))
      out.push_back(p);
  return out;
}

std::uint64_t colocated_standbys(const StandbyDomains& domains, const Assignment& assignment) {
  return colocated_standby_placements(domains, assignment).size();
}

}  // namespace assignor
