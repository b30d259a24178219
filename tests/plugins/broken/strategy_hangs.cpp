// A strategy whose assign() never returns: it spins on the CPU (default) or sleeps (`hang: sleep`).
// With `spawn: detached` it first starts a process of its own that leaves the process group and
// the session (setsid) and spins forever: what isolation must still clean up. With `pid_file:
// PATH` it writes "<its pid> <the spawned pid or 0>" there before hanging, for the tests to watch.
// Only ever run with `isolation: process`.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>

#include "broken_plugin.hpp"

namespace {

[[noreturn]] void spin() {
  volatile std::uint64_t spins = 0;
  for (;;) spins = spins + 1;
}

class Hangs final : public assignor::Strategy {
 public:
  explicit Hangs(const assignor::StrategyParams& params)
      : kind_(params.get_string("hang", "spin")),
        spawn_(params.get_string("spawn", "none")),
        pid_file_(params.get_string("pid_file", "")) {
    params.reject_unknown({"hang", "spawn", "pid_file"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput&) override {
    pid_t spawned = 0;
    if (spawn_ == "detached") {
      spawned = ::fork();
      if (spawned == 0) {
        ::setsid();
        spin();
      }
    }
    if (!pid_file_.empty()) {
      const std::string tmp = pid_file_ + ".tmp";
      std::ofstream(tmp) << ::getpid() << ' ' << spawned << '\n';
      std::rename(tmp.c_str(), pid_file_.c_str());  // the file appears whole
    }
    if (kind_ != "sleep") spin();
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

 private:
  std::string kind_, spawn_, pid_file_;
};

}  // namespace

ASSIGNOR_PLUGIN(Hangs, "test_strategy_hangs", "1.0.0", "strategy whose assign never returns", 0)
