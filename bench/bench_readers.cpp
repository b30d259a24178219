// The readers on large and hostile inputs, at two sizes each, so that docs/benchmarks.md can show
// how parse time grows (10x the input should cost about 10x the time). The tests
// (tests/host/test_limits.cpp, test_cluster_reader.cpp) read the same kinds of input and check
// only the result: no test asserts on time.
//
//   build/bin/bench_readers
//
// rack_list/N: one partition listing N racks (YAML), a list that once made the reader quadratic.
// previous_by_thread/N: a client with N previous actives and the same N in previous_by_thread.
// store_list/N: one task with N stores (repeated names are found by hashing past a few).
// cluster_json/N: a generated-like JSON cluster of N tasks over 100 clients (strict JSON: the cluster
//   reader's fast path, simdjson's on-demand parser straight into the model; the text is copied
//   once into a padded buffer, as parse_cluster does for any text it cannot parse in place).
// import_log/MB: `assignor import kafka-log` on a generated log of MB megabytes (Kafka client and
//   application chatter, a Decided line of a 100-client, 1,000-task group every 4 MB), to a
//   scratch directory: throughput (bytes_per_second) and, in docs/benchmarks.md, the command's
//   peak memory at 64 MB and 1 GB (it reads in one pass: the largest line, not the file).
// decided_line/N: find, parse and rebuild one Decided line of N tasks over N/10 clients.
// end_to_end/N: what `assignor assign --cluster FILE` does with a generated scale-out file of N
//   tasks over N/100 clients (100 sub-topologies, 4 threads per client, 1 standby, seed 1):
//   read the file, run Kafka's high_availability (lags, validation, thread split, metrics), write
//   the JSON. Counters: the file's bytes and each part's share (read_ms, run_ms, write_ms).
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/import/importer.hpp"
#include "assignor/host/import/kafka_log.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/log.hpp"
#include "assignor/scenario.hpp"

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
  return text + fmt::format(
                    "clients:\n  - id: c\n    threads: 1\n    previous_active: [{}]\n"
                    "    previous_by_thread: {{t0: {{active: [{}]}}}}\n",
                    list, list);
}

