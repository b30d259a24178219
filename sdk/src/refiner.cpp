#include "assignor/refiner.hpp"

#include <algorithm>
#include <queue>
#include <vector>

namespace assignor {

namespace {

// Has `client` reported offsets for `task` (state on disk, in any role)?
bool has_state(const Client& client, TaskIndex task) noexcept {
  const auto& sums = client.offset_sums;
  const auto it =
      std::lower_bound(sums.begin(), sums.end(), task, [](const OffsetSum& s, TaskIndex t) { return s.task < t; });
  return it != sums.end() && it->task == task;
}

// A staged task waiting for a copy on its target, in funding order: tier, then the target's load
// (tasks per thread when queued; re-queued when it grew), then task order.
struct Candidate {
  std::uint8_t tier;
  std::uint32_t count;    // target's tasks held when queued
  std::uint32_t threads;  // target's threads
  TaskIndex task;
  ClientIndex target;
};

struct FundLater {  // std::priority_queue puts the greatest first: "greater" = funded later
  bool operator()(const Candidate& a, const Candidate& b) const noexcept {
    if (a.tier != b.tier) return a.tier > b.tier;
    const int load = compare_load(a.count, a.threads, b.count, b.threads);
    if (load != 0) return load > 0;
    return a.task > b.task;
  }
};

}  // namespace

RefinerResult refine_kip1071(const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                             AssignmentDraft& draft) {
  RefinerResult result;
  const auto owners = cluster.previous_active_owner();
  struct Staged {
    TaskIndex task;
    ClientIndex target;
  };
  std::vector<Staged> staged;

  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store) continue;
    const ClientIndex target = draft.active(t);
    const ClientIndex owner = owners[t];
    if (target == kNoClient) continue;
    // A target that is its previous owner is no move; it still restores when that owner is not
    // caught up (it did not report the task as running), and is then treated like a move to it.
    const bool moves = target != owner;
    if (lags.caught_up(t, target)) {
      if (moves) ++result.granted;
      continue;
    }
    // Keep the task hot: its running owner, else the best caught-up copy.
    ClientIndex keep = kNoClient;
    if (owner != kNoClient && lags.caught_up(t, owner)) {
      keep = owner;
    } else {
      bool keep_is_standby = false;
      for (ClientIndex c : lags.caught_up_clients(t)) {
        if (c == target) continue;
        const bool is_standby = draft.role(t, c) == Role::standby;
        if (keep == kNoClient || (keep_is_standby && !is_standby) ||
            (keep_is_standby == is_standby &&
             compare_load(draft.total_count(c), draft.threads(c), draft.total_count(keep), draft.threads(keep)) < 0)) {
          keep = c;
          keep_is_standby = is_standby;
        }
      }
    }
    if (keep == kNoClient) {  // nobody is caught up: the move costs the same restore anywhere
      if (moves) {
        ++result.granted;
        ++result.granted_cold;
      }
      continue;
    }
    ++result.staged;
    if (draft.role(t, keep) == Role::standby) {
      draft.swap_roles(t, target, keep);  // the target keeps a copy: the standby it swapped for
    } else {
      draft.set_active(t, keep);
      if (draft.role(t, target) != Role::standby) staged.push_back({t, target});
    }
  }

  // Targets restoring an active (granted cold, or not caught up on what they run) fund last.
  std::vector<bool> restoring(cluster.client_count(), false);
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    const ClientIndex c = draft.active(t);
    if (c != kNoClient && cluster.tasks[t].has_logged_store && !lags.caught_up(t, c)) restoring[c] = true;
  }
  std::priority_queue<Candidate, std::vector<Candidate>, FundLater> queue;
  for (const Staged& s : staged) {
    std::uint8_t tier = has_state(cluster.clients[s.target], s.task) ? 0 : 1;
    if (restoring[s.target]) tier += 2;
    queue.push({tier, draft.total_count(s.target), draft.threads(s.target), s.task, s.target});
  }
  std::uint64_t budget = settings.max_warmup_replicas;
  while (!queue.empty() && budget > 0) {
    Candidate top = queue.top();
    queue.pop();
    const std::uint32_t now = draft.total_count(top.target);
    if (now != top.count) {  // funded warmups made the target busier since it was queued
      top.count = now;
      queue.push(top);
      continue;
    }
    draft.add_warmup(top.task, top.target);
    ++result.warmups_placed;
    --budget;
  }
  result.parked = static_cast<std::uint32_t>(queue.size());
  return result;
}

}  // namespace assignor
