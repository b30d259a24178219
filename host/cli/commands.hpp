// The subcommands of `assignor`, one file each (cmd_*.cpp), and what they share.
//
// Each add_* function registers its subcommand on the parent app and returns the function to run
// when that subcommand was chosen. Exit statuses (DESIGN 4.3): 0 success; 2 invalid input, config
// or arguments; 3 plugin not loadable or strategy unknown; 4 strategy failed or invalid result.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "assignor/host/config_reader.hpp"
#include "assignor/host/plugin_registry.hpp"

namespace assignor::cli {

enum Exit : int { kOk = 0, kInternal = 1, kBadInput = 2, kPluginError = 3, kStrategyFailed = 4 };

struct Globals {
  std::string log_level;  // --log-level; empty: the config's logging.level (default info)
};

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_assign(CLI::App& parent, const Globals& globals);
Command add_validate(CLI::App& parent, const Globals& globals);
Command add_plugins(CLI::App& parent, const Globals& globals);
Command add_generate(CLI::App& parent, const Globals& globals);
Command add_compare(CLI::App& parent, const Globals& globals);
Command add_simulate(CLI::App& parent, const Globals& globals);

// Shared helpers.
void setup_logging(const std::string& level);
// --log-level wins over the config's logging.level; without either, the level stays as set.
void apply_log_level(const Globals& globals, const host::Config* config);
// The built-in plugin directory plus the config's plugins.paths.
void load_plugins(host::PluginRegistry& registry, const host::Config* config);
// Writes to stdout when `path` is empty or "-"; throws InputError when the file cannot be written.
void write_output(const std::string& text, const std::string& path);

}  // namespace assignor::cli
