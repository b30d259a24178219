// Deliberately wrong: every active on the least-loaded client, except the last task, which gets
// none (an invalid assignment: task_without_active). For the kit's reproduction test only.
#include <assignor/sdk.hpp>

namespace {

using namespace assignor;

Assignment drops_last_task(const AssignmentInput& in) {
  AssignmentDraft draft(in.cluster, 0);
  if (in.cluster.client_count() == 0) return draft.finish(false);
  std::vector<TaskIndex> tasks;
  for (TaskIndex t = 0; t + 1 < in.cluster.task_count(); ++t) tasks.push_back(t);
  fill_by_active_load(in.cluster, draft, tasks);
  return draft.finish(false);
}

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<drops_last_task>, "drops_last_task", "1.0.0",
                "Leaves the last task without an active (a test)", 0)
