#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"

namespace assignor::cli {

namespace {

// What a plugin declares, by the names the docs use.
std::vector<std::string> capability_names(std::uint32_t capabilities) {
  std::vector<std::string> names;
  if ((capabilities & kCapabilityHighAvailability) != 0) names.push_back("high_availability");
  if ((capabilities & kCapabilityHandlesUnknownLags) != 0) names.push_back("handles_unknown_lags");
  if ((capabilities & kCapabilityConfiguredStandbys) != 0) names.push_back("configured_standbys");
  return names;
}

}  // namespace

Command add_plugins(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::string config, format = "table";
    std::vector<std::string> plugin_paths;
  };
  auto o = std::make_shared<Options>();
  auto* app =
      parent.add_subcommand("plugins", "List the strategy plugins that load: name, version, API version, library");
  app->add_option("--config", o->config, "Config file (adds its plugins.paths)")->check(input_file());
  add_plugin_path_option(app, o->plugin_paths);
  app->add_option("--format", o->format, "Output format (default table)")->check(CLI::IsMember({"table", "json"}));
  return {app, [o, &globals] {
            std::optional<host::Config> config;
            if (!o->config.empty()) config = host::read_config_file(o->config);
            apply_log_level(globals, config ? &*config : nullptr);
            host::PluginRegistry registry;
            load_plugins(registry, config ? &*config : nullptr, o->plugin_paths);
            if (o->format == "json") {
              nlohmann::ordered_json list = nlohmann::ordered_json::array();
              for (const auto& p : registry.plugins())
                list.push_back({{"name", p.name},
                                {"version", p.version},
                                {"api_version", p.api_version},
                                {"capabilities", capability_names(p.capabilities)},
                                {"path", p.path.string()},
                                {"description", p.description}});
              write_output(list.dump(2) + "\n", "");
              return static_cast<int>(kOk);
            }
            std::size_t name_w = 4, version_w = 7, caps_w = 12;
            auto caps_of = [](const host::PluginInfo& p) {
              const auto names = capability_names(p.capabilities);
              return names.empty() ? std::string("-") : fmt::format("{}", fmt::join(names, ","));
            };
            for (const auto& p : registry.plugins()) {
              name_w = std::max(name_w, p.name.size());
              version_w = std::max(version_w, p.version.size());
              caps_w = std::max(caps_w, caps_of(p).size());
            }
            std::string table = fmt::format("{:<{}}  {:<{}}  {:>3}  {:<{}}  {}\n", "NAME", name_w, "VERSION", version_w,
                                            "API", "CAPABILITIES", caps_w, "LIBRARY");
            for (const auto& p : registry.plugins()) {
              table += fmt::format("{:<{}}  {:<{}}  {:>3}  {:<{}}  {}\n", p.name, name_w, p.version, version_w,
                                   p.api_version, caps_of(p), caps_w, p.path.string());
              table += fmt::format("{:<{}}  {}\n", "", name_w, p.description);
            }
            write_output(table, "");
            return static_cast<int>(kOk);
          }};
}

}  // namespace assignor::cli
