#include "assignor/metrics.hpp"

#include <algorithm>
#include <limits>

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

Metrics compute_metrics(const Cluster& cluster, const AssignmentSettings& settings,
                        const LagModel& lags, const Assignment& assignment,
                        const ThreadDistribution* threads) {
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

  // Sub-topology skew: count actives per (sub-topology, client) over a dense sub-topology index.
  std::int32_t max_sub = -1;
  for (const auto& t : cluster.tasks) max_sub = std::max(max_sub, t.id.subtopology);
  std::vector<std::int32_t> sub_index(static_cast<std::size_t>(max_sub + 1), -1);
  std::uint32_t n_subs = 0;
  for (const auto& t : cluster.tasks)
    if (sub_index[t.id.subtopology] < 0) sub_index[t.id.subtopology] = static_cast<std::int32_t>(n_subs++);
  std::vector<std::uint32_t> per_sub(std::size_t{n_subs} * n_clients, 0);

  for (const auto& p : assignment.actives) {
    const Task& task = cluster.tasks[p.task];
    ++active_count[p.client];
    ++total_count[p.client];
    ++per_sub[static_cast<std::size_t>(sub_index[task.id.subtopology]) * n_clients + p.client];
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
  for (const auto& p : assignment.standbys) {
    ++total_count[p.client];
    ++standbys_of_task[p.task];
  }
  for (const auto& p : assignment.warmups) ++total_count[p.client];
  m.standbys = assignment.standbys.size();
  m.warmups = assignment.warmups.size();
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    if (cluster.tasks[t].has_logged_store && standbys_of_task[t] < settings.num_standby_replicas)
      m.standby_shortfall += settings.num_standby_replicas - standbys_of_task[t];

  m.active_load_spread = spread(active_count, cluster);
  m.total_load_spread = spread(total_count, cluster);
  m.weighted_load_spread = weighted_load_spread(cluster, assignment);
  for (std::uint32_t s = 0; s < n_subs; ++s) {
    const auto* row = per_sub.data() + std::size_t{s} * n_clients;
    const auto [lo, hi] = std::minmax_element(row, row + n_clients);
    if (n_clients > 0) m.max_subtopology_skew = std::max<std::uint64_t>(m.max_subtopology_skew, *hi - *lo);
  }
  return m;
}

}  // namespace assignor
