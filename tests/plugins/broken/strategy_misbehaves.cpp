// A strategy that returns a valid answer (everything on the first client) but misbehaves around it,
// in the ways an adversarial review found the host could be fooled (issue 24), chosen by `mode`:
//   writes_input  writes through its const input (const_cast): drops every task and gives every
//                 client 2^30 threads, then answers for what it sees (no task at all);
//   keeps_printing starts a thread that goes on printing to stdout (printf, std::cout, write(1))
//                 for `lines` lines after assign() returned;
//   daemon        forks a process that leaves the session and sleeps for `sleep_s` seconds holding
//                 every descriptor it inherited (the isolated child's result pipe included), then
//                 answers at once.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <thread>

#include "broken_plugin.hpp"

namespace {

class Misbehaves final : public assignor::Strategy {
 public:
  explicit Misbehaves(const assignor::StrategyParams& params)
      : mode_(params.get_string("mode", "writes_input")),
        lines_(params.get_int("lines", 20000)),
        sleep_s_(static_cast<unsigned>(params.get_int("sleep_s", 120))) {
    params.reject_unknown({"mode", "lines", "sleep_s"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    if (mode_ == "writes_input") {
      auto& cluster = const_cast<assignor::Cluster&>(in.cluster);
      for (auto& client : cluster.clients) client.threads = 1u << 30;
      cluster.tasks.clear();
      return assignor_test_plugins::all_on_first_client(in.cluster);
    }
    if (mode_ == "keeps_printing") {
      const long long lines = lines_;
      std::thread([lines] {
        for (long long i = 0; i < lines; ++i) {
          std::printf("late chatter %lld from printf\n", i);
          std::cout << "late chatter " << i << " from std::cout\n";
          static const char raw[] = "late chatter from write(1)\n";
          [[maybe_unused]] const auto n = ::write(STDOUT_FILENO, raw, sizeof raw - 1);
        }
        std::fflush(stdout);
        std::cout.flush();
      }).detach();
      return assignor_test_plugins::all_on_first_client(in.cluster);
    }
    if (mode_ == "daemon") {
      const unsigned seconds = sleep_s_;
      if (::fork() == 0) {
        ::setsid();
        if (::fork() == 0) ::sleep(seconds);
        ::_exit(0);
      }
    }
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }

 private:
  std::string mode_;
  long long lines_;
  unsigned sleep_s_;
};

}  // namespace

ASSIGNOR_PLUGIN(Misbehaves, "test_strategy_misbehaves", "1.0.0",
                "valid answer, misbehaving around it (writes its input, prints late, leaves a daemon)", 0)
