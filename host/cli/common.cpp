#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <iostream>

#include "assignor/errors.hpp"
#include "assignor/log.hpp"
#include "commands.hpp"

namespace assignor::cli {

void setup_logging(const std::string& level) {
  auto logger = std::make_shared<spdlog::logger>("assignor",
                                                 std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_pattern("assignor: %^%l%$: %v");
  logger->set_level(spdlog::level::from_str(level));
  assignor::set_logger(logger);
}

void apply_log_level(const Globals& globals, const host::Config* config) {
  if (!globals.log_level.empty()) setup_logging(globals.log_level);
  else if (config != nullptr) setup_logging(config->log_level);
}

void load_plugins(host::PluginRegistry& registry, const host::Config* config) {
  registry.set_allow_unsafe_permissions(config != nullptr && config->allow_unsafe_plugin_permissions);
  registry.load_directory(host::builtin_plugin_dir());
  if (config != nullptr)
    for (const auto& dir : config->plugin_paths) registry.load_directory(dir);
}

void write_output(const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(fmt::format("{}: cannot open for writing", path));
  out << text;
  if (!out.flush()) throw InputError(fmt::format("{}: write failed", path));
}

}  // namespace assignor::cli
