// Finds, checks and loads strategy plugins (shared libraries exporting assignor_plugin_entry).
//
// A library is checked in this order, and refused with a message naming the file (its real path,
// symlinks resolved) and the reason: neither it nor its directory is writable by group or others or
// owned by another user than root or us, no directory above it lets others replace it (writable by
// group or others without the sticky bit); its own RUNPATH/RPATH has no empty or relative entry
// (ld.so reads those against the current directory) and names no directory that others can write,
// sticky bit or not (unless set_allow_unsafe_permissions); its ELF header is this machine's
// (64-bit, the same architecture, a shared object, not truncated); its symbol table, read from the file before it is
// opened, carries the entry point; it opens in a child process within the load time limit (its
// initialisers neither crash nor hang); its entry point is a function (a Boost.DLL alias is a plugin
// of API 2 or earlier: its version is read through it, to refuse it by number); its API version
// equals ours; its build fingerprint equals ours; its descriptor is complete (name, factory,
// destroy); its one plugin name note (plugin.hpp) gives the descriptor's name. Only then is it
// listed; it is opened in this process when a strategy is first created from it. Two plugins with
// one name is an error naming both files. Opened libraries stay loaded for the life of the
// registry, and every Strategy it creates keeps its library alive through its deleter.
//
// Two ways to fill a registry: load_directory() opens every plugin of a directory (in a probe
// child each), for the commands that list or run them all (plugins, compare, sweep); index_directory()
// reads only each library's name note from the file, and find(), require() and create() then open
// the one library that claims the name asked for (assign: the strategy; its fallback only when the
// strategy fails, fallback_prior only when lags are unknown). A registry is used from one thread at
// a time: find() may load.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "assignor/host/formats/limits.hpp"
#include "assignor/host/support/errors.hpp"  // PluginError
#include "assignor/plugin.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"

namespace assignor::host {

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

// A library of a plugin directory that carries the entry point but was refused (and skipped).
struct RefusedLibrary {
  std::filesystem::path path;
  std::string reason;  // the whole message: file and why
};

using StrategyHandle = std::unique_ptr<Strategy, std::function<void(Strategy*)>>;

class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Finds one plugin; throws PluginError (which file, why). The library is opened in a child process
  // first (its initialisers run there, under the load time limit, so one that crashes or hangs costs
  // a child, never this process); it is opened here only when a strategy is created from it.
  const PluginInfo& load(const std::filesystem::path& library, PluginOrigin origin = PluginOrigin::external);

  // Loads plugin files and directories even when group or others can write them or another user
  // owns them (with a warning): the config's plugins.allow_unsafe_permissions. Off by default.
  void set_allow_unsafe_permissions(bool allow) noexcept;

  // Loads every library in `dir` that carries the entry point (other shared libraries are skipped
  // with a debug log line). One that carries it but fails a check, or a file named like a library
  // that is not one this machine can load (not ELF, truncated, another architecture), is skipped
  // with a warning and listed by refused(); an entry that cannot be read at all (a dangling
  // symlink) is skipped with a warning naming it: an unrelated broken file never takes the other
  // strategies down. An unsafe or missing directory throws PluginError.
  void load_directory(const std::filesystem::path& dir, PluginOrigin origin = PluginOrigin::external);

  // Like load_directory(), but opens nothing yet: it checks the directory and reads, from each
  // file, its ELF header, its symbol table and its plugin name note (none of which runs the
  // library). A library is then loaded, with every check of load(), when find(), require() or
  // create() asks for the name its note claims; a name no note claims opens the libraries without
  // a note (API 2 and earlier, hand-built), in the order they were found, until one carries it.
  // Two libraries claiming one name are refused as two loaded plugins with one name are, and a
  // library whose descriptor names another plugin than its note is refused when it is opened.
  void index_directory(const std::filesystem::path& dir, PluginOrigin origin = PluginOrigin::external);

  // How long opening one library (its initialisers) may take: the config's limits.time_ms.
  void set_load_time_limit(std::uint64_t ms) noexcept;

  // The plugins loaded so far (after index_directory(), only those asked for).
  const std::vector<PluginInfo>& plugins() const noexcept;
  // The names of the plugins loaded, then those claimed by libraries not opened yet.
  std::vector<std::string> names() const;
  // Whether `name` is loaded or claimed by one library not opened yet, without opening any: a
  // name require() would not refuse before trying (no two libraries claim it).
  bool knows(const std::string& name) const;
  const std::vector<RefusedLibrary>& refused() const noexcept;
  // The plugin named `name`, loading it first when an indexed library claims it; null when absent.
  const PluginInfo* find(const std::string& name) const noexcept;
  // Like find(), but throws PluginError naming the nearest known plugin, and the refused libraries,
  // when absent.
  const PluginInfo& require(const std::string& name) const;

  // Creates a strategy; throws PluginError for an unknown name, ConfigError/StrategyError when the
  // factory rejects its parameters, throws, or returns null (messages name the plugin).
  StrategyHandle create(const std::string& name, const StrategyParams& params) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The built-in plugin directory relative to the running executable: <exe>/../lib/assignor/plugins,
// in the build tree (laid out like an install) and installed.
std::filesystem::path builtin_plugin_dir();

}  // namespace assignor::host
