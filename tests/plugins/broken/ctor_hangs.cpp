// A complete plugin whose static initialiser never returns: opening it would hang the process.
// The registry must give up on it at the load time limit (in a probe child) and carry on.
#include <chrono>
#include <thread>

#include "broken_plugin.hpp"

namespace {

struct HangOnLoad {
  HangOnLoad() {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
};
const HangOnLoad hang_on_load;

}  // namespace

ASSIGNOR_PLUGIN(assignor_test_plugins::Unused, "test_ctor_hangs", "1.0.0", "plugin whose initialiser hangs", 0)
