#include "packing.hpp"

#include <assignor/balance.hpp>
#include <assignor/sticky.hpp>
#include <assignor/tag_standbys.hpp>

namespace assignor::ha_plus {

namespace {

// Stateful actives round-robin over the clients in index order, in task order, ignoring history,
// each client taking at most its proportional_quotas() share of the stateful tasks (Kafka's spread
// with thread-proportional quotas). O(tasks + clients).
void spread_stateful_actives_round_robin(const Cluster& cluster, AssignmentDraft& draft) {
  if (cluster.client_count() == 0) return;
  std::uint64_t stateful = 0;
  for (const auto& t : cluster.tasks) stateful += t.stateful ? 1 : 0;
  std::vector<std::uint32_t> room = proportional_quotas(cluster, stateful);
  // A circular list of the clients that still have room, so each step is O(1) amortised.
  const auto n = static_cast<ClientIndex>(cluster.client_count());
  std::vector<ClientIndex> next(n);
  for (ClientIndex c = 0; c < n; ++c) next[c] = (c + 1) % n;
  ClientIndex prev = n - 1;
  ClientIndex cur = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].stateful) continue;
    while (room[cur] == 0) {  // unlink full clients; some client has room while tasks remain
      next[prev] = next[cur];
      cur = next[cur];
    }
    draft.set_active(t, cur);
    --room[cur];
    prev = cur;
    cur = next[cur];
  }
}

}  // namespace

WarmupPlan pack(const AssignmentInput& in, AssignmentDraft& draft, const PackOptions& options) {
  const Cluster& cluster = in.cluster;
  if (cluster.client_count() == 0) return {};
  // 1. Stateful actives (any store), ignoring history, in proportion to threads.
  spread_stateful_actives_round_robin(cluster, draft);
  // 2. Standbys of every logged task: previous holders first (keep_history), then the least loaded;
  //    then evened out (within equal tags when rack_aware.tags spreads them, KIP-708).
  const auto& tags = in.settings.rack_aware.tags;
  if (!tags.empty()) {
    place_standbys_tag_aware(cluster, tags, draft, {.prefer_previous_holders = options.keep_history});
    balance_standbys_within_tags(cluster, tags, draft);
  } else if (options.keep_history) {
    place_sticky_standbys(cluster, draft);
  } else {
    place_standbys_least_loaded(cluster, draft);
    balance_standbys(cluster, draft);
  }
  // 3. Keep every stateful active on a caught-up client while its target warms up: the one running
  //    it now when it can (keep_history).
  WarmupPlanOptions warmups;
  warmups.keep_on_current_owner = options.keep_history;
  const WarmupPlan plan = plan_warmups(cluster, in.settings, in.lags, draft, warmups);
  // 4. Stateless tasks by active load.
  fill_stateless_by_active_load(cluster, draft);
  return plan;
}

}  // namespace assignor::ha_plus
