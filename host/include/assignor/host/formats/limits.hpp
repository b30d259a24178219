// The limits the host enforces on what it reads and on the strategies it runs: one place for every
// default, so that docs/reliability.md, the config reader and the tests agree.
//
// Input limits bound the work and memory one file can demand; past a limit the reader stops with an
// InputError (exit 2) that names the limit, the value found and the config key that raises it:
//   cluster.json: too many tasks (2000001); the limit is 2000000 (limits.max_tasks in the config)
// The defaults fit a 1M-task cluster file with room to spare. Strategy limits apply to a strategy
// run with `isolation: process` (a wall-clock limit and a memory limit for the child process).
//
//   assignor::host::InputLimits limits;          // the defaults
//   limits.max_tasks = 5'000'000;                // or `limits: {max_tasks: 5000000}` in the config
//   Cluster c = read_cluster_file("big.json", limits);
#pragma once

#include <cstdint>

namespace assignor::host {

struct InputLimits {
  // Bytes read from one file (cluster, config, assignment, events). Checked before parsing, and
  // while reading from a pipe, so `--cluster /dev/zero` stops at the limit.
  std::uint64_t max_file_bytes = std::uint64_t{1} << 30;  // 1 GiB (a 1M-task file is ~190 MB)
  std::uint64_t max_tasks = 2'000'000;
  std::uint64_t max_clients = 100'000;
  std::uint64_t max_threads_per_client = 1'024;  // `threads:` of one client
  std::uint64_t max_total_threads = 1'000'000;   // sum of `threads:` over all clients
  std::uint64_t max_id_length = 1'024;           // bytes of any id or name: client, store, topic, rack, tag, thread
};

// YAML structure limits (not configurable: no legitimate file comes near them).
// Nesting: yaml-cpp refuses documents nested this many levels deep (its own recursion guard, checked
// as it parses); the host turns that into a clear message. Our files nest at most 6 levels.
inline constexpr int kMaxYamlDepth = 500;
// Aliases (`*name`) are counted as copies of what they refer to. The expanded document may hold
// at most kAliasExpansionFactor times the nodes actually written plus kAliasExpansionAllowance, so
// the readers' work stays linear in the file's size ("billion laughs" documents are refused while
// being parsed, before any node is built).
inline constexpr std::uint64_t kAliasExpansionFactor = 16;
inline constexpr std::uint64_t kAliasExpansionAllowance = 100'000;

// Memory a parsed document may use: this many bytes per byte of the file's text, plus a base. A
// node costs 20 bytes plus its text, and real files have a node every 5 bytes or more (an id with
// its quotes and comma), so they use 4 to 6 bytes per byte; a list of one-character items would use
// 10 and is refused while it is read. With the file itself, a read stays under about 8 times the
// file's size plus the base.
inline constexpr std::uint64_t kDocumentBytesPerInputByte = 6;
inline constexpr std::uint64_t kDocumentBaseBytes = std::uint64_t{64} << 20;

enum class IsolationMode : std::uint8_t {
  in_process,  // the strategy runs in the host process
  process,     // the strategy runs in a forked child with the limits below
  automatic,   // the default (`auto`): bundled plugins in process, plugins from plugins.paths in a child
};

struct StrategyLimits {
  std::uint64_t time_ms = 60'000;  // wall clock, from fork to result; then SIGKILL
  // Address space the strategy may add to what the host already has mapped (RLIMIT_AS in the child,
  // set to the child's size at fork plus this). Not applied in AddressSanitizer builds, which
  // reserve terabytes of address space.
  std::uint64_t memory_mb = 4'096;
};

// Ranges accepted in the config (limits.*).
inline constexpr std::uint64_t kMinTimeMs = 1;
inline constexpr std::uint64_t kMaxTimeMs = 24ull * 3600 * 1000;
inline constexpr std::uint64_t kMinMemoryMb = 16;
inline constexpr std::uint64_t kMaxMemoryMb = std::uint64_t{1} << 24;  // 16 TiB

// probing_rebalance_interval_ms (config) and probing.rebalance.interval.ms (--streams-config) at
// most 2^40 ms, about 35 years, the bound of event times: a simulation adds it up over thousands of
// rounds, and near 2^63 its times and time_to_converged_ms reached the int64 range.
inline constexpr std::int64_t kMaxProbingIntervalMs = std::int64_t{1} << 40;

}  // namespace assignor::host
