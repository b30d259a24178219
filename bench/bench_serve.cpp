// The resident worker (`assignor serve`, DESIGN 4.9): what one rebalance costs a bridge that keeps
// a worker, against starting `assignor assign` per rebalance.
//
// request/<tasks>: one `assign` request to a running `assignor serve` and its answer, through its
// pipes (framing, the cluster document read, high_availability with lags, validation, metrics, the
// output JSON written), on a generated scale-out (100 tasks per client, 4 threads, 1 standby).
// Counters: strategy_ms, the answer's own assign_ms (the rest of the time is the overhead), and
// worker_cpu_ms, the CPU time (user + system) the worker spent per request, read from
// /proc/<pid>/stat around the timed loop: it does not grow with other work on the machine, as the
// wall time does.
// process/<tasks>: the same cluster through a new `assignor assign --cluster -` process each time.
//
//   build/bin/bench_serve --benchmark_filter=request/1000
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/process/frames.hpp"
#include "assignor/scenario.hpp"

extern char** environ;

namespace {

using namespace assignor;

std::string cluster_text(std::uint32_t tasks) {
  ScenarioSpec spec;
  spec.kind = ScenarioKind::scale_out;
  spec.clients = tasks / 100;
  spec.threads = 4;
  spec.subtopologies = 10;
  spec.partitions = tasks / spec.subtopologies;
  spec.stateful_fraction = 0.5;
  spec.standbys = 1;
  spec.seed = 7;
  return host::cluster_to_json(generate_cluster(spec));
}

std::filesystem::path config_file() {
  const auto path = std::filesystem::temp_directory_path() / fmt::format("assignor-bench-serve-{}.yaml", ::getpid());
  std::ofstream(path)
      << "strategy: high_availability\nassignment: {num_standby_replicas: 1}\nlogging: {level: error}\n";
  return path;
}

// `assignor ARGS...` with its stdin and stdout on pipes.
struct Child {
  pid_t pid = -1;
  int in = -1;   // its stdin
  int out = -1;  // its stdout
};

Child start(const std::vector<std::string>& args) {
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from[1], STDOUT_FILENO);
  std::vector<char*> argv;
  std::string command = ASSIGNOR_COMMAND;
  argv.push_back(command.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  Child c;
  if (posix_spawn(&c.pid, command.c_str(), &actions, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("spawn " + command);
  posix_spawn_file_actions_destroy(&actions);
  ::close(to[0]);
  ::close(from[1]);
  c.in = to[1];
  c.out = from[0];
  return c;
}

void finish(Child& c) {
  if (c.in >= 0) ::close(c.in);
  ::waitpid(c.pid, nullptr, 0);
  ::close(c.out);
}

// User + system CPU time of a process so far, in milliseconds (/proc/<pid>/stat, fields 14 and 15).
double cpu_ms(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) throw std::runtime_error("cannot read /proc/<pid>/stat");
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i >= 14) ticks += std::stod(field);
  return ticks * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double answer_assign_ms(const std::string& json) { return nlohmann::json::parse(json).at("assign_ms").get<double>(); }

void request(benchmark::State& state) {
  const auto tasks = static_cast<std::uint32_t>(state.range(0));
  const std::string frame = host::process::encode_frame({"assign"}, cluster_text(tasks));
  const auto config = config_file();
  Child worker = start({"serve", "--config", config.string()});
  host::process::FrameReader reader;
  double strategy_ms = 0;
  char chunk[1 << 16];
  // One request untimed first: the worker's start and first request (plugin load, first touches of
  // memory) are not what a bridge pays per rebalance.
  host::process::write_all(worker.in, frame);
  while (!reader.next()) {
    const ssize_t n = ::read(worker.out, chunk, sizeof chunk);
    if (n <= 0) throw std::runtime_error("the worker has gone");
    reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
  }
  const double cpu_before = cpu_ms(worker.pid);
  for (auto _ : state) {
    if (!host::process::write_all(worker.in, frame)) throw std::runtime_error("the worker has gone");
    std::optional<host::process::Frame> answer;
    while (!(answer = reader.next())) {
      const ssize_t n = ::read(worker.out, chunk, sizeof chunk);
      if (n <= 0) throw std::runtime_error("the worker has gone");
      reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
    }
    if (answer->kind() != "ok") throw std::runtime_error("the worker answered " + answer->kind());
    strategy_ms += answer_assign_ms(answer->payload);
  }
  const double worker_cpu = cpu_ms(worker.pid) - cpu_before;
  finish(worker);
  std::filesystem::remove(config);
  state.counters["strategy_ms"] = strategy_ms / static_cast<double>(state.iterations());
  state.counters["worker_cpu_ms"] = worker_cpu / static_cast<double>(state.iterations());
}

void process(benchmark::State& state) {
  const auto tasks = static_cast<std::uint32_t>(state.range(0));
  const std::string cluster = cluster_text(tasks);
  const auto config = config_file();
  double strategy_ms = 0;
  char chunk[1 << 16];
  for (auto _ : state) {
    Child c = start({"assign", "--config", config.string(), "--cluster", "-"});
    host::process::write_all(c.in, cluster);
    ::close(c.in);
    c.in = -1;
    std::string out;
    for (ssize_t n; (n = ::read(c.out, chunk, sizeof chunk)) > 0;) out.append(chunk, static_cast<std::size_t>(n));
    finish(c);
    strategy_ms += answer_assign_ms(out);
  }
  std::filesystem::remove(config);
  state.counters["strategy_ms"] = strategy_ms / static_cast<double>(state.iterations());
}

}  // namespace

BENCHMARK(request)->Name("request")->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(process)->Name("process")->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
