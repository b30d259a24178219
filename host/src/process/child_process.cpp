#include "assignor/host/process/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "assignor/host/process/sandbox.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/standard_output.hpp"
#include "assignor/host/support/temporary_files.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASSIGNOR_CHILD_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ASSIGNOR_CHILD_ASAN 1
#endif

namespace assignor::host::process {

namespace {

using Clock = std::chrono::steady_clock;

// The answer of a child that could not enter its sandbox (it ran nothing).
constexpr std::string_view kSandboxFailed = "sandbox-failed";

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    case SIGINT: return "SIGINT";
    default: return fmt::format("signal {}", sig);
  }
}

void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);  // the child's group: the child and anything it started
  ::kill(pid, SIGKILL);   // in case it had not reached setpgid yet
}

// The children of this process, from /proc (field 4 of /proc/<pid>/stat is the parent's pid).
std::vector<pid_t> children_of_this_process() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');  // the command name may contain spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == self) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Makes this process the "child subreaper" while a child runs: every process the child starts is
// re-parented to us when its own parent ends, whatever it does (a new session with
// setsid(), a double fork), so after the run whatever is left can be found and killed. The
// children this process had before are left alone; the previous subreaper setting is restored.
class DescendantSweep {
 public:
  DescendantSweep() : before_(children_of_this_process()) {
    int was = 0;
    if (::prctl(PR_GET_CHILD_SUBREAPER, &was) == 0) was_subreaper_ = was != 0;
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  }
  ~DescendantSweep() { ::prctl(PR_SET_CHILD_SUBREAPER, was_subreaper_ ? 1 : 0); }
  DescendantSweep(const DescendantSweep&) = delete;
  DescendantSweep& operator=(const DescendantSweep&) = delete;

  // Kills and reaps every child that was not there before, until none is left (a dying process's
  // own children come to us next). Bounded: a fork bomb cannot keep it busy forever.
  void kill_what_is_left() const {
    for (int round = 0; round < 1000; ++round) {
      std::vector<pid_t> left;
      for (pid_t p : children_of_this_process())
        if (!std::binary_search(before_.begin(), before_.end(), p)) left.push_back(p);
      if (left.empty()) return;
      for (pid_t p : left) ::kill(p, SIGKILL);
      for (pid_t p : left)
        while (::waitpid(p, nullptr, 0) < 0 && errno == EINTR) {}
    }
    log().warn("processes started in an isolated child kept multiplying; some may be left running");
  }

 private:
  std::vector<pid_t> before_;
  bool was_subreaper_ = false;
};

// While children run, SIGINT, SIGTERM and SIGHUP to the host (Ctrl-C, a cancelled job) first kill
// every child's process group, then end the host as they would have. A fixed table, read by the
// signal handler: only lock-free atomics may be touched there.
constexpr std::size_t kMaxGroups = 1024;
volatile sig_atomic_t g_groups[kMaxGroups];

void register_group(pid_t pid) {
  for (auto& slot : g_groups)
    if (slot == 0) {
      slot = static_cast<sig_atomic_t>(pid);
      return;
    }
}

void unregister_group(pid_t pid) {
  for (auto& slot : g_groups)
    if (slot == static_cast<sig_atomic_t>(pid)) slot = 0;
}

extern "C" void forward_and_reraise(int sig) {
  for (const auto& slot : g_groups)
    if (slot > 0) ::kill(-static_cast<pid_t>(slot), SIGKILL);
  remove_temporary_paths_for_signal();  // a partial output, replay's scratch import: nothing left behind
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction action {};
    action.sa_handler = forward_and_reraise;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &action, &previous_[i]);
  }
  ~SignalForwarding() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> previous_{};
};

void set_up_child(pid_t parent, std::uint64_t time_ms) {
  // If the host dies (killed, Ctrl-C, a CI job cancelled), so does the child: never an orphan
  // spinning under PID 1. (The host may have died before this line: then there is no one to answer.)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  ::setpgid(0, 0);                       // its own process group: a timeout kills whatever it started too
  for (auto& slot : g_groups) slot = 0;  // the parent's children are not this child's to kill
  if (time_ms > 0) {
    const rlim_t cpu_seconds = static_cast<rlim_t>(time_ms / 1000 + 2);
    rlimit cpu{cpu_seconds, cpu_seconds + 1};
    ::setrlimit(RLIMIT_CPU, &cpu);
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE, SIGTERM, SIGINT, SIGHUP})
    default_signal_handler(sig);         // a crash is a crash: no handler of the host's (or a sanitizer's) runs
  ::dup2(STDERR_FILENO, STDOUT_FILENO);  // whatever the child prints cannot reach the host's output
  if (const int result = result_output_fd(); result >= 0) ::close(result);  // nor its reserved copy
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
}

}  // namespace

// AddressSanitizer intercepts signal() and sigaction() and keeps its own SIGSEGV handler (which
// reports and exits with status 1), so ASan builds ask the kernel directly: a crashing child then
// ends with its signal, as in a release build.
void default_signal_handler(int sig) {
#ifdef ASSIGNOR_CHILD_ASAN
  struct KernelSigaction {  // the kernel's struct sigaction (x86-64, arm64)
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    unsigned long mask;
  };
  KernelSigaction action{SIG_DFL, 0, nullptr, 0};
  ::syscall(SYS_rt_sigaction, sig, &action, nullptr, sizeof(unsigned long));
#else
  std::signal(sig, SIG_DFL);
#endif
}

