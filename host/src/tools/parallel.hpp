// Independent jobs over all cores (`compare --jobs`, `sweep --jobs`): processes forked from this
// one, so that strategies, the plugin registry and the runner need not be thread-safe, and a job
// that crashes its worker is reported, not the host's death. Not installed.
//
//   auto results = run_jobs(jobs.size(), workers, [&](std::size_t i) { return to_json(run(jobs[i])); });
//
// Each job returns its result as text (the caller serialises); the results come back in job order,
// so the output is the same for any number of workers. With workers <= 1 the jobs run here, in
// order. Workers take the next job from a shared counter as they finish one (a long simulation
// does not hold up the short ones behind it).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace assignor::host::detail {

// How many workers `--jobs N` means: N, or the number of cores for 0.
unsigned worker_count(unsigned requested) noexcept;

// Runs job(0) .. job(n - 1). An exception a job throws (InputError, ConfigError, PluginError,
// StrategyError, AssignmentFailed, other) is rethrown here as the same kind with its message, for
// the first job in order that threw; a worker that dies is a StrategyError naming its job.
// `done(k)` is called in this process as results arrive (k of n).
std::vector<std::string> run_jobs(std::size_t n, unsigned workers, const std::function<std::string(std::size_t)>& job,
                                  const std::function<void(std::size_t)>& done = {});

// Raises the log level to errors for its lifetime: jobs that repeat a run (compare's timed
// repeats, a sweep's combinations, replay's runs in time) would repeat every warning, and what
// they would say is in their results (stalls, the round limit).
class QuietLog {
 public:
  QuietLog();
  ~QuietLog();
  QuietLog(const QuietLog&) = delete;
  QuietLog& operator=(const QuietLog&) = delete;

 private:
  int saved_;  // the spdlog level before
};

}  // namespace assignor::host::detail
