#include "assignor/host/plugins/isolation.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <vector>

#include "assignor/host/support/printable.hpp"

#include "assignor/errors.hpp"
#include "assignor/host/process/child_process.hpp"
#include "assignor/host/support/errors.hpp"
#include "assignor/host/support/logging.hpp"

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

// The child's answer, one frame (process/frames.hpp):
//   "assignment PROBING ACTIVES STANDBYS WARMUPS N" + the placements, actives then standbys then
//   warmups, each as (u32 task, u32 client, u32 thread) in native byte order (both ends are this
//   executable): N = 12 x their number;
//   "fail KIND N" + the message (KIND config: the factory refused its parameters).
// The parent measures the time itself (fork to answer): nothing the child says about it is taken.

// Exit status of a child whose allocation failed (from the new-handler: nothing else can run then).
constexpr int kOutOfMemoryExit = 86;
constexpr std::size_t kMaxMessage = 64 * 1024;
// A placement on the wire: task, client and thread (Placement::thread), 4 bytes each.
constexpr std::uint64_t kPlacementBytes = 12;

bool memory_limit_enforced() noexcept {
#ifdef ASSIGNOR_ISOLATION_ASAN
  return false;
#else
  return true;
#endif
}

// ---- the child ---------------------------------------------------------------------------------

void put_placements(std::string& out, const std::vector<Placement>& list) {
  for (const Placement& p : list)
    for (const std::uint32_t field : {p.task, p.client, p.thread})
      out.append(reinterpret_cast<const char*>(&field), sizeof field);
}

void out_of_memory() { ::_exit(kOutOfMemoryExit); }

// The child's current address-space size in bytes (VmSize), 0 when unknown.
std::uint64_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  if (!(statm >> pages)) return 0;
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// The strategy's side: what set_up_child does not (memory limit, allocation failure), then the run.
void run_child(int fd, const PluginRegistry& registry, const std::string& name, const StrategyParams& params,
               const AssignmentInput& input, const StrategyLimits& limits) {
  if (memory_limit_enforced()) {
    const std::uint64_t bytes = address_space_bytes() + (limits.memory_mb << 20);
    rlimit as{bytes, bytes};
    ::setrlimit(RLIMIT_AS, &as);
  }
  std::set_new_handler(out_of_memory);

  std::string answer;
  auto fail = [&](ErrorKind kind, std::string message) {
    if (message.size() > kMaxMessage) message.resize(kMaxMessage);
    answer = process::failure_frame(kind, message);
  };
  try {
    StrategyHandle strategy = registry.create(name, params);
    Assignment result = strategy->assign(input);
    std::string placements;
    placements.reserve(kPlacementBytes * (result.actives.size() + result.standbys.size() + result.warmups.size()));
    put_placements(placements, result.actives);
    put_placements(placements, result.standbys);
    put_placements(placements, result.warmups);
    answer = process::encode_frame(
        {"assignment", result.probing_rebalance ? "1" : "0", std::to_string(result.actives.size()),
         std::to_string(result.standbys.size()), std::to_string(result.warmups.size())},
        placements);
  } catch (const ConfigError& e) {
    fail(ErrorKind::config, e.what());
  } catch (const StrategyError& e) {  // from create(): it names the plugin already
    fail(ErrorKind::strategy, e.what());
  } catch (const std::exception& e) {
    fail(ErrorKind::strategy, fmt::format("strategy '{}' threw: {}", name, printable(e.what())));
  } catch (...) {
    fail(ErrorKind::strategy, fmt::format("strategy '{}' threw an unknown exception", name));
  }
  std::fflush(stderr);
  ::_exit(process::write_all(fd, answer) ? 0 : 1);
}

// The count word of an assignment frame, strictly decimal.
bool count_word(const std::string& word, std::uint64_t& value) {
  const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  return ec == std::errc() && ptr == word.data() + word.size() && !word.empty();
}

bool read_placements(std::string_view& bytes, std::uint64_t n, std::vector<Placement>& out) {
  if (n > bytes.size() / kPlacementBytes) return false;
  out.resize(static_cast<std::size_t>(n));
  for (Placement& p : out) {
    std::memcpy(&p.task, bytes.data(), 4);
    std::memcpy(&p.client, bytes.data() + 4, 4);
    std::memcpy(&p.thread, bytes.data() + 8, 4);
    bytes.remove_prefix(kPlacementBytes);
  }
  return true;
}

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
    log().warn("strategy '{}': the memory limit (limits.memory_mb) is not enforced in AddressSanitizer builds", name);

  // An upper bound on what any valid answer can take; a child that writes more is not answering.
  const std::uint64_t n_tasks = input.cluster.task_count();
  const std::uint64_t max_bytes = (1u << 20) + kPlacementBytes * (n_tasks * (2 + input.settings.num_standby_replicas) +
                                                                  input.settings.max_warmup_replicas + n_tasks + 1024);
  const process::ChildOutcome child = process::run_in_child(
      [&](int fd) { run_child(fd, registry, name, params, input, limits); }, {limits.time_ms, max_bytes});
  run.ms = child.ms;
  switch (child.end) {
    case process::ChildEnd::not_started:
      return failed(fmt::format("strategy '{}' could not be isolated: {}", name, child.error));
    case process::ChildEnd::timed_out:
      return failed(fmt::format("strategy '{}' exceeded its time limit of {} (limits.time_ms) and was killed", name,
                                process::describe_duration(limits.time_ms)));
    case process::ChildEnd::malformed:
      return failed(fmt::format("strategy '{}' returned a malformed result from its process ({}); it was killed", name,
                                child.error));
    case process::ChildEnd::signaled: {
      std::string why = fmt::format("strategy '{}' crashed with {}", name, process::describe_signal(child.status));
      if (child.status == SIGKILL)
        why += "; something outside assignor killed it, often the system's out-of-memory killer";
      return failed(why);
    }
    case process::ChildEnd::exited:
      if (child.status == kOutOfMemoryExit)
        return failed(memory_limit_enforced()
                          ? fmt::format("strategy '{}' ran out of memory (limit {} MiB, limits.memory_mb)", name,
                                        limits.memory_mb)
                          : fmt::format("strategy '{}' ran out of memory", name));
      if (child.status != 0)
        return failed(fmt::format("strategy '{}' ended its process with exit status {} before returning a result", name,
                                  child.status));
      return failed(fmt::format("strategy '{}' ended its process without returning a result", name));
    case process::ChildEnd::answered: break;
  }

  const process::Frame& frame = *child.frame;
  if (frame.kind() == "fail" && frame.words.size() == 2) {
    const auto kind = error_kind_named(frame.words[1]);
    if (kind == ErrorKind::config) run.config_error = frame.payload;
    if (kind) return failed(frame.payload);
  }
  std::uint64_t n_active = 0, n_standby = 0, n_warmup = 0;
  if (frame.kind() == "assignment" && frame.words.size() == 5 && (frame.words[1] == "0" || frame.words[1] == "1") &&
      count_word(frame.words[2], n_active) && count_word(frame.words[3], n_standby) &&
      count_word(frame.words[4], n_warmup)) {
    std::string_view bytes = frame.payload;
    if (read_placements(bytes, n_active, run.assignment.actives) &&
        read_placements(bytes, n_standby, run.assignment.standbys) &&
        read_placements(bytes, n_warmup, run.assignment.warmups) && bytes.empty()) {
      run.assignment.probing_rebalance = frame.words[1] == "1";
      run.ok = true;
      return run;
    }
  }
  return failed(fmt::format("strategy '{}' returned a malformed result from its process", name));
}

}  // namespace assignor::host
