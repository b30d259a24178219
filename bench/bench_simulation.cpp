// Simulation benchmarks: what one simulated round costs (the strategy through run_assignment: lags,
// strategy, thread split, validation, metrics; then applying the assignment, catching up, the
// balance and convergence rules), which is what makes sweeps cheap or dear.
//
// round/<strategy>/<tasks>x<clients>: a generated scale-out (10% new clients, 4 threads, half the
// tasks stateful, 1 standby, 2 warmups), simulated for kRounds rounds with copies catching up fully
// (the state changes every round, as in a real run) under Kafka's protocol (the default: follow-up
// rebalances count as rounds); the counter ms_per_round is the figure. rounds_only/...: the same
// with --protocol rounds, for the protocol's own cost.
//
//   build/bin/bench_simulation --benchmark_filter='round/high_availability/10000x100'
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include <fmt/format.h>
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/tools/simulation.hpp"

#include "assignor/host/support/logging.hpp"
#include "assignor/scenario.hpp"
#include "bench_support.hpp"

namespace {

using namespace assignor;

constexpr std::uint32_t kRounds = 20;

using bench::Size;
constexpr Size kSizes[] = {{1'000, 10}, {10'000, 100}, {100'000, 1'000}};

// Ten sub-topologies at every size (the rounds' cost grows with the tasks, not their grouping).
const Cluster& cluster_for(Size size) { return bench::generated_cluster(ScenarioKind::scale_out, size, 10); }

void simulate_rounds(benchmark::State& state, const host::PluginRegistry* registry, std::string strategy, Size size,
                     host::Protocol protocol) {
  const Cluster& start = cluster_for(size);
  host::Config config;
  config.strategy = strategy;
  config.settings.num_standby_replicas = 1;
  config.settings.max_warmup_replicas = 2;
  host::SimulationOptions options;
  options.max_rounds = kRounds;
  options.protocol = protocol;
  std::uint64_t rounds = 0;
  double ms = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const host::SimulationResult r = host::simulate(*registry, config, start, options);
    ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rounds += r.summary.rounds;
    benchmark::DoNotOptimize(r.summary.active_moves);
  }
  state.counters["rounds"] = static_cast<double>(rounds) / static_cast<double>(state.iterations());
  state.counters["ms_per_round"] = rounds ? ms / static_cast<double>(rounds) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  host::set_log_level(spdlog::level::err);  // stalls and the round limit would warn on every iteration
  const host::PluginRegistry& registry = bench::bundled_plugins(argc, argv);
  for (const char* name : {"high_availability", "least_movement", "streams_sticky"}) {
    for (const Size& size : kSizes) {
      const std::string label = fmt::format("round/{}/{}x{}", name, size.tasks, size.clients);
      auto* b = benchmark::RegisterBenchmark(label.c_str(), simulate_rounds, &registry, std::string(name), size,
                                             host::Protocol::kafka);
      b->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
      if (size.tasks >= 100'000) b->Iterations(1);
    }
  }
  const std::string rounds_label = "rounds_only/high_availability/10000x100";
  benchmark::RegisterBenchmark(rounds_label.c_str(), simulate_rounds, &registry, std::string("high_availability"),
                               Size{10'000, 100}, host::Protocol::rounds)
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime()
      ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
