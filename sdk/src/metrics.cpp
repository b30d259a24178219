#include "assignor/metrics.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "assignor/standby_spread.hpp"
#include "assignor/tag_standbys.hpp"
#include "assignor/weighted.hpp"

namespace assignor {

namespace {

// max - min over clients of count / threads.
double spread(const std::vector<std::uint32_t>& counts, const Cluster& cluster) {
  if (counts.empty()) return 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (ClientIndex c = 0; c < counts.size(); ++c) {
    const double load = static_cast<double>(counts[c]) / cluster.clients[c].threads;
    lo = std::min(lo, load);
    hi = std::max(hi, load);
  }
  return hi - lo;
}

}  // namespace

Metrics compute_metrics(const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                        const Assignment& assignment, const ThreadDistribution* threads) {
  Metrics m;
  if (threads != nullptr) m.thread_load_spread = thread_load_spread(*threads);
  if (!settings.rack_aware.tags.empty())
    m.tag_spread_shortfall = tag_spread_shortfall(cluster, settings.rack_aware.tags, assignment);
  const std::size_t n_clients = cluster.client_count();
  std::vector<std::uint32_t> active_count(n_clients, 0);
  std::vector<std::uint32_t> total_count(n_clients, 0);
  std::vector<std::uint32_t> standbys_of_task(cluster.task_count(), 0);
  const auto previous = cluster.previous_active_owner();
  const bool racks = cluster.has_racks();
  if (racks) m.cross_rack_traffic = 0;

  // Sub-topology skew: the actives' clients bucketed by sub-topology (tasks are in (sub-topology,
  // partition) order, so a sub-topology is a run of task indices and its rank is dense): memory in
  // tasks plus clients, whatever the sub-topology numbers (a task 2147483647_0 is legal) and however
  // many sub-topologies times clients there are; linear, no sort.
  std::vector<std::uint32_t> sub_rank(cluster.task_count());
  std::uint32_t n_subs = 0;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (t > 0 && cluster.tasks[t].id.subtopology != cluster.tasks[t - 1].id.subtopology) ++n_subs;
    sub_rank[t] = n_subs;
  }
  if (cluster.task_count() > 0) ++n_subs;
  std::vector<TaskIndex> assignment_task_of_rank(n_subs);  // a task of each sub-topology, for its id
  for (std::size_t t = cluster.task_count(); t-- > 0;) assignment_task_of_rank[sub_rank[t]] = static_cast<TaskIndex>(t);
  std::vector<std::uint32_t> sub_begin(n_subs + 1, 0);

  for (const auto& p : assignment.actives) {
    const Task& task = cluster.tasks[p.task];
    ++active_count[p.client];
    ++total_count[p.client];
    ++sub_begin[sub_rank[p.task] + 1];
    if (previous[p.task] != kNoClient && previous[p.task] != p.client) ++m.active_moves;
    if (task.stateful && !lags.caught_up(p.task, p.client)) {
      ++m.cold_actives;
      if (lags.caught_up_count(p.task) > 0) ++m.restoring_actives;
      const Lag lag = lags.lag(p.task, p.client);
      if (lag.kind == LagKind::known) {
        const auto before = m.restore_offsets;
        m.restore_offsets += static_cast<std::uint64_t>(lag.offsets);
        if (m.restore_offsets < before) m.restore_offsets = std::numeric_limits<std::uint64_t>::max();
      }
    }
    if (racks) {
      const RackIndex rack = cluster.clients[p.client].rack;
      for (const auto& part : task.partitions)
        if (!part.racks.empty() && !std::binary_search(part.racks.begin(), part.racks.end(), rack))
          ++*m.cross_rack_traffic;
    }
  }
  // The state a copy starts from: its lag (known lags only; running counts as none).
  auto copy_lag = [&](const Placement& p) -> std::uint64_t {
    const Lag lag = lags.lag(p.task, p.client);
    return lag.kind == LagKind::known ? static_cast<std::uint64_t>(lag.offsets) : 0;
  };
  auto add_saturating = [](std::uint64_t& sum, std::uint64_t v) {
    sum = sum > std::numeric_limits<std::uint64_t>::max() - v ? std::numeric_limits<std::uint64_t>::max() : sum + v;
  };
  for (const auto& p : assignment.standbys) {
    ++total_count[p.client];
    ++standbys_of_task[p.task];
    if (!cluster.tasks[p.task].has_logged_store) continue;
    add_saturating(m.copy_restore_offsets, copy_lag(p));
    const Lag lag = lags.lag(p.task, p.client);
    if (lag.kind == LagKind::known && !lags.caught_up(p.task, p.client)) ++m.stale_standbys;
  }
  for (const auto& p : assignment.warmups) {
    ++total_count[p.client];
    if (cluster.tasks[p.task].has_logged_store) add_saturating(m.copy_restore_offsets, copy_lag(p));
  }

  // Actives with a logged store per thread.
  std::vector<std::uint32_t> logged_count(n_clients, 0);
  for (const auto& p : assignment.actives) {
    if (cluster.tasks[p.task].has_logged_store) ++logged_count[p.client];
  }
  m.stateful_load_spread = spread(logged_count, cluster);

  // Standbys beside their active (DESIGN 4.5): in its rack (when clients have racks), or with all
  // of its values of rack_aware.tags (when set); either counts.
  const StandbyDomains domains = StandbyDomains::of_metrics(cluster, settings);
  if (domains.dimensions() > 0) m.colocated_standbys = colocated_standbys(domains, assignment);
  m.standbys = assignment.standbys.size();
  m.warmups = assignment.warmups.size();
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (cluster.tasks[t].has_logged_store && standbys_of_task[t] < settings.num_standby_replicas)
      m.standby_shortfall += settings.num_standby_replicas - standbys_of_task[t];

  m.active_load_spread = spread(active_count, cluster);
  m.total_load_spread = spread(total_count, cluster);
  m.weighted_load_spread = weighted_load_spread(cluster, assignment);
  for (std::uint32_t r = 0; r < n_subs; ++r) sub_begin[r + 1] += sub_begin[r];
  std::vector<ClientIndex> sub_clients(assignment.actives.size());
  {
    std::vector<std::uint32_t> next(sub_begin.begin(), sub_begin.end() - 1);
    for (const auto& p : assignment.actives) sub_clients[next[sub_rank[p.task]]++] = p.client;
  }
  std::vector<std::uint32_t> per_client(n_clients, 0);  // scratch, zero between sub-topologies
  for (std::uint32_t r = 0; r < n_subs; ++r) {
    const auto first = sub_clients.begin() + sub_begin[r], last = sub_clients.begin() + sub_begin[r + 1];
    if (first == last) continue;
    std::uint64_t clients_with_actives = 0;
    for (auto it = first; it != last; ++it) clients_with_actives += per_client[*it]++ == 0 ? 1 : 0;
    std::uint64_t hi = 0, lo = std::numeric_limits<std::uint64_t>::max();
    for (auto it = first; it != last; ++it) {
      hi = std::max<std::uint64_t>(hi, per_client[*it]);
      lo = std::min<std::uint64_t>(lo, per_client[*it]);
    }
    if (clients_with_actives < n_clients) lo = 0;  // some client has none of its actives
    m.max_subtopology_skew = std::max(m.max_subtopology_skew, hi - lo);
    if (hi - lo >= 2)
      m.subtopology_skews.emplace_back(cluster.tasks[assignment_task_of_rank[r]].id.subtopology, hi - lo);
    for (auto it = first; it != last; ++it) per_client[*it] = 0;
  }
  return m;
}

}  // namespace assignor
