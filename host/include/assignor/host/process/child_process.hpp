// Runs a piece of the host in a forked child that answers through a pipe, under a wall-clock
// limit, and makes sure nothing it started outlives it. Shared by strategy isolation
// (isolation.cpp) and plugin probing (plugin_registry.cpp).
//
// The child: dies with the host (PR_SET_PDEATHSIG), leads its own process group, has a CPU-time
// rlimit a little over the wall-clock limit (a backstop its descendants inherit), default handlers
// for crash signals (a crash is reported as one, even under a sanitizer), no core dumps, and its
// standard output on stderr (nothing it prints can reach the host's output). The parent: reads
// the answer until EOF, the limit, or `max_bytes`; waits for the child; kills its group; and, being
// the child subreaper meanwhile, kills and reaps whatever else the child started (setsid and
// double forks included). SIGINT, SIGTERM and SIGHUP to the host during the run kill the child's
// group first. The parent must be single-threaded when it forks (the assignor command is).
//
//   ChildOutcome out = run_in_child([&](int fd) { write(fd, ...); }, {.time_ms = 10000, .max_bytes = 1 << 20});
//   if (out.end == ChildEnd::signaled) std::cerr << describe_signal(out.status);
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace assignor::host::detail {

struct ChildOptions {
  std::uint64_t time_ms = 60'000;
  std::uint64_t max_bytes = 1u << 20;
};

enum class ChildEnd : std::uint8_t { exited, signaled, timed_out, oversized, not_started };

struct ChildOutcome {
  ChildEnd end = ChildEnd::not_started;
  int status = 0;                 // exit status (exited) or signal number (signaled)
  std::vector<char> bytes;        // what the child wrote to its fd
  double ms = 0;                  // wall clock, fork to reaped
  std::string error;              // not_started: why (pipe or fork failed)
};

// `body` runs in the child with the write end of the pipe; the child ends with _exit(0) when body
// returns (body may _exit itself).
ChildOutcome run_in_child(const std::function<void(int fd)>& body, const ChildOptions& options);

// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int sig);
// "10 s" or "300 ms".
std::string describe_duration(std::uint64_t ms);

// Restores the default action of `sig`, past a sanitizer's own handlers (in the child).
void default_signal_handler(int sig);

}  // namespace assignor::host::detail
