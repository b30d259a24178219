// `assignor replay`: every strategy on every rebalance a real group logged, next to Kafka's
// decision there (DESIGN 4.7).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/import/importer.hpp"
#include "assignor/host/report/progress.hpp"
#include "assignor/host/report/replay_output.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/support/temporary_files.hpp"
#include "commands.hpp"

namespace assignor::cli {

namespace {

constexpr const char* kReplayHelp = R"(
INPUT is a directory written by `assignor import kafka-log` (its index.json), or the log files
themselves (imported on the way, as `import kafka-log` would; --streams-config as there).
For every rebalance, in time order, each strategy runs on the group's real state with the
settings Kafka had then (or --config's), and is scored by the same metrics as Kafka's actual
decision. The output ends with how often each strategy gave exactly Kafka's decision (the same
actives, the same standby and warmup copies on each client, the same probing decision), and the
first differences where it did not. Failed runs are listed; the exit status is 4 if any failed.

With --in-time, the group's real timeline (when each rebalance happened; which processes joined,
left, came back or restarted; how fast copies restored; the settings, said when assumed) is
played forward in the simulator under Kafka's protocol, from rebalance --from (default the
first): once with the strategy Kafka ran (the calibration run: its rebalances and time to
converged should be the log's) and once per other strategy (the same events at the same times).

Examples:
  assignor replay app.log --streams-config app.properties
  assignor replay imported --strategies high_availability,least_movement --report replay.html
  assignor replay imported --format csv > replay.csv
  assignor replay imported --in-time --strategies least_movement,streams_sticky --report in-time.html
)";

}  // namespace

