// Tag-aware standby placement (KIP-708): spread each task's copies over the values of client tags
// (zone, cluster, ...) so that losing every client with one tag value never loses a task's state.
//
// place_standbys_tag_aware() places num_standby_replicas standbys of every task with a logged store,
// in task order. Each copy goes to a client whose tag values differ from those of the clients already
// holding the task (active and standbys placed so far) on as many of the keys as possible: the score
// of a client is the number of keys on which its value is new for the task, and the highest score
// wins; a key whose values are all used already scores 0 everywhere, so it stops counting, which is
// Kafka's "partial rack awareness" (3 zones x 2 clusters with 2 standbys: zones still spread).
// Among equal scores, the least-loaded client (all tasks held per thread, ties by client index) that
// does not hold the task; with `prefer_previous_holders`, a previous holder of the task (standby, or
// active) of the best score first. When every score is 0 this is plain least-loaded placement.
// Kafka's ClientTagAwareStandbyTaskAssignor marks whole tag groups as used one client at a time; the
// score gives the same spread on full grids and degrades more gently when the grid has holes.
//
// balance_standbys_within_tags() then evens out the load the way balance_standbys() does, moving a
// standby only between clients with equal values of every key, which leaves each task's tag
// diversity exactly as it was (Kafka's isAllowedTaskMovement for the tag-aware assignor).
//
// A client without a key counts as having the empty value for it.
//
//   AssignmentDraft draft(cluster, settings.num_standby_replicas);
//   ... place actives ...
//   const auto& tags = settings.rack_aware.tags;
//   std::uint64_t missing = place_standbys_tag_aware(cluster, tags, draft);
//   balance_standbys_within_tags(cluster, tags, draft);
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"

namespace assignor {

struct TagAwareStandbyOptions {
  bool prefer_previous_holders = false;  // sticky strategies: a previous holder among the best-spread
};

// Places the draft's missing standbys (keeping those already placed). Returns the number of standbys
// that could not be placed (too few clients), like place_standbys_least_loaded().
std::uint64_t place_standbys_tag_aware(const Cluster& cluster, std::span<const std::string> tag_keys,
                                       AssignmentDraft& draft, const TagAwareStandbyOptions& options = {});

// Moves standbys from more to less loaded clients with the same tag values while that lowers the
// larger load. Returns the number of standbys moved.
std::uint64_t balance_standbys_within_tags(const Cluster& cluster, std::span<const std::string> tag_keys,
                                           AssignmentDraft& draft);

// The metric tag_spread_shortfall: over every task with a logged store and every key, how many more
// distinct values its copies (active + standbys) could have had: min(copies, distinct values of the
// key over all clients) minus the distinct values they have. 0 when every task is spread as far as
// the tags allow key by key.
std::uint64_t tag_spread_shortfall(const Cluster& cluster, std::span<const std::string> tag_keys,
                                   const Assignment& assignment);

}  // namespace assignor
