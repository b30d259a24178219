// `assignor simulate` (DESIGN 4.6): rounds of assignment, catch-up and events until the group
// converges or --max-rounds; JSON Lines on stdout (one per round, then a summary), progress and
// logs on stderr, optionally an HTML report of the convergence curves.
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/report/progress.hpp"
#include "assignor/host/report/simulation_output.hpp"
#include "assignor/scenario.hpp"
#include "commands.hpp"

namespace assignor::cli {

namespace {

constexpr const char* kSimulateHelp =
    R"(Round k: run the strategy on the cluster state, apply the assignment, let every task a client
holds catch up (by --catch-up offsets, or at --restore-rate offsets per second until the next
rebalance), add --new-data offsets to every changelog, then apply the events of round k.
Time: a rebalance costs --rebalance-ms; the next one follows at once after events or after an
assignment that revoked a running task (Kafka's follow-up rebalance), else after the probing interval
asked for; a client that stops without leaving the group is noticed after --session-timeout-ms. Each round line has at_ms; the summary has time_to_balanced_ms,
time_to_converged_ms and, with a restore rate, restoring_task_ms (task-time actives spent restoring). The run ends when a round needs no probing rebalance, is balanced (active and
per-thread loads at most one task apart) and no event is still to come (converged), when an
unbalanced assignment repeats without probing (stalled), or after --max-rounds.

Events file (YAML):
  events:
    - {round: 1, join: {id: c9, threads: 2, rack: r1}}
    - {round: 3, leave: c1}
    - {round: 4, restart: {id: c2, keep_state: false}}

Example:
  assignor simulate --config examples/config.yaml --cluster examples/scenarios/steady.json \
      --events examples/events/add-node.yaml --report simulate.html

Output, convergence rule and events: docs/compare-and-simulate.md
)";

std::optional<std::int64_t> parse_offsets(const std::string& text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end || value < 0) return std::nullopt;
  return value;
}

}  // namespace

