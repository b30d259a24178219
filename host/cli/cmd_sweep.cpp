// `assignor sweep`: every combination of settings simulated on every scenario, in parallel, with a
// recommendation (DESIGN 4.8).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/report/progress.hpp"
#include "assignor/host/report/sweep_output.hpp"
#include "assignor/host/support/printable.hpp"
#include "commands.hpp"

namespace assignor::cli {

namespace {

constexpr const char* kSweepHelp = R"(
Every combination of the --vary values (KEY a dotted path from the config's root, e.g.
assignment.max_warmup_replicas, assignment.rack_aware.strategy, strategies.least_movement.balance,
simulation.restore_rate, strategy), and of --strategies, simulated on every scenario until it
converges (or --max-rounds). The output opens with the recommendation: per scenario and over all,
the combinations no other beats on time to converged, restoring task-time and under-replicated
task-time at once (a run that never converged counts as infinitely slow).

Runs use every core (--jobs); the result is the same for any number of jobs. For more than one
machine: `--shard K/N --format json --output shard-K.json` runs the K-th of N deterministic slices,
and `--merge DIR` turns the shards' JSON files into the output of one unsharded run (given the
sweep's --config, scenarios and --vary, every shard is checked to be of that sweep).

Examples:
  assignor sweep --config examples/config.yaml --cluster examples/scenarios/scale-out.json \
      --vary assignment.max_warmup_replicas=1,2,4,8 --strategies high_availability,least_movement,streams_sticky \
      --report sweep.html
  # the same sweep in 4 slices (one per machine or process), then merged into one result
  mkdir -p shards
  for k in 1 2 3 4; do assignor sweep --config examples/config.yaml --cluster examples/scenarios/scale-out.json \
      --vary assignment.max_warmup_replicas=1,2,4,8 --shard $k/4 --format json --output shards/$k.json; done
  assignor sweep --config examples/config.yaml --cluster examples/scenarios/scale-out.json \
      --vary assignment.max_warmup_replicas=1,2,4,8 --merge shards --report sweep.html
)";

}  // namespace

