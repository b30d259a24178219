// `assignor generate`: a deterministic cluster file (DESIGN 4.1, JSON) from a handful of numbers, for
// trying strategies, benchmarks and bug reports. The generator itself is the SDK's
// (assignor/scenario.hpp); docs/generation.md specifies it byte for byte.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/scenario.hpp"
#include "commands.hpp"

namespace assignor::cli {

namespace {

// What generate writes, assign and simulate must be able to read: a file past the readers' default
// limits (limits.* of DESIGN 4.2) is refused here, naming the option and the limit, rather than
// written for the next command to refuse.
void refuse_beyond_read_limits(const Cluster& cluster) {
  const host::InputLimits limits;
  std::uint64_t total_threads = 0, most_threads = 0;
  for (const Client& c : cluster.clients) {
    total_threads += c.threads;
    most_threads = std::max<std::uint64_t>(most_threads, c.threads);
  }
  auto refuse = [](std::string_view what, std::uint64_t value, std::string_view key, std::uint64_t limit) {
    throw InputError(fmt::format("{} would be {}; assign and simulate read at most {} ({} in their config)", what,
                                 value, limit, key));
  };
  if (cluster.client_count() > limits.max_clients)
    refuse("--clients: the clients", cluster.client_count(), "limits.max_clients", limits.max_clients);
  if (most_threads > limits.max_threads_per_client)
    refuse("--threads: a client's threads", most_threads, "limits.max_threads_per_client",
           limits.max_threads_per_client);
  if (total_threads > limits.max_total_threads)
    refuse("--clients x --threads: the threads of all clients", total_threads, "limits.max_total_threads",
           limits.max_total_threads);
  if (cluster.task_count() > limits.max_tasks)
    refuse("--subtopologies x --partitions: the tasks", cluster.task_count(), "limits.max_tasks", limits.max_tasks);
}

}  // namespace

namespace {

constexpr const char* kScenarioHelp = R"(Scenarios (the history written into the file):
  fresh            nobody has anything: no previous assignment, no offset sums.
  scale-out        about 10% of the --clients (at least one) are new and empty; the others hold a
                   balanced previous assignment, run their actives (offset sum -2) and hold
                   --standbys copies of each logged task, slightly behind (lag 0..5000, one in ten
                   10001..50000).
  scale-in         the file has --clients clients, but the previous assignment was made over about
                   10% more that have left: their tasks have no live previous owner, and the
                   standby copies of those tasks on the remaining clients are caught up.
  rolling-restart  one client came back from a restart: no previous tasks, but offset sums for the
                   tasks it held, slightly behind (lag 0..5000).

round(S x --stateful-fraction) of the sub-topologies are stateful, spread evenly over 0..S-1; each
has 1 or 2 stores with changelog end offsets in 10000..1000000 (none logged for a share
--nonlogged-fraction of them). With --racks R, client i
is in rack-(i mod R) and each task's input partition has replicas in 2 of the R racks (all if R < 3).
With --weights zipf, the partitions of each sub-topology are ranked by a seeded shuffle and the one of
rank k weighs round(1000 / k) / 100, at least 0.01 (10, 5, 3.33, 2.5, ...): a skewed load for the
weighted strategy; uniform (the default) writes no weights (every task weighs 1).
--new-clients D (scale-out) and --leaving-clients D (scale-in) say how many clients changed
instead of ~10%; --threads LO-HI draws each client's thread count; --changelog-offsets MIN-MAX the
end offsets; --events-out FILE --restart-every-ms X --down-ms Y also writes the events of a rolling
restart of every client (one every X ms, each down Y ms) for `assignor simulate --events`.
The same arguments give the same bytes on every platform (algorithm: docs/generation.md).

Examples:
  assignor generate --clients 12 --threads 2 --subtopologies 4 --partitions 8 --scenario scale-out
  assignor generate --clients 16 --threads 4 --subtopologies 3 --partitions 32 --stateful-fraction 0.67 \
      --scenario scale-out --new-clients 4          # 12 -> 16 instances
  assignor generate --clients 8 --threads 1-6 --subtopologies 4 --partitions 16 --scenario fresh \
      --events-out restarts.yaml --restart-every-ms 180000 --down-ms 60000
)";

// "T" or "LO-HI" (integers, LO <= HI): a value or a range of values.
std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_range(const std::string& text) {
  auto number = [](std::string_view t, std::uint64_t& out) {
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return !t.empty() && ec == std::errc{} && ptr == t.data() + t.size();
  };
  const auto dash = text.find('-');
  std::uint64_t lo = 0, hi = 0;
  if (dash == std::string::npos) {
    if (!number(text, lo)) return std::nullopt;
    return std::pair{lo, lo};
  }
  if (!number(std::string_view(text).substr(0, dash), lo) || !number(std::string_view(text).substr(dash + 1), hi) ||
      hi < lo)
    return std::nullopt;
  return std::pair{lo, hi};
}

// The events of a rolling restart of every client of the file, in name order, one every
// `every_ms` (the first at every_ms), each down for `down_ms`.
std::string rolling_restart_events(const Cluster& cluster, std::int64_t every_ms, std::int64_t down_ms) {
  std::string out = fmt::format(
      "# a rolling restart: every client in name order, one every {} ms, each down for {} ms\n"
      "events:\n",
      every_ms, down_ms);
  for (std::size_t i = 0; i < cluster.client_count(); ++i)
    out += fmt::format("  - {{at_ms: {}, restart: {{id: \"{}\", down_ms: {}}}}}\n",
                       every_ms * static_cast<std::int64_t>(i + 1), cluster.clients[i].id, down_ms);
  return out;
}

std::optional<std::uint64_t> parse_seed(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

Command add_generate(CLI::App& parent, const Globals& globals) {
  struct Options {
    ScenarioSpec spec;
    std::string scenario = "fresh";
    std::string weights = "uniform";
    std::string seed = "1";
    std::string output;
    bool end_offsets_unknown = false;
    std::string threads = "1";
    std::string changelog_offsets = "10000-1000000";
    std::optional<std::uint32_t> new_clients, leaving_clients;
    std::string events_out;
    std::optional<std::int64_t> restart_every_ms, down_ms;
    std::vector<std::string> tags;
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand("generate", "Write a generated cluster file (JSON); same arguments, same bytes");
  app->footer(kScenarioHelp);
  app->add_option("--clients", o->spec.clients, "Clients in the file (N)")
      ->required()
      ->check(CLI::Range(std::uint32_t{1}, kMaxScenarioClients));
  app->add_option("--threads", o->threads, "Threads of every client (T), or a range LO-HI drawn per client (1-6)")
      ->required()
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            const auto r = parse_range(text);
            return r && r->first >= 1 && r->second <= kMaxScenarioThreads
                       ? ""
                       : fmt::format("expected a thread count or a range LO-HI within 1 .. {}, got '{}'",
                                     kMaxScenarioThreads, text);
          },
          "T|LO-HI"));
  app->add_option(
         "--new-clients", o->new_clients,
         "scale-out: how many of the --clients are new (default ~10%): --clients 16 --new-clients 4 is 12 -> 16")
      ->check(CLI::Range(std::uint32_t{1}, kMaxScenarioClients));
  app->add_option("--leaving-clients", o->leaving_clients,
                  "scale-in: how many clients left the previous assignment (default ~10%)")
      ->check(CLI::Range(std::uint32_t{1}, kMaxScenarioClients));
  app->add_option("--changelog-offsets", o->changelog_offsets,
                  "Range MIN-MAX of each logged store's changelog end offset (default 10000-1000000)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            const auto r = parse_range(text);
            return r && r->second <= (std::uint64_t{1} << 50)
                       ? ""
                       : "expected MIN-MAX offsets (MIN <= MAX <= 2^50), got '" + text + "'";
          },
          "MIN-MAX"));
  app->add_option(
      "--events-out", o->events_out,
      "Also write the events of a rolling restart of every client here (with --restart-every-ms, --down-ms)");
  app->add_option("--restart-every-ms", o->restart_every_ms, "With --events-out: one restart every this many ms")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app->add_option("--down-ms", o->down_ms, "With --events-out: how long each restarted client is down")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  app->add_option("--subtopologies", o->spec.subtopologies, "Sub-topologies (S): tasks are s_p for s < S")
      ->required()
      ->check(CLI::Range(std::uint32_t{1}, kMaxScenarioSubtopologies));
  app->add_option("--partitions", o->spec.partitions, "Partitions per sub-topology (P): tasks are s_p for p < P")
      ->required()
      ->check(CLI::Range(std::uint32_t{1}, kMaxScenarioPartitions));
  app->add_option("--stateful-fraction", o->spec.stateful_fraction,
                  "Fraction of sub-topologies with state stores (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--nonlogged-fraction", o->spec.nonlogged_fraction,
                  "Fraction of the stateful sub-topologies whose stores are not logged (default 0)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--standbys", o->spec.standbys,
                  "Standby copies per logged task in the previous assignment (default 1)")
      ->check(CLI::Range(std::uint32_t{0}, kMaxScenarioStandbys));
  app->add_option("--racks", o->spec.racks, "Racks for clients and partition replicas (default 0: none)")
      ->check(CLI::Range(std::uint32_t{0}, kMaxScenarioRacks));
  app->add_option("--tags", o->tags,
                  "Client tags KEY=N[,KEY=N...]: client i gets KEY-<v>, the values of the keys covering every "
                  "combination (first key fastest), for rack_aware.tags")
      ->delimiter(',')
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            const auto eq = text.find('=');
            std::uint32_t n = 0;
            const char* end = text.data() + text.size();
            if (eq == std::string::npos || eq == 0 || std::from_chars(text.data() + eq + 1, end, n).ptr != end ||
                eq + 1 == text.size() || n < 1)
              return "expected KEY=N with N >= 1 (e.g. zone=3), got '" + text + "'";
            return "";
          },
          "KEY=N"));
  app->add_option("--scenario", o->scenario, "fresh | scale-out | scale-in | rolling-restart (default fresh)")
      ->check(CLI::IsMember({"fresh", "scale-out", "scale-in", "rolling-restart"}));
  app->add_option("--weights", o->weights,
                  "Task weights: uniform (all 1; default) | zipf (skewed within each sub-topology)")
      ->check(CLI::IsMember({"uniform", "zipf"}));
  // Parsed here rather than by CLI11, which accepts -1 and wraps values past 2^64 - 1 silently.
  app->add_option("--seed", o->seed, "Seed of the generator, 0 .. 2^64-1 (default 1)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            return parse_seed(text) ? "" : "expected an integer in 0 .. 18446744073709551615, got '" + text + "'";
          },
          "UINT64"));
  app->add_flag("--end-offsets-unknown", o->end_offsets_unknown,
                "Write end_offsets_known: false (the leader could not fetch end offsets)");
  app->add_option("--output", o->output, "Write the file here instead of stdout");
  return {app, [o, &globals] {
            apply_log_level(globals, nullptr);
            ScenarioSpec spec = o->spec;
            const auto threads = *parse_range(o->threads);  // checked by the validator above
            spec.threads = static_cast<std::uint32_t>(threads.first);
            spec.threads_max = threads.second > threads.first ? static_cast<std::uint32_t>(threads.second) : 0;
            const auto offsets = *parse_range(o->changelog_offsets);
            spec.min_end_offset = static_cast<std::int64_t>(offsets.first);
            spec.max_end_offset = static_cast<std::int64_t>(offsets.second);
            spec.kind = *parse_scenario_kind(o->scenario);  // checked by IsMember above
            for (const auto& t : o->tags) {                 // checked by the validator above
              const auto eq = t.find('=');
              std::uint32_t n = 0;
              std::from_chars(t.data() + eq + 1, t.data() + t.size(), n);
              spec.tags.emplace_back(t.substr(0, eq), n);
            }
            if (o->new_clients && spec.kind != ScenarioKind::scale_out)
              throw InputError("--new-clients: only with --scenario scale-out");
            if (o->leaving_clients && spec.kind != ScenarioKind::scale_in)
              throw InputError("--leaving-clients: only with --scenario scale-in");
            if (o->new_clients) spec.changed_clients = o->new_clients;
            if (o->leaving_clients) spec.changed_clients = o->leaving_clients;
            if (o->events_out.empty() != (!o->restart_every_ms && !o->down_ms) ||
                o->restart_every_ms.has_value() != o->down_ms.has_value())
              throw InputError(
                  "--events-out, --restart-every-ms and --down-ms go together (the events of a rolling restart)");
            refuse_overwriting_inputs({{"--output", o->output}, {"--events-out", o->events_out}}, {});
            spec.weights = *parse_weight_distribution(o->weights);  // likewise
            spec.end_offsets_known = !o->end_offsets_unknown;
            spec.seed = *parse_seed(o->seed);  // checked by the validator above
            // The tasks the spec fixes, before anything is built (--clients and --threads are bounded by
            // their options); the threads of all clients, drawn per client, after.
            const host::InputLimits limits;
            if (std::uint64_t{spec.subtopologies} * spec.partitions > limits.max_tasks)
              throw InputError(
                  fmt::format("--subtopologies x --partitions: {} tasks; assign and simulate read at "
                              "most {} (limits.max_tasks in their config)",
                              std::uint64_t{spec.subtopologies} * spec.partitions, limits.max_tasks));
            const Cluster cluster = generate_cluster(spec);
            refuse_beyond_read_limits(cluster);
            write_output(host::cluster_to_json(cluster), o->output);
            if (!o->events_out.empty())
              write_output(rolling_restart_events(cluster, *o->restart_every_ms, *o->down_ms), o->events_out);
            return static_cast<int>(kOk);
          }};
}

}  // namespace assignor::cli