Command add_simulate(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::string config, cluster, strategy, events, catch_up = "full", new_data = "0", report, output, final_state;
    std::uint32_t max_rounds = 1000;
    std::optional<std::int64_t> restore_rate, rebalance_ms, session_timeout_ms;
    std::optional<std::string> protocol;
    std::vector<std::string> plugin_paths;
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand(
      "simulate", "Simulate rebalances (catch-up, new data, clients joining and leaving) until convergence");
  app->footer(kSimulateHelp);
  app->add_option("--config", o->config, "Config file (YAML)")->required()->check(input_file());
  add_plugin_path_option(app, o->plugin_paths);
  app->add_option("--cluster", o->cluster, "Cluster file (YAML or JSON): the state before round 1")
      ->required()
      ->check(input_file());
  app->add_option("--strategy", o->strategy, "Strategy to run (default: the config's strategy)");
  app->add_option("--max-rounds", o->max_rounds, "Stop after this many rounds (default 1000)")
      ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{1000000}));
  app->add_option("--events", o->events, "Events file (YAML): clients joining, leaving, restarting")
      ->check(input_file());
  const auto offsets = CLI::Validator(
      [](const std::string& text) -> std::string {
        return parse_offsets(text) ? "" : "expected a number of offsets >= 0, got '" + text + "'";
      },
      "OFFSETS");
  auto* catch_up =
      app->add_option(
             "--catch-up", o->catch_up,
             "Offsets each task held catches up per round: a number, or 'full' (the default without a restore rate)")
          ->check(CLI::Validator(
              [](const std::string& text) -> std::string {
                return text == "full" || parse_offsets(text)
                           ? ""
                           : "expected 'full' or a number of offsets >= 0, got '" + text + "'";
              },
              "OFFSETS|full"));
  app->add_option(
         "--restore-rate", o->restore_rate,
         "Offsets per second each copy restores: catch up in time (default: the config's simulation.restore_rate)")
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()))
      ->excludes(catch_up);
  app->add_option("--rebalance-ms", o->rebalance_ms,
                  "What one rebalance costs, in ms (default: the config's simulation.rebalance_ms, else 0)")
      ->check(CLI::Range(std::int64_t{0}, host::kMaxRebalanceMs));
  app->add_option("--protocol", o->protocol,
                  "kafka: Kafka's protocol in time (follow-up rebalances after revocations, session timeouts, wiped "
                  "restarts as new processes; the default), or rounds (default: the config's simulation.protocol)")
      ->check(CLI::IsMember({"kafka", "rounds"}));
  app->add_option("--session-timeout-ms", o->session_timeout_ms,
                  "When a client that stopped without leaving the group is noticed (default: the config's "
                  "simulation.session_timeout_ms, else Kafka's 45000)")
      ->check(CLI::Range(std::int64_t{1}, host::kMaxRebalanceMs));
  app->add_option("--new-data", o->new_data, "Offsets appended to every changelog per round (default 0)")
      ->check(offsets);
  app->add_option("--report", o->report, "Also write an HTML report of the convergence curves to this file");
  app->add_option("--output", o->output, "Write the JSON lines here instead of stdout");
  app->add_option("--final-state", o->final_state,
                  "Write the group's state after the last round as a cluster file (JSON), to start another run from");
  return {
      app, [o, &globals, catch_up] {
        refuse_overwriting_inputs({{"--output", o->output}, {"--report", o->report}, {"--final-state", o->final_state}},
                                  {{"--config", o->config}, {"--cluster", o->cluster}, {"--events", o->events}});
        const host::Config config = host::read_config_file(o->config);
        apply_log_level(globals, &config);
        Cluster cluster = host::read_cluster_file(o->cluster);
        host::SimulationOptions options = host::simulation_options(config);
        if (!o->events.empty()) options.events = host::read_events_file(o->events, config.input_limits);
        host::PluginRegistry registry;
        load_plugins(registry, &config, o->plugin_paths);
        options.strategy = o->strategy;
        options.max_rounds = o->max_rounds;
        if (o->catch_up != "full") options.catch_up = parse_offsets(o->catch_up);
        // Time or rounds: --restore-rate, else --catch-up, else the config's rate, else full per round.
        options.restore_rate.reset();
        if (o->restore_rate)
          options.restore_rate = o->restore_rate;
        else if (catch_up->count() == 0)
          options.restore_rate = config.simulation.restore_rate;
        options.rebalance_ms = o->rebalance_ms.value_or(config.simulation.rebalance_ms);
        if (o->protocol) options.protocol = *o->protocol == "rounds" ? host::Protocol::rounds : host::Protocol::kafka;
        if (o->session_timeout_ms) options.session_timeout_ms = *o->session_timeout_ms;
        options.new_data = *parse_offsets(o->new_data);

        Output out(o->output);
        host::ProgressLine progress(std::cerr, isatty(STDERR_FILENO) != 0);
        const auto started = std::chrono::steady_clock::now();
        options.on_round = [&](const host::SimulationRound& r) {
          out.write(nlohmann::ordered_json(r).dump() + '\n');
          progress.update(host::simulation_progress(r, options.max_rounds, std::chrono::steady_clock::now() - started));
        };
        const host::SimulationResult result = host::simulate(registry, config, std::move(cluster), options);
        progress.finish();
        out.write(nlohmann::ordered_json(result.summary).dump() + '\n');
        out.close();

        if (!o->report.empty()) {
          std::vector<std::string> context{
              fmt::format("Cluster: {}; config: {}; strategy: {}", o->cluster, o->config, result.summary.strategy),
              fmt::format(
                  "Catch-up: {}; rebalance cost: {} ms; new data per round: {} offsets per changelog; events: {}",
                  options.restore_rate ? fmt::format("{} offsets/s per copy", *options.restore_rate)
                  : options.catch_up   ? fmt::format("{} offsets per round", *options.catch_up)
                                       : "full per round",
                  options.rebalance_ms, options.new_data, o->events.empty() ? "none" : o->events),
              options.protocol == host::Protocol::kafka
                  ? fmt::format("Protocol: Kafka's (follow-up rebalances after revocations, session timeout {} ms)",
                                options.session_timeout_ms)
                  : std::string("Protocol: rounds only (no follow-up rebalances, no session timeout)")};
          write_output(host::simulation_html(result, context), o->report);
        }
        if (!o->final_state.empty()) write_output(host::cluster_to_json(result.final_state), o->final_state);
        return static_cast<int>(kOk);
      }};
}

}  // namespace assignor::cli
