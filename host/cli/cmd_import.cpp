// `assignor import`: real groups in (DESIGN 4.7). `import kafka-log` turns the rebalances a Kafka
// Streams leader logged into cluster files, configs and Kafka's decisions; `import streams-group`
// turns a KIP-1071 group description into a cluster file.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "assignor/errors.hpp"
#include "assignor/host/import/importer.hpp"
#include "assignor/host/import/streams_group.hpp"
#include "assignor/host/report/progress.hpp"
#include "assignor/host/support/printable.hpp"
#include "commands.hpp"

namespace assignor::cli {

namespace {

constexpr const char* kKafkaLogHelp = R"(
Every rebalance the group leader logged ("Decided on assignment: ..." from Kafka's
HighAvailabilityTaskAssignor, Kafka 2.6 on, at INFO) becomes three files in DIR, in time order:
  rebalance-0001.cluster.json   the input: clients = process ids, threads, previous tasks, lags
  rebalance-0001.config.yaml    Kafka's settings then (--streams-config, the log's StreamsConfig
                                dump, else Kafka's defaults: said on stderr)
  rebalance-0001.kafka.json     what Kafka decided, as an assignment
and index.json lists them. Logs in any common layout (log4j, Spring Boot/logback, JSON lines,
container prefixes), plain or gzip, several files (several instances: only the leader logs the
line); '-' reads standard input. A line that cannot be read fully is a warning naming file:line.
Exit 2 when nothing was imported, and for a log that cannot be read whole (a damaged or truncated
.gz, more than --max-file-mb): then nothing is imported. DIR must be new or empty (--replace
replaces a previous import there, once this one has succeeded).

Examples:
  assignor import kafka-log app-*.log --output-dir imported --streams-config app.properties
  assignor replay imported --strategies high_availability,least_movement --report replay.html
Import rules, what is recovered and what is lost: docs/formats.md ("Importing a real group").
)";

constexpr const char* kStreamsGroupHelp = R"(
FILE is what `kafka-streams-groups.sh --describe --group G --members --verbose` printed (Kafka 4.1+,
KIP-1071 streams groups). Each process becomes a client, each of its members a thread named by its
member id (previous_by_thread), its current tasks the previous ones. The output has no lags: give
--offsets (a YAML or JSON file: end_offsets: {"0_0": 1200}, offset_sums: {<process>: {"0_0": 1100}})
or every copy is assumed caught up (said on stderr).
)";

}  // namespace

