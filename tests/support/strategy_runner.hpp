// Loads a built plugin by name from the build's plugin directory and runs it the way the host does
// (lags, assign, validate), for scenario tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"
#include "assignor/validation.hpp"

namespace assignor::testing {

struct RunResult {
  Assignment assignment;
  std::vector<ValidationError> errors;
  Metrics metrics;
};

class StrategyRunner {
 public:
  // Loads every plugin in `plugin_dir` once.
  explicit StrategyRunner(const std::string& plugin_dir);
  RunResult run(const std::string& strategy, const Cluster& cluster, const AssignmentSettings& settings,
                const StrategyParams& params = {}) const;
  const host::PluginRegistry& registry() const { return *registry_; }

 private:
  std::unique_ptr<host::PluginRegistry> registry_;
};

// The process-wide runner over the build's built-in plugins (ASSIGNOR_PLUGIN_DIR).
const StrategyRunner& builtin_plugins();

// Readable dump of an assignment for failure messages.
std::string describe(const Cluster& cluster, const Assignment& a);

// In a property test (random_group.hpp): fails the case, which RapidCheck then shrinks, unless
// `ok`, saying `what` and describing the run's assignment.
void require_run(bool ok, const Cluster& cluster, const RunResult& run, const std::string& what);
// The same for a run that must be valid: the message is its first validation error.
void require_valid(const Cluster& cluster, const RunResult& run);

}  // namespace assignor::testing
