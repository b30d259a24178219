// Quality figures of an assignment (DESIGN section 4.5), computed the same way for every strategy.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"
#include "assignor/threads.hpp"

namespace assignor {

struct Metrics {
  std::uint64_t active_moves = 0;       // tasks whose active differs from the previous active client
  std::uint64_t restoring_actives = 0;  // stateful actives not caught up while a caught-up client exists
  std::uint64_t cold_actives = 0;       // stateful actives on a client that is not caught up
  std::uint64_t warmups = 0;
  std::uint64_t standbys = 0;
  std::uint64_t standby_shortfall = 0;     // standbys wanted (num_standby_replicas per logged task) but absent
  double active_load_spread = 0;           // max - min of active tasks per thread
  double total_load_spread = 0;            // same for active + standby + warmup
  double weighted_load_spread = 0;         // max - min of the weight of active tasks per thread (weighted.hpp)
  std::uint64_t max_subtopology_skew = 0;  // max over sub-topologies of (max - min actives on a client)
  // Which sub-topologies are skewed: (sub-topology id, its max - min) for each whose skew is 2 or
  // more (the ones not spread within one task), by id.
  std::vector<std::pair<std::int32_t, std::uint64_t>> subtopology_skews;
  std::optional<std::uint64_t> cross_rack_traffic;  // only when racks are given
  std::uint64_t restore_offsets = 0;                // offsets to restore before the cold actives can process
  std::optional<std::uint64_t> thread_load_spread;  // max over clients of (max - min tasks per thread)
  // Only when rack_aware.tags is set: distinct tag values that tasks' copies (active + standbys)
  // lack, summed over tasks and keys (tag_standbys.hpp, tag_spread_shortfall); 0 = spread as far as
  // the tags allow.
  std::optional<std::uint64_t> tag_spread_shortfall;
  // State-aware figures (DESIGN 4.5): what balance and redundancy cost in restores.
  // max - min over clients of actives with a logged store per thread: the tasks that restore, the
  // expensive work (a strategy that balances by parking stateless tasks on newcomers is not
  // balanced here).
  double stateful_load_spread = 0;
  // Standby copies (not warmups) on a client whose lag for the task is above
  // acceptable_recovery_lag: redundancy that exists on paper only.
  std::uint64_t stale_standbys = 0;
  // The sum of the lags of every standby and warmup copy: the restore traffic the assignment starts.
  std::uint64_t copy_restore_offsets = 0;
  // Standby copies whose client has the active's rack (when clients have racks) or all of the
  // active's values for the rack_aware.tags keys (when set): either counts. Unset with neither
  // (StandbyDomains::of_metrics, standby_spread.hpp).
  std::optional<std::uint64_t> colocated_standbys;
};

// `assignment` must be valid (see validate()). thread_load_spread is filled when `threads` (the
// SDK's distribute_over_threads() of this assignment) is given.
Metrics compute_metrics(const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                        const Assignment& assignment, const ThreadDistribution* threads = nullptr);

}  // namespace assignor
