// Validation of any assignment against its cluster and settings, with typed errors.
//
// Kafka's KIP-924 checks (unknown task, active assigned more than once, standby of a stateless task,
// missing client, unknown client) plus ours: a task without an active, two roles of one task on one
// client, a standby twice on one client, more standbys than num_standby_replicas, more warmups than
// max_warmup_replicas. Every error is reported, not only the first.
//
//   auto errors = assignor::validate(cluster, settings, assignment);
//   for (const auto& e : errors) std::cerr << e.message << '\n';
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"

namespace assignor {

class LagModel;

enum class ValidationErrorKind : std::uint8_t {
  unknown_task,                    // a placement names a task the cluster does not have
  unknown_client,                  // a placement names a client the cluster does not have
  missing_client,                  // the output omits a client of the cluster (JSON level)
  active_assigned_multiple_times,  // one task active on two clients (or twice on one)
  invalid_standby,                 // a standby or warmup of a task with no logged store
  task_without_active,             // a task nobody runs
  two_roles_on_one_client,         // e.g. active and standby of one task on one client
  duplicate_standby,               // the same standby (or warmup) listed twice for one client
  standby_budget_exceeded,         // more than num_standby_replicas standbys for one task
  warmup_budget_exceeded,          // more than max_warmup_replicas warmups in all
  thread_assignment,               // a per-thread split (a file's, or Placement::thread) that does not fit the client
  restoring_active,                // a strategy declaring high availability runs a task that must restore
  warmup_without_probing,          // warmups placed, but no probing rebalance asked for to complete the moves
};

std::string_view to_string(ValidationErrorKind kind) noexcept;

struct ValidationError {
  ValidationErrorKind kind;
  TaskIndex task = static_cast<TaskIndex>(-1);  // when the error is about one task
  ClientIndex client = kNoClient;               // when the error is about one client
  std::string message;                          // names task and client ids
};

std::vector<ValidationError> validate(const Cluster& cluster, const AssignmentSettings& settings,
                                      const Assignment& assignment);

// What kCapabilityHighAvailability promises (the host holds a strategy that declares it to this):
// no stateful active on a client that is not caught up while another client is. Tasks for which
// some client reported suspect state (LagModel::warnings: a negative sum, or one above the end)
// are not held to it: there strategies may rank that client differently (Kafka, for one, reads its
// "unknown" sum -3 as the most caught up). One restoring_active error per such active.
std::vector<ValidationError> check_high_availability(const Cluster& cluster, const LagModel& lags,
                                                     const Assignment& assignment);

}  // namespace assignor
