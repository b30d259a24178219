// Shared by the assignment writers (assignment_json.cpp, assignment_table.cpp): an assignment's
// task indices per client and role.
#pragma once

#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"

namespace assignor::host::detail {

// Task indices per client and role, each list sorted by task order.
struct PerClient {
  std::vector<std::vector<TaskIndex>> active, standby, warmup;
};

// Throws std::invalid_argument when a placement's task or client index is out of range.
PerClient group_by_client(const Cluster& cluster, const Assignment& assignment);

}  // namespace assignor::host::detail
