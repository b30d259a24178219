// Strategy benchmarks: every plugin in the build's plugin directory (or --plugin-dir) on generated
// scale-out clusters (10% new clients, 4 threads per client, half the tasks stateful, 1 standby) at
// 1k x 10, 10k x 100, 10k x 1,000 and 100k x 1,000 tasks x clients; and the KIP-1071 refiner alone
// (refiner/<size>).
//
// The timed region is what a leader does per rebalance once the cluster state is in memory: lag
// normalisation, the strategy call, and the SDK's per-thread distribution. Validation and metrics
// run once per benchmark, outside the timed loop, and are reported as counters.
//
//   build/bench/bench_strategies --benchmark_filter='high_availability/10000x1000'
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/lags.hpp"
#include "assignor/log.hpp"
#include "assignor/metrics.hpp"
#include "assignor/refiner.hpp"
#include "assignor/scenario.hpp"
#include "assignor/threads.hpp"
#include "assignor/validation.hpp"
#include "bench_support.hpp"

namespace {

using namespace assignor;

using bench::Size;
constexpr Size kSizes[] = {{1'000, 10}, {10'000, 100}, {10'000, 1'000}, {100'000, 1'000}};

const Cluster& cluster_for(Size size) {
  return bench::generated_cluster(ScenarioKind::scale_out, size, bench::subtopologies_for(size));
}

AssignmentSettings settings() {
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  return s;
}

void run_strategy(benchmark::State& state, const host::PluginRegistry* registry, std::string name, Size size) {
  const Cluster& cluster = cluster_for(size);
  const AssignmentSettings s = settings();
  auto strategy = registry->create(name, {});
  Assignment last;
  for (auto _ : state) {
    const LagModel lags(cluster, s);
    last = strategy->assign(AssignmentInput{cluster, s, lags});
    const ThreadDistribution threads = distribute_over_threads(cluster, lags, last);
    benchmark::DoNotOptimize(threads.clients.data());
  }
  const LagModel lags(cluster, s);
  const auto errors = validate(cluster, s, last);
  if (!errors.empty()) {
    state.SkipWithError(("invalid assignment: " + errors.front().message).c_str());
    return;
  }
  const ThreadDistribution threads = distribute_over_threads(cluster, lags, last);
  const Metrics m = compute_metrics(cluster, s, lags, last, &threads);
  state.counters["tasks/s"] =
      benchmark::Counter(static_cast<double>(cluster.task_count()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["active_moves"] = static_cast<double>(m.active_moves);
  state.counters["restoring"] = static_cast<double>(m.restoring_actives);
  state.counters["warmups"] = static_cast<double>(m.warmups);
  state.counters["load_spread"] = m.active_load_spread;
  state.counters["probing"] = last.probing_rebalance ? 1 : 0;
}

// The KIP-1071 refiner alone (refiner.hpp), on its hardest input: a target that deals every task
// round-robin over the clients, so nearly every stateful active moves and must be granted, staged
// or parked. Timed: copying the target draft and refining it (the lag model is built once).
void run_refiner(benchmark::State& state, Size size) {
  const Cluster& cluster = cluster_for(size);
  const AssignmentSettings s = settings();
  const LagModel lags(cluster, s);
  AssignmentDraft target(cluster, s.num_standby_replicas);
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    target.set_active(t, static_cast<ClientIndex>((t * 7919u) % cluster.client_count()));
  RefinerResult last;
  for (auto _ : state) {
    AssignmentDraft draft = target;
    last = refine_kip1071(cluster, s, lags, draft);
    benchmark::DoNotOptimize(draft.warmup_total());
  }
  state.counters["granted"] = last.granted;
  state.counters["staged"] = last.staged;
  state.counters["warmups"] = last.warmups_placed;
}

// The minimum times below (longer at 100k tasks, where a run is noisier) are a measuring run's; a
// --benchmark_min_time flag or BENCHMARK_MIN_TIME in the environment replaces them (the docs test
// sets it: every benchmark of docs/benchmarks.md's commands runs, briefly).
bool min_time_given(int argc, char** argv) {
  if (std::getenv("BENCHMARK_MIN_TIME") != nullptr) return true;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_min_time", 20) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  assignor::set_log_level(assignor::LogLevel::error);
  const host::PluginRegistry& registry = bench::bundled_plugins(argc, argv);
  const bool default_min_time = !min_time_given(argc, argv);
  const auto timed = [&](benchmark::internal::Benchmark* b, Size size) {
    b->Unit(benchmark::kMillisecond);
    if (default_min_time) b->MinTime(size.tasks >= 100'000 ? 2.0 : 0.5);
  };
  for (const auto& plugin : registry.plugins()) {
    for (Size size : kSizes) {
      const std::string name = plugin.name + "/" + bench::label(size);
      timed(benchmark::RegisterBenchmark(name.c_str(), run_strategy, &registry, plugin.name, size), size);
    }
  }
  for (Size size : kSizes) {
    const std::string name = "refiner/" + bench::label(size);
    timed(benchmark::RegisterBenchmark(name.c_str(), run_refiner, size), size);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
