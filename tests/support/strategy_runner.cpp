#include "strategy_runner.hpp"

#include <rapidcheck.h>

#include <sstream>

namespace assignor::testing {

StrategyRunner::StrategyRunner(const std::string& plugin_dir) : registry_(std::make_unique<host::PluginRegistry>()) {
  registry_->load_directory(plugin_dir, host::PluginOrigin::bundled);  // the build's bundled strategies
}

RunResult StrategyRunner::run(const std::string& strategy, const Cluster& cluster, const AssignmentSettings& settings,
                              const StrategyParams& params) const {
  auto handle = registry_->create(strategy, params);
  const LagModel lags(cluster, settings);
  RunResult r;
  r.assignment = handle->assign(AssignmentInput{cluster, settings, lags});
  r.assignment.normalize();
  r.errors = validate(cluster, settings, r.assignment);
  if (r.errors.empty()) r.metrics = compute_metrics(cluster, settings, lags, r.assignment);
  return r;
}

const StrategyRunner& builtin_plugins() {
  static const StrategyRunner runner(ASSIGNOR_PLUGIN_DIR);
  return runner;
}

std::string describe(const Cluster& cluster, const Assignment& a) {
  std::ostringstream out;
  for (ClientIndex c = 0; c < cluster.client_count(); ++c) {
    out << cluster.clients[c].id << " (" << cluster.clients[c].threads << "t):";
    auto dump = [&](const char* role, const std::vector<Placement>& list) {
      out << " " << role << "[";
      bool first = true;
      for (const auto& p : list)
        if (p.client == c) {
          out << (first ? "" : " ") << to_string(cluster.tasks[p.task].id);
          first = false;
        }
      out << "]";
    };
    dump("active", a.actives);
    dump("standby", a.standbys);
    dump("warmup", a.warmups);
    out << "\n";
  }
  out << "probing: " << (a.probing_rebalance ? "yes" : "no") << "\n";
  return out.str();
}

void require_run(bool ok, const Cluster& cluster, const RunResult& run, const std::string& what) {
  if (!ok) RC_FAIL(what + "\n" + describe(cluster, run.assignment));
}

void require_valid(const Cluster& cluster, const RunResult& run) {
  require_run(run.errors.empty(), cluster, run, run.errors.empty() ? "" : run.errors.front().message);
}

}  // namespace assignor::testing
