#include "assignor/tag_standbys.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "standby_balance.hpp"

namespace assignor {

namespace {

// Dense tag values: value(k, c) is the index of client c's value for key k among that key's values,
// and clients with equal values on every key share a group.
class TagIndex {
 public:
  TagIndex(const Cluster& cluster, std::span<const std::string> keys)
      : keys_(static_cast<std::uint32_t>(keys.size())), clients_(static_cast<std::uint32_t>(cluster.client_count())) {
    values_.resize(std::size_t{keys_} * clients_);
    distinct_.resize(keys_);
    for (std::uint32_t k = 0; k < keys_; ++k) {
      std::map<std::string, std::uint32_t> ids;
      for (ClientIndex c = 0; c < clients_; ++c) {
        const auto& tags = cluster.clients[c].tags;
        auto it = tags.find(keys[k]);
        auto [pos, inserted] =
            ids.emplace(it == tags.end() ? std::string() : it->second, static_cast<std::uint32_t>(ids.size()));
        values_[std::size_t{k} * clients_ + c] = pos->second;
      }
      distinct_[k] = static_cast<std::uint32_t>(ids.size());
    }
    std::map<std::vector<std::uint32_t>, std::uint32_t> groups;
    group_.resize(clients_);
    std::vector<std::uint32_t> tuple(keys_);
    for (ClientIndex c = 0; c < clients_; ++c) {
      for (std::uint32_t k = 0; k < keys_; ++k) tuple[k] = value(k, c);
      auto [it, inserted] = groups.emplace(tuple, static_cast<std::uint32_t>(groups.size()));
      group_[c] = it->second;
      if (inserted) representative_.push_back(c);
    }
  }

  std::uint32_t keys() const noexcept { return keys_; }
  std::uint32_t value(std::uint32_t k, ClientIndex c) const noexcept { return values_[std::size_t{k} * clients_ + c]; }
  std::uint32_t distinct(std::uint32_t k) const noexcept { return distinct_[k]; }
  std::uint32_t group(ClientIndex c) const noexcept { return group_[c]; }
  std::uint32_t groups() const noexcept { return static_cast<std::uint32_t>(representative_.size()); }
  ClientIndex representative(std::uint32_t g) const noexcept { return representative_[g]; }

 private:
  std::uint32_t keys_;
  std::uint32_t clients_;
  std::vector<std::uint32_t> values_;
  std::vector<std::uint32_t> distinct_;
  std::vector<std::uint32_t> group_;
  std::vector<ClientIndex> representative_;
};

// Clients of each tag group ordered by load = count / threads (exact), ties by client index.
class GroupLoads {
 public:
  GroupLoads(const Cluster& cluster, const TagIndex& tags, std::vector<std::uint32_t> counts)
      : counts_(std::move(counts)) {
    threads_.resize(cluster.client_count());
    for (ClientIndex c = 0; c < cluster.client_count(); ++c) threads_[c] = cluster.clients[c].threads;
    sets_.reserve(tags.groups());
    for (std::uint32_t g = 0; g < tags.groups(); ++g) sets_.emplace_back(ByLoad{this});
    group_.resize(cluster.client_count());
    for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
      group_[c] = tags.group(c);
      sets_[group_[c]].insert(c);
    }
  }

  bool lighter(ClientIndex a, ClientIndex b) const noexcept {
    const int cmp = compare_load(counts_[a], threads_[a], counts_[b], threads_[b]);
    return cmp != 0 ? cmp < 0 : a < b;
  }
  void add(ClientIndex c, int delta) {
    auto& set = sets_[group_[c]];
    set.erase(c);
    counts_[c] = static_cast<std::uint32_t>(static_cast<std::int64_t>(counts_[c]) + delta);
    set.insert(c);
  }
  const auto& members(std::uint32_t g) const noexcept { return sets_[g]; }
  std::uint32_t count(ClientIndex c) const noexcept { return counts_[c]; }
  std::uint32_t threads(ClientIndex c) const noexcept { return threads_[c]; }

