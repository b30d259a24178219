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

constexpr char kDefaultVia[] = "kill";

void attempt(const std::string& via, pid_t host) {
  long r = -1;
  if (via == "kill") {
    r = ::kill(host, SIGSTOP);
  } else if (via == "group") {
    r = ::kill(-::getpgid(host), SIGSTOP);
  } else if (via == "join_group") {
    r = ::setpgid(0, ::getpgid(host));
    if (r == 0) r = ::kill(0, SIGSTOP);
  } else if (via == "tgkill") {
    r = ::syscall(SYS_tgkill, host, host, SIGSTOP);
  } else if (via == "sigqueue") {
    r = ::sigqueue(host, SIGSTOP, sigval{});
  } else if (via == "pidfd") {
    const long fd = ::syscall(SYS_pidfd_open, host, 0);
    r = fd < 0 ? -1 : ::syscall(SYS_pidfd_send_signal, static_cast<int>(fd), SIGSTOP, nullptr, 0);
  } else if (via == "ptrace") {
    r = ::ptrace(PTRACE_ATTACH, host, nullptr, nullptr);
  } else if (via == "sigio") {
    r = by_sigio(host);
  }
  assignor_test_plugins::say_attempt("stops_host", via, r);
}

using StopsHost = assignor_test_plugins::AttemptOnHost<attempt, kDefaultVia>;

}  // namespace

ASSIGNOR_PLUGIN(StopsHost, "test_strategy_stops_host", "1.0.0",
                "valid answer, after trying to stop the host with SIGSTOP (kill, its group, ptrace, SIGIO, ...)", 0)
