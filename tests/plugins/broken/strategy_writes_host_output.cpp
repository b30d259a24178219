// A strategy that writes "FORGED-VIA-PROC" into the host's output, then answers validly (everything on
// the first client). `via`:
//   proc_fd1  opens /proc/<host>/fd/1 (the host's standard output) for writing (issue 32: the host
//             used to exit 0 with the text before its JSON);
//   every_fd  writes the text to every descriptor it holds but standard error (isolated: only the
//             result pipe is left, so its answer is malformed; in process: the host's reserved
//             standard output is one of them).
// `target`: the host is the parent when isolated (default `parent`), this very process in process
// (`self`). What happened is said on standard error ("writes_host_output: ...").
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "broken_plugin.hpp"

namespace {

constexpr char kForged[] = "FORGED-VIA-PROC\n";

constexpr char kDefaultVia[] = "proc_fd1";

void say(const std::string& text) { assignor_test_plugins::say("writes_host_output: " + text); }

void attempt(const std::string& via, pid_t host) {
  if (via == "every_fd") {
    int written = 0;
    for (int fd = 0; fd < 1024; ++fd)
      if (fd != STDERR_FILENO && ::write(fd, kForged, sizeof kForged - 1) > 0) ++written;
    say("wrote to " + std::to_string(written) + " descriptors");
  } else {
    const std::string path = "/proc/" + std::to_string(host) + "/fd/1";
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      say("open " + path + ": refused (" + std::strerror(errno) + ")");
    } else {
      const bool wrote = ::write(fd, kForged, sizeof kForged - 1) > 0;
      say((wrote ? "REACHED the host: wrote to " : "opened but could not write ") + path);
      ::close(fd);
    }
  }
}

using WritesHostOutput = assignor_test_plugins::AttemptOnHost<attempt, kDefaultVia>;

}  // namespace

ASSIGNOR_PLUGIN(WritesHostOutput, "test_strategy_writes_host_output", "1.0.0",
                "valid answer, after writing into the host's output (/proc/<host>/fd/1, or every descriptor)", 0)
