// Kafka's ClientTagAwareStandbyTaskAssignor (KIP-708; rack.aware.assignment.tags), the standby step
// of HighAvailabilityTaskAssignor when tags are configured, with Kafka's answer.
//
// For every stateful task (task order), starting from its active's client: mark as used every
// client that shares a configured tag value with the last client used (a key is dropped from the
// used marks once the number of clients used so far reaches its number of distinct values: Kafka's
// "partial rack awareness"), then take the least-loaded client (tasks held per thread, then id)
// that holds no copy and is not marked; repeat until the task has its standbys or no client
// qualifies. The standbys still missing are then placed, task by task in the iteration order of
// Kafka's HashMap of tasks to remaining standbys (java_order.hpp), on the least-loaded clients
// without a copy. Clients are in Kafka's order (the caller runs in kafka_identity.hpp's order).
#pragma once

#include <assignor/assignment.hpp>
#include <assignor/model.hpp>

#include <string>
#include <vector>

namespace assignor::plugins::kafka_ha {

// Places the draft's standbys of every task with a logged store; returns the standbys that found
// no client.
std::uint64_t assign_standbys_tag_aware(const Cluster& cluster, const std::vector<std::string>& tag_keys,
                                        AssignmentDraft& draft);

// isAllowedTaskMovement: every tag of the source has the same value on the destination.
bool same_tags(const Cluster& cluster, ClientIndex source, ClientIndex destination);

}  // namespace assignor::plugins::kafka_ha
