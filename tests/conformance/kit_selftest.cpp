// The in-process conformance kit as a third party uses it: a strategy compiled into the test, run
// through Suite(this_plugin()) with a property of its own. With --failing-property it adds a
// property that cannot hold, to show that a property failure fails the case and says which
// property and how to reproduce it (tests/conformance/CMakeLists.txt checks the output).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "assignor/conformance.hpp"
#include "assignor/sdk.hpp"

namespace {

using namespace assignor;

Assignment sticky_balanced(const AssignmentInput& in) {
  AssignmentDraft draft(in.cluster, in.settings.num_standby_replicas);
  if (in.cluster.client_count() == 0) return draft.finish(false);
  place_sticky_actives(in.cluster, draft);
  place_sticky_standbys(in.cluster, draft);
  return draft.finish(false);
}

int g_property_runs = 0;

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<sticky_balanced>, "kit_selftest", "1.0.0",
                "sticky packing, for the kit's own test", 0)

int main(int argc, char** argv) {
  std::vector<char*> args;
  bool failing = false;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--failing-property") == 0)
      failing = true;
    else
      args.push_back(argv[i]);
  }
  conformance::Suite suite(this_plugin());
  // Every client within one active task per thread of every other (the sticky quota promises it
  // when every client has as many threads, as in every generated case).
  suite.property("balanced actives", [](const conformance::Run& run) {
    ++g_property_runs;
    EXPECT_LE(run.metrics.active_load_spread, 1.0);
  });
  // Cases of the test's own: a generated one with zones, and one built in code.
  conformance::Case zones;
  zones.name = "own_scale_out_racks_and_zones";
  zones.spec.kind = ScenarioKind::scale_out;
  zones.spec.clients = 9;
  zones.spec.threads = 2;
  zones.spec.subtopologies = 3;
  zones.spec.partitions = 8;
  zones.spec.racks = 3;
  zones.spec.tags = {{"zone", 3}};
  zones.settings.num_standby_replicas = 1;
  zones.settings.rack_aware.tags = {"zone"};
  suite.add_case(zones);
  Cluster own;
  for (std::int32_t p = 0; p < 6; ++p) {
    Task t;
    t.id = TaskId{0, p};
    own.tasks.push_back(t);
  }
  for (const char* id : {"a", "b", "c"}) {
    Client client;
    client.id = id;
    own.clients.push_back(client);
  }
  own.finalize();
  suite.add_case("own_stateless_built_in_code", own, AssignmentSettings{});
  if (failing)
    suite.property("an impossible property", [](const conformance::Run& run) {
      EXPECT_EQ(run.metrics.active_moves, run.cluster.task_count() + 1) << "as intended";
    });
  const int status = suite.run(static_cast<int>(args.size()), args.data());
  // The property ran on every case that passed the built-in checks; a kit that skipped it would
  // pass here without checking anything.
  const auto cases = suite.all_cases().size();
  if (status == 0 && ::testing::GTEST_FLAG(filter) == "*" && g_property_runs != static_cast<int>(cases)) {
    std::fprintf(stderr, "the property ran %d times for %zu cases\n", g_property_runs, cases);
    return 1;
  }
  return status;
}
