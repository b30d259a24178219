#include "ha_plus/packing.hpp"

#include <assignor/balance.hpp>
#include <assignor/layered_quotas.hpp>
#include <assignor/sticky.hpp>
#include <assignor/tag_standbys.hpp>

namespace assignor::plugins::ha_plus {

namespace {

// Stateful actives round-robin over the clients in index order, in task order, ignoring history,
// each client taking at most its proportional_quotas() share (Kafka's spread with thread-
// proportional quotas). The tasks with a changelog go first, under quotas of their own, so that
// the work that restores is spread in proportion to threads by itself (DESIGN 4.6's stateful
// balance); the non-logged stateful tasks then fill each client up to its share of all stateful
// tasks (a divisor method is house-monotone: that share is never below the logged one).
// O(tasks + clients).
void spread_round_robin(const Cluster& cluster, AssignmentDraft& draft, bool logged, std::vector<std::uint32_t> room) {
  const auto n = static_cast<ClientIndex>(cluster.client_count());
  // A circular list of the clients that still have room, so each step is O(1) amortised.
  std::vector<ClientIndex> next(n);
  for (ClientIndex c = 0; c < n; ++c) next[c] = (c + 1) % n;
  ClientIndex prev = n - 1;
  ClientIndex cur = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    const Task& task = cluster.tasks[t];
    if (!task.stateful || task.has_logged_store != logged) continue;
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

void spread_stateful_actives_round_robin(const Cluster& cluster, AssignmentDraft& draft) {
  if (cluster.client_count() == 0) return;
  std::uint64_t stateful = 0, logged = 0;
  for (const auto& t : cluster.tasks) {
    stateful += t.stateful ? 1 : 0;
    logged += t.has_logged_store ? 1 : 0;
  }
  const std::vector<std::uint32_t> logged_room = proportional_quotas(cluster, logged);
  std::vector<std::uint32_t> other_room = proportional_quotas(cluster, stateful);
  std::uint64_t room_left = 0;
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    other_room[c] = other_room[c] >= logged_room[c] ? other_room[c] - logged_room[c] : 0;
    room_left += other_room[c];
  }
  // Never short of room (the loop below would not end): should a tie ever make the two quotas
  // disagree, the missing places go out in proportion to threads again.
  if (room_left < stateful - logged) {
    const auto extra = proportional_quotas(cluster, stateful - logged - room_left);
    for (ClientIndex c = 0; c < cluster.client_count(); ++c) other_room[c] += extra[c];
  }
  spread_round_robin(cluster, draft, true, logged_room);
  spread_round_robin(cluster, draft, false, std::move(other_room));
}

// With history: the SDK's lag-aware sticky placement under two quota layers, the tasks with a
// changelog under their own thread-proportional quotas and all stateful tasks under theirs (the
// remainders to the clients that ran more of them): a previous owner keeps its tasks within its
// quotas, the rest go to a caught-up client with room, else to the least loaded. A balanced group
// is left as it is; a fresh one is dealt as above.
void place_stateful_actives_sticky(const AssignmentInput& in, AssignmentDraft& draft) {
  const Cluster& cluster = in.cluster;
  LayeredQuotas quotas = LayeredQuotas::by_state(cluster);
  std::vector<TaskIndex> tasks;  // the tasks with a changelog first: they keep their owners first
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (cluster.tasks[t].has_logged_store) tasks.push_back(t);
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (cluster.tasks[t].stateful && !cluster.tasks[t].has_logged_store) tasks.push_back(t);
  place_actives_sticky(cluster, in.lags, draft, tasks, quotas);
}

}  // namespace

WarmupPlan pack(const AssignmentInput& in, AssignmentDraft& draft, const PackOptions& options) {
  const Cluster& cluster = in.cluster;
  if (cluster.client_count() == 0) return {};
  // 1. Stateful actives (any store), in proportion to threads: where they ran while that stays
  //    within the quotas (sticky_target), else dealt ignoring history.
  if (options.sticky_target)
    place_stateful_actives_sticky(in, draft);
  else
    spread_stateful_actives_round_robin(cluster, draft);
  const std::vector<std::uint32_t> target = active_counts(draft);
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
  // 4. Stateless tasks: with a sticky target, back to their owners within the share of all tasks,
  //    counted against the target (not the actives that run while warmups catch up, which would
  //    move them every round); else by active load.
  if (options.sticky_target)
    fill_stateless_sticky(cluster, draft, target);
  else
    fill_stateless_by_active_load(cluster, draft);
  return plan;
}

}  // namespace assignor::plugins::ha_plus
