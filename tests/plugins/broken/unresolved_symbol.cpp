// A plugin that needs a function nobody defines: dlopen(RTLD_NOW) fails, so the host must refuse it
// with the dynamic loader's reason rather than crash on the first call.
#include "broken_plugin.hpp"

extern "C" int assignor_test_symbol_nobody_defines(int);

namespace {

assignor::Assignment unresolved(const assignor::AssignmentInput& in) {
  assignor::Assignment out = assignor_test_plugins::all_on_first_client(in.cluster);
  out.probing_rebalance = assignor_test_symbol_nobody_defines(1) != 0;
  return out;
}

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<unresolved>, "test_unresolved_symbol", "1.0.0",
                "plugin with an undefined symbol", 0)
