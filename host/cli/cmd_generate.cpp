// `assignor generate`: a deterministic cluster file (DESIGN 4.1, JSON) from a handful of numbers, for
// trying strategies, benchmarks and bug reports. The generator itself is the SDK's
// (assignor/scenario.hpp); docs/generation.md specifies it byte for byte.
#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/scenario.hpp"
#include "commands.hpp"

namespace assignor::cli {

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
The same arguments give the same bytes on every platform (algorithm: docs/generation.md).

Example:
  assignor generate --clients 12 --threads 2 --subtopologies 4 --partitions 8 --scenario scale-out
)";

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
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand("generate", "Write a generated cluster file (JSON); same arguments, same bytes");
  app->footer(kScenarioHelp);
  app->add_option("--clients", o->spec.clients, "Clients in the file (N)")
      ->required()
      ->check(CLI::Range(std::uint32_t{1}, kMaxScenarioClients));
  app->add_option("--threads", o->spec.threads, "Threads of every client (T)")
      ->required()
      ->check(CLI::Range(std::uint32_t{1}, kMaxScenarioThreads));
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
            spec.kind = *parse_scenario_kind(o->scenario);  // checked by IsMember above
            spec.weights = *parse_weight_distribution(o->weights);  // likewise
            spec.end_offsets_known = !o->end_offsets_unknown;
            spec.seed = *parse_seed(o->seed);  // checked by the validator above
            write_output(host::cluster_to_json(generate_cluster(spec)), o->output);
            return static_cast<int>(kOk);
          }};
}

}  // namespace assignor::cli
