// Forked children that answer their parent in frames (frames.hpp), with the same protections for
// every one of them: plugin probes and isolated strategy runs (run_in_child: one child, one answer,
// under a wall-clock limit) and the parallel workers of compare and sweep (ChildGroup: several
// children streaming frames).
//
// Every child: dies with the host (PR_SET_PDEATHSIG), leads its own process group, has a CPU-time
// rlimit a little over its wall-clock limit when it has one (a backstop its descendants inherit),
// default handlers for crash signals (a crash is reported as one, even under a sanitizer), no core
// dumps, and its standard output on stderr (nothing it prints can reach the host's output). The
// parent, while children run: is the child subreaper, so whatever a child starts (setsid and double
// forks included) is found, killed and reaped when the children are done; forwards SIGINT, SIGTERM
// and SIGHUP by killing every child's group first. The parent must be single-threaded when it forks
// (the assignor command is).
//
//   ChildOutcome out = run_in_child([&](int fd) { write_all(fd, encode_frame({"ok"}, text)); },
//                                   {.time_ms = 10000, .max_bytes = 1 << 20});
//   if (out.end == ChildEnd::answered) use(out.frame->payload);
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "assignor/host/process/frames.hpp"

namespace assignor::host::process {

struct ChildOptions {
  std::uint64_t time_ms = 60'000;      // wall-clock limit
  std::uint64_t max_bytes = 1u << 20;  // the answer's payload limit
  // The child runs code the host does not trust (a plugin): it enters the sandbox (sandbox.hpp)
  // before `body` runs, and `body` gets the result pipe as descriptor 3.
  bool sandboxed = true;
};

enum class ChildEnd : std::uint8_t {
  answered,     // a whole frame arrived (whatever the child did afterwards)
  exited,       // ended without a whole frame: status is its exit status
  signaled,     // ended by a signal without a whole frame: status is the signal
  timed_out,    // no frame within the limit: killed
  malformed,    // wrote something that is not a frame (or too large): killed
  not_started,  // pipe or fork failed, or the sandbox could not be entered: error says why
};

struct ChildOutcome {
  ChildEnd end = ChildEnd::not_started;
  int status = 0;
  std::optional<Frame> frame;  // answered
  std::string error;           // not_started, malformed: why
  double ms = 0;               // wall clock, fork to the answer (or to the end)
};

// `body` runs in the child with the write end of a pipe and should write one frame; the child ends
// with _exit(0) when body returns (body may _exit itself). The parent takes the first whole frame,
// then kills the child's group and reaps it and anything it started: the answer is complete when it
// has arrived, whatever the child or a daemon it forked still holds.
ChildOutcome run_in_child(const std::function<void(int fd)>& body, const ChildOptions& options);

// Several children at once, each with a pipe to this process. While the group lives this process
// is the child subreaper and forwards SIGINT/SIGTERM/SIGHUP to every child's process group; its
// destructor kills every child still running, reaps them, then kills and reaps whatever they left.
class ChildGroup {
 public:
  struct Child {
    pid_t pid = -1;
    int fd = -1;  // the read end of the child's pipe (the caller closes it)
  };

  ChildGroup();
  ~ChildGroup();
  ChildGroup(const ChildGroup&) = delete;
  ChildGroup& operator=(const ChildGroup&) = delete;

  // Forks a child running body(write fd) (then _exit(0)); time_ms 0: no CPU-time backstop.
  // `sandboxed`: the child enters the sandbox first (sandbox.hpp); if it cannot, it answers
  // "sandbox-failed N" + why instead of running body.
  // Throws std::runtime_error when the pipe or the fork fails.
  Child spawn(const std::function<void(int fd)>& body, std::uint64_t time_ms, bool sandboxed = false);
  // Waits for `pid` (spawned here) to end and returns its raw wait status.
  int reap(pid_t pid);

 private:
  struct State;
  State* state_;
};

// A descriptor that becomes readable when child `pid` has exited (a pidfd, Linux 5.3+), or -1 where
// the kernel has none (then poll has_exited()).
int exit_watch(pid_t pid) noexcept;
// Whether child `pid` has exited, without reaping it.
bool has_exited(pid_t pid) noexcept;

// "exit status 3", "signal SIGSEGV (Segmentation fault)": a raw wait status for people.
std::string describe_wait_status(int status);
// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int sig);
// "10 s" or "300 ms".
std::string describe_duration(std::uint64_t ms);

// Restores the default action of `sig`, past a sanitizer's own handlers (in the child).
void default_signal_handler(int sig);

}  // namespace assignor::host::process
