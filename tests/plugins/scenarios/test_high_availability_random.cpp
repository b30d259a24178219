// high_availability and high_availability_plus on random small groups (RapidCheck, one shared
// generator: tests/support/random_group.hpp): every output is valid, places every standby it can, is
// the same when run twice and has no restoring active, with one exception for Kafka's own assignor:
// a client that reports Kafka's "unknown" offset sum (-3) for a task sorts ahead of every lag in
// Kafka's order, so Kafka leaves that task's active on it even when another client is caught up. A
// failure is shrunk to a small group and printed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "random_group.hpp"
#include "scenario_test.hpp"

namespace assignor {
namespace {

using namespace scenario_test;

// Restoring actives (on a client that is not caught up while another is), except on a client that
// reported -3 for the task.
std::vector<std::string> restoring_actives(const Cluster& c, const AssignmentSettings& s, const Assignment& a,
                                           bool except_unknown_reports) {
  const LagModel lags(c, s);
  std::vector<std::string> out;
  for (const Placement& p : a.actives) {
    if (!c.tasks[p.task].stateful || lags.caught_up(p.task, p.client) || lags.caught_up_count(p.task) == 0) continue;
    bool unknown = false;
    for (const OffsetSum& r : c.clients[p.client].offset_sums) unknown = unknown || (r.task == p.task && r.sum == -3);
    if (!(unknown && except_unknown_reports))
      out.push_back(to_string(c.tasks[p.task].id) + " on " + c.clients[p.client].id);
  }
  return out;
}

void check_high_availability(const std::string& strategy) {
  testing::GroupShape shape;
  shape.suspect_offsets = true;
  const testing::Group g = *testing::gen_group(shape);
  const auto r = builtin_plugins().run(strategy, g.cluster, g.settings);
  const Cluster& c = g.cluster;
  testing::require_valid(c, r);
  const bool kafka = strategy == "high_availability";
  const auto restoring = restoring_actives(c, g.settings, r.assignment, kafka);
  testing::require_run(restoring.empty(), c, r, restoring.empty() ? "" : "restoring active: " + restoring.front());
  if (c.client_count() > g.settings.num_standby_replicas)
    testing::require_run(r.metrics.standby_shortfall == 0u, c, r, "a standby that fits is missing");
  if (!r.assignment.warmups.empty())
    testing::require_run(r.assignment.probing_rebalance, c, r, "warmups without a probing rebalance");
  testing::require(builtin_plugins().run(strategy, c, g.settings).assignment == r.assignment, "not deterministic");
}

RC_GTEST_PROP(HighAvailabilityRandom, ValidDeterministicAndNeverRestoring, ()) {
  check_high_availability("high_availability");
}

RC_GTEST_PROP(HighAvailabilityPlusRandom, ValidDeterministicAndNeverRestoring, ()) {
  check_high_availability("high_availability_plus");
}

}  // namespace
}  // namespace assignor
