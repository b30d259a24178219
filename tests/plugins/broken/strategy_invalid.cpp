// A strategy that returns a structurally invalid assignment: task 0 active on two clients (or
// twice on the only one), task 1 with no active; every other task on client 0.
#include "broken_plugin.hpp"

namespace {

assignor::Assignment invalid(const assignor::AssignmentInput& in) {
  assignor::Assignment out;
  const auto& cluster = in.cluster;
  if (cluster.client_count() == 0) return out;
  const assignor::ClientIndex second = cluster.client_count() > 1 ? 1 : 0;
  for (assignor::TaskIndex t = 0; t < cluster.task_count(); ++t) {
    if (t == 1) continue;  // nobody runs task 1
    out.actives.push_back({t, 0});
    if (t == 0) out.actives.push_back({t, second});  // task 0 twice
  }
  return out;
}

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<invalid>, "test_strategy_invalid", "1.0.0",
                "strategy returning an invalid assignment", 0)
