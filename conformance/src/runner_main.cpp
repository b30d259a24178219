// assignor_conformance: the conformance kit (assignor/conformance.hpp) on one plugin library.
//
//   assignor_conformance --plugin build/my_strategy.so [--seed N] [--time-budget-ms MS]
//       [--stability-off-generated REASON] [--stability-off-settled REASON] [gtest flags]
//
// The reproduction lines of a failure name the plugin by its absolute path and the assignor
// command installed beside this runner (--assignor PATH overrides it).
//
// Exit status 0 when every case passes, 1 when one fails (each failure prints the lines that
// reproduce its case), 2 for a bad argument, 3 when the library does not load as a plugin.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "assignor/conformance.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/log.hpp"

int main(int argc, char** argv) {
  using namespace assignor;
  std::string plugin;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--plugin" && i + 1 < argc)
      plugin = argv[++i];
    else if (arg.rfind("--plugin=", 0) == 0)
      plugin = arg.substr(9);
    else if (arg == "--help" || arg == "-h") {
      std::cout << "usage: assignor_conformance --plugin LIBRARY [--seed N] [--time-budget-ms MS] [--assignor PATH] "
                   "[--stability-off-generated REASON] [--stability-off-settled REASON] [gtest flags]\n"
                   "Runs the conformance suite on the strategy LIBRARY exports; see assignor/conformance.hpp.\n";
      return 0;
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (plugin.empty()) {
    std::cerr << "assignor_conformance: --plugin LIBRARY is required\n";
    return 2;
  }
  set_log_level(LogLevel::error);  // suspect-state warnings are expected here

  auto registry = std::make_shared<host::PluginRegistry>();
  std::string name;
  std::uint32_t capabilities = 0;
  try {
    const host::PluginInfo& info = registry->load(plugin);
    name = info.name;
    capabilities = info.capabilities;
  } catch (const std::exception& e) {
    std::cerr << "assignor_conformance: " << e.what() << "\n";
    return 3;
  }
  conformance::Options options;
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(plugin, ec);
  options.library = ec ? plugin : absolute.string();
  // The reproduction lines call the assignor installed beside this runner (same bin/ directory),
  // so they run as printed from an install, whatever is on PATH.
  const auto beside = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "assignor";
  if (!ec && std::filesystem::exists(beside, ec)) options.assignor = beside.string();
  conformance::Suite suite(
      name, capabilities, [registry, name]() -> std::shared_ptr<Strategy> { return registry->create(name, {}); },
      options);
  int rest_argc = static_cast<int>(rest.size());
  return suite.run(rest_argc, rest.data());
}
