// The subcommands of `assignor`, one file each (cmd_*.cpp), and what they share.
//
// Each add_* function registers its subcommand on the parent app and returns the function to run
// when that subcommand was chosen. Exit statuses (DESIGN 4.3): 0 success; 2 invalid input, config
// or arguments; 3 plugin not loadable or strategy unknown; 4 strategy failed or invalid result.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "assignor/assignment.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/support/temporary_files.hpp"
#include "assignor/model.hpp"

namespace assignor::cli {

// The exit statuses of DESIGN 4.3, as support/errors.hpp defines them.
enum Exit : int {
  kOk = host::kExitOk,
  kInternal = host::kExitInternal,
  kBadInput = host::kExitBadInput,
  kPluginError = host::kExitPluginError,
  kStrategyFailed = host::kExitStrategyFailed
};

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
Command add_import(CLI::App& parent, const Globals& globals);
Command add_replay(CLI::App& parent, const Globals& globals);
Command add_sweep(CLI::App& parent, const Globals& globals);
Command add_serve(CLI::App& parent, const Globals& globals);

// The bundled high_availability (Kafka's own HighAvailabilityTaskAssignor, case for case) as the
// importer's way to tell warmups from standbys in a logged decision (ImportOptions::replay_kafka);
// nullopt when it is not loaded or fails.
std::function<std::optional<Assignment>(const Cluster&, const AssignmentSettings&)> kafka_replayer(
    const host::PluginRegistry& registry);

// Shared helpers.
void setup_logging(const std::string& level);
// --log-level wins over the config's logging.level; without either, the level stays as set.
void apply_log_level(const Globals& globals, const host::Config* config);
// --plugin-path PATH (repeatable): a plugin directory or one plugin library, on top of the config's
// plugins.paths; relative to the working directory.
void add_plugin_path_option(CLI::App* app, std::vector<std::string>& paths);
// The built-in plugin directory, the config's plugins.paths, then the --plugin-path entries (a
// library named there must load: PluginError otherwise). `every_plugin` opens (probes) every plugin
// of the directories, for commands that list or run them all; `on_demand` only indexes them by the
// names their files claim, and the registry opens the one asked for (PluginRegistry::index_directory).
enum class PluginLoading { every_plugin, on_demand };
void load_plugins(host::PluginRegistry& registry, const host::Config* config,
                  const std::vector<std::string>& plugin_paths, PluginLoading loading = PluginLoading::every_plugin);
// Where a command's results go: standard output when `path` is empty or "-", else that file. Every
// write is checked: a full disk, a closed or broken standard output is an InputError naming the
// target and the reason (exit 2), never a success with nothing written. A file is written under a
// temporary name beside it and renamed by close(): an error or a signal before that leaves nothing
// at its name (support/temporary_files.hpp).
class Output {
 public:
  explicit Output(const std::string& path);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  void write(std::string_view text);
  void close();  // reports a failure to close (e.g. a full disk on NFS); the destructor cannot

 private:
  std::string name_;
  int fd_ = -1;
  bool owned_ = false;
  host::TemporaryPath partial_;  // the temporary file, until close() renames it
  std::filesystem::path final_;
};

// Writes `text` to `path` (as Output does) and closes it.
void write_output(const std::string& text, const std::string& path);

// A result in the forms compare, replay and sweep print it: --format table, json (laid out by
// pretty_json) or csv, and the HTML page of --report.
template <typename Result>
struct ResultForms {
  std::function<std::string(const Result&)> table;
  std::function<nlohmann::ordered_json(const Result&)> json;
  std::function<std::string(const Result&)> csv, html;
};
// Writes the --format form to `output` (standard output when empty) and, when `report` is not
// empty, the HTML page there; makes only the forms asked for.
template <typename Result>
void write_result(const Result& result, const ResultForms<Result>& forms, const std::string& format,
                  const std::string& output, const std::string& report) {
  write_output(format == "json"  ? host::pretty_json(forms.json(result))
               : format == "csv" ? forms.csv(result)
                                 : forms.table(result),
               output);
  if (!report.empty()) write_output(forms.html(result), report);
}
// How a command whose runs fail one by one ends: kOk when `failed` is 0, else `what_failed` ("2
// simulations failed") on standard error, pointing at the output that says which, and
// kStrategyFailed.
int exit_after_failures(std::size_t failed, const std::string& what_failed);

// Called first thing in main: a standard stream that the caller closed (`>&-`) gets /dev/null, so
// that no file the command opens can take its number, and standard output remembers that it was
// closed, so that results are refused rather than lost.
void protect_standard_streams();

// Refuses (InputError) an output path that is the same file as an input or as another output, so
// that `--output` can never overwrite the cluster file it reads. Pairs are (option, path); empty
// paths and "-" are skipped; an output that does not exist yet is never an input.
using NamedPaths = std::vector<std::pair<std::string, std::string>>;
// Refuses an output that is an input, two outputs in one file, and two inputs that both read
// standard input ("-").
void refuse_overwriting_inputs(const NamedPaths& outputs, const NamedPaths& inputs);

// The check of an input file option: "-" (standard input) or a file that exists and is not a
// directory; the message names the path ("--cluster: nope.json: no such file").
CLI::Validator input_file();
inline constexpr const char* kInputFileType = "FILE (or - for standard input)";
// The same check inside a command (an InputError, "--cluster: nope.json: no such file"), for a
// command that reports every outcome in its own format (validate --format json).
void require_input_file(const std::string& option, const std::string& path);

}  // namespace assignor::cli
