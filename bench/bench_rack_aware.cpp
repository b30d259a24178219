// Rack awareness benchmarks (KIP-925).
//
// optimizer/<set>/<scenario>/<tasks>x<clients>: the SDK optimiser alone (optimize_rack_aware) on the
//   assignment min_traffic starts from (high_availability_plus with its defaults) for a
//   generated cluster over 3 racks (4 threads per client,
//   half the tasks stateful, 1 standby). Timed: copying the draft and optimising one set of tasks.
//   Counters: the set's cross-rack partitions before and after, placements moved, flow graph size.
//   optimizer_balance/...: the same with balance_subtopology.
// strategies/<scenario>/<tasks>x<clients>: that packing and min_traffic on the same cluster;
//   counters: cross_rack_traffic of each, the reduction, and whether every client holds as many
//   actives, standbys and warmups under both (equal_counts = 1).
//
// kafka/high_availability/<rack strategy>/<tasks>x<clients> (3,000 x 40 and 10k x 100, scale-out):
//   the high_availability strategy (Kafka's HighAvailabilityTaskAssignor with Kafka's own
//   RackAwareTaskAssignor: its graphs and its cycle-cancelling min-cost flow, kafka_rack_aware.hpp)
//   with rack_aware.strategy set, the whole strategy call timed. Counters: cross-rack traffic without
//   and with rack awareness.
// kafka/flow/<rack strategy>/<set>/<tasks>x<clients>: Kafka's optimizeActiveTasks alone on the
//   stateful (traffic 10, non-overlap 1) or stateless (1, 0) actives of high_availability's
//   assignment without racks (its actives only: Kafka optimises them before placing standbys). Counters: kafka_cost
//   (Kafka's total cost after cycle cancelling), cycles cancelled, and for min_traffic lemon_cost:
//   the optimum of the same problem by the SDK's LEMON optimiser (respect_lags false, Kafka's
//   stateful set), which the cancelled flow must reach (kafka_cost == lemon_cost).
//
//   build/bench/bench_rack_aware --benchmark_filter='optimizer/.*/10000x100'
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/lags.hpp"
#include "assignor/log.hpp"
#include "assignor/metrics.hpp"
#include "assignor/rack_aware.hpp"
#include "assignor/scenario.hpp"
#include "assignor/validation.hpp"
#include "bench_support.hpp"
#include "kafka_ha/kafka_rack_aware.hpp"

