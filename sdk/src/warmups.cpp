#include "assignor/warmups.hpp"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace assignor {

namespace {

using Cost = std::function<std::int64_t(TaskIndex, ClientIndex)>;

// The candidate of the lowest tier (when given: 1 for a client the spread would rather avoid), then
// the lowest cost (when the strategy gave a cost), then least loaded by (active + standby + warmup)
// / threads, then lowest index; kNoClient if none satisfies `ok`.
template <class Range, class Pred, class Tier>
ClientIndex least_loaded(const AssignmentDraft& draft, const Cost& cost_of, TaskIndex t, const Range& clients,
                         Pred&& ok, Tier&& tier_of) {
  ClientIndex best = kNoClient;
  int best_tier = 0;
  std::int64_t best_cost = 0;
  for (ClientIndex c : clients) {
    if (!ok(c)) continue;
    const int tier = tier_of(c);
    const std::int64_t cost = cost_of ? cost_of(t, c) : 0;
    if (best != kNoClient) {
      if (tier != best_tier) {
        if (tier > best_tier) continue;
      } else if (cost != best_cost) {
        if (cost > best_cost) continue;
      } else {
        const int cmp =
            compare_load(draft.total_count(c), draft.threads(c), draft.total_count(best), draft.threads(best));
        if (cmp > 0 || (cmp == 0 && c > best)) continue;
      }
    }
    best = c;
    best_tier = tier;
    best_cost = cost;
  }
  return best;
}

template <class Range, class Pred>
ClientIndex least_loaded(const AssignmentDraft& draft, const Cost& cost_of, TaskIndex t, const Range& clients,
                         Pred&& ok) {
  return least_loaded(draft, cost_of, t, clients, std::forward<Pred>(ok), [](ClientIndex) { return 0; });
}

// The first client in rank order that ranks strictly ahead of `target` and satisfies `ok`.
template <class Pred>
ClientIndex most_caught_up_ahead_of(const LagModel& lags, TaskIndex t, ClientIndex target, Pred&& ok) {
  const Lag target_lag = lags.lag(t, target);
  for (ClientIndex c : lags.ranked(t)) {
    if (c == target) return kNoClient;
    if (!less_lag(lags.lag(t, c), target_lag)) return kNoClient;
    if (ok(c)) return c;
  }
  return kNoClient;
}

}  // namespace

