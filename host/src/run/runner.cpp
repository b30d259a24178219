#include "assignor/host/run/runner.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>

#include "assignor/errors.hpp"
#include "assignor/host/plugins/isolation.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/support/standard_output.hpp"
#include "assignor/metrics.hpp"
#include "assignor/threads.hpp"
#include "assignor/validation.hpp"

namespace assignor::host {

namespace {

constexpr const char* kUnknownLagsStrategy = "fallback_prior";

struct Attempt {
  bool ok = false;
  Assignment assignment;
  double ms = 0;
  std::string failure;  // why it failed, for people
  std::vector<ValidationError> errors;
};

// The settings a strategy is given: the configured ones, with num_standby_replicas capped at
// clients - 1 (no task can have more copies than other clients), so the work a strategy does is
// bounded by the input, never by a number in the config (1e8 standbys on five clients took a
// minute and 3.4 GB). Validation and metrics keep the configured number: standby_shortfall still
// says how many of the standbys asked for could not be placed. A strategy that declares
// kCapabilityConfiguredStandbys gets the configured number (streams_sticky: Kafka's quotas count it)
// and bounds its work itself.
AssignmentSettings strategy_settings(const AssignmentSettings& configured, const Cluster& cluster,
                                     const PluginInfo& plugin) {
  AssignmentSettings s = configured;
  if ((plugin.capabilities & kCapabilityConfiguredStandbys) != 0) return s;
  const std::size_t others = cluster.client_count() > 0 ? cluster.client_count() - 1 : 0;
  s.num_standby_replicas = static_cast<std::uint32_t>(std::min<std::size_t>(s.num_standby_replicas, others));
  return s;
}

StrategyParams params_for(const Config& config, const std::string& name) {
  auto it = config.strategy_params.find(name);
  return it == config.strategy_params.end() ? StrategyParams{} : it->second;
}

// Runs one strategy; every failure of the plugin becomes a value, never an escaping exception
// (except ConfigError for bad parameters and PluginError for a missing plugin).
Attempt attempt(const PluginRegistry& registry, const Config& config, const Cluster& cluster, const LagModel& lags,
                const std::string& name);

// Validates what a strategy returned (either way it ran): ok, or a failure listing the errors.
// A strategy that declares high availability is held to it (check_high_availability).
Attempt validated(Attempt out, const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                  const PluginInfo& plugin) {
  const std::string& name = plugin.name;
  out.errors = validate(cluster, settings, out.assignment);
  if ((plugin.capabilities & kCapabilityHighAvailability) != 0)
    for (auto& e : check_high_availability(cluster, lags, out.assignment)) out.errors.push_back(std::move(e));
  if (!out.errors.empty()) {
    out.failure = fmt::format("strategy '{}' returned an invalid assignment ({} error{})", name, out.errors.size(),
                              out.errors.size() == 1 ? "" : "s");
    return out;
  }
  out.assignment.normalize();
  out.ok = true;
  return out;
}

// The same, with the strategy in a child process (config.isolation: process): a crash, a hang or
// running out of memory is a failure like a thrown exception; the result is validated the same way.
Attempt attempt_isolated(const PluginRegistry& registry, const Config& config, const Cluster& cluster,
                         const LagModel& lags, const std::string& name) {
  Attempt out;
  const AssignmentSettings settings = strategy_settings(config.settings, cluster, registry.require(name));
  const AssignmentInput input{cluster, settings, lags};
  IsolatedRun run = run_isolated(registry, name, params_for(config, name), input, config.strategy_limits);
  if (run.config_error) throw ConfigError(place_prefix(config, "strategies." + name) + *run.config_error);
  if (!run.ok) {
    out.failure = std::move(run.failure);
    return out;
  }
  out.assignment = std::move(run.assignment);
  out.ms = run.ms;
  return validated(std::move(out), cluster, config.settings, lags, registry.require(name));
}

// ---- in process: the contract holds while the strategy runs --------------------------------

// The strategy running in this process right now, if any (read by the exit handler).
std::atomic<const std::string*> g_running_strategy{nullptr};

// exit() or quick_exit() from inside a strategy would end the host with whatever status the
// strategy chose (0 looks like success, 3 like "plugin not loaded"). The host's handler, which runs
// before any destructor the plugin registered, turns it into the contract's exit 4 with a message.
extern "C" void strategy_ended_the_process() {
  const std::string* name = g_running_strategy.load();
  if (name == nullptr) return;
  const std::string message = fmt::format(
      "assignor: error: strategy '{}' ended the process while assigning (it called exit()); no "
      "assignment was produced. Run it with 'isolation: process' to contain it.\n",
      printable(*name));
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message.data(), message.size());
  ::_exit(kExitStrategyFailed);
}

// For the duration of one in-process strategy call: ending the process is a failure, never a
// success. Standard output is the host's result's alone: before the first call fd 1 is pointed at
// standard error for the rest of the process (support/standard_output.hpp), so whatever the
// strategy prints, C or C++, during the call or from a thread of its that outlives it, goes to
// stderr, and results are written to the reserved copy of the original standard output.
class InProcessCall {
 public:
  explicit InProcessCall(const std::string& name) {
    static std::once_flag handlers;
    std::call_once(handlers, [] {
      std::atexit(strategy_ended_the_process);
      std::at_quick_exit(strategy_ended_the_process);
    });
    divert_standard_output();
    g_running_strategy = &name;
  }
  ~InProcessCall() {
    g_running_strategy = nullptr;
    std::cout.flush();  // what the strategy buffered goes where it was written: stderr
    std::fflush(stdout);
  }
  InProcessCall(const InProcessCall&) = delete;
  InProcessCall& operator=(const InProcessCall&) = delete;
};

bool runs_isolated(const PluginRegistry& registry, const Config& config, const std::string& name) {
  switch (config.isolation) {
    case IsolationMode::process: return true;
    case IsolationMode::in_process: return false;
    case IsolationMode::automatic: return registry.require(name).origin != PluginOrigin::bundled;
  }
  return true;
}

Attempt attempt(const PluginRegistry& registry, const Config& config, const Cluster& cluster, const LagModel& lags,
                const std::string& name) {
  if (runs_isolated(registry, config, name)) return attempt_isolated(registry, config, cluster, lags, name);
  Attempt out;
  StrategyHandle strategy;
  try {
    strategy = registry.create(name, params_for(config, name));
  } catch (const ConfigError& e) {  // "strategies.x: unknown strategy parameter 'y'": where it was written
    throw ConfigError(place_prefix(config, "strategies." + name) + e.what());
  } catch (const StrategyError& e) {
    out.failure = e.what();
    return out;
  }
  // A strategy from outside the build works on its own copy of the input: one that writes through
  // its const references (const_cast) changes only that copy, never the cluster the host validates
  // against, computes the metrics from and hands to the fallback (isolated runs get the same from
  // fork()). The bundled strategies are this repository's own code (no const_cast, run under the
  // sanitizers and conformance suite) and read the host's input directly: the copy was an eighth of
  // a simulated round at 10k tasks.
  const AssignmentSettings settings = strategy_settings(config.settings, cluster, registry.require(name));
  const bool trusted = registry.require(name).origin == PluginOrigin::bundled;
  std::optional<Cluster> cluster_copy;
  std::optional<LagModel> lags_copy;
  if (!trusted) {
    cluster_copy.emplace(cluster);
    lags_copy.emplace(lags);
  }
  const AssignmentInput input{trusted ? cluster : *cluster_copy, settings, trusted ? lags : *lags_copy};
  try {
    const InProcessCall call(name);
    const auto start = std::chrono::steady_clock::now();
    out.assignment = strategy->assign(input);
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  } catch (const std::exception& e) {
    out.failure = fmt::format("strategy '{}' threw: {}", name, printable(e.what()));
    return out;
  } catch (...) {
    out.failure = fmt::format("strategy '{}' threw an unknown exception", name);
    return out;
  }
  return validated(std::move(out), cluster, config.settings, lags, registry.require(name));
}

std::string describe(const Attempt& a) {
  std::string text = a.failure;
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < a.errors.size() && i < kShown; ++i)
    text += fmt::format("\n  - {}: {}", to_string(a.errors[i].kind), a.errors[i].message);
  if (a.errors.size() > kShown) text += fmt::format("\n  ... and {} more", a.errors.size() - kShown);
  return text;
}

}  // namespace

