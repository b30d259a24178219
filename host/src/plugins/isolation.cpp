#include "assignor/host/plugins/isolation.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

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
#include "assignor/host/support/logging.hpp"
#include "child_process.hpp"

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
//   kind ok:     f64 ms, u8 probing, u64 actives, u64 standbys, u64 warmups, then (u32 task, u32 client,
//                u32 thread) for each placement in that order;
//   kind config_error / failure: u64 length, message bytes.
constexpr std::uint32_t kMagic = 0x41534752;  // "ASGR"
enum class Kind : std::uint8_t { ok = 0, config_error = 1, failure = 2 };

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
      put(p.thread);
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
    if (n > (bytes_.size() - pos_) / kPlacementBytes) return false;
    out.resize(static_cast<std::size_t>(n));
    for (Placement& p : out)
      if (!get(p.task) || !get(p.client) || !get(p.thread)) return false;
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

  // An upper bound on what any valid answer can take; a child that writes more is not answering.
  const std::uint64_t n_tasks = input.cluster.task_count();
  const std::uint64_t max_bytes =
      (1u << 20) + kPlacementBytes * (n_tasks * (2 + input.settings.num_standby_replicas) + input.settings.max_warmup_replicas +
                        n_tasks + 1024);
  const detail::ChildOutcome child = detail::run_in_child(
      [&](int fd) { run_child(fd, registry, name, params, input, limits); }, {limits.time_ms, max_bytes});
  run.ms = child.ms;
  switch (child.end) {
    case detail::ChildEnd::not_started:
      return failed(fmt::format("strategy '{}' could not be isolated: {}", name, child.error));
    case detail::ChildEnd::timed_out:
      return failed(fmt::format("strategy '{}' exceeded its time limit of {} (limits.time_ms) and was killed", name,
                                detail::describe_duration(limits.time_ms)));
    case detail::ChildEnd::oversized:
      return failed(fmt::format("strategy '{}' returned more data than any valid assignment holds ({} bytes); "
                                "it was killed",
                                name, child.bytes.size()));
    case detail::ChildEnd::signaled: {
      std::string why = fmt::format("strategy '{}' crashed with {}", name, detail::describe_signal(child.status));
      if (child.status == SIGKILL)
        why += "; something outside assignor killed it, often the system's out-of-memory killer";
      return failed(why);
    }
    case detail::ChildEnd::exited:
      if (child.status == kOutOfMemoryExit)
        return failed(memory_limit_enforced()
                          ? fmt::format("strategy '{}' ran out of memory (limit {} MiB, limits.memory_mb)", name,
                                        limits.memory_mb)
                          : fmt::format("strategy '{}' ran out of memory", name));
      if (child.status != 0)
        return failed(fmt::format("strategy '{}' ended its process with exit status {} before returning a result",
                                  name, child.status));
      break;
  }

  Reader in(child.bytes);
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
