#include "assignor/validation.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "assignor/lags.hpp"

namespace assignor {

std::string_view to_string(ValidationErrorKind kind) noexcept {
  switch (kind) {
    case ValidationErrorKind::unknown_task: return "unknown_task";
    case ValidationErrorKind::unknown_client: return "unknown_client";
    case ValidationErrorKind::missing_client: return "missing_client";
    case ValidationErrorKind::active_assigned_multiple_times: return "active_assigned_multiple_times";
    case ValidationErrorKind::invalid_standby: return "invalid_standby";
    case ValidationErrorKind::task_without_active: return "task_without_active";
    case ValidationErrorKind::two_roles_on_one_client: return "two_roles_on_one_client";
    case ValidationErrorKind::duplicate_standby: return "duplicate_standby";
    case ValidationErrorKind::standby_budget_exceeded: return "standby_budget_exceeded";
    case ValidationErrorKind::warmup_budget_exceeded: return "warmup_budget_exceeded";
    case ValidationErrorKind::thread_assignment: return "thread_assignment";
    case ValidationErrorKind::restoring_active: return "restoring_active";
    case ValidationErrorKind::warmup_without_probing: return "warmup_without_probing";
  }
  return "unknown";
}

namespace {

const char* role_name(Role r) {
  switch (r) {
    case Role::active: return "active";
    case Role::standby: return "standby";
    case Role::warmup: return "warmup";
    case Role::none: break;
  }
  return "none";
}

}  // namespace

std::vector<ValidationError> validate(const Cluster& cluster, const AssignmentSettings& settings,
                                      const Assignment& assignment) {
  std::vector<ValidationError> errors;
  const std::size_t n_tasks = cluster.task_count();
  const std::size_t n_clients = cluster.client_count();
  auto task_name = [&](TaskIndex t) { return to_string(cluster.tasks[t].id); };
  auto client_name = [&](ClientIndex c) { return "'" + cluster.clients[c].id + "'"; };

  // Every (task, client, role) that resolves; the rest are unknown_* errors.
  struct Held {
    TaskIndex task;
    ClientIndex client;
    Role role;
  };
  std::vector<Held> unsorted;
  unsorted.reserve(assignment.actives.size() + assignment.standbys.size() + assignment.warmups.size());
  auto collect = [&](const std::vector<Placement>& list, Role role) {
    for (const auto& p : list) {
      if (p.task >= n_tasks) {
        errors.push_back({ValidationErrorKind::unknown_task, p.task, p.client,
                          fmt::format("{} placement of unknown task index {}", role_name(role), p.task)});
        continue;
      }
      if (p.client >= n_clients) {
        errors.push_back(
            {ValidationErrorKind::unknown_client, p.task, p.client,
             fmt::format("task {}: {} on unknown client index {}", task_name(p.task), role_name(role), p.client)});
        continue;
      }
      unsorted.push_back({p.task, p.client, role});
    }
  };
  collect(assignment.actives, Role::active);
  collect(assignment.standbys, Role::standby);
  collect(assignment.warmups, Role::warmup);

  // Placement::thread: every placement names one of its client's threads, or none does.
  std::size_t named = 0, placements = 0;
  for (const auto* list : {&assignment.actives, &assignment.standbys, &assignment.warmups}) {
    for (const auto& p : *list) {
      ++placements;
      if (p.thread == kAnyThread) continue;
      ++named;
      if (p.client < n_clients && p.task < n_tasks && p.thread >= cluster.clients[p.client].threads)
        errors.push_back(
            {ValidationErrorKind::thread_assignment, p.task, p.client,
             fmt::format("task {} is placed on thread {} of client {}, which has {} thread{}", task_name(p.task),
                         p.thread, client_name(p.client), cluster.clients[p.client].threads,
                         cluster.clients[p.client].threads == 1 ? "" : "s")});
    }
  }
  if (named != 0 && named != placements)
    errors.push_back({ValidationErrorKind::thread_assignment, static_cast<TaskIndex>(-1), kNoClient,
                      fmt::format("{} of {} placements name a thread: a strategy names the thread of every "
                                  "placement or of none",
                                  named, placements)});

  // Sorted by task (a counting sort: linear), then each task's few entries by client and role.
  std::vector<std::size_t> start(n_tasks + 1, 0);
  for (const Held& h : unsorted) ++start[h.task + 1];
  for (std::size_t t = 0; t < n_tasks; ++t) start[t + 1] += start[t];
  std::vector<Held> held(unsorted.size());
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (const Held& h : unsorted) held[next[h.task]++] = h;
  }
  for (std::size_t t = 0; t < n_tasks; ++t)
    std::sort(
        held.begin() + static_cast<std::ptrdiff_t>(start[t]), held.begin() + static_cast<std::ptrdiff_t>(start[t + 1]),
        [](const Held& a, const Held& b) { return a.client != b.client ? a.client < b.client : a.role < b.role; });

