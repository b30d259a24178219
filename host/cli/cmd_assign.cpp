#include <memory>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/run/runner.hpp"
#include "commands.hpp"

namespace assignor::cli {

Command add_assign(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::string config, cluster, strategy, output, format = "json";
    std::vector<std::string> plugin_paths;
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand("assign", "Run a strategy on a cluster file and print the assignment");
  app->add_option("--config", o->config, "Config file (YAML)")->required()->check(input_file());
  add_plugin_path_option(app, o->plugin_paths);
  app->add_option("--cluster", o->cluster, "Cluster file (YAML or JSON)")->required()->check(input_file());
  app->add_option("--strategy", o->strategy, "Strategy to run (default: the config's strategy)");
  app->add_option("--output", o->output, "Write the result here instead of stdout");
  app->add_option("--format", o->format, "Output format (default json)")->check(CLI::IsMember({"json", "table"}));
  return {app, [o, &globals] {
            refuse_overwriting_inputs({{"--output", o->output}}, {{"--config", o->config}, {"--cluster", o->cluster}});
            const host::Config config = host::read_config_file(o->config);
            apply_log_level(globals, &config);
            // Only the plugins this run calls are opened (each probed in a child process first): the
            // strategy now, before the cluster (100 MB for 100k tasks) is in memory, where forking is
            // cheaper; the fallback only if the strategy fails, fallback_prior only when lags are
            // unknown (their names are checked against the plugins' name notes up front).
            host::PluginRegistry registry;
            load_plugins(registry, &config, o->plugin_paths, PluginLoading::on_demand);
            const std::string strategy = host::strategy_to_run(config, o->strategy);
            (void)registry.find(strategy);
            const Cluster cluster = host::read_cluster_file(o->cluster, config.input_limits);
            const host::RunOutcome outcome = host::run_assignment(registry, config, cluster, strategy);
            if (o->format == "table")
              write_output(host::to_table(cluster, outcome.report), o->output);
            else
              write_output(host::assignment_json(cluster, outcome.report), o->output);
            return static_cast<int>(kOk);
          }};
}

}  // namespace assignor::cli
