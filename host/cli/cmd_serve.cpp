#include <unistd.h>

#include <csignal>
#include <memory>

#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/run/serve.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/standard_output.hpp"
#include "commands.hpp"

namespace assignor::cli {

Command add_serve(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::string config, strategy;
    std::vector<std::string> plugin_paths;
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand(
      "serve", "Answer assignment requests on stdin/stdout until stdin closes (the bridges' resident worker)");
  app->footer(
      "Frames, both directions: a header line of ASCII words, the last the payload's length N, then exactly N "
      "bytes.\n  request: 'assign N' + a cluster document (YAML or JSON)\n  answer:  'ok N' + the output JSON of "
      "'assignor assign', or 'error CODE N' + the message (CODE: the exit status 'assign' would give)\n"
      "Logs go to stderr. The exit status is 0 when stdin ends between requests.");
  app->add_option("--config", o->config, "Config file (YAML): the strategy, its fallback, isolation, limits")
      ->required()
      ->check(input_file());
  add_plugin_path_option(app, o->plugin_paths);
  app->add_option("--strategy", o->strategy, "Strategy to run (default: the config's strategy)");
  return {app, [o, &globals] {
            const host::Config config = host::read_config_file(o->config);
            apply_log_level(globals, &config);
            host::PluginRegistry registry;
            load_plugins(registry, &config, o->plugin_paths);
            // A strategy that is not there is known now, not at the first rebalance.
            (void)registry.require(host::strategy_to_run(config, o->strategy));
            // A peer that goes away is the end of the stream, not a signal that kills the worker.
            std::signal(SIGPIPE, SIG_IGN);
            const int out = host::result_output_fd();
            if (out < 0) throw InputError("standard output is closed: there is nowhere to write the answers");
            const host::ServeStats stats = host::serve(registry, config, {o->strategy}, STDIN_FILENO, out);
            host::log().debug("served {} requests ({} answered, {} errors)", stats.requests, stats.answered,
                              stats.errors);
            return static_cast<int>(kOk);
          }};
}

}  // namespace assignor::cli
