// A strategy whose assign() crashes the process: SIGSEGV by default, SIGABRT with `crash: abort`,
// exit(status) with `crash: exit` (`status`, default 3). Run with `isolation: process`, or in a
// death test: it would take a test process down with it otherwise.
#include <csignal>
#include <cstdlib>
#include <string>

#include "broken_plugin.hpp"

namespace {

class Crashes final : public assignor::Strategy {
 public:
  explicit Crashes(const assignor::StrategyParams& params)
      : kind_(params.get_string("crash", "segv")), status_(static_cast<int>(params.get_int("status", 3))) {
    params.reject_unknown({"crash", "status"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    if (kind_ == "abort") std::abort();
    if (kind_ == "exit") std::exit(status_);
    std::raise(SIGSEGV);  // what a stray pointer does, without undefined behaviour in the test itself
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }

 private:
  std::string kind_;
  int status_;
};

}  // namespace

ASSIGNOR_PLUGIN(Crashes, "test_strategy_crashes", "1.0.0", "strategy whose assign crashes the process", 0)