std::string store_list(int n) {
  std::string stores;
  for (int i = 0; i < n; ++i) stores += fmt::format("{}{{name: s{}, logged: false}}", i ? ", " : "", i);
  return fmt::format("tasks: [{{id: 0_0, stores: [{}]}}]\nclients: [{{id: c, threads: 1}}]\n", stores);
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
BENCHMARK(read<previous_by_thread, kYaml>)
    ->Name("previous_by_thread")
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(read<store_list, kYaml>)->Name("store_list")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(read<cluster_json, kJson>)->Name("cluster_json")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

void end_to_end(benchmark::State& state) {
  const auto tasks = static_cast<std::uint32_t>(state.range(0));
  ScenarioSpec spec;
  spec.kind = ScenarioKind::scale_out;
  spec.clients = tasks / 100;
  spec.threads = 4;
  spec.subtopologies = 100;
  spec.partitions = tasks / 100;
  spec.standbys = 1;
  spec.seed = 1;
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / fmt::format("assignor-bench-{}-{}.json", ::getpid(), tasks);
  std::ofstream(path) << host::cluster_to_json(generate_cluster(spec));
  set_log_level(LogLevel::error);
  host::PluginRegistry registry;
  registry.load_directory(ASSIGNOR_PLUGIN_DIR, host::PluginOrigin::bundled);
  host::Config config;
  config.strategy = "high_availability";
  config.settings.num_standby_replicas = 1;
  using Clock = std::chrono::steady_clock;
  double read_ms = 0, run_ms = 0, write_ms = 0;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const Cluster cluster = host::read_cluster_file(path);
    const auto t1 = Clock::now();
    const host::RunOutcome outcome = host::run_assignment(registry, config, cluster, config.strategy);
    const auto t2 = Clock::now();
    const std::string json = host::assignment_json(cluster, outcome.report);
    benchmark::DoNotOptimize(json.data());
    const auto t3 = Clock::now();
    read_ms += ms(t1 - t0);
    run_ms += ms(t2 - t1);
    write_ms += ms(t3 - t2);
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["bytes"] = static_cast<double>(std::filesystem::file_size(path));
  state.counters["read_ms"] = read_ms / n;
  state.counters["run_ms"] = run_ms / n;
  state.counters["write_ms"] = write_ms / n;
  std::filesystem::remove(path);
}

BENCHMARK(end_to_end)->Name("end_to_end")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

// A Decided line as Kafka 3.2+ prints it: `tasks` logged tasks over `clients` clients, each
// running its share and holding a standby of the next client's.
std::string decided_line(int tasks, int clients, int salt) {
  std::string line = "[2026-11-20 09:20:02,771] INFO Decided on assignment: {";
  for (int c = 0; c < clients; ++c) {
    std::string active, standby, offsets, lags;
    for (int t = 0; t < tasks; ++t) {
      const std::string id = fmt::format("{}_{}", t / 100, t % 100);
      const bool runs = t % clients == c, copy = (t + 1) % clients == c;
      if (runs) active += (active.empty() ? "" : ", ") + id;
      if (copy) standby += (standby.empty() ? "" : ", ") + id;
      const int end = 100000 + t * 7 + salt;
      if (runs) offsets += (offsets.empty() ? "" : ", ") + id + "=-2";
      if (copy) offsets += (offsets.empty() ? "" : ", ") + fmt::format("{}={}", id, end - 50);
      lags += (lags.empty() ? "" : ", ") + (runs ? id + "=-2" : fmt::format("{}={}", id, copy ? 50 : end));
    }
    line += fmt::format(
        "{}{:08x}-0000-4000-8000-{:012x}=[activeTasks: ([{}]) standbyTasks: ([{}]) prevActiveTasks: "
        "([{}]) prevStandbyTasks: ([{}]) changelogOffsetTotalsByTask: ([{}]) taskLagTotals: ([{}]) "
        "clientTags: ([]) capacity: 4 assigned: 0]",
        c ? ", " : "", c * 2654435761u, c, active, standby, active, standby, offsets, lags);
  }
  return line +
         "} with no followup probing rebalance. "
         "(org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor)\n";
}

void decided_line_parse(benchmark::State& state) {
  const int tasks = static_cast<int>(state.range(0));
  const std::string line = decided_line(tasks, tasks / 10, 0);
  for (auto _ : state) {
    const auto found = host::find_decided_line(line);
    const auto parsed = host::parse_decided_message(found->message);
    const auto rebuilt = host::reconstruct(*parsed.rebalance, AssignmentSettings{}, true);
    benchmark::DoNotOptimize(rebuilt.cluster.task_count());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(line.size()));
  state.counters["line_bytes"] = static_cast<double>(line.size());
}
BENCHMARK(decided_line_parse)->Name("decided_line")->Arg(1'000)->Arg(10'000)->Unit(benchmark::kMillisecond);

void import_log(benchmark::State& state) {
  namespace fs = std::filesystem;
  const std::uint64_t bytes = static_cast<std::uint64_t>(state.range(0)) << 20;
  const fs::path dir = fs::temp_directory_path() / fmt::format("assignor-bench-import-{}", ::getpid());
  fs::create_directories(dir);
  const fs::path log = dir / "app.log";
  {
    std::ofstream out(log);
    std::uint64_t written = 0, next_rebalance = 0;
    int salt = 0, line = 0;
    while (written < bytes) {
      std::string text;
      if (written >= next_rebalance) {
        text = decided_line(1000, 100, salt++);
        next_rebalance += std::uint64_t{4} << 20;
      } else {
        text = fmt::format(
            "[2026-11-20 09:{:02}:{:02},{:03}] INFO [Consumer clientId=orders-app-a126df22-663b-4d36-"
            "86c1-f8f7e8f7cafb-StreamThread-{}-consumer, groupId=orders-app] Committed offsets for "
            "partition orders-{} at offset {} (org.apache.kafka.clients.consumer.internals."
            "ConsumerCoordinator)\n",
            (line / 60) % 60, line % 60, line % 1000, line % 4 + 1, line % 32, 100000 + line);
        ++line;
      }
      out << text;
      written += text.size();
    }
  }
  set_log_level(LogLevel::error);
  for (auto _ : state) {
    host::ImportOptions options;
    options.logs = {log.string()};
    options.output_dir = dir / "out";
    const host::ImportResult result = host::import_kafka_logs(options);
    benchmark::DoNotOptimize(result.rebalances.size());
    state.counters["rebalances"] = static_cast<double>(result.rebalances.size());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(fs::file_size(log)));
  fs::remove_all(dir);
}
BENCHMARK(import_log)->Name("import_log")->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
