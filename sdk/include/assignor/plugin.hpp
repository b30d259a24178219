// The plugin boundary: one exported entry point per shared library, returning a PluginDescriptor.
//
// The host reads `api_version` first and `fingerprint` second; only when both match does it read the
// rest or call into the plugin. Field order below is therefore fixed for all API versions. Ownership:
// the descriptor and its strings are static data of the library and live as long as it is loaded;
// `create` returns an object that must be released with the same descriptor's `destroy`. The host
// keeps a library loaded while it holds the registry that opened it or any strategy made from it,
// and may unload it after that: nothing of a plugin may outlive those (threads, atexit handlers).
//
// A plugin is one line after its Strategy class, at global scope:
//   ASSIGNOR_PLUGIN(MyStrategy, "my_strategy", "1.0.0", "one-line description",
//                   assignor::kCapabilityHighAvailability)
#pragma once

#include <boost/dll/alias.hpp>
#include <cstdint>
#include <memory>

#include "assignor/errors.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"
#include "assignor/version.hpp"

namespace assignor {

// The name of the exported symbol (a Boost.DLL alias of a function returning the descriptor).
inline constexpr const char* kPluginEntryPoint = "assignor_plugin_entry";

// Capability flags a strategy declares.
inline constexpr std::uint32_t kCapabilityHighAvailability = 1u << 0;  // never a restoring active
inline constexpr std::uint32_t kCapabilityHandlesUnknownLags = 1u << 1;  // run even when lags are unknown

struct PluginDescriptor {
  std::uint32_t api_version;  // must equal the host's kPluginApiVersion
  const char* fingerprint;    // must equal the host's kBuildFingerprint
  const char* name;           // unique among loaded plugins; [a-z0-9_]+
  const char* version;
  const char* description;    // one line
  std::uint32_t capabilities;
  // Makes a strategy configured by `params` (the config's strategies.<name> map). May throw
  // ConfigError for bad parameters; must not return null.
  Strategy* (*create)(const StrategyParams& params);
  void (*destroy)(Strategy* strategy) noexcept;
};

using PluginEntryPoint = const PluginDescriptor*();

// Testing a plugin in-process, without loading a library: compile its sources into the test
// (with CMake, link the `<name>_objects` library that assignor_add_plugin defines) and make the
// strategy through its own descriptor, exactly as the host does:
//
//   std::map<std::string, std::string> values{{"spread", "true"}};   // strategies.<name> of a config
//   auto strategy = assignor::make_strategy(assignor::this_plugin(), StrategyParams(values));
//   const Assignment out = strategy->assign({cluster, settings, lags});
//
// One plugin per test binary (ASSIGNOR_PLUGIN defines this_plugin()).
const PluginDescriptor& this_plugin() noexcept;

// Releases a strategy through the descriptor that made it.
struct StrategyDeleter {
  const PluginDescriptor* plugin = nullptr;
  void operator()(Strategy* strategy) const noexcept {
    if (strategy != nullptr) plugin->destroy(strategy);
  }
};
using StrategyPtr = std::unique_ptr<Strategy, StrategyDeleter>;

// Calls plugin.create(params): lets its ConfigError through, throws StrategyError when it returns
// null (a broken factory, which the host refuses the same way).
inline StrategyPtr make_strategy(const PluginDescriptor& plugin, const StrategyParams& params = {}) {
  Strategy* raw = plugin.create(params);
  if (raw == nullptr) throw StrategyError(std::string(plugin.name) + ": create returned no strategy");
  return StrategyPtr(raw, StrategyDeleter{&plugin});
}

}  // namespace assignor

#define ASSIGNOR_PLUGIN(StrategyClass, NAME, VERSION, DESCRIPTION, CAPABILITIES)                   \
  namespace assignor_plugin_detail {                                                              \
  static ::assignor::Strategy* create(const ::assignor::StrategyParams& params) {                 \
    return new StrategyClass(params);                                                             \
  }                                                                                               \
  static void destroy(::assignor::Strategy* strategy) noexcept { delete strategy; }               \
  static const ::assignor::PluginDescriptor descriptor{                                           \
      ::assignor::kPluginApiVersion, ::assignor::kBuildFingerprint, NAME, VERSION, DESCRIPTION,    \
      CAPABILITIES, &create, &destroy};                                                           \
  const ::assignor::PluginDescriptor* entry() { return &descriptor; }                             \
  }                                                                                               \
  namespace assignor_plugin_export {                                                              \
  using assignor_plugin_detail::entry;                                                            \
  BOOST_DLL_ALIAS(entry, assignor_plugin_entry)                                                   \
  }                                                                                               \
  const ::assignor::PluginDescriptor& assignor::this_plugin() noexcept {                          \
    return assignor_plugin_detail::descriptor;                                                    \
  }
