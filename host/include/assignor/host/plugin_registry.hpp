// Finds, checks and loads strategy plugins (shared libraries exporting assignor_plugin_entry).
//
// A library is checked in this order, and refused with a message naming the file (its real path,
// symlinks resolved) and the reason: neither it nor its directory is writable by group or others or
// owned by another user than root or us (unless set_allow_unsafe_permissions); its symbol table,
// read from the file before it is opened, carries the entry point; it opens; its API version
// equals ours; its build fingerprint equals ours; its descriptor is complete (name, factory,
// destroy). Only then is it listed. Two plugins
// with one name is an error naming both files. Libraries stay loaded for the life of the registry,
// and every Strategy it creates keeps its library alive through its deleter.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "assignor/plugin.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"

namespace assignor::host {

// A plugin that could not be loaded: exit status 3.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a plugin came from: the directory of the bundled strategies, or anywhere else (plugins.paths,
// a test). With `isolation: auto` (the default) only bundled plugins run inside the host process.
enum class PluginOrigin : std::uint8_t { external, bundled };

struct PluginInfo {
  PluginOrigin origin = PluginOrigin::external;
  std::string name;
  std::string version;
  std::string description;
  std::uint32_t api_version = 0;
  std::uint32_t capabilities = 0;
  std::filesystem::path path;  // the real path (symlinks resolved)
};

using StrategyHandle = std::unique_ptr<Strategy, std::function<void(Strategy*)>>;

class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Loads one library; throws PluginError (which file, why).
  const PluginInfo& load(const std::filesystem::path& library, PluginOrigin origin = PluginOrigin::external);

  // Loads plugin files and directories even when group or others can write them or another user
  // owns them (with a warning): the config's plugins.allow_unsafe_permissions. Off by default.
  void set_allow_unsafe_permissions(bool allow) noexcept;

  // Loads every library in `dir` that carries the entry point (others are skipped with a debug
  // log line); libraries that carry it but fail a check throw PluginError.
  void load_directory(const std::filesystem::path& dir, PluginOrigin origin = PluginOrigin::external);

  const std::vector<PluginInfo>& plugins() const noexcept;
  const PluginInfo* find(const std::string& name) const noexcept;
  // Like find(), but throws PluginError naming the nearest loaded plugin when absent.
  const PluginInfo& require(const std::string& name) const;

  // Creates a strategy; throws PluginError for an unknown name, ConfigError/StrategyError when the
  // factory rejects its parameters, throws, or returns null (messages name the plugin).
  StrategyHandle create(const std::string& name, const StrategyParams& params) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The built-in plugin directory relative to the running executable: <exe>/../plugins in the build
// tree, <exe>/../lib/assignor/plugins in an installed tree (the first that exists).
std::filesystem::path builtin_plugin_dir();

}  // namespace assignor::host
