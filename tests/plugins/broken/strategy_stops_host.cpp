// A strategy that tries to stop the host with SIGSTOP (so that nothing enforces limits.time_ms any
// more), then answers validly (everything on the first client). `via`, each one way around a rule
// of the sandbox:
//   kill        kill(host, SIGSTOP)
//   group       kill(-<the host's process group>, SIGSTOP)
//   join_group  setpgid(0, <the host's group>), then kill(0, SIGSTOP) (its "own" group)
//   tgkill      tgkill(host, host, SIGSTOP)
//   sigqueue    sigqueue(host, SIGSTOP)
//   pidfd       pidfd_open(host) + pidfd_send_signal
//   ptrace      PTRACE_ATTACH (the tracee stops)
//   sigio       a socket pair owned by the host (F_SETOWN) that signals SIGSTOP on input (F_SETSIG)
// `target`: the host is the parent when isolated (default `parent`), this very process in process
// (`self`; use `kill` there: the others may reach the process group the host shares). What
// happened is said on standard error ("stops_host: ...").
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "broken_plugin.hpp"

namespace {

void say(const std::string& via, long result) {
  const std::string line = "stops_host: " + via + ": " +
                           (result == 0 ? std::string("REACHED the host") : "refused (" + std::string(std::strerror(errno)) + ")") +
                           "\n";
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, line.data(), line.size());
}

long by_sigio(pid_t host) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -1;
  long r = ::fcntl(pair[0], F_SETOWN, host);
  if (r == 0) r = ::fcntl(pair[0], F_SETSIG, SIGSTOP);
  if (r == 0) r = ::fcntl(pair[0], F_SETFL, ::fcntl(pair[0], F_GETFL) | O_ASYNC);
  if (r == 0 && ::write(pair[1], "x", 1) != 1) r = -1;
  const int saved = errno;
  ::close(pair[0]);
  ::close(pair[1]);
  errno = saved;
  return r;
}

class StopsHost final : public assignor::Strategy {
 public:
  explicit StopsHost(const assignor::StrategyParams& params)
      : via_(params.get_string("via", "kill")), target_(params.get_string("target", "parent")) {
    params.reject_unknown({"via", "target"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    const pid_t host = target_ == "self" ? ::getpid() : ::getppid();
    long r = -1;
    if (via_ == "kill") {
      r = ::kill(host, SIGSTOP);
    } else if (via_ == "group") {
      r = ::kill(-::getpgid(host), SIGSTOP);
    } else if (via_ == "join_group") {
      r = ::setpgid(0, ::getpgid(host));
      if (r == 0) r = ::kill(0, SIGSTOP);
    } else if (via_ == "tgkill") {
      r = ::syscall(SYS_tgkill, host, host, SIGSTOP);
    } else if (via_ == "sigqueue") {
      r = ::sigqueue(host, SIGSTOP, sigval{});
    } else if (via_ == "pidfd") {
      const long fd = ::syscall(SYS_pidfd_open, host, 0);
      r = fd < 0 ? -1 : ::syscall(SYS_pidfd_send_signal, static_cast<int>(fd), SIGSTOP, nullptr, 0);
    } else if (via_ == "ptrace") {
      r = ::ptrace(PTRACE_ATTACH, host, nullptr, nullptr);
    } else if (via_ == "sigio") {
      r = by_sigio(host);
    }
    say(via_, r);
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }

 private:
  std::string via_, target_;
};

}  // namespace

ASSIGNOR_PLUGIN(StopsHost, "test_strategy_stops_host", "1.0.0",
                "valid answer, after trying to stop the host with SIGSTOP (kill, its group, ptrace, SIGIO, ...)", 0)
