// The good one: every task active on client 0, no standbys, no warmups. Valid for any cluster with
// at least one client; the fallback target of the runner tests.
#include "broken_plugin.hpp"

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<assignor_test_plugins::all_on_first_client_strategy>, "test_trivial_valid",
                "1.0.0", "every task active on the first client", 0)