Command add_sweep(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::string config, cluster, scenarios, events, format = "table", report, output, shard, merge;
    std::vector<std::string> vary, strategies, plugin_paths;
    unsigned jobs = 0;
    std::uint32_t max_rounds = 1000;
  };
  auto o = std::make_shared<Options>();
  auto* app =
      parent.add_subcommand("sweep", "Simulate every combination of settings on every scenario, and recommend one");
  app->footer(kSweepHelp);
  app->add_option("--config", o->config, "The base config (YAML)")->required()->check(input_file());
  add_plugin_path_option(app, o->plugin_paths);
  auto* cluster = app->add_option("--cluster", o->cluster, "One cluster file")->check(input_file());
  auto* scenarios =
      app->add_option("--scenarios", o->scenarios, "A directory of cluster files")->check(CLI::ExistingDirectory);
  cluster->excludes(scenarios);
  app->add_option("--vary", o->vary, "KEY=V1,V2,... (repeatable): the values to try for one config key")->take_all();
  app->add_option("--strategies", o->strategies, "Strategies to try, comma-separated (the axis `strategy`)")
      ->delimiter(',');
  app->add_option("--events", o->events, "Events file for every simulation (YAML)")->check(input_file());
  app->add_option("--max-rounds", o->max_rounds, "Stop each simulation after this many rounds (default 1000)")
      ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{1000000}));
  app->add_option("--jobs", o->jobs, "Worker processes (default 0: every core)")->check(CLI::Range(0u, 1024u));
  app->add_option("--format", o->format, "Output format (default table)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  app->add_option("--report", o->report, "Also write an HTML report to this file");
  app->add_option("--output", o->output, "Write the result here instead of stdout");
  auto* shard = app->add_option("--shard", o->shard, "Run only the K-th of N deterministic slices (K/N)");
  auto* merge = app->add_option("--merge", o->merge, "Merge the shards' JSON files in this directory")
                    ->check(CLI::ExistingDirectory);
  shard->excludes(merge);
  return {app, [o, &globals] {
            const host::Config base = host::read_config_file(o->config);
            apply_log_level(globals, &base);
            refuse_overwriting_inputs({{"--output", o->output}, {"--report", o->report}},
                                      {{"--config", o->config}, {"--cluster", o->cluster}, {"--events", o->events}});
            host::Sweep result;
            // The sweep the options describe (axes, scenarios, events, rounds): what it runs, and
            // what --merge checks the shards against.
            auto spec_of_options = [&] {
              host::SweepSpec spec;
              spec.config_path = o->config;
              for (const auto& v : o->vary) {
                const auto eq = v.find('=');
                if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
                  throw InputError(fmt::format("--vary {}: expected KEY=V1,V2,...", v));
                host::SweepAxis axis{v.substr(0, eq), {}};
                std::size_t pos = eq + 1;
                while (pos <= v.size()) {
                  const std::size_t comma = std::min(v.find(',', pos), v.size());
                  if (comma == pos) throw InputError(fmt::format("--vary {}: an empty value", v));
                  axis.values.push_back(v.substr(pos, comma - pos));
                  pos = comma + 1;
                }
                spec.axes.push_back(std::move(axis));
              }
              if (!o->strategies.empty()) {
                for (const auto& a : spec.axes)
                  if (a.key == "strategy") throw InputError("--strategies and --vary strategy=...: give one of them");
                spec.axes.push_back({"strategy", o->strategies});
              }
              spec.scenarios = o->cluster.empty()
                                   ? host::scenarios_in_directory(o->scenarios)
                                   : std::vector<host::CompareScenario>{host::scenario_from_file(o->cluster)};
              if (!o->events.empty()) {
                spec.events = host::read_events_file(o->events, base.input_limits);
                spec.events_source =
                    host::detail::read_text_file(host::detail::source_name(o->events), o->events, "events file");
              }
              spec.max_rounds = o->max_rounds;
              return spec;
            };
            if (!o->merge.empty()) {
              // Every *.json of the directory is a shard: one that cannot be read (a dangling link,
              // a loop, a FIFO, a directory) is an error naming it, never skipped.
              std::vector<host::Sweep> parts;
              std::vector<std::filesystem::path> files;
              std::error_code ec;
              for (const auto& e : std::filesystem::directory_iterator(o->merge, ec))
                if (e.path().extension() == ".json") files.push_back(e.path());
              if (ec)
                throw InputError(fmt::format("--merge {}: cannot list the directory: {}", o->merge, ec.message()));
              std::sort(files.begin(), files.end());
              for (const auto& f : files) {
                const std::string name = host::printable(f.string());
                if (const std::string problem = host::detail::regular_file_problem(f); !problem.empty())
                  throw InputError(fmt::format("--merge: {}: cannot read this shard: {}", name, problem));
                parts.push_back(host::read_sweep_json(host::detail::read_text_file(name, f, "shard"), name));
              }
              // Given the sweep (its scenarios, at least), every shard must be of that sweep.
              std::optional<host::Sweep> expected;
              if (!o->cluster.empty() || !o->scenarios.empty()) expected = host::sweep_plan(spec_of_options());
              result = host::merge_sweeps(parts, expected);
            } else {
              if (o->cluster.empty() && o->scenarios.empty())
                throw InputError("sweep: give the scenarios with --cluster FILE or --scenarios DIR");
              host::SweepSpec spec = spec_of_options();
              host::SweepOptions options;
              options.jobs = o->jobs;
              if (!o->shard.empty()) {
                host::SweepShard s;
                char slash = 0;
                std::istringstream in(o->shard);
                if (!(in >> s.index >> slash >> s.count) || slash != '/' || !in.eof() || s.count == 0 || s.index < 1 ||
                    s.index > s.count)
                  throw InputError(fmt::format("--shard {}: expected K/N with 1 <= K <= N", o->shard));
                options.shard = s;
              }
              host::PluginRegistry registry;
              load_plugins(registry, &base, o->plugin_paths);
              host::ProgressLine progress(std::cerr, isatty(STDERR_FILENO) != 0);
              options.progress = [&progress](std::size_t done, std::size_t total) {
                progress.update(fmt::format("sweep: {}/{} simulations", done, total));
              };
              result = host::run_sweep(registry, spec, options);
              progress.finish();
            }
            write_result(result, {host::sweep_table, host::sweep_output_json, host::sweep_csv, host::sweep_html},
                         o->format, o->output, o->report);
            std::size_t failed = 0;
            for (const auto& r : result.runs) failed += r.summary ? 0 : 1;
            return exit_after_failures(failed, fmt::format("{} simulation{} failed", failed, failed == 1 ? "" : "s"));
          }};
}

}  // namespace assignor::cli
