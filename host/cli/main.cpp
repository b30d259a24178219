// The `assignor` command: assign, validate and plugins (compare, simulate and generate build on the
// same host library). Exit status: 0 success; 2 invalid input, config or arguments; 3 a plugin could
// not be loaded or the strategy does not exist; 4 the strategy failed or returned an invalid
// assignment and no fallback was allowed. Errors go to stderr; results to stdout or --output.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <iostream>
#include <optional>

#include "assignor/errors.hpp"
#include "assignor/host/assignment_io.hpp"
#include "assignor/host/cluster_reader.hpp"
#include "assignor/host/config_reader.hpp"
#include "assignor/host/plugin_registry.hpp"
#include "assignor/host/runner.hpp"
#include "assignor/lags.hpp"
#include "assignor/log.hpp"
#include "assignor/metrics.hpp"
#include "assignor/validation.hpp"
#include "assignor/version.hpp"

namespace {

namespace fs = std::filesystem;
using namespace assignor;
using namespace assignor::host;

enum Exit : int { kOk = 0, kInternal = 1, kBadInput = 2, kPluginError = 3, kStrategyFailed = 4 };

const std::vector<std::string> kLogLevels{"trace", "debug", "info", "warn", "error", "off"};

void setup_logging(const std::string& level) {
  auto logger = std::make_shared<spdlog::logger>("assignor",
                                                 std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_pattern("assignor: %^%l%$: %v");
  logger->set_level(spdlog::level::from_str(level));
  assignor::set_logger(logger);
}

void load_plugins(PluginRegistry& registry, const Config* config) {
  registry.load_directory(builtin_plugin_dir());
  if (config != nullptr)
    for (const auto& dir : config->plugin_paths) registry.load_directory(dir);
}

void write_output(const std::string& text, const std::string& output) {
  if (output.empty() || output == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  std::ofstream out(output, std::ios::binary);
  if (!out) throw InputError(fmt::format("{}: cannot open for writing", output));
  out << text;
  if (!out.flush()) throw InputError(fmt::format("{}: write failed", output));
}

struct Options {
  std::string log_level;
  std::string config;
  std::string cluster;
  std::string strategy;
  std::string output;
  std::string format;  // empty: the command's default
  std::string assignment;
};

// The effective log level: --log-level wins over the config's logging.level.
void apply_log_level(const Options& o, const Config* config) {
  if (!o.log_level.empty()) setup_logging(o.log_level);
  else if (config != nullptr) setup_logging(config->log_level);
}

int run_assign(const Options& o) {
  const Config config = read_config_file(o.config);
  apply_log_level(o, &config);
  const Cluster cluster = read_cluster_file(o.cluster);
  PluginRegistry registry;
  load_plugins(registry, &config);
  const std::string strategy = o.strategy.empty() ? config.strategy : o.strategy;
  const RunOutcome outcome = run_assignment(registry, config, cluster, strategy);
  if (o.format == "table") write_output(to_table(cluster, outcome.report), o.output);
  else write_output(to_json(cluster, outcome.report).dump(2) + "\n", o.output);
  return kOk;
}

int run_validate(const Options& o) {
  std::optional<Config> config;
  if (!o.config.empty()) config = read_config_file(o.config);
  apply_log_level(o, config ? &*config : nullptr);
  const AssignmentSettings settings = config ? config->settings : AssignmentSettings{};
  const Cluster cluster = read_cluster_file(o.cluster);
  ParsedAssignment parsed = read_assignment_file(o.assignment, cluster);
  std::vector<ValidationError> errors = parsed.errors;
  for (auto& e : validate(cluster, settings, parsed.assignment)) errors.push_back(std::move(e));
  if (!errors.empty()) {
    std::cerr << fmt::format("{}: invalid assignment ({} error{})\n", o.assignment, errors.size(),
                             errors.size() == 1 ? "" : "s");
    for (const auto& e : errors) std::cerr << fmt::format("  - {}: {}\n", to_string(e.kind), e.message);
    return kStrategyFailed;
  }
  const LagModel lags(cluster, settings);
  AssignmentReport report;
  report.strategy = parsed.strategy;
  report.assignment = parsed.assignment;
  report.assignment.normalize();
  report.probing_after_ms = settings.probing_rebalance_interval_ms;
  report.metrics = compute_metrics(cluster, settings, lags, report.assignment);
  if (o.format == "json") {
    nlohmann::ordered_json out;
    out["valid"] = true;
    out["metrics"] = metrics_to_json(report.metrics);
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << fmt::format("{}: valid\n", o.assignment) << to_table(cluster, report);
  }
  return kOk;
}

int run_plugins(const Options& o) {
  std::optional<Config> config;
  if (!o.config.empty()) config = read_config_file(o.config);
  apply_log_level(o, config ? &*config : nullptr);
  PluginRegistry registry;
  load_plugins(registry, config ? &*config : nullptr);
  if (o.format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& p : registry.plugins())
      list.push_back({{"name", p.name}, {"version", p.version}, {"api_version", p.api_version},
                      {"path", p.path.string()}, {"description", p.description}});
    std::cout << list.dump(2) << "\n";
    return kOk;
  }
  std::size_t name_w = 4, version_w = 7;
  for (const auto& p : registry.plugins()) {
    name_w = std::max(name_w, p.name.size());
    version_w = std::max(version_w, p.version.size());
  }
  std::cout << fmt::format("{:<{}}  {:<{}}  {:>3}  {}\n", "NAME", name_w, "VERSION", version_w, "API", "LIBRARY");
  for (const auto& p : registry.plugins()) {
    std::cout << fmt::format("{:<{}}  {:<{}}  {:>3}  {}\n", p.name, name_w, p.version, version_w,
                             p.api_version, p.path.string());
    std::cout << fmt::format("{:<{}}  {}\n", "", name_w, p.description);
  }
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  setup_logging("info");
  CLI::App app{"Assignor: Kafka Streams-style task assignment with pluggable strategies"};
  app.set_version_flag("--version", std::string("assignor ") + assignor::sdk_version() +
                                        " (plugin API " + std::to_string(kPluginApiVersion) + ")");
  app.require_subcommand(1);
  Options o;
  app.add_option("--log-level", o.log_level, "Log level (overrides the config's logging.level)")
      ->check(CLI::IsMember(kLogLevels));

  auto* assign = app.add_subcommand("assign", "Run a strategy on a cluster file and print the assignment");
  assign->add_option("--config", o.config, "Config file (YAML)")->required()->check(CLI::ExistingFile);
  assign->add_option("--cluster", o.cluster, "Cluster file (YAML or JSON)")->required()->check(CLI::ExistingFile);
  assign->add_option("--strategy", o.strategy, "Strategy to run (default: the config's strategy)");
  assign->add_option("--output", o.output, "Write the result here instead of stdout");
  assign->add_option("--format", o.format, "Output format")->check(CLI::IsMember({"json", "table"}));

  auto* validate_cmd = app.add_subcommand("validate", "Check an assignment JSON against its cluster file");
  validate_cmd->add_option("--cluster", o.cluster, "Cluster file")->required()->check(CLI::ExistingFile);
  validate_cmd->add_option("--assignment", o.assignment, "Assignment JSON")->required()->check(CLI::ExistingFile);
  validate_cmd->add_option("--config", o.config, "Config file (for the settings)")->check(CLI::ExistingFile);
  validate_cmd->add_option("--format", o.format, "Output format")->check(CLI::IsMember({"json", "table"}));

  auto* plugins = app.add_subcommand("plugins", "List the strategy plugins that load");
  plugins->add_option("--config", o.config, "Config file (adds its plugins.paths)")->check(CLI::ExistingFile);
  plugins->add_option("--format", o.format, "Output format")->check(CLI::IsMember({"table", "json"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  }

  try {
    if (assign->parsed()) {
      if (o.format.empty()) o.format = "json";
      return run_assign(o);
    }
    if (o.format.empty()) o.format = "table";
    if (validate_cmd->parsed()) return run_validate(o);
    if (plugins->parsed()) return run_plugins(o);
  } catch (const InputError& e) {
    std::cerr << "assignor: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const PluginError& e) {
    std::cerr << "assignor: error: " << e.what() << "\n";
    return kPluginError;
  } catch (const AssignmentFailed& e) {
    std::cerr << "assignor: error: " << e.what() << "\n";
    return kStrategyFailed;
  } catch (const StrategyError& e) {
    std::cerr << "assignor: error: " << e.what() << "\n";
    return kStrategyFailed;
  } catch (const std::exception& e) {
    std::cerr << "assignor: internal error: " << e.what() << "\n";
    return kInternal;
  }
  return kInternal;
}