WarmupPlan plan_warmups(const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                        AssignmentDraft& draft, const WarmupPlanOptions& options) {
  WarmupPlan plan;
  const StandbyDomains* domains = options.standby_domains;
  const Cost& standby_cost = options.standby_cost ? options.standby_cost : options.candidate_cost;
  std::uint32_t budget =
      settings.max_warmup_replicas > draft.warmup_total() ? settings.max_warmup_replicas - draft.warmup_total() : 0;
  auto take_warmup = [&](TaskIndex t, ClientIndex c) {
    if (budget == 0 || !cluster.tasks[t].has_logged_store) return;
    --budget;
    draft.add_warmup(t, c);
    ++plan.warmups_placed;
  };

  // Actives whose target is not caught up while a strictly better client exists.
  struct Movement {
    std::size_t caught_up;
    TaskIndex task;
  };
  std::vector<Movement> movements;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].stateful || lags.everyone_caught_up(t)) continue;
    const ClientIndex target = draft.active(t);
    if (target == kNoClient || lags.caught_up(t, target)) continue;
    const auto ranked = lags.ranked(t);
    if (ranked.begin() == ranked.end()) continue;
    if (!less_lag(lags.lag(t, *ranked.begin()), lags.lag(t, target))) continue;
    movements.push_back({lags.caught_up_count(t), t});
  }
  // Scarcely caught-up tasks first, then task order.
  std::sort(movements.begin(), movements.end(), [](const Movement& a, const Movement& b) {
    return a.caught_up != b.caught_up ? a.caught_up < b.caught_up : a.task < b.task;
  });

  for (const Movement& m : movements) {
    const TaskIndex t = m.task;
    const ClientIndex target = draft.active(t);
    if (options.keep_on_current_owner) {
      const ClientIndex owner = cluster.previous_active_owner()[t];
      const Role role = owner != kNoClient && owner != target ? draft.role(t, owner) : Role::active;
      if ((role == Role::none || role == Role::standby) && lags.caught_up(t, owner)) {
        if (role == Role::standby) {
          draft.swap_roles(t, owner, target);
        } else {
          draft.set_active(t, owner);
          take_warmup(t, target);
        }
        ++plan.active_movements;
        continue;
      }
    }
    const auto caught_up = lags.caught_up_clients(t);
    // a. A caught-up standby holder swaps roles with the target: no warmup spent.
    ClientIndex source = least_loaded(draft, options.candidate_cost, t, caught_up,
                                      [&](ClientIndex c) { return draft.role(t, c) == Role::standby; });
    if (source != kNoClient) {
      draft.swap_roles(t, source, target);
      ++plan.active_movements;
      continue;
    }
    // b. Any caught-up client takes the active; the target warms up if the budget allows.
    // With standby domains: a client outside the domains of the task's standbys first (the active
    // that will run, not only the target, stays apart from its copies).
    const auto beside_standbys = [&](ClientIndex c) {
      if (domains == nullptr) return 0;
      for (ClientIndex s : draft.standby_slots(t))
        if (s != kNoClient && domains->colocated(s, c)) return 1;
      return 0;
    };
    source = least_loaded(
        draft, options.candidate_cost, t, caught_up, [&](ClientIndex c) { return !draft.holds(t, c); },
        beside_standbys);
    if (source == kNoClient) {
      // A caught-up client holding a warmup (placed earlier) can take the active too.
      source = least_loaded(
          draft, options.candidate_cost, t, caught_up, [&](ClientIndex c) { return draft.role(t, c) == Role::warmup; },
          beside_standbys);
      if (source != kNoClient) draft.remove_warmup(t, source);
    }
    if (source == kNoClient) {
      // c. Nobody is caught up: the most caught-up client ahead of the target.
      source = most_caught_up_ahead_of(lags, t, target, [&](ClientIndex c) {
        const Role r = draft.role(t, c);
        return r == Role::none || r == Role::standby;
      });
      if (source == kNoClient) continue;  // nobody better that can take it
      if (draft.role(t, source) == Role::standby) {
        draft.swap_roles(t, source, target);
        ++plan.active_movements;
        continue;
      }
    }
    draft.set_active(t, source);
    take_warmup(t, target);
    ++plan.active_movements;
  }

  if (!options.move_standbys) return plan;

  // Standbys on a not-caught-up client while a more caught-up client could hold them; with standby
  // domains, outside the running active's domain (and the other standbys') first.
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (!cluster.tasks[t].has_logged_store || lags.everyone_caught_up(t)) continue;
    const auto slots = draft.standby_slots(t);
    std::vector<ClientIndex> holders(slots.begin(), slots.end());
    for (ClientIndex holder : holders) {
      if (holder == kNoClient) continue;
      const auto apart = [&](ClientIndex c) {
        if (domains == nullptr) return 0;
        const ClientIndex a = draft.active(t);
        if (a != kNoClient && domains->colocated(a, c)) return 1;
        for (ClientIndex s : draft.standby_slots(t))
          if (s != kNoClient && s != holder && domains->colocated(s, c)) return 1;
        return 0;
      };
      if (lags.caught_up(t, holder)) {
        // Caught up but beside the running active: to a caught-up client of another domain, if any.
        if (domains == nullptr || draft.active(t) == kNoClient || !domains->colocated(draft.active(t), holder))
          continue;
        const ClientIndex to = least_loaded(draft, standby_cost, t, lags.caught_up_clients(t),
                                            [&](ClientIndex c) { return !draft.holds(t, c) && apart(c) == 0; });
        if (to == kNoClient) continue;
        draft.remove_standby(t, holder);
        draft.add_standby(t, to);
        ++plan.standbys_respread;
        continue;
      }
      // With domains, never into the running active's domain: a cold standby in another zone
      // catches up where it is, a warm one beside the active would be lost with it.
      const auto allowed = [&](ClientIndex c) {
        if (draft.holds(t, c)) return false;
        return domains == nullptr || draft.active(t) == kNoClient || !domains->colocated(draft.active(t), c);
      };
      ClientIndex source = least_loaded(draft, standby_cost, t, lags.caught_up_clients(t), allowed, apart);
      if (source == kNoClient) source = most_caught_up_ahead_of(lags, t, holder, allowed);
      if (source == kNoClient && domains != nullptr && draft.active(t) != kNoClient &&
          domains->colocated(draft.active(t), holder)) {
        // Cold and beside the running active, with no warmer client elsewhere: it restores as much
        // in another domain, where it is worth something.
        const auto everyone = lags.ranked(t);
        const ClientIndex to = least_loaded(draft, standby_cost, t, everyone, allowed, apart);
        if (to != kNoClient) {
          draft.remove_standby(t, holder);
          draft.add_standby(t, to);
          ++plan.standbys_respread;
        }
        continue;
      }
      if (source == kNoClient) continue;
      draft.remove_standby(t, holder);
      draft.add_standby(t, source);
      take_warmup(t, holder);
      ++plan.standby_movements;
    }
  }
  return plan;
}

}  // namespace assignor
