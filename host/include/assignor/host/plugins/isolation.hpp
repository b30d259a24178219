// Runs one strategy in a child process (the config's `isolation: process`), so that a strategy that
// crashes, hangs or exhausts memory cannot take the host down with it.
//
// After fork() the child creates the strategy (opening its library there if the host has not) and
// calls assign() on the input it inherited, then writes the Assignment back through a pipe (one
// frame, process/frames.hpp: the placements packed) and exits with _exit(). The parent waits with a wall-clock
// limit; the child runs under an address-space limit (RLIMIT_AS), and what every isolated child
// gets (process/child_process.hpp): it dies with the host, has a CPU-time backstop, default handlers
// for crash signals, no core dumps, its stdout on stderr (a strategy that prints cannot corrupt the
// assignment JSON), and nothing it starts outlives the run. Every way the child can end becomes a
// value:
//   "strategy 'x' crashed with SIGSEGV (Segmentation fault)"
//   "strategy 'x' exceeded its time limit of 10 s (limits.time_ms) and was killed"
//   "strategy 'x' ran out of memory (limit 2048 MiB, limits.memory_mb)"
// The caller (run_assignment) validates the result and falls back exactly as it does in-process.
//
//   IsolatedRun run = run_isolated(registry, "high_availability", params, input, config.strategy_limits);
//   if (!run.ok) std::cerr << run.failure;
//
// The parent must be single-threaded when it forks (the assignor command is).
#pragma once

#include <optional>
#include <string>

#include "assignor/assignment.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"

namespace assignor::host {

struct IsolatedRun {
  bool ok = false;
  Assignment assignment;                    // when ok: not validated yet
  double ms = 0;                            // measured by the host: fork to answer (creating the strategy included)
  std::string failure;                      // when !ok: why, for people (names the strategy)
  std::optional<std::string> config_error;  // the factory refused its parameters (exit 2 in-process too)
};

// Creates `name` with `params` and runs it on `input` in a child process under `limits`.
// Never throws for anything the strategy does; PluginError when `name` is not loaded.
IsolatedRun run_isolated(const PluginRegistry& registry, const std::string& name, const StrategyParams& params,
                         const AssignmentInput& input, const StrategyLimits& limits);

// False in AddressSanitizer builds: ASan reserves terabytes of address space, so RLIMIT_AS cannot
// be applied and limits.memory_mb is not enforced (a warning says so).
bool isolation_memory_limit_enforced() noexcept;

}  // namespace assignor::host