namespace {

using namespace assignor;
namespace kafka = assignor::plugins::kafka_ha;  // Kafka's rack-aware steps, called directly

using bench::label;
using bench::Size;
constexpr Size kSizes[] = {{1'000, 10}, {10'000, 100}, {100'000, 1'000}};
constexpr ScenarioKind kKinds[] = {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in,
                                   ScenarioKind::rolling_restart};

const host::PluginRegistry* g_registry = nullptr;

AssignmentSettings settings() {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  return s;
}

// Over three racks.
const Cluster& cluster_for(ScenarioKind kind, Size size) {
  return bench::generated_cluster(kind, size, bench::subtopologies_for(size), 3);
}

Assignment run(const std::string& strategy, const Cluster& cluster, const AssignmentSettings& s, const LagModel& lags,
               const StrategyParams& params = {}) {
  auto instance = g_registry->create(strategy, params);
  return instance->assign(AssignmentInput{cluster, s, lags});
}

// What min_traffic packs before it optimises: high_availability_plus with its defaults (since SDK
// 0.6; before, with keep_history: false).
Assignment min_traffic_base(const Cluster& cluster, const AssignmentSettings& s, const LagModel& lags) {
  return run("high_availability_plus", cluster, s, lags);
}

AssignmentDraft to_draft(const Cluster& cluster, const AssignmentSettings& s, const Assignment& a) {
  AssignmentDraft draft(cluster, s.num_standby_replicas);
  for (const auto& p : a.actives) draft.set_active(p.task, p.client);
  for (const auto& p : a.standbys) draft.add_standby(p.task, p.client);
  for (const auto& p : a.warmups) draft.add_warmup(p.task, p.client);
  return draft;
}

void optimizer(benchmark::State& state, RackAwareTasks tasks, RackAwareStrategy strategy, ScenarioKind kind,
               Size size) {
  const Cluster& cluster = cluster_for(kind, size);
  const AssignmentSettings s = settings();
  const LagModel lags(cluster, s);
  const AssignmentDraft base = to_draft(cluster, s, min_traffic_base(cluster, s, lags));
  RackAwareOptions options;
  options.tasks = tasks;
  options.strategy = strategy;
  options.costs = tasks == RackAwareTasks::stateless_actives ? kStatelessRackCosts : kHighAvailabilityRackCosts;
  RackAwareResult r;
  for (auto _ : state) {
    AssignmentDraft draft = base;
    r = optimize_rack_aware(cluster, lags, draft, options);
    benchmark::DoNotOptimize(r.moved);
  }
  state.counters["placements"] = static_cast<double>(r.placements);
  state.counters["traffic_before"] = static_cast<double>(r.traffic_before);
  state.counters["traffic_after"] = static_cast<double>(r.traffic_after);
  state.counters["moved"] = static_cast<double>(r.moved);
  state.counters["flow_nodes"] = static_cast<double>(r.flow_nodes);
  state.counters["flow_arcs"] = static_cast<double>(r.flow_arcs);
}

std::vector<std::uint32_t> per_client(const Cluster& cluster, const std::vector<Placement>& list) {
  std::vector<std::uint32_t> counts(cluster.client_count(), 0);
  for (const auto& p : list) ++counts[p.client];
  return counts;
}

void strategies(benchmark::State& state, ScenarioKind kind, Size size) {
  const Cluster& cluster = cluster_for(kind, size);
  const AssignmentSettings s = settings();
  const LagModel lags(cluster, s);
  const Assignment ha = min_traffic_base(cluster, s, lags);
  Assignment mt;
  for (auto _ : state) {
    const LagModel fresh_lags(cluster, s);
    mt = run("min_traffic", cluster, s, fresh_lags);
    benchmark::DoNotOptimize(mt.actives.data());
  }
  if (!validate(cluster, s, mt).empty()) {
    state.SkipWithError("min_traffic returned an invalid assignment");
    return;
  }
  const Metrics mha = compute_metrics(cluster, s, lags, ha);
  const Metrics mmt = compute_metrics(cluster, s, lags, mt);
  const bool equal = per_client(cluster, ha.actives) == per_client(cluster, mt.actives) &&
                     per_client(cluster, ha.standbys) == per_client(cluster, mt.standbys) &&
                     per_client(cluster, ha.warmups) == per_client(cluster, mt.warmups);
  const double before = static_cast<double>(mha.cross_rack_traffic.value_or(0));
  const double after = static_cast<double>(mmt.cross_rack_traffic.value_or(0));
  state.counters["ha_traffic"] = before;
  state.counters["mt_traffic"] = after;
  state.counters["reduction_%"] = before > 0 ? 100.0 * (before - after) / before : 0.0;
  state.counters["equal_counts"] = equal ? 1 : 0;
  state.counters["mt_restoring"] = static_cast<double>(mmt.restoring_actives);
  state.counters["ha_moves"] = static_cast<double>(mha.active_moves);
  state.counters["mt_moves"] = static_cast<double>(mmt.active_moves);
}

AssignmentSettings kafka_settings(RackAwareStrategy strategy) {
  AssignmentSettings s = settings();
  s.rack_aware.strategy = strategy;
  return s;
}

void kafka_ha(benchmark::State& state, RackAwareStrategy strategy, Size size) {
  const Cluster& cluster = cluster_for(ScenarioKind::scale_out, size);
  const AssignmentSettings plain = settings(), racked = kafka_settings(strategy);
  const LagModel lags(cluster, plain);
  Assignment a;
  for (auto _ : state) {
    const LagModel fresh(cluster, racked);
    a = run("high_availability", cluster, racked, fresh);
    benchmark::DoNotOptimize(a.actives.data());
  }
  if (!validate(cluster, racked, a).empty()) {
    state.SkipWithError("high_availability returned an invalid assignment");
    return;
  }
  const Assignment without = run("high_availability", cluster, plain, lags);
  state.counters["traffic_without"] =
      static_cast<double>(compute_metrics(cluster, plain, lags, without).cross_rack_traffic.value_or(0));
  state.counters["traffic_with"] =
      static_cast<double>(compute_metrics(cluster, racked, lags, a).cross_rack_traffic.value_or(0));
}

void kafka_flow(benchmark::State& state, RackAwareStrategy strategy, bool stateful, Size size) {
  const Cluster& cluster = cluster_for(ScenarioKind::scale_out, size);
  const AssignmentSettings s = settings();
  const LagModel lags(cluster, s);
  // The actives alone: Kafka optimises them before any standby is placed.
  Assignment actives = run("high_availability", cluster, s, lags);
  actives.standbys.clear();
  actives.warmups.clear();
  const AssignmentDraft base = to_draft(cluster, s, actives);
  const std::vector<TaskIndex> tasks = kafka::tasks_with_changelog(cluster, stateful);
  const kafka::RackCosts costs = stateful ? kafka::RackCosts{10, 1} : kafka::kStatelessCosts;
  kafka::RackResult r;
  for (auto _ : state) {
    AssignmentDraft draft = base;
    r = kafka::optimize_actives(cluster, strategy, tasks, costs, draft);
    benchmark::DoNotOptimize(r.cost);
  }
  state.counters["tasks"] = static_cast<double>(tasks.size());
  state.counters["kafka_cost"] = static_cast<double>(r.cost);
  state.counters["cycles"] = static_cast<double>(r.cycles);
  state.counters["moved"] = static_cast<double>(r.moved);
  if (strategy == RackAwareStrategy::min_traffic) {
    AssignmentDraft draft = base;
    RackAwareOptions options;
    options.tasks = stateful ? RackAwareTasks::stateful_actives : RackAwareTasks::stateless_actives;
    options.costs = {costs.traffic, costs.non_overlap};
    options.respect_lags = false;
    options.stateful_means_logged = true;
    const RackAwareResult lemon = optimize_rack_aware(cluster, lags, draft, options);
    state.counters["lemon_cost"] = static_cast<double>(lemon.cost_after);
    if (lemon.cost_after != r.cost) state.SkipWithError("Kafka's flow and the LEMON optimum differ in total cost");
  }
}

}  // namespace

