// The readers on large and hostile inputs, at two sizes each, so that docs/benchmarks.md can show
// how parse time grows (10x the input should cost about 10x the time). The tests
// (tests/host/test_limits.cpp, test_cluster_reader.cpp) read the same kinds of input and check
// only the result: no test asserts on time.
//
//   build/bin/bench_readers
//
// rack_list/N: one partition listing N racks (YAML), a list that once made the reader quadratic.
// previous_by_thread/N: a client with N previous actives and the same N in previous_by_thread.
// cluster_json/N: a generated-like JSON cluster of N tasks over 100 clients (strict JSON: simdjson).
#include <benchmark/benchmark.h>

#include <string>

#include <fmt/format.h>

#include "assignor/host/cluster_reader.hpp"

namespace {

using namespace assignor;

std::string rack_list(int n) {
  std::string text = "tasks:\n  - id: 0_0\n    partitions:\n      - topic: t\n        partition: 0\n        racks: [";
  for (int i = 0; i < n; ++i) text += fmt::format("{}r{}", i ? ", " : "", i);
  return text + "]\nclients: [{id: c, threads: 1}]\n";
}

std::string previous_by_thread(int n) {
  std::string text = "tasks:\n";
  for (int i = 0; i < n; ++i) text += fmt::format("  - {{id: 0_{}}}\n", i);
  std::string list;
  for (int i = 0; i < n; ++i) list += fmt::format("{}0_{}", i ? ", " : "", i);
  return text + fmt::format("clients:\n  - id: c\n    threads: 1\n    previous_active: [{}]\n"
                            "    previous_by_thread: {{t0: {{active: [{}]}}}}\n",
                            list, list);
}

std::string cluster_json(int tasks) {
  constexpr int kClients = 100;
  std::string text = "{\"version\": 1, \"tasks\": [\n";
  for (int t = 0; t < tasks; ++t)
    text += fmt::format("{{\"id\": \"{}_{}\", \"stores\": [{{\"name\": \"s\", \"changelog_end_offset\": {}}}]}}{}\n",
                        t / 1000, t % 1000, 1000 + t, t + 1 < tasks ? "," : "");
  text += "], \"clients\": [\n";
  for (int c = 0; c < kClients; ++c) {
    std::string active;
    for (int t = c; t < tasks; t += kClients)
      active += fmt::format("{}\"{}_{}\"", active.empty() ? "" : ", ", t / 1000, t % 1000);
    text += fmt::format("{{\"id\": \"client-{}\", \"threads\": 4, \"previous_active\": [{}]}}{}\n", c, active,
                        c + 1 < kClients ? "," : "");
  }
  return text + "]}\n";
}

template <std::string (*make)(int), const char* kName>
void read(benchmark::State& state) {
  const std::string text = make(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Cluster cluster = host::parse_cluster(text, kName);
    benchmark::DoNotOptimize(cluster.tasks.data());
  }
  state.counters["bytes"] = static_cast<double>(text.size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

constexpr char kYaml[] = "c.yaml";
constexpr char kJson[] = "c.json";

BENCHMARK(read<rack_list, kYaml>)->Name("rack_list")->Arg(20'000)->Arg(200'000)->Unit(benchmark::kMillisecond);
BENCHMARK(read<previous_by_thread, kYaml>)->Name("previous_by_thread")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(read<cluster_json, kJson>)->Name("cluster_json")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