 private:
  struct ByLoad {
    const GroupLoads* loads;
    bool operator()(ClientIndex a, ClientIndex b) const noexcept { return loads->lighter(a, b); }
  };
  std::vector<std::uint32_t> counts_;
  std::vector<std::uint32_t> threads_;
  std::vector<std::uint32_t> group_;
  std::vector<std::set<ClientIndex, ByLoad>> sets_;
};

// Tag values already used by one task's copies, per key (a handful of values: a flat list).
class UsedValues {
 public:
  explicit UsedValues(const TagIndex& tags) : tags_(tags), used_(tags.keys()) {}
  void clear() {
    for (auto& v : used_) v.clear();
  }
  void add(ClientIndex c) {
    for (std::uint32_t k = 0; k < tags_.keys(); ++k) {
      const std::uint32_t v = tags_.value(k, c);
      if (std::find(used_[k].begin(), used_[k].end(), v) == used_[k].end()) used_[k].push_back(v);
    }
  }
  // Keys on which client c's value is new.
  std::uint32_t score(ClientIndex c) const {
    std::uint32_t s = 0;
    for (std::uint32_t k = 0; k < tags_.keys(); ++k) {
      const std::uint32_t v = tags_.value(k, c);
      s += std::find(used_[k].begin(), used_[k].end(), v) == used_[k].end() ? 1 : 0;
    }
    return s;
  }
  std::size_t distinct(std::uint32_t k) const { return used_[k].size(); }

 private:
  const TagIndex& tags_;
  std::vector<std::vector<std::uint32_t>> used_;
};

}  // namespace

namespace {
std::uint64_t place_standbys_tag_aware_within_clients(const Cluster& cluster, std::span<const std::string> tag_keys,
                                                      AssignmentDraft& draft, const TagAwareStandbyOptions& options) {
  const std::uint32_t k = draft.standbys_per_task();
  const std::size_t n = cluster.client_count();
  if (k == 0 || n == 0) return 0;
  const TagIndex tags(cluster, tag_keys);
  std::vector<std::uint32_t> counts(n);
  for (ClientIndex c = 0; c < n; ++c) counts[c] = draft.total_count(c);
  GroupLoads loads(cluster, tags, std::move(counts));

  // Previous holders per task (previous standbys, and the previous active owner), for stickiness.
  std::vector<std::uint32_t> prev_offset;
  std::vector<ClientIndex> prev_clients;
  if (options.prefer_previous_holders) {
    prev_offset.assign(cluster.task_count() + 1, 0);
    const auto owner = cluster.previous_active_owner();
    for (ClientIndex c = 0; c < n; ++c)
      for (TaskIndex t : cluster.clients[c].previous_standby) ++prev_offset[t + 1];
    for (TaskIndex t = 0; t < cluster.task_count(); ++t) prev_offset[t + 1] += owner[t] != kNoClient ? 1 : 0;
    for (std::size_t t = 0; t < cluster.task_count(); ++t) prev_offset[t + 1] += prev_offset[t];
    prev_clients.resize(prev_offset.back());
    std::vector<std::uint32_t> fill(prev_offset.begin(), prev_offset.end() - 1);
    for (ClientIndex c = 0; c < n; ++c)
      for (TaskIndex t : cluster.clients[c].previous_standby) prev_clients[fill[t]++] = c;
    for (TaskIndex t = 0; t < cluster.task_count(); ++t)
      if (owner[t] != kNoClient) prev_clients[fill[t]++] = owner[t];
  }

  UsedValues used(tags);
  std::uint64_t shortfall = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    std::uint32_t placed = draft.standby_count(t);
    if (placed >= k) continue;
    used.clear();
    if (draft.active(t) != kNoClient) used.add(draft.active(t));
    for (ClientIndex c : draft.standby_slots(t))
      if (c != kNoClient) used.add(c);
    for (; placed < k; ++placed) {
      // The best group: highest score, then its least-loaded client without the task.
      ClientIndex best = kNoClient;
      std::uint32_t best_score = 0;
      for (std::uint32_t g = 0; g < tags.groups(); ++g) {
        const std::uint32_t score = used.score(tags.representative(g));
        if (best != kNoClient && score < best_score) continue;
        ClientIndex candidate = kNoClient;
        for (ClientIndex c : loads.members(g))
          if (!draft.holds(t, c)) {
            candidate = c;
            break;
          }
        if (candidate == kNoClient) continue;
        if (best == kNoClient || score > best_score || loads.lighter(candidate, best)) {
          best = candidate;
          best_score = score;
        }
      }
      if (best == kNoClient) {
        shortfall += k - placed;
        break;
      }
      if (options.prefer_previous_holders) {
        ClientIndex previous = kNoClient;
        for (std::uint32_t i = prev_offset[t]; i < prev_offset[t + 1]; ++i) {
          const ClientIndex c = prev_clients[i];
          if (draft.holds(t, c) || used.score(c) != best_score) continue;
          if (previous == kNoClient || loads.lighter(c, previous)) previous = c;
        }
        if (previous != kNoClient) best = previous;
      }
      draft.add_standby(t, best);
      loads.add(best, 1);
      used.add(best);
    }
  }
  return shortfall;
}

}  // namespace