Command add_replay(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::vector<std::string> inputs, strategies, plugin_paths;
    std::string config, format = "table", report, output, streams_config;
    bool in_time = false;
    std::optional<std::string> from;
    std::optional<std::uint32_t> max_rounds;
    unsigned jobs = 0;
    std::uint64_t max_line_mb = 32, max_file_mb = 1024;
  };
  auto o = std::make_shared<Options>();
  auto* app =
      parent.add_subcommand("replay", "Run strategies on every rebalance a real group logged, beside Kafka's decision");
  app->footer(kReplayHelp);
  app->add_option("INPUT", o->inputs, "An import directory (index.json), or Kafka Streams log files")->required();
  app->add_option("--config", o->config, "Use this config's settings instead of each rebalance's own")
      ->check(input_file());
  add_plugin_path_option(app, o->plugin_paths);
  app->add_option("--strategies", o->strategies, "Strategies to replay, comma-separated (default: every loaded plugin)")
      ->delimiter(',');
  app->add_option("--format", o->format, "Output format (default table)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  app->add_option("--report", o->report, "Also write an HTML report with a timeline to this file");
  app->add_option("--output", o->output, "Write the result here instead of stdout");
  auto* in_time = app->add_flag("--in-time", o->in_time,
                                "Play the real timeline forward in the simulator: Kafka's strategy (calibration) and "
                                "each other one, the same events at the same times (DESIGN 4.10)");
  app->add_option("--from", o->from, "With --in-time: the rebalance to start from (default the first)")->needs(in_time);
  app->add_option("--max-rounds", o->max_rounds,
                  "With --in-time: stop each run after this many rebalances (default 1000, or 10 per logged rebalance)")
      ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{1000000}))
      ->needs(in_time);
  app->add_option("--jobs", o->jobs, "With --in-time: worker processes for the runs (default 0: every core)")
      ->check(CLI::Range(0u, 1024u))
      ->needs(in_time);
  app->add_option("--streams-config", o->streams_config,
                  "When INPUT are logs: the application's Kafka Streams properties file")
      ->check(input_file());
  app->add_option("--max-line-mb", o->max_line_mb,
                  "When INPUT are logs: as import kafka-log --max-line-mb (default 32)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  app->add_option("--max-file-mb", o->max_file_mb,
                  "When INPUT are logs: as import kafka-log --max-file-mb (default 1024)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  return {
      app, [o, &globals] {
        std::optional<host::Config> config;
        if (!o->config.empty()) config = host::read_config_file(o->config);
        apply_log_level(globals, config ? &*config : nullptr);
        NamedPaths inputs;
        for (const auto& i : o->inputs) inputs.push_back({"INPUT", i});
        if (!o->config.empty()) inputs.push_back({"--config", o->config});
        refuse_overwriting_inputs({{"--output", o->output}, {"--report", o->report}}, inputs);

        namespace fs = std::filesystem;
        std::error_code ec;
        fs::path dir;
        // Logs are imported into a temporary directory, removed when the command ends however it
        // ends (an error, SIGINT, SIGTERM, SIGHUP: support/temporary_files.hpp).
        host::TemporaryPath scratch;
        if (o->inputs.size() == 1 && fs::is_directory(o->inputs[0], ec)) {
          dir = o->inputs[0];
          if (!o->streams_config.empty())
            throw InputError(
                "--streams-config applies when INPUT are logs; an import directory carries its settings "
                "(or give --config)");
        } else {
          for (const auto& i : o->inputs)
            if (const std::string problem = host::detail::input_path_problem(i); !problem.empty())
              throw InputError(
                  fmt::format("INPUT {}: neither an import directory nor a log file: {}", host::printable(i), problem));
          std::string pattern = (fs::temp_directory_path() / "assignor-replay-XXXXXX").string();
          if (::mkdtemp(pattern.data()) == nullptr)
            throw InputError("cannot create a temporary directory for the import");
          scratch = host::TemporaryPath(pattern, host::TemporaryPath::Kind::directory);
          dir = scratch.path();
          host::ImportOptions import;
          import.logs = o->inputs;
          import.output_dir = dir;
          import.max_line_bytes = o->max_line_mb << 20;
          import.max_file_bytes = o->max_file_mb << 20;
          if (!o->streams_config.empty()) import.streams_config = o->streams_config;
          host::PluginRegistry bundled;  // only high_availability is opened (kafka_replayer)
          load_plugins(bundled, nullptr, {}, PluginLoading::on_demand);
          import.replay_kafka = kafka_replayer(bundled);
          const host::ImportResult imported = host::import_kafka_logs(import);
          if (imported.rebalances.empty())
            throw InputError("no rebalance imported from the logs: no line 'Decided on assignment: ...' could be read");
        }
        const auto index = host::read_import_index(dir);
        if (index.empty()) throw InputError(fmt::format("{}: the import holds no rebalance", dir.string()));

        host::PluginRegistry registry;
        load_plugins(registry, config ? &*config : nullptr, o->plugin_paths);
        host::ProgressLine progress(std::cerr, isatty(STDERR_FILENO) != 0);
        if (o->in_time) {
          host::InTimeOptions options;
          options.from = o->from;
          options.strategies = o->strategies;
          options.config = config;
          options.max_rounds = o->max_rounds;
          options.jobs = o->jobs;
          options.progress = [&progress](std::size_t done, std::size_t total) {
            progress.update(fmt::format("replay --in-time: {}/{} runs done", done, total));
          };
          const host::InTimeReplay result = host::replay_in_time(registry, dir, index, options);
          progress.finish();
          write_result(result, {host::in_time_table, host::in_time_json, host::in_time_csv, host::in_time_html},
                       o->format, o->output, o->report);
          std::size_t failed = 0;
          for (const auto& run : result.runs) failed += run.error.empty() ? 0 : 1;
          return exit_after_failures(failed, fmt::format("{} run{} failed", failed, failed == 1 ? "" : "s"));
        }
        host::ReplayOptions options;
        options.strategies = o->strategies;
        options.config = config;
        options.progress = [&progress](std::size_t done, std::size_t total) {
          progress.update(fmt::format("replay: rebalance {}/{}", done, total));
        };
        const host::Replay result = host::replay_rebalances(registry, dir, index, options);
        progress.finish();
        write_result(result, {host::replay_table, host::replay_json, host::replay_csv, host::replay_html}, o->format,
                     o->output, o->report);
        std::size_t failed = 0;
        for (const auto& r : result.rebalances)
          for (const auto& run : r.runs) failed += run.ok ? 0 : 1;
        return exit_after_failures(failed, fmt::format("{} strategy run{} failed or returned an invalid assignment",
                                                       failed, failed == 1 ? "" : "s"));
      }};
}

}  // namespace assignor::cli
