// `assignor compare`: several strategies on one cluster file or a directory of them; a table, JSON
// or CSV of validity, metrics, probing and timings, and optionally an HTML report with charts.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/report/compare_output.hpp"
#include "assignor/host/report/progress.hpp"
#include "assignor/host/tools/simulation.hpp"
#include "commands.hpp"

namespace assignor::cli {

namespace {

constexpr const char* kCompareHelp =
    R"(Every strategy runs on every scenario without a fallback: a strategy that throws or returns
an invalid assignment is shown as such in its row (with the reason below the table) and the
others still run; the exit status is then 4. assign_ms is the strategy call plus lag
normalisation, as in `assignor assign`: the median of --runs runs, with the fastest and slowest.

Examples:
  assignor compare --config examples/config.yaml --scenarios examples/scenarios
  assignor compare --config examples/config.yaml --cluster big.json --strategies high_availability,sticky --format csv
  assignor compare --config examples/config.yaml --scenarios examples/scenarios --report compare.html
  assignor compare --config examples/config.yaml --scenarios examples/scenarios --report compare.html --chart max_subtopology_skew
  assignor compare --config examples/config.yaml --cluster examples/scenarios/steady.json \
      --simulate examples/events/add-node.yaml --restore-rate 1000 --strategies high_availability,streams_sticky

--simulate [EVENTS] also plays each strategy's rebalances from each scenario, as `assignor simulate`
does (the events apply to every scenario; without a file, none), and tables rounds, time to
balanced and to converged, moves, warmups and restoring task-time per strategy.

Columns and formats: docs/compare-and-simulate.md
)";

}  // namespace