std::uint64_t place_standbys_tag_aware(const Cluster& cluster, std::span<const std::string> tag_keys,
                                       AssignmentDraft& draft, const TagAwareStandbyOptions& options) {
  // Copies beyond clients - 1 can never be placed (the draft has no slot for them): shortfall too.
  const std::uint64_t beyond = std::uint64_t{draft.standbys_beyond_clients()} * cluster.logged_task_count();
  return beyond + place_standbys_tag_aware_within_clients(cluster, tag_keys, draft, options);
}

std::uint64_t balance_standbys_within_tags(const Cluster& cluster, std::span<const std::string> tag_keys,
                                           AssignmentDraft& draft) {
  const std::size_t n = cluster.client_count();
  if (draft.standbys_per_task() == 0 || n < 2) return 0;
  const TagIndex tags(cluster, tag_keys);
  auto held = detail::standbys_by_client(cluster, draft);
  std::vector<std::uint32_t> counts(n);
  for (ClientIndex c = 0; c < n; ++c) counts[c] = draft.total_count(c);
  GroupLoads loads(cluster, tags, std::move(counts));
  std::vector<std::uint8_t> stuck(n, 0);
  std::uint64_t moved = 0;
  for (std::uint32_t g = 0; g < tags.groups(); ++g)
    if (loads.members(g).size() >= 2)
      moved += detail::balance_standbys_in_group(loads.members(g), loads, held, stuck, draft);
  return moved;
}

std::uint64_t tag_spread_shortfall(const Cluster& cluster, std::span<const std::string> tag_keys,
                                   const Assignment& assignment) {
  if (tag_keys.empty() || cluster.client_count() == 0) return 0;
  const TagIndex tags(cluster, tag_keys);
  // Copies per task: the active first, then the standbys.
  std::vector<std::uint32_t> offset(cluster.task_count() + 1, 0);
  for (const auto& p : assignment.actives) ++offset[p.task + 1];
  for (const auto& p : assignment.standbys) ++offset[p.task + 1];
  for (std::size_t t = 0; t < cluster.task_count(); ++t) offset[t + 1] += offset[t];
  std::vector<ClientIndex> copies(offset.back());
  std::vector<std::uint32_t> fill(offset.begin(), offset.end() - 1);
  for (const auto& p : assignment.actives) copies[fill[p.task]++] = p.client;
  for (const auto& p : assignment.standbys) copies[fill[p.task]++] = p.client;

  std::uint64_t shortfall = 0;
  UsedValues used(tags);
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    const std::uint32_t holders = offset[t + 1] - offset[t];
    if (holders == 0) continue;
    used.clear();
    for (std::uint32_t i = offset[t]; i < offset[t + 1]; ++i) used.add(copies[i]);
    for (std::uint32_t key = 0; key < tags.keys(); ++key) {
      const std::size_t possible = std::min<std::size_t>(holders, tags.distinct(key));
      if (used.distinct(key) < possible) shortfall += possible - used.distinct(key);
    }
  }
  return shortfall;
}

}  // namespace assignor
