// A strategy that answers at once (everything on the first client), leaving behind a daemon (a
// double fork in a new session) that waits `delay_ms`, writes "WRITTEN-BY-A-DAEMON" to every
// descriptor it inherited but standard error, then holds them for `hold_s` seconds: what issue 32
// found in process (text after the JSON, a pipe kept open for 30 s). Isolated, the daemon holds
// only the result pipe and is killed when the run ends.
#include <unistd.h>

#include <chrono>
#include <thread>

#include "broken_plugin.hpp"

namespace {

constexpr char kText[] = "WRITTEN-BY-A-DAEMON\n";

class DaemonWrites final : public assignor::Strategy {
 public:
  explicit DaemonWrites(const assignor::StrategyParams& params)
      : delay_ms_(params.get_int("delay_ms", 300)), hold_s_(params.get_int("hold_s", 30)) {
    params.reject_unknown({"delay_ms", "hold_s"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    const long long delay = delay_ms_, hold = hold_s_;
    if (::fork() == 0) {
      ::setsid();
      if (::fork() == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        for (int fd = 0; fd < 1024; ++fd)
          if (fd != STDERR_FILENO) [[maybe_unused]]
            const auto n = ::write(fd, kText, sizeof kText - 1);
        std::this_thread::sleep_for(std::chrono::seconds(hold));
      }
      ::_exit(0);
    }
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }

 private:
  long long delay_ms_, hold_s_;
};

}  // namespace

ASSIGNOR_PLUGIN(DaemonWrites, "test_strategy_daemon_writes", "1.0.0",
                "valid answer at once, and a daemon that writes into every inherited descriptor later", 0)
