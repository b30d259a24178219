// A strategy that tries to reach into the host's memory or descriptors, then answers validly
// (everything on the first client). `via`:
//   proc_mem   opens /proc/<host>/mem for writing and writes one byte back as it is
//   vm_write   process_vm_writev of one byte, as it is (the child is a fork of the host: the byte of
//              libc's `environ` is at the same address, with the same value, in both)
//   ptrace     PTRACE_SEIZE (no stop), then detaches
//   pidfd_getfd  takes a copy of the host's standard output through pidfd_getfd
// Every attempt writes back what is there: if the boundary failed, the host would run on unharmed,
// and the strategy says "REACHED the host" on standard error ("reaches_host_memory: ..."), which is
// what the tests look for. `target`: `parent` (default; the host when isolated) or `self`.
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "broken_plugin.hpp"

namespace {

constexpr char kDefaultVia[] = "proc_mem";

void attempt(const std::string& via, pid_t host) {
  // Mapped before the fork, so at the same address with the same value in the host (this library
  // may never have been opened there).
  unsigned char byte = 0;
  std::memcpy(&byte, static_cast<const void*>(&environ), 1);
  const auto address = reinterpret_cast<std::uintptr_t>(&environ);
  long r = -1;
  if (via == "proc_mem") {
    const std::string path = "/proc/" + std::to_string(host) + "/mem";
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
      r = ::pwrite(fd, &byte, 1, static_cast<off_t>(address)) == 1 ? 0 : -1;
      ::close(fd);
    }
  } else if (via == "vm_write") {
    iovec local{&byte, 1};
    iovec remote{reinterpret_cast<void*>(address), 1};
    r = ::process_vm_writev(host, &local, 1, &remote, 1, 0) == 1 ? 0 : -1;
  } else if (via == "ptrace") {
    r = ::ptrace(PTRACE_SEIZE, host, nullptr, nullptr);
    if (r == 0) ::ptrace(PTRACE_DETACH, host, nullptr, nullptr);
  } else if (via == "pidfd_getfd") {
    const long pidfd = ::syscall(SYS_pidfd_open, host, 0);
    const long fd = pidfd < 0 ? -1 : ::syscall(SYS_pidfd_getfd, static_cast<int>(pidfd), 1, 0);
    r = fd < 0 ? -1 : 0;
    if (fd >= 0) ::close(static_cast<int>(fd));
  }
  assignor_test_plugins::say_attempt("reaches_host_memory", via, r);
}

using ReachesHostMemory = assignor_test_plugins::AttemptOnHost<attempt, kDefaultVia>;

}  // namespace

ASSIGNOR_PLUGIN(ReachesHostMemory, "test_strategy_reaches_host_memory", "1.0.0",
                "valid answer, after trying to reach the host's memory (/proc/<pid>/mem, process_vm_writev, ptrace)", 0)
