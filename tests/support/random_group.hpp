// One generator of random consumer groups for every property test (RapidCheck): a cluster with its
// history and the assignment settings. A failing property is shrunk to a small group (fewer
// sub-topologies, partitions, clients, threads, less history) and printed in full.
//
//   RC_GTEST_PROP(Sticky, AlwaysValid, ()) {
//     testing::GroupShape shape;
//     shape.skewed_history = true;
//     const auto g = *testing::gen_group(shape);
//     RC_ASSERT(builtin_plugins().run("sticky", g.cluster, g.settings).errors.empty());
//   }
//
// ctest runs every property with a fixed seed (RC_PARAMS in tests/CMakeLists.txt), so a run is
// repeatable; running a test binary by hand without RC_PARAMS explores other groups, and a failure
// prints the RC_PARAMS="reproduce=..." that replays it.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>

#include <rapidcheck.h>

#include "assignor/model.hpp"
#include "assignor/settings.hpp"

namespace assignor::testing {

// What a group may contain. The defaults give what most strategies must handle: stateless, logged,
// non-logged and mixed sub-topologies, running owners reporting -2, previous standbys and other
// copies at any lag, orphaned tasks, uneven threads.
struct GroupShape {
  std::uint32_t max_subtopologies = 4;
  std::uint32_t max_partitions = 10;  // per sub-topology
  std::uint32_t min_clients = 1;
  std::uint32_t max_clients = 8;
  std::uint32_t max_threads = 4;         // per client
  std::int64_t max_end_offset = 200000;  // a logged store's changelog end (0: every copy caught up)
  bool nonlogged_stores = true;          // sub-topologies with a non-logged store (alone or with a logged one)
  bool previous_standbys = true;         // previous standby copies of logged tasks (near the end)
  bool other_copies = true;              // offset sums of clients that neither ran nor stood by the task
  bool suspect_offsets = false;          // offset sums above the end, or negative other than -2
  bool skewed_history = false;           // half the previous actives on one client, so that quotas bite
  bool weights = false;                  // task weights: unit, uniform, Zipf by partition, or one hot task
  bool racks = false;                    // 1-3 racks on clients and partition replicas, tags, rack-aware settings
  std::uint32_t max_standbys = 2;        // num_standby_replicas in [0, this]
  std::uint32_t max_warmups = 3;         // max_warmup_replicas in [1, this]
};

struct Group {
  Cluster cluster;  // finalized
  AssignmentSettings settings;
};

rc::Gen<Group> gen_group(GroupShape shape = {});

// How RapidCheck prints a group (a failing case): every task, client and setting.
void showValue(const Group& group, std::ostream& os);

// In a property: fails the case (RapidCheck then shrinks the group) unless `ok`, with `message`: a
// string, or a function that makes it (called only on failure: descriptions of assignments are long).
template <class Message>
void require(bool ok, Message&& message) {
  if (ok) return;
  if constexpr (std::is_invocable_v<Message>)
    RC_FAIL(std::string(message()));
  else
    RC_FAIL(std::string(message));
}

}  // namespace assignor::testing