RunOutcome run_assignment(const PluginRegistry& registry, const Config& config, const Cluster& cluster,
                          const std::string& strategy) {
  RunOutcome outcome;
  outcome.requested_strategy = strategy;

  const auto lag_start = std::chrono::steady_clock::now();
  const LagModel lags(cluster, config.settings);
  const double lag_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - lag_start).count();
  for (const auto& w : lags.warnings()) outcome.warnings.push_back(w.message);

  // A name the config gave that no plugin carries: the message says where the config says it.
  auto require = [&](const std::string& name, const std::string& key) -> const PluginInfo& {
    try {
      return registry.require(name);
    } catch (const PluginError& e) {
      throw PluginError(place_prefix(config, key) + key + ": " + e.what());
    }
  };
  const PluginInfo& info = strategy == config.strategy ? require(strategy, "strategy") : registry.require(strategy);
  // A misspelt fallback is a config error now, not a surprise at the moment it is needed. A name a
  // plugin's note claims is enough: its library is opened only if the fallback runs.
  if (config.fallback && !registry.knows(*config.fallback)) (void)require(*config.fallback, "fallback");
  std::string chosen = strategy;
  if (!cluster.end_offsets_known && (info.capabilities & kCapabilityHandlesUnknownLags) == 0) {
    chosen = kUnknownLagsStrategy;
    const std::string why = fmt::format(
        "end offsets are unknown: keeping every previous active with '{}' instead of '{}' and "
        "requesting a probing rebalance",
        chosen, strategy);
    log().warn("{}", why);
    outcome.warnings.push_back(why);
  }

  Attempt result = attempt(registry, config, cluster, lags, chosen);
  if (!result.ok) {
    const std::string failure = describe(result);
    if (!config.fallback || *config.fallback == chosen) throw AssignmentFailed(failure, result.errors);
    const std::string why = fmt::format("{}\nusing the fallback strategy '{}'", failure, *config.fallback);
    log().warn("{}", why);
    outcome.warnings.push_back(why);
    Attempt fallback;
    try {
      fallback = attempt(registry, config, cluster, lags, *config.fallback);
    } catch (const PluginError& e) {  // its library, opened only now, was refused
      fallback.failure = fmt::format("the fallback strategy '{}' cannot be loaded: {}", *config.fallback, e.what());
    }
    if (!fallback.ok)
      throw AssignmentFailed(failure + "\nthe fallback failed too: " + describe(fallback), fallback.errors);
    result = std::move(fallback);
    chosen = *config.fallback;
    outcome.used_fallback = true;
  }

  if (!cluster.end_offsets_known) result.assignment.probing_rebalance = true;
  outcome.report.strategy = chosen;
  outcome.report.probing_after_ms = config.settings.probing_rebalance_interval_ms;
  outcome.report.assign_ms = result.ms + lag_ms;
  outcome.report.threads = distribute_over_threads(cluster, lags, result.assignment);
  outcome.report.metrics = compute_metrics(cluster, config.settings, lags, result.assignment, &*outcome.report.threads);
  outcome.report.assignment = std::move(result.assignment);
  return outcome;
}

void check_strategy_sections(const PluginRegistry& registry, const Config& config) {
  // The names known without opening a library: a section for a plugin this command does not run
  // costs no load (index_directory()).
  const std::vector<std::string> names = registry.names();
  for (const auto& [name, params] : config.strategy_params) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    // A library of a plugin directory was refused (unsafe permissions, a crashing initialiser):
    // it may be the one that holds it, so the plugin could not be loaded (exit 3, the reasons).
    if (!registry.refused().empty()) {
      try {
        (void)registry.require(name);
      } catch (const PluginError& e) {
        throw PluginError(
            fmt::format("{}strategies.{}: {}", place_prefix(config, "strategies." + name), printable(name), e.what()));
      }
    }
    std::string message = fmt::format(
        "strategies.{}: no strategy named '{}' is loaded, so these parameters would "
        "never be used",
        printable(name), printable(name));
    if (const std::string near = nearest(name, names); !near.empty())
      message += fmt::format("; did you mean '{}'?", near);
    throw ConfigError(place_prefix(config, "strategies." + name) + message);
  }
}

}  // namespace assignor::host