Command add_import(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::vector<std::string> logs;
    std::string output_dir, streams_config, group_file, offsets;
    bool replace = false;
    std::uint64_t max_line_mb = 32, max_file_mb = 1024;
  };
  auto o = std::make_shared<Options>();
  auto* app =
      parent.add_subcommand("import", "Import a real group: the rebalances Kafka Streams logged, or a KIP-1071 group");
  app->require_subcommand(1);
  auto* log = app->add_subcommand(
      "kafka-log", "Every rebalance a Kafka Streams leader logged, as cluster files and Kafka's decisions");
  log->footer(kKafkaLogHelp);
  log->add_option("LOG", o->logs, "Log files (plain or .gz; - for standard input)")->required()->check(input_file());
  log->add_option("--output-dir", o->output_dir,
                  "Directory for the files and index.json (created if missing; refused if it holds anything, "
                  "unless --replace)")
      ->required();
  log->add_flag("--replace", o->replace,
                "Replace the previous import in --output-dir (its rebalance-* files and index.json; only once this "
                "import has succeeded)");
  log->add_option("--max-line-mb", o->max_line_mb,
                  "Longest line read, in MiB (default 32); a longer Decided line is a warning, not imported")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  log->add_option("--max-file-mb", o->max_file_mb,
                  "Most text read from one log, in MiB once decompressed (default 1024); more is an error")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  log->add_option("--streams-config", o->streams_config,
                  "The application's Kafka Streams properties file (num.standby.replicas, max.warmup.replicas, ...)")
      ->check(input_file());
  auto* group = app->add_subcommand("streams-group", "A KIP-1071 streams group description as a cluster file");
  group->footer(kStreamsGroupHelp);
  group->add_option("FILE", o->group_file, "Output of kafka-streams-groups.sh --describe --members --verbose")
      ->required()
      ->check(input_file());
  group
      ->add_option("--output-dir", o->output_dir,
                   "Directory for the cluster file (created if missing; the group's files are not overwritten "
                   "unless --replace)")
      ->required();
  group->add_flag("--replace", o->replace, "Replace the group's files (<group>.cluster.json, <group>.target.json)");
  group->add_option("--offsets", o->offsets, "End offsets and offset sums (YAML or JSON); else all copies caught up")
      ->check(input_file());

  return {
      app, [o, log, group, &globals] {
        apply_log_level(globals, nullptr);
        if (log->parsed()) {
          host::ImportOptions options;
          options.logs = o->logs;
          options.output_dir = o->output_dir;
          options.replace = o->replace;
          options.max_line_bytes = o->max_line_mb << 20;
          options.max_file_bytes = o->max_file_mb << 20;
          if (!o->streams_config.empty()) options.streams_config = o->streams_config;
          NamedPaths inputs;
          for (const auto& l : o->logs) inputs.push_back({"LOG", l});
          if (!o->streams_config.empty()) inputs.push_back({"--streams-config", o->streams_config});
          refuse_overwriting_inputs({}, inputs);
          host::PluginRegistry registry;  // only high_availability is opened (kafka_replayer)
          load_plugins(registry, nullptr, {}, PluginLoading::on_demand);
          options.replay_kafka = kafka_replayer(registry);
          host::ProgressLine progress(std::cerr, isatty(STDERR_FILENO) != 0);
          options.progress = [&progress](std::uint64_t bytes, std::size_t rebalances) {
            progress.update(fmt::format("import: {} MB read, {} rebalances", bytes >> 20, rebalances));
          };
          const host::ImportResult result = host::import_kafka_logs(options);
          progress.finish();
          if (!options.streams_config) {
            bool defaults = false;
            for (const auto& r : result.rebalances) defaults = defaults || r.settings_from == "Kafka's defaults";
            if (defaults)
              std::cerr << "assignor: note: no --streams-config and no StreamsConfig dump in the log: Kafka's "
                           "default settings assumed (acceptable.recovery.lag 10000, max.warmup.replicas 2, "
                           "num.standby.replicas 0 unless Kafka's decisions show copies, "
                           "probing.rebalance.interval.ms 600000)\n";
          }
          write_output(host::import_table(result), "");
          if (result.rebalances.empty())
            throw InputError(fmt::format(
                "no rebalance imported from {} file{}: no line 'Decided on assignment: "
                "...' could be read{} (Kafka Streams logs it at INFO on the group "
                "leader, HighAvailabilityTaskAssignor)",
                o->logs.size(), o->logs.size() == 1 ? "" : "s", result.warnings.empty() ? "" : " (see the warnings)"));
          return static_cast<int>(kOk);
        }
        (void)group;
        host::StreamsGroupOptions options;
        options.file = o->group_file;
        options.output_dir = o->output_dir;
        options.replace = o->replace;
        if (!o->offsets.empty()) options.offsets = o->offsets;
        refuse_overwriting_inputs({}, {{"FILE", o->group_file}, {"--offsets", o->offsets}});
        const host::StreamsGroupImport result = host::import_streams_group(options);
        for (const auto& w : result.notes) std::cerr << "assignor: note: " << host::printable(w) << "\n";
        write_output(
            fmt::format("{}: {} clients ({} members), {} tasks ({} stateful)\n", host::printable(result.cluster_file),
                        result.clients, result.members, result.tasks, result.stateful_tasks),
            "");
        return static_cast<int>(kOk);
      }};
}

}  // namespace assignor::cli
