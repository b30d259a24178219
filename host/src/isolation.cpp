#include "assignor/host/isolation.hpp"
#include "assignor/host/printable.hpp"

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
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <thread>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/log.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASSIGNOR_ISOLATION_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ASSIGNOR_ISOLATION_ASAN 1
#endif

namespace assignor::host {

namespace {

using Clock = std::chrono::steady_clock;

// Wire format, child to parent (native byte order: both ends are this executable):
//   u32 magic, u8 kind,
//   kind ok:     f64 ms, u8 probing, u64 actives, u64 standbys, u64 warmups, then (u32 task, u32 client)
//                for each placement in that order;
//   kind config_error / failure: u64 length, message bytes.
constexpr std::uint32_t kMagic = 0x41534752;  // "ASGR"
enum class Kind : std::uint8_t { ok = 0, config_error = 1, failure = 2 };

// Exit status of a child whose allocation failed (from the new-handler: nothing else can run then).
constexpr int kOutOfMemoryExit = 86;
constexpr std::size_t kMaxMessage = 64 * 1024;

bool memory_limit_enforced() noexcept {
#ifdef ASSIGNOR_ISOLATION_ASAN
  return false;
#else
  return true;
#endif
}

// ---- the child ---------------------------------------------------------------------------------

class Writer {
 public:
  template <class T>
  void put(const T& value) {
    const auto* bytes = reinterpret_cast<const char*>(&value);
    buffer_.insert(buffer_.end(), bytes, bytes + sizeof(T));
  }
  void put_text(Kind kind, std::string text) {
    if (text.size() > kMaxMessage) text.resize(kMaxMessage);
    put(kMagic);
    put(static_cast<std::uint8_t>(kind));
    put(static_cast<std::uint64_t>(text.size()));
    buffer_.insert(buffer_.end(), text.begin(), text.end());
  }
  void put_placements(const std::vector<Placement>& list) {
    for (const Placement& p : list) {
      put(p.task);
      put(p.client);
    }
  }
  // Writes everything to `fd`; false when the parent went away.
  bool send(int fd) const {
    std::size_t done = 0;
    while (done < buffer_.size()) {
      const ssize_t n = ::write(fd, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  std::vector<char> buffer_;
};

void out_of_memory() { ::_exit(kOutOfMemoryExit); }

// Restores the default action of `sig`. AddressSanitizer intercepts signal() and sigaction() and
// keeps its own SIGSEGV handler (which reports and exits with status 1), so ASan builds ask the
// kernel directly: a crashing strategy then ends with its signal, as in a release build.
void default_signal_handler(int sig) {
#ifdef ASSIGNOR_ISOLATION_ASAN
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

// The child's current address-space size in bytes (VmSize), 0 when unknown.
std::uint64_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  if (!(statm >> pages)) return 0;
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

[[noreturn]] void run_child(int fd, pid_t parent, const PluginRegistry& registry, const std::string& name,
                            const StrategyParams& params, const AssignmentInput& input,
                            const StrategyLimits& limits) {
  // If the host dies (killed, Ctrl-C, a CI job cancelled), so does the strategy: never an orphan
  // spinning under PID 1. (The host may have died before this line: then there is no one to answer.)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  ::setpgid(0, 0);  // its own process group: a timeout kills whatever it started too
  // A backstop the strategy's descendants inherit: CPU time a little over the wall-clock limit.
  const rlim_t cpu_seconds = static_cast<rlim_t>(limits.time_ms / 1000 + 2);
  rlimit cpu{cpu_seconds, cpu_seconds + 1};
  ::setrlimit(RLIMIT_CPU, &cpu);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE, SIGTERM, SIGINT})
    default_signal_handler(sig);  // a crash is a crash: no handler of the host's (or a sanitizer's) runs
  ::dup2(STDERR_FILENO, STDOUT_FILENO);  // whatever the strategy prints cannot reach the JSON on stdout
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  if (memory_limit_enforced()) {
    const std::uint64_t bytes = address_space_bytes() + (limits.memory_mb << 20);
    rlimit as{bytes, bytes};
    ::setrlimit(RLIMIT_AS, &as);
  }
  std::set_new_handler(out_of_memory);

  Writer out;
  try {
    StrategyHandle strategy = registry.create(name, params);
    const auto start = Clock::now();
    Assignment result = strategy->assign(input);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    out.put(kMagic);
    out.put(static_cast<std::uint8_t>(Kind::ok));
    out.put(ms);
    out.put(static_cast<std::uint8_t>(result.probing_rebalance ? 1 : 0));
    out.put(static_cast<std::uint64_t>(result.actives.size()));
    out.put(static_cast<std::uint64_t>(result.standbys.size()));
    out.put(static_cast<std::uint64_t>(result.warmups.size()));
    out.put_placements(result.actives);
    out.put_placements(result.standbys);
    out.put_placements(result.warmups);
  } catch (const ConfigError& e) {
    out = Writer();
    out.put_text(Kind::config_error, e.what());
  } catch (const StrategyError& e) {  // from create(): it names the plugin already
    out = Writer();
    out.put_text(Kind::failure, e.what());
  } catch (const std::exception& e) {
    out = Writer();
    out.put_text(Kind::failure, fmt::format("strategy '{}' threw: {}", name, printable(e.what())));
  } catch (...) {
    out = Writer();
    out.put_text(Kind::failure, fmt::format("strategy '{}' threw an unknown exception", name));
  }
  std::fflush(stderr);
  ::_exit(out.send(fd) ? 0 : 1);
}

// ---- the parent --------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}
  template <class T>
  bool get(T& value) {
    if (bytes_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool get_placements(std::uint64_t n, std::vector<Placement>& out) {
    if (n > (bytes_.size() - pos_) / 8) return false;
    out.resize(static_cast<std::size_t>(n));
    for (Placement& p : out)
      if (!get(p.task) || !get(p.client)) return false;
    return true;
  }
  bool get_text(std::string& out) {
    std::uint64_t n = 0;
    if (!get(n) || n > bytes_.size() - pos_) return false;
    out.assign(bytes_.data() + pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  bool at_end() const noexcept { return pos_ == bytes_.size(); }

 private:
  const std::vector<char>& bytes_;
  std::size_t pos_ = 0;
};

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

std::string duration_text(std::uint64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{} s", ms / 1000) : fmt::format("{} ms", ms);
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

// Makes this process the "child subreaper" while a strategy runs: every process the strategy
// starts is re-parented to us when its own parent ends, whatever it does (a new session with
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
        while (::waitpid(p, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
    log().warn("processes started by a strategy kept multiplying; some may be left running");
  }

 private:
  std::vector<pid_t> before_;
  bool was_subreaper_ = false;
};

// While a strategy runs in its child, SIGINT, SIGTERM and SIGHUP to the host (Ctrl-C, a cancelled
// job) first kill the strategy's process group, then end the host as they would have.
volatile sig_atomic_t g_running_group = 0;

extern "C" void forward_and_reraise(int sig) {
  if (g_running_group > 0) ::kill(-static_cast<pid_t>(g_running_group), SIGKILL);
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

}  // namespace

bool isolation_memory_limit_enforced() noexcept { return memory_limit_enforced(); }

IsolatedRun run_isolated(const PluginRegistry& registry, const std::string& name, const StrategyParams& params,
                         const AssignmentInput& input, const StrategyLimits& limits) {
  (void)registry.require(name);  // PluginError here, in the parent, like in-process
  IsolatedRun run;
  auto failed = [&](std::string why) {
    run.ok = false;
    run.failure = std::move(why);
    return run;
  };
  if (!memory_limit_enforced())
    log().warn("strategy '{}': the memory limit (limits.memory_mb) is not enforced in AddressSanitizer builds",
               name);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return failed(fmt::format("strategy '{}' could not be isolated: pipe: {}", name, std::strerror(errno)));
  // Nothing buffered may be written twice (once by the child): flush before forking.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const DescendantSweep sweep;  // from here on, whatever the strategy leaves behind becomes ours to kill
  const SignalForwarding forwarding;
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return failed(fmt::format("strategy '{}' could not be isolated: fork: {}", name, std::strerror(err)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(fds[1], parent, registry, name, params, input, limits);
  }
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins, both are the same
  g_running_group = pid;
  ::close(fds[1]);

  // An upper bound on what any valid answer can take; a child that writes more is not answering.
  const std::uint64_t n_tasks = input.cluster.task_count();
  const std::uint64_t max_bytes =
      (1u << 20) + 8 * (n_tasks * (2 + input.settings.num_standby_replicas) + input.settings.max_warmup_replicas +
                        n_tasks + 1024);
  const auto deadline = start + std::chrono::milliseconds(limits.time_ms);
  std::vector<char> bytes;
  bool timed_out = false;
  bool oversized = false;
  char chunk[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // re-check the deadline
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child closed its end (normally: it exited)
    bytes.insert(bytes.end(), chunk, chunk + n);
    if (bytes.size() > max_bytes) {
      oversized = true;
      break;
    }
  }
  ::close(fds[0]);

  // Wait for the child to end, still within the deadline, without reaping it yet (WNOWAIT): while
  // it is a zombie its pid, and so its process group, cannot be reused, and killing the group
  // (whatever the strategy started and left behind) cannot hit anyone else. Past the deadline, or
  // for an oversized answer, the group is killed first.
  if (!timed_out && !oversized) {
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
  kill_group(pid);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_running_group = 0;
  sweep.kill_what_is_left();  // descendants that left the group (setsid) or outlived the child
  run.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();

  if (timed_out)
    return failed(fmt::format("strategy '{}' exceeded its time limit of {} (limits.time_ms) and was killed", name,
                              duration_text(limits.time_ms)));
  if (oversized)
    return failed(fmt::format("strategy '{}' returned more data than any valid assignment holds ({} bytes); "
                              "it was killed",
                              name, bytes.size()));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* text = ::strsignal(sig);
    std::string why = fmt::format("strategy '{}' crashed with {} ({})", name, signal_name(sig),
                                  text != nullptr ? text : "unknown signal");
    if (sig == SIGKILL)
      why += "; something outside assignor killed it, often the system's out-of-memory killer";
    return failed(why);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemoryExit)
    return failed(memory_limit_enforced()
                      ? fmt::format("strategy '{}' ran out of memory (limit {} MiB, limits.memory_mb)", name,
                                    limits.memory_mb)
                      : fmt::format("strategy '{}' ran out of memory", name));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    return failed(fmt::format("strategy '{}' ended its process with exit status {} before returning a result",
                              name, WEXITSTATUS(status)));

  Reader in(bytes);
  std::uint32_t magic = 0;
  std::uint8_t kind = 0;
  if (!in.get(magic) || magic != kMagic || !in.get(kind))
    return failed(fmt::format("strategy '{}' ended its process without returning a result", name));
  if (kind == static_cast<std::uint8_t>(Kind::ok)) {
    std::uint8_t probing = 0;
    std::uint64_t n_active = 0, n_standby = 0, n_warmup = 0;
    if (in.get(run.ms) && in.get(probing) && in.get(n_active) && in.get(n_standby) && in.get(n_warmup) &&
        in.get_placements(n_active, run.assignment.actives) && in.get_placements(n_standby, run.assignment.standbys) &&
        in.get_placements(n_warmup, run.assignment.warmups) && in.at_end()) {
      run.assignment.probing_rebalance = probing != 0;
      run.ok = true;
      return run;
    }
  } else if (kind == static_cast<std::uint8_t>(Kind::config_error) || kind == static_cast<std::uint8_t>(Kind::failure)) {
    std::string text;
    if (in.get_text(text) && in.at_end()) {
      if (kind == static_cast<std::uint8_t>(Kind::config_error)) run.config_error = text;
      return failed(text);
    }
  }
  return failed(fmt::format("strategy '{}' returned a malformed result from its process", name));
}

}  // namespace assignor::host
