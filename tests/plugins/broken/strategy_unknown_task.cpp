// A strategy that places a task index past the end of the cluster's tasks (and everything else on
// client 0): validation must report it without reading out of range.
#include "broken_plugin.hpp"

namespace {

assignor::Assignment unknown_task(const assignor::AssignmentInput& in) {
  assignor::Assignment out = assignor_test_plugins::all_on_first_client(in.cluster);
  out.actives.push_back({static_cast<assignor::TaskIndex>(in.cluster.task_count() + 5), 0});
  return out;
}

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<unknown_task>, "test_strategy_unknown_task", "1.0.0",
                "strategy placing an out-of-range task index", 0)
