#include "kafka_ha/tag_aware_standbys.hpp"

#include <assignor/java_order.hpp>

#include <algorithm>
#include <map>
#include <utility>

namespace assignor::plugins::kafka_ha {

bool same_tags(const Cluster& cluster, ClientIndex source, ClientIndex destination) {
  const auto& to = cluster.clients[destination].tags;
  for (const auto& [key, value] : cluster.clients[source].tags) {
    auto it = to.find(key);
    if (it == to.end() || it->second != value) return false;
  }
  return true;
}

namespace {

constexpr std::int32_t kMissing = -1;

class TagAwareStandbys {
 public:
  TagAwareStandbys(const Cluster& cluster, const std::vector<std::string>& keys, AssignmentDraft& draft)
      : cluster_(cluster), draft_(draft), n_(cluster.client_count()) {
    // Configured keys (a set: duplicates count once), each value of a key numbered.
    std::vector<std::string> unique = keys;
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    value_.assign(unique.size(), std::vector<std::int32_t>(n_, kMissing));
    values_.assign(unique.size(), 0);
    for (std::size_t k = 0; k < unique.size(); ++k) {
      std::map<std::string, std::int32_t> numbered;
      for (ClientIndex c = 0; c < n_; ++c) {
        const auto& tags = cluster.clients[c].tags;
        auto it = tags.find(unique[k]);
        if (it == tags.end()) continue;
        auto [pos, fresh] = numbered.emplace(it->second, static_cast<std::int32_t>(numbered.size()));
        value_[k][c] = pos->second;
      }
      values_[k] = numbered.size();
    }
  }

  std::uint64_t run() {
    const std::uint32_t wanted = draft_.standbys_wanted();
    // tasksToRemainingStandbys: a HashMap from Collectors.toMap over the stateful tasks in order.
    JavaHashOrder remaining_order;
    std::vector<std::uint32_t> remaining(cluster_.task_count(), 0);
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      if (!cluster_.tasks[t].has_logged_store) continue;
      remaining_order.put(t,
                          kafka_streams_task_id_hash(cluster_.tasks[t].id.subtopology, cluster_.tasks[t].id.partition));
      remaining[t] = wanted;
    }
    for (TaskIndex t = 0; t < cluster_.task_count(); ++t) {
      if (!cluster_.tasks[t].has_logged_store || draft_.active(t) == kNoClient) continue;
      remaining[t] = with_different_tags(t, remaining[t]);
      if (remaining[t] == 0) remaining_order.remove(t);
    }
    std::uint64_t missing = 0;
    for (TaskIndex t : remaining_order.order()) {
      while (remaining[t] > 0) {
        const ClientIndex c = least_loaded(t, false);
        if (c == kNoClient) break;
        draft_.add_standby(t, c);
        --remaining[t];
      }
      missing += remaining[t];
    }
    return missing;
  }

 private:
  // assignStandbyTasksToClientsWithDifferentTags: returns the standbys left to place.
  std::uint32_t with_different_tags(TaskIndex t, std::uint32_t remaining) {
    used_.clear();
    std::size_t used_clients = 1;  // the active's client
    ClientIndex last = draft_.active(t);
    do {
      for (std::size_t k = 0; k < value_.size(); ++k) {
        const std::int32_t v = value_[k][last];
        if (v == kMissing) continue;
        if (values_[k] <= used_clients) {
          used_.erase(std::remove_if(used_.begin(), used_.end(), [&](const auto& e) { return e.first == k; }),
                      used_.end());
        } else if (std::find(used_.begin(), used_.end(), std::make_pair(k, v)) == used_.end()) {
          used_.emplace_back(k, v);
        }
      }
      const ClientIndex c = least_loaded(t, true);
      if (c == kNoClient) break;
      draft_.add_standby(t, c);
      ++used_clients;
      --remaining;
      last = c;
    } while (remaining > 0);
    return remaining;
  }

  bool used(ClientIndex c) const {
    for (const auto& [k, v] : used_)
      if (value_[k][c] == v) return true;
    return false;
  }

  std::uint32_t held(ClientIndex c) const { return draft_.active_count(c) + draft_.standby_count_of(c); }

  // ConstrainedPrioritySet.poll: the least loaded (tasks held per thread, then id) client without a
  // copy of the task (and, with tags, not marked as used).
  ClientIndex least_loaded(TaskIndex t, bool by_tags) const {
    ClientIndex best = kNoClient;
    for (ClientIndex c = 0; c < n_; ++c) {
      if (draft_.holds(t, c) || (by_tags && used(c))) continue;
      if (best == kNoClient ||
          compare_load(held(c), cluster_.clients[c].threads, held(best), cluster_.clients[best].threads) < 0)
        best = c;
    }
    return best;
  }

  const Cluster& cluster_;
  AssignmentDraft& draft_;
  const std::size_t n_;
  std::vector<std::vector<std::int32_t>> value_;            // [key][client]: value number, kMissing if none
  std::vector<std::size_t> values_;                         // distinct values per key
  std::vector<std::pair<std::size_t, std::int32_t>> used_;  // the (key, value) entries marked used
};

}  // namespace

std::uint64_t assign_standbys_tag_aware(const Cluster& cluster, const std::vector<std::string>& tag_keys,
                                        AssignmentDraft& draft) {
  if (draft.standbys_per_task() == 0) return 0;
  return TagAwareStandbys(cluster, tag_keys, draft).run();
}

}  // namespace assignor::plugins::kafka_ha