std::string describe_signal(int sig) {
  const char* text = ::strsignal(sig);
  return fmt::format("{} ({})", signal_name(sig), text != nullptr ? text : "unknown signal");
}

std::string describe_duration(std::uint64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{} s", ms / 1000) : fmt::format("{} ms", ms);
}

struct ChildGroup::State {
  DescendantSweep sweep;  // from here on, whatever a child leaves behind becomes ours to kill
  SignalForwarding forwarding;
  std::vector<pid_t> running;  // spawned and not reaped yet
  std::vector<int> read_ends;  // the parent's ends of the pipes, which later children must not hold
};

ChildGroup::ChildGroup() : state_(new State) {}

ChildGroup::~ChildGroup() {
  for (pid_t pid : state_->running) {
    kill_group(pid);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
    unregister_group(pid);
  }
  state_->sweep.kill_what_is_left();  // descendants that left their group (setsid) or outlived it
  delete state_;
}

ChildGroup::Child ChildGroup::spawn(const std::function<void(int fd)>& body, std::uint64_t time_ms, bool sandboxed) {
  if (sandboxed) protect_parent();  // before the child exists: its /proc/<pid>/fd is out of reach
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  // Nothing buffered may be written twice (once by the child): flush before forking.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(error)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    for (int fd : state_->read_ends) ::close(fd);
    set_up_child(parent, time_ms);
    int fd = fds[1];
    if (sandboxed) {
      std::string why;
      if (!enter_sandbox(fd, why)) {
        (void)write_all(fd, encode_frame({kSandboxFailed}, why));
        ::_exit(1);
      }
    }
    body(fd);
    ::_exit(0);
  }
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins, both are the same
  register_group(pid);
  ::close(fds[1]);
  state_->running.push_back(pid);
  state_->read_ends.push_back(fds[0]);
  return {pid, fds[0]};
}

int ChildGroup::reap(pid_t pid) {
  // The child's group is killed before it is reaped: while it is a zombie its pid, and so its
  // process group, cannot be reused, so the kill cannot hit anyone else.
  kill_group(pid);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  unregister_group(pid);
  std::erase(state_->running, pid);
  return status;
}

int exit_watch(pid_t pid) noexcept { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

bool has_exited(pid_t pid) noexcept {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) return fmt::format("signal {}", describe_signal(WTERMSIG(status)));
  return fmt::format("exit status {}", WEXITSTATUS(status));
}

ChildOutcome run_in_child(const std::function<void(int fd)>& body, const ChildOptions& options) {
  ChildOutcome out;
  ChildGroup group;
  const auto start = Clock::now();
  ChildGroup::Child child;
  try {
    child = group.spawn(body, options.time_ms, options.sandboxed);
  } catch (const std::runtime_error& e) {
    out.error = e.what();
    return out;
  }
  const pid_t pid = child.pid;
  const int fd = child.fd;

  // The answer is complete when a whole frame has arrived. Without one, the run ends when the pipe
  // reaches its end or the child itself has exited (a daemon it started may hold the write end
  // open). The child's exit is watched through a pidfd where the kernel has them (5.3+), else by
  // polling it every few milliseconds.
  const int pidfd = exit_watch(pid);
  auto child_exited = [&] { return has_exited(pid); };
  const auto deadline = start + std::chrono::milliseconds(options.time_ms);
  FrameReader reader({options.max_bytes});
  bool timed_out = false;
  char chunk[1 << 16];
  // Reads what is there; true when the exchange is over (a frame, a malformed stream, or EOF).
  auto take = [&](bool drain) {
    for (;;) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return true;
      reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
      if (reader.malformed()) return true;
      if ((out.frame = reader.next())) return true;
      if (!drain) return false;
    }
  };
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p[2] = {{fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    const int ready =
        ::poll(p, pidfd >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left, pidfd >= 0 ? 1000 : 10)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      if (take(false)) break;
      continue;  // read on while there is more
    }
    if ((pidfd >= 0 && (p[1].revents & POLLIN) != 0) || (pidfd < 0 && child_exited())) {
      // The child has ended, so everything it wrote is in the pipe: take what is there, then stop.
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      take(true);
      break;
    }
  }
  out.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  ::close(fd);
  if (pidfd >= 0) ::close(pidfd);

  if (out.frame) {
    out.end = ChildEnd::answered;
    group.reap(pid);
    if (options.sandboxed && out.frame->kind() == kSandboxFailed) {
      out.end = ChildEnd::not_started;
      out.error = fmt::format("the child process could not be confined ({})", out.frame->payload);
      out.frame.reset();
    }
    return out;
  }
  if (reader.malformed()) {
    out.end = ChildEnd::malformed;
    out.error = reader.error();
    group.reap(pid);
    return out;
  }
  // No answer: wait for the child to end, still within the deadline, without reaping it yet.
  if (!timed_out) {
    for (;;) {
      siginfo_t info{};
      const int r = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
      if (r == 0 && info.si_pid == pid) break;
      if (r < 0 && errno != EINTR) break;
      if (Clock::now() >= deadline) {
        timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  const int status = group.reap(pid);
  out.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (timed_out) {
    out.end = ChildEnd::timed_out;
  } else if (WIFSIGNALED(status)) {
    out.end = ChildEnd::signaled;
    out.status = WTERMSIG(status);
  } else {
    out.end = ChildEnd::exited;
    out.status = WEXITSTATUS(status);
  }
  return out;
}

}  // namespace assignor::host::process
