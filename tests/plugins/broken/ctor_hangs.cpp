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

class Never final : public assignor::Strategy {
 public:
  explicit Never(const assignor::StrategyParams&) {}
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(Never, "test_ctor_hangs", "1.0.0", "plugin whose initialiser hangs", 0)