Command add_compare(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::string config, cluster, scenarios, format = "table", report, output;
    std::vector<std::string> strategies, charts, plugin_paths;
    std::uint32_t runs = 5;
    std::optional<std::string> simulate;
    std::optional<std::int64_t> restore_rate, rebalance_ms, session_timeout_ms;
    std::optional<std::string> protocol;
    std::int64_t new_data = 0;
    std::uint32_t max_rounds = 1000;
    unsigned jobs = 0;
  };
  auto o = std::make_shared<Options>();
  auto* app =
      parent.add_subcommand("compare", "Run several strategies on the same clusters and compare quality and speed");
  app->footer(kCompareHelp);
  app->add_option("--config", o->config, "Config file (YAML): settings and plugin paths")
      ->required()
      ->check(input_file());
  add_plugin_path_option(app, o->plugin_paths);
  auto* cluster_option =
      app->add_option("--cluster", o->cluster, "One cluster file (YAML or JSON)")->check(input_file());
  auto* scenarios_option =
      app->add_option("--scenarios", o->scenarios, "A directory of cluster files (*.yaml, *.yml, *.json)")
          ->check(CLI::ExistingDirectory);
  cluster_option->excludes(scenarios_option);
  app->add_option("--strategies", o->strategies,
                  "Strategies to compare, comma-separated (default: every loaded plugin)")
      ->delimiter(',');
  app->add_option("--format", o->format, "Output format (default table)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  app->add_option("--runs", o->runs, "Timed runs per strategy and scenario (default 5)")
      ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{1000}));
  app->add_option("--report", o->report, "Also write an HTML report with charts to this file");
  app->add_option("--jobs", o->jobs,
                  "Worker processes for the (scenario, strategy) pairs (default 0: every core; 1: no workers, the "
                  "steadiest timings)")
      ->check(CLI::Range(0u, 1024u));
  app->add_option("--chart", o->charts,
                  "More metrics to chart in the --report, comma-separated, or all (any column of the table)")
      ->delimiter(',');
  app->add_option("--output", o->output, "Write the result here instead of stdout");
  auto* simulate = app->add_option("--simulate", o->simulate,
                                   "Also simulate each strategy to convergence, with this events file (optional)")
                       ->expected(0, 1)
                       ->check(CLI::Validator(
                           [](const std::string& path) -> std::string {
                             return path.empty() || path == "-" ? "" : CLI::ExistingFile(path);
                           },
                           "[EVENTS]"));
  app->add_option(
         "--restore-rate", o->restore_rate,
         "With --simulate: offsets per second each copy restores (default: the config's simulation.restore_rate; "
         "none: full catch-up per round)")
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()))
      ->needs(simulate);
  app->add_option("--rebalance-ms", o->rebalance_ms,
                  "With --simulate: what one rebalance costs (default: the config's simulation.rebalance_ms, else 0)")
      ->check(CLI::Range(std::int64_t{0}, host::kMaxRebalanceMs))
      ->needs(simulate);
  app->add_option("--protocol", o->protocol,
                  "With --simulate: kafka (follow-up rebalances, session timeouts: the default) or rounds (default: "
                  "the config's simulation.protocol)")
      ->check(CLI::IsMember({"kafka", "rounds"}))
      ->needs(simulate);
  app->add_option("--session-timeout-ms", o->session_timeout_ms,
                  "With --simulate: when a client that stopped without leaving is noticed (default: the config's "
                  "simulation.session_timeout_ms, else 45000)")
      ->check(CLI::Range(std::int64_t{1}, host::kMaxRebalanceMs))
      ->needs(simulate);
  app->add_option(
         "--new-data", o->new_data,
         "With --simulate: offsets appended to every changelog per round (default 0), as simulate's --new-data")
      ->check(CLI::Range(std::int64_t{0}, std::numeric_limits<std::int64_t>::max()))
      ->needs(simulate);
  app->add_option("--max-rounds", o->max_rounds,
                  "With --simulate: stop each simulation after this many rounds (default 1000)")
      ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{1000000}))
      ->needs(simulate);
  return {app, [o, &globals] {
            if (o->cluster.empty() && o->scenarios.empty())
              throw InputError("compare: give the clusters to compare with --cluster FILE or --scenarios DIR");
            if (!o->charts.empty() && o->report.empty())
              throw InputError("compare: --chart draws into the HTML report: give --report FILE too");
            const std::vector<std::string> charts = host::check_chart_names(o->charts);
            const host::Config config = host::read_config_file(o->config);
            apply_log_level(globals, &config);
            host::PluginRegistry registry;
            load_plugins(registry, &config, o->plugin_paths);
            const std::vector<host::CompareScenario> scenarios =
                o->cluster.empty() ? host::scenarios_in_directory(o->scenarios)
                                   : std::vector<host::CompareScenario>{host::scenario_from_file(o->cluster)};
            NamedPaths inputs{{"--config", o->config}};
            for (const auto& s : scenarios)
              inputs.push_back({o->cluster.empty() ? "--scenarios" : "--cluster", s.source});
            if (o->simulate && !o->simulate->empty()) inputs.push_back({"--simulate", *o->simulate});
            refuse_overwriting_inputs({{"--output", o->output}, {"--report", o->report}}, inputs);

            host::ProgressLine progress(std::cerr, isatty(STDERR_FILENO) != 0);
            host::CompareOptions options;
            options.strategies = o->strategies;
            options.runs = o->runs;
            options.jobs = o->jobs;
            if (o->simulate) {
              host::SimulationOptions simulation = host::simulation_options(config);
              if (!o->simulate->empty()) simulation.events = host::read_events_file(*o->simulate, config.input_limits);
              if (o->restore_rate) simulation.restore_rate = o->restore_rate;
              if (o->rebalance_ms) simulation.rebalance_ms = *o->rebalance_ms;
              if (o->protocol)
                simulation.protocol = *o->protocol == "rounds" ? host::Protocol::rounds : host::Protocol::kafka;
              if (o->session_timeout_ms) simulation.session_timeout_ms = *o->session_timeout_ms;
              simulation.max_rounds = o->max_rounds;
              simulation.new_data = o->new_data;
              options.simulation = std::move(simulation);
            }
            options.on_progress = [&progress](const std::string& scenario, const std::string& strategy,
                                              std::size_t index, std::size_t total) {
              progress.update(fmt::format("compare: {} on {} ({}/{})", strategy, scenario, index + 1, total));
            };
            const host::Comparison result = host::compare_strategies(registry, config, scenarios, options);
            progress.finish();

            write_result(result,
                         {host::compare_table, host::compare_json, host::compare_csv,
                          [&charts](const host::Comparison& c) { return host::compare_html(c, charts); }},
                         o->format, o->output, o->report);

            std::size_t failed = 0, total = 0;
            for (const auto& s : result.scenarios)
              for (const auto& r : s.rows) {
                ++total;
                failed += r.status == host::CompareStatus::ok && r.simulation_error.empty() ? 0 : 1;
              }
            return exit_after_failures(
                failed, fmt::format("{} of {} strategy runs failed or returned an invalid assignment", failed, total));
          }};
}

}  // namespace assignor::cli