  std::size_t i = 0;
  std::vector<ClientIndex> active_clients;
  for (TaskIndex t = 0; t < n_tasks; ++t) {
    const Task& task = cluster.tasks[t];
    std::size_t actives = 0;
    std::size_t standbys = 0;
    active_clients.clear();
    const std::size_t first = i;
    for (; i < held.size() && held[i].task == t; ++i) {
      const Held& h = held[i];
      if (h.role == Role::active) {
        ++actives;
        active_clients.push_back(h.client);
      } else {
        if (h.role == Role::standby) ++standbys;
        if (!task.has_logged_store) {
          errors.push_back({ValidationErrorKind::invalid_standby, t, h.client,
                            fmt::format("task {} has no logged store but has a {} on client {}", task_name(t),
                                        role_name(h.role), client_name(h.client))});
        }
      }
      // Same client as the previous entry of this task: a duplicate or a second role.
      if (i > first && held[i - 1].client == h.client) {
        if (held[i - 1].role == h.role && h.role != Role::active) {
          errors.push_back({ValidationErrorKind::duplicate_standby, t, h.client,
                            fmt::format("task {}: {} listed twice on client {}", task_name(t), role_name(h.role),
                                        client_name(h.client))});
        } else if (held[i - 1].role != h.role) {
          errors.push_back({ValidationErrorKind::two_roles_on_one_client, t, h.client,
                            fmt::format("task {}: client {} holds it as {} and as {}", task_name(t),
                                        client_name(h.client), role_name(held[i - 1].role), role_name(h.role))});
        }
      }
    }
    if (actives == 0) {
      errors.push_back({ValidationErrorKind::task_without_active, t, kNoClient,
                        fmt::format("task {} has no active client", task_name(t))});
    } else if (actives > 1) {
      std::string names;
      for (ClientIndex c : active_clients) names += (names.empty() ? "" : ", ") + client_name(c);
      errors.push_back({ValidationErrorKind::active_assigned_multiple_times, t, active_clients[1],
                        fmt::format("task {} is active {} times (clients {})", task_name(t), actives, names)});
    }
    if (task.has_logged_store && standbys > settings.num_standby_replicas) {
      errors.push_back({ValidationErrorKind::standby_budget_exceeded, t, kNoClient,
                        fmt::format("task {} has {} standbys, num_standby_replicas is {}", task_name(t), standbys,
                                    settings.num_standby_replicas)});
    }
  }

  std::size_t warmups = 0;
  for (const auto& h : held) warmups += h.role == Role::warmup ? 1 : 0;
  if (warmups > settings.max_warmup_replicas) {
    errors.push_back(
        {ValidationErrorKind::warmup_budget_exceeded, static_cast<TaskIndex>(-1), kNoClient,
         fmt::format("{} warmups placed, max_warmup_replicas is {}", warmups, settings.max_warmup_replicas)});
  }
  // A warmup is a move in progress: only a probing rebalance lets it take the active over.
  if (warmups > 0 && !assignment.probing_rebalance) {
    errors.push_back({ValidationErrorKind::warmup_without_probing, static_cast<TaskIndex>(-1), kNoClient,
                      fmt::format("{} warmup{} placed but no probing rebalance asked for: the moves they prepare "
                                  "would never complete",
                                  warmups, warmups == 1 ? "" : "s")});
  }
  return errors;
}

std::vector<ValidationError> check_high_availability(const Cluster& cluster, const LagModel& lags,
                                                     const Assignment& assignment) {
  std::vector<ValidationError> errors;
  std::vector<std::uint8_t> suspect(cluster.task_count(), 0);
  for (const LagWarning& w : lags.warnings())
    if (w.task < suspect.size()) suspect[w.task] = 1;
  for (const Placement& p : assignment.actives) {
    if (p.task >= cluster.task_count() || p.client >= cluster.client_count()) continue;  // validate()'s
    if (!cluster.tasks[p.task].stateful || suspect[p.task] || lags.caught_up(p.task, p.client) ||
        lags.caught_up_count(p.task) == 0)
      continue;
    const ClientIndex caught_up = *lags.caught_up_clients(p.task).begin();
    const Lag lag = lags.lag(p.task, p.client);
    errors.push_back({ValidationErrorKind::restoring_active, p.task, p.client,
                      fmt::format("task {} is active on client '{}', which must restore {} while client '{}' is "
                                  "caught up (the strategy declares high availability)",
                                  to_string(cluster.tasks[p.task].id), cluster.clients[p.client].id,
                                  lag.kind == LagKind::known ? fmt::format("{} offsets", lag.offsets)
                                                             : std::string("an unknown amount"),
                                  cluster.clients[caught_up].id)});
  }
  return errors;
}

}  // namespace assignor
