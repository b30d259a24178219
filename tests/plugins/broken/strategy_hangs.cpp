// A strategy whose assign() never returns: it spins on the CPU (default) or sleeps (`hang: sleep`).
// Only ever run with `isolation: process` and a small limits.time_ms.
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "broken_plugin.hpp"

namespace {

class Hangs final : public assignor::Strategy {
 public:
  explicit Hangs(const assignor::StrategyParams& params) : kind_(params.get_string("hang", "spin")) {
    params.reject_unknown({"hang"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput&) override {
    volatile std::uint64_t spins = 0;
    for (;;) {
      if (kind_ == "sleep") std::this_thread::sleep_for(std::chrono::milliseconds(100));
      else spins = spins + 1;
    }
  }

 private:
  std::string kind_;
};

}  // namespace

ASSIGNOR_PLUGIN(Hangs, "test_strategy_hangs", "1.0.0", "strategy whose assign never returns", 0)