int main(int argc, char** argv) {
  assignor::set_log_level(assignor::LogLevel::error);
  g_registry = &bench::bundled_plugins(argc, argv);
  const std::pair<const char*, RackAwareTasks> sets[] = {{"stateful_actives", RackAwareTasks::stateful_actives},
                                                         {"stateless_actives", RackAwareTasks::stateless_actives},
                                                         {"standbys", RackAwareTasks::standbys}};
  for (Size size : kSizes) {
    for (ScenarioKind kind : kKinds) {
      const std::string scenario(to_string(kind));
      for (const auto& [set_name, set] : sets) {
        benchmark::RegisterBenchmark(
            ("optimizer/" + std::string(set_name) + "/" + scenario + "/" + label(size)).c_str(), optimizer, set,
            RackAwareStrategy::min_traffic, kind, size)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(
            ("optimizer_balance/" + std::string(set_name) + "/" + scenario + "/" + label(size)).c_str(), optimizer, set,
            RackAwareStrategy::balance_subtopology, kind, size)
            ->Unit(benchmark::kMillisecond);
      }
      benchmark::RegisterBenchmark(("strategies/" + scenario + "/" + label(size)).c_str(), strategies, kind, size)
          ->Unit(benchmark::kMillisecond);
    }
  }
  const std::pair<const char*, RackAwareStrategy> kafka_strategies[] = {
      {"min_traffic", RackAwareStrategy::min_traffic}, {"balance_subtopology", RackAwareStrategy::balance_subtopology}};
  for (Size size : {Size{3'000, 40}, Size{10'000, 100}}) {
    for (const auto& [name, strategy] : kafka_strategies) {
      benchmark::RegisterBenchmark(("kafka/high_availability/" + std::string(name) + "/" + label(size)).c_str(),
                                   kafka_ha, strategy, size)
          ->Unit(benchmark::kMillisecond);
      for (bool stateful : {true, false})
        benchmark::RegisterBenchmark(
            ("kafka/flow/" + std::string(name) + (stateful ? "/stateful/" : "/stateless/") + label(size)).c_str(),
            kafka_flow, strategy, stateful, size)
            ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
