// The `assignor` command. Each subcommand lives in its own cmd_*.cpp; this file parses the command
// line and turns every kind of failure into the documented exit status with a message on stderr.
#include <CLI/CLI.hpp>

#include <iostream>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/errors.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/version.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace assignor;
  using namespace assignor::cli;
  using assignor::host::printable;
  protect_standard_streams();
  setup_logging("info");

  CLI::App app{"Assignor: Kafka Streams-style task assignment with pluggable strategies"};
  app.set_version_flag("--version", std::string("assignor ") + sdk_version() + " (plugin API " +
                                        std::to_string(kPluginApiVersion) + ")");
  app.require_subcommand(1);
  Globals globals;
  app.add_option("--log-level", globals.log_level, "Log level (overrides the config's logging.level)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  const std::vector<Command> commands{
      add_assign(app, globals),  add_validate(app, globals), add_plugins(app, globals), add_generate(app, globals),
      add_compare(app, globals), add_simulate(app, globals), add_import(app, globals),  add_replay(app, globals),
      add_sweep(app, globals),   add_serve(app, globals)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  }

  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const std::exception& e) {
    // One mapping from a failure to its exit status (support/errors.hpp), as in every other place.
    const host::ErrorKind kind = host::error_kind(e);
    if (kind == host::ErrorKind::out_of_memory) {
      // Reading or checking an input larger than this machine can hold (a strategy's own allocation
      // failure is that strategy's failure, exit 4, reported by the runner).
      std::cerr << "assignor: error: ran out of memory; the input is too large for the memory available (lower "
                   "limits.max_file_mb, limits.max_tasks or limits.max_clients in the config to refuse such files "
                   "early, or free memory)\n";
    } else {
      std::cerr << (kind == host::ErrorKind::internal ? "assignor: internal error: " : "assignor: error: ")
                << printable(e.what(), /*keep_newlines=*/true) << "\n";
    }
    return host::exit_status(kind);
  }
  return kInternal;
}
