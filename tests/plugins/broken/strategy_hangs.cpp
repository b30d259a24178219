// A strategy whose assign() never returns: it spins on the CPU (default) or sleeps (`hang: sleep`).
// With `spawn: detached` it first starts a process of its own that leaves the process group and
// the session (setsid) and spins forever: what isolation must still clean up. With `say_pids: true`
// it writes "test_strategy_hangs pids: <its pid> <the spawned pid or 0>" on one line to standard
// error before hanging, for the tests to watch (an isolated strategy can write no file).
// Only ever run with `isolation: process`.
#include <unistd.h>

#include <chrono>
#include <cstdint>
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
        say_pids_(params.get_bool("say_pids", false)) {
    params.reject_unknown({"hang", "spawn", "say_pids"});
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
    if (say_pids_) {
      const std::string line =
          "test_strategy_hangs pids: " + std::to_string(::getpid()) + " " + std::to_string(spawned) + "\n";
      [[maybe_unused]] const auto n = ::write(STDERR_FILENO, line.data(), line.size());  // one write: one line
    }
    if (kind_ != "sleep") spin();
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

 private:
  std::string kind_, spawn_;
  bool say_pids_;
};

}  // namespace

ASSIGNOR_PLUGIN(Hangs, "test_strategy_hangs", "1.0.0", "strategy whose assign never returns", 0)
