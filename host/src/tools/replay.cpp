#include "assignor/host/tools/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/lags.hpp"

namespace assignor::host {

namespace fs = std::filesystem;

namespace {}  // namespace

bool is_kafka_named_for(const std::string& strategy, const std::string& kafka_assignor) {
  return kafka_assignor == "HighAvailabilityTaskAssignor" && strategy == "high_availability";
}

Replay replay_rebalances(const PluginRegistry& registry, const fs::path& dir,
                         const std::vector<ImportedRebalance>& index, const ReplayOptions& options) {
  Replay out;
  if (options.strategies.empty())
    for (const auto& p : registry.plugins()) out.strategies.push_back(p.name);
  else
    out.strategies = options.strategies;
  for (const auto& s : out.strategies) (void)registry.require(s);

  for (std::size_t i = 0; i < index.size(); ++i) {
    if (options.progress) options.progress(i, index.size());
    ReplayedRebalance r;
    r.entry = index[i];
    const fs::path base = dir / r.entry.name;
    const Config own = options.config ? *options.config : read_config_file(base.string() + ".config.yaml");
    if (!options.config && (r.entry.settings_from.empty() || r.entry.settings_from == "Kafka's defaults"))
      out.assumed_settings.push_back(r.entry.name);
    const Cluster cluster = read_cluster_file(base.string() + ".cluster.json", own.input_limits);
    const ParsedAssignment kafka = read_assignment_file(base.string() + ".kafka.json", cluster);
    if (!kafka.errors.empty())
      throw InputError(fmt::format("{}.kafka.json: {}", base.string(), kafka.errors.front().message));
    const LagModel lags(cluster, own.settings);
    r.kafka = compute_metrics(cluster, own.settings, lags, kafka.assignment);
    r.kafka_probing = kafka.assignment.probing_rebalance;
    for (const std::string& name : out.strategies) {
      ReplayRun run;
      run.strategy = name;
      Config config = own;
      config.fallback.reset();  // a failure is the strategy's, never hidden by another's answer
      try {
        const RunOutcome outcome = run_assignment(registry, config, cluster, name);
        run.ok = true;
        run.metrics = outcome.report.metrics;
        run.probing = outcome.report.assignment.probing_rebalance;
        run.ms = outcome.report.assign_ms;
        const AssignmentComparison diff = compare_assignments(cluster, kafka.assignment, outcome.report.assignment, 6);
        run.same_as_kafka = diff.same;
        run.differences = diff.differences;
      } catch (const AssignmentFailed& e) {
        run.failure = e.what();
      }
      r.runs.push_back(std::move(run));
    }
    out.rebalances.push_back(std::move(r));
  }
  if (options.progress) options.progress(index.size(), index.size());
  return out;
}

}  // namespace assignor::host
