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

void say(const std::string& via, long result) {
  const std::string line = "reaches_host_memory: " + via + ": " +
                           (result == 0 ? std::string("REACHED the host")
                                        : "refused (" + std::string(std::strerror(errno)) + ")") +
                           "\n";
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, line.data(), line.size());
}

class ReachesHostMemory final : public assignor::Strategy {
 public:
  explicit ReachesHostMemory(const assignor::StrategyParams& params)
      : via_(params.get_string("via", "proc_mem")), target_(params.get_string("target", "parent")) {
    params.reject_unknown({"via", "target"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    const pid_t host = target_ == "self" ? ::getpid() : ::getppid();
    // Mapped before the fork, so at the same address with the same value in the host (this library
    // may never have been opened there).
    unsigned char byte = 0;
    std::memcpy(&byte, static_cast<const void*>(&environ), 1);
    const auto address = reinterpret_cast<std::uintptr_t>(&environ);
    long r = -1;
    if (via_ == "proc_mem") {
      const std::string path = "/proc/" + std::to_string(host) + "/mem";
      const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
      if (fd >= 0) {
        r = ::pwrite(fd, &byte, 1, static_cast<off_t>(address)) == 1 ? 0 : -1;
        ::close(fd);
      }
    } else if (via_ == "vm_write") {
      iovec local{&byte, 1};
      iovec remote{reinterpret_cast<void*>(address), 1};
      r = ::process_vm_writev(host, &local, 1, &remote, 1, 0) == 1 ? 0 : -1;
    } else if (via_ == "ptrace") {
      r = ::ptrace(PTRACE_SEIZE, host, nullptr, nullptr);
      if (r == 0) ::ptrace(PTRACE_DETACH, host, nullptr, nullptr);
    } else if (via_ == "pidfd_getfd") {
      const long pidfd = ::syscall(SYS_pidfd_open, host, 0);
      const long fd = pidfd < 0 ? -1 : ::syscall(SYS_pidfd_getfd, static_cast<int>(pidfd), 1, 0);
      r = fd < 0 ? -1 : 0;
      if (fd >= 0) ::close(static_cast<int>(fd));
    }
    say(via_, r);
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }

 private:
  std::string via_, target_;
};

}  // namespace

ASSIGNOR_PLUGIN(ReachesHostMemory, "test_strategy_reaches_host_memory", "1.0.0",
                "valid answer, after trying to reach the host's memory (/proc/<pid>/mem, process_vm_writev, ptrace)", 0)
