// The registry: finds plugin libraries (a file, a directory, an index of names by their notes),
// refuses the untrusted (trust.hpp) and the malformed (elf_file.hpp), probes each in a child before
// naming it (probe.hpp), and opens it in this process only to create the strategy it runs.
#include "assignor/host/plugins/plugin_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/dll/library_info.hpp>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <dlfcn.h>
#include <elf.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <system_error>

#include "assignor/errors.hpp"
#include "assignor/host/process/child_process.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/printable.hpp"
#include "elf_file.hpp"
#include "probe.hpp"
#include "trust.hpp"

namespace assignor::host {

namespace fs = std::filesystem;
using loading::not_a_loadable_library;
using loading::open_plugin;
using loading::plugin_name_notes;
using loading::probe;

namespace {

bool looks_like_library(const fs::path& p) {
  const auto name = p.filename().string();
  return p.extension() == ".so" || name.find(".so.") != std::string::npos;
}

}  // namespace

struct PluginRegistry::Impl {
  struct Loaded {
    PluginInfo info;
    // Opened on first use (create()); until then the library has only run in the probe's child.
    mutable std::shared_ptr<boost::dll::shared_library> library;
    mutable const PluginDescriptor* descriptor = nullptr;
  };
  std::deque<Loaded> loaded;      // a deque: references handed out stay valid across later loads
  std::vector<PluginInfo> infos;  // mirror of loaded[i].info, for plugins()
  std::vector<RefusedLibrary> refused;
  std::map<std::string, std::string> conflicts;  // plugin name -> "two plugins are named ..."
  // Libraries index_directory() found and has not opened yet, with the names their notes claim.
  struct Pending {
    fs::path path;  // real path
    PluginOrigin origin;
    std::vector<std::string> claims;  // from the file's name notes: one, unless it is malformed
    bool tried = false;               // opened (or refused) since
  };
  std::vector<Pending> pending;
  bool allow_unsafe_permissions = false;
  std::uint64_t load_time_ms = StrategyLimits{}.time_ms;

  const PluginInfo& load(const fs::path& library_path, PluginOrigin origin);
  // load(), but a refusal is a warning and an entry of `refused` (a library of a directory).
  void load_or_skip(const fs::path& path, PluginOrigin origin);
  // The libraries of a (trusted) directory that export the entry point, in name order.
  std::vector<fs::path> plugin_libraries(const fs::path& dir);
  const PluginInfo* find_loaded(const std::string& name) const noexcept;
  // Opens the pending library that claims `name`; when none does, the pending libraries without
  // a claim, in the order they were found, until one carries it. Each is opened at most once.
  void resolve(const std::string& name);

  // Refuses a library or directory someone else could change (trust.hpp), unless allowed.
  void check_trusted(const fs::path& real, bool directory, const std::string& where) const {
    const std::string reason = loading::untrusted_reason(real, directory);
    if (reason.empty()) return;
    if (allow_unsafe_permissions) {
      log().warn("{}: loading anyway (plugins.allow_unsafe_permissions): {}", where, reason);
      return;
    }
    throw PluginError(
        fmt::format("{}: refused: {}; or set 'plugins: {{allow_unsafe_permissions: true}}' in the "
                    "config to load it anyway",
                    where, reason));
  }
};

void PluginRegistry::set_allow_unsafe_permissions(bool allow) noexcept { impl_->allow_unsafe_permissions = allow; }

PluginRegistry::PluginRegistry() : impl_(std::make_unique<Impl>()) {}
PluginRegistry::~PluginRegistry() = default;

void PluginRegistry::set_load_time_limit(std::uint64_t ms) noexcept { impl_->load_time_ms = ms; }

namespace {

// Why a library's name notes do not name the plugin its descriptor names, or "": exactly one note,
// and the descriptor's name in it (plugin.hpp; ASSIGNOR_PLUGIN writes both from one literal).
std::string name_note_problem(const std::vector<std::string>& notes, const std::string& name) {
  if (notes.empty())
    return fmt::format(
        "it carries no plugin name note (section {}), which ASSIGNOR_PLUGIN writes: rebuild it "
        "against this SDK (find_package(Assignor {}))",
        kPluginNoteSection, kPluginApiVersion);
  if (notes.size() > 1)
    return fmt::format("it carries {} plugin name notes ('{}'): one library is one plugin", notes.size(),
                       fmt::join(notes, "', '"));
  if (notes.front().empty()) return "its plugin name note is malformed (the name is not NUL-terminated)";
  if (notes.front() != name)
    return fmt::format(
        "its name note says '{}' but its descriptor names it '{}' (ASSIGNOR_PLUGIN writes both "
        "from one name: rebuild it)",
        printable(notes.front()), printable(name));
  return {};
}

}  // namespace

const PluginInfo& PluginRegistry::load(const fs::path& library_path, PluginOrigin origin) {
  return impl_->load(library_path, origin);
}

const PluginInfo& PluginRegistry::Impl::load(const fs::path& library_path, PluginOrigin origin) {
  std::error_code ec;
  fs::path real = fs::canonical(library_path, ec);
  if (ec) throw PluginError(fmt::format("{}: cannot load plugin: {}", library_path.string(), ec.message()));
  const std::string where = real.string();
  if (real != fs::absolute(library_path, ec).lexically_normal())
    log().debug("{}: resolved to {}", library_path.string(), where);
  for (const auto& other : loaded)
    if (other.info.path == real) return other.info;  // the same file found twice (e.g. symlink)
  for (auto& p : pending)
    if (p.path == real) p.tried = true;  // named again (--plugin-path): opened now, never twice

  // Before any byte of the file runs: who could have written it (or what it loads), and is it a
  // plugin at all? Only a library whose symbol table (read from the file, without dlopen) carries
  // the entry point is opened, so a library that is not a plugin never runs its initialisers.
  if (!fs::is_regular_file(real, ec))
    throw PluginError(fmt::format("{}: cannot load plugin: not a regular file", where));
  check_trusted(real, /*directory=*/false, where);
  if (const std::string why = not_a_loadable_library(real); !why.empty())
    throw PluginError(fmt::format("{}: cannot load plugin: {}", where, why));
  try {
    boost::dll::library_info file(boost::dll::fs::path(where), /*throw_if_not_native=*/true);
    const auto symbols = file.symbols();
    if (std::find(symbols.begin(), symbols.end(), kPluginEntryPoint) == symbols.end())
      throw PluginError(fmt::format("{}: not an Assignor plugin: it does not export '{}'", where, kPluginEntryPoint));
  } catch (const PluginError&) {
    throw;
  } catch (const std::exception&) {
    throw PluginError(
        fmt::format("{}: cannot load plugin: not a shared library: its symbol table cannot be read "
                    "(truncated or damaged)",
                    where));
  }

  // Opened in a child first: its initialisers run there, under the time limit. Its version is
  // checked there, before its name note: a plugin of another API version is refused by number.
  PluginInfo info = probe(where, load_time_ms);
  if (const std::string why = name_note_problem(plugin_name_notes(real), info.name); !why.empty())
    throw PluginError(fmt::format("{}: {}", where, why));
  info.origin = origin;
  info.path = real;
  auto conflict = [&](const fs::path& other) {
    std::string message = fmt::format("two plugins are named '{}': {} and {}", info.name, other.string(), where);
    conflicts.emplace(info.name, message);  // asking for that name is an error from now on
    return PluginError(std::move(message));
  };
  for (const auto& other : loaded)
    if (other.info.name == info.name) throw conflict(other.info.path);
  for (const auto& other : pending)  // one not opened yet (an opened one is loaded, or was refused)
    if (!other.tried && other.path != real && other.claims.size() == 1 && other.claims.front() == info.name)
      throw conflict(other.path);
  log().debug("found plugin '{}' {} in {}", info.name, info.version, where);
  loaded.push_back({info, nullptr, nullptr});
  infos.push_back(info);
  return loaded.back().info;
}

void PluginRegistry::Impl::load_or_skip(const fs::path& path, PluginOrigin origin) {
  try {
    load(path, origin);
  } catch (const PluginError& e) {
    log().warn("{} (skipped: the other plugins are unaffected)", printable(e.what()));
    std::error_code ec;
    refused.push_back({fs::canonical(path, ec), e.what()});
  }
}

std::vector<fs::path> PluginRegistry::Impl::plugin_libraries(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw PluginError(fmt::format("{}: plugin directory does not exist", dir.string()));
  const fs::path real_dir = fs::canonical(dir, ec);
  if (!ec) check_trusted(real_dir, /*directory=*/true, real_dir.string());
  // One entry that cannot be read (a dangling symlink, a file without read permission) is skipped
  // with a warning naming it; it never costs the other plugins of the directory.
  auto skip = [&](const fs::path& path, const std::string& why, bool listed) {
    const std::string message = fmt::format("{}: {}", printable(path.string()), why);
    log().warn("{} (skipped: the other plugins are unaffected)", message);
    if (listed) refused.push_back({path, message});
  };
  std::vector<fs::path> candidates;
  fs::directory_iterator it(dir, ec);
  if (ec) throw PluginError(fmt::format("{}: cannot list plugin directory: {}", dir.string(), ec.message()));
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw PluginError(fmt::format("{}: cannot list plugin directory: {}", dir.string(), ec.message()));
    const fs::path path = it->path();
    if (!looks_like_library(path)) continue;
    std::error_code entry_error;
    const fs::file_status status = it->status(entry_error);  // follows symlinks
    if (entry_error) {
      const bool dangling = it->is_symlink(ec) && !fs::exists(path, ec);
      ec.clear();
      skip(path,
           dangling ? fmt::format("cannot read it: a symlink to {}, which does not exist",
                                  fs::read_symlink(path, ec).string())
                    : fmt::format("cannot read it: {}", entry_error.message()),
           /*listed=*/false);
      continue;
    }
    if (fs::is_regular_file(status)) candidates.push_back(path);
  }
  std::sort(candidates.begin(), candidates.end());
  std::vector<fs::path> plugins;
  for (const auto& path : candidates) {
    // Only libraries that carry the entry point are plugins; other libraries (a plugin's own
    // dependencies) are skipped quietly, but a file named like a library that no loader could open
    // (not ELF, truncated, another machine's) is said. A plugin that fails a check is skipped with
    // a warning: the others, and the strategies they carry, stay usable, and asking for a strategy
    // that is not there names what was refused.
    if (const std::string why = not_a_loadable_library(path); !why.empty()) {
      skip(path, why, /*listed=*/true);
      continue;
    }
    bool is_plugin = false;
    try {
      boost::dll::library_info info(boost::dll::fs::path(path.string()), /*throw_if_not_native=*/true);
      const auto symbols = info.symbols();
      is_plugin = std::find(symbols.begin(), symbols.end(), kPluginEntryPoint) != symbols.end();
    } catch (const std::exception&) {
      skip(path, "not a shared library: its symbol table cannot be read (truncated or damaged)", /*listed=*/true);
      continue;
    }
    if (!is_plugin) {
      log().debug("{}: skipped, not an Assignor plugin", path.string());
      continue;
    }
    plugins.push_back(path);
  }
  return plugins;
}

void PluginRegistry::load_directory(const fs::path& dir, PluginOrigin origin) {
  for (const auto& path : impl_->plugin_libraries(dir)) impl_->load_or_skip(path, origin);
}

void PluginRegistry::index_directory(const fs::path& dir, PluginOrigin origin) {
  for (const auto& path : impl_->plugin_libraries(dir)) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) {
      impl_->load_or_skip(path, origin);  // says why it cannot be read
      continue;
    }
    auto same_file = [&](const auto& other) { return other.path == real; };
    if (std::any_of(impl_->pending.begin(), impl_->pending.end(), same_file) ||
        std::any_of(impl_->loaded.begin(), impl_->loaded.end(), [&](const auto& l) { return l.info.path == real; }))
      continue;  // the same file found twice (e.g. a symlink)
    // Who could have written it is known without opening it (a few stat calls): a library the
    // host would refuse is refused now, so that its name is never offered as loadable and a
    // config naming it hears the reason (exit 3), not 'no strategy named'.
    try {
      impl_->check_trusted(real, /*directory=*/false, real.string());
    } catch (const PluginError& e) {
      log().warn("{} (skipped: the other plugins are unaffected)", printable(e.what()));
      impl_->refused.push_back({real, e.what()});
      continue;
    }
    Impl::Pending candidate{real, origin, plugin_name_notes(real), false};
    // A second library claiming a name already found is refused as two loaded ones would be.
    if (candidate.claims.size() == 1 && !candidate.claims.front().empty()) {
      const std::string& name = candidate.claims.front();
      std::optional<fs::path> other;
      for (const auto& l : impl_->loaded)
        if (l.info.name == name) other = l.info.path;
      for (const auto& p : impl_->pending)
        if (!p.tried && p.claims.size() == 1 && p.claims.front() == name) other = p.path;
      if (other) {
        std::string message =
            fmt::format("two plugins are named '{}': {} and {}", name, other->string(), real.string());
        log().warn("{} (skipped: the other plugins are unaffected)", printable(message));
        impl_->conflicts.emplace(name, message);
        impl_->refused.push_back({real, std::move(message)});
        continue;
      }
    }
    impl_->pending.push_back(std::move(candidate));
  }
}

const PluginInfo* PluginRegistry::Impl::find_loaded(const std::string& name) const noexcept {
  for (const auto& p : loaded)
    if (p.info.name == name) return &p.info;
  return nullptr;
}

void PluginRegistry::Impl::resolve(const std::string& name) {
  if (conflicts.count(name) != 0 || find_loaded(name) != nullptr) return;
  for (auto& p : pending)
    if (!p.tried && p.claims.size() == 1 && p.claims.front() == name) {
      p.tried = true;
      load_or_skip(p.path, p.origin);
    }
  if (find_loaded(name) != nullptr) return;
  // Nothing claims it: the libraries without exactly one claim (built without ASSIGNOR_PLUGIN,
  // or for API 2 and earlier, which had no note) may still carry it, or say why they cannot.
  for (auto& p : pending)
    if (!p.tried && (p.claims.size() != 1 || p.claims.front().empty())) {
      p.tried = true;
      load_or_skip(p.path, p.origin);
      if (find_loaded(name) != nullptr) return;
    }
}

const std::vector<PluginInfo>& PluginRegistry::plugins() const noexcept { return impl_->infos; }

const std::vector<RefusedLibrary>& PluginRegistry::refused() const noexcept { return impl_->refused; }

std::vector<std::string> PluginRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& p : impl_->loaded) out.push_back(p.info.name);
  for (const auto& p : impl_->pending)
    if (!p.tried && p.claims.size() == 1 && !p.claims.front().empty() &&
        std::find(out.begin(), out.end(), p.claims.front()) == out.end())
      out.push_back(p.claims.front());
  return out;
}

bool PluginRegistry::knows(const std::string& name) const {
  if (impl_->conflicts.count(name) != 0) return false;
  const std::vector<std::string> known = names();
  return std::find(known.begin(), known.end(), name) != known.end();
}

const PluginInfo* PluginRegistry::find(const std::string& name) const noexcept {
  try {
    impl_->resolve(name);
  } catch (const std::exception& e) {  // out of memory, an unlistable path: as if it were not there
    log().warn("looking for plugin '{}': {}", printable(name), e.what());
  }
  return impl_->find_loaded(name);
}

const PluginInfo& PluginRegistry::require(const std::string& name) const {
  if (const auto conflict = impl_->conflicts.find(name); conflict != impl_->conflicts.end())
    throw PluginError(conflict->second);
  if (const PluginInfo* info = find(name)) return *info;
  // Not there: every library not opened yet is opened now, so that the message names every
  // plugin there is and every library refused, as after load_directory().
  for (auto& p : impl_->pending)
    if (!p.tried) {
      p.tried = true;
      impl_->load_or_skip(p.path, p.origin);
    }
  if (const auto conflict = impl_->conflicts.find(name); conflict != impl_->conflicts.end())
    throw PluginError(conflict->second);  // found while looking
  const std::vector<std::string> known = names();
  std::string message = fmt::format("no strategy named '{}'", name);
  const std::string suggestion = nearest(name, known);
  if (!suggestion.empty()) message += fmt::format("; did you mean '{}'?", suggestion);
  message +=
      fmt::format(" (plugins: {})", known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", ")));
  if (!impl_->refused.empty()) {
    message += fmt::format("; {} librar{} refused, which may hold it:", impl_->refused.size(),
                           impl_->refused.size() == 1 ? "y was" : "ies were");
    for (const auto& r : impl_->refused) message += " [" + r.reason + "]";
  }
  throw PluginError(message);
}

StrategyHandle PluginRegistry::create(const std::string& name, const StrategyParams& params) const {
  const PluginInfo& info = require(name);
  const Impl::Loaded* plugin = nullptr;
  for (const auto& p : impl_->loaded)
    if (p.info.path == info.path) plugin = &p;
  if (!plugin->library) {  // first use in this process: open it for real (the probe's child already did)
    auto [library, descriptor] = open_plugin(plugin->info.path.string());
    if (descriptor->name != plugin->info.name)
      throw PluginError(fmt::format("{}: names itself '{}' now, '{}' when it was found", plugin->info.path.string(),
                                    descriptor->name, plugin->info.name));
    plugin->library = std::move(library);
    plugin->descriptor = descriptor;
  }
  Strategy* raw = nullptr;
  try {
    raw = plugin->descriptor->create(params);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("strategies.{}: {}", name, e.what()));
  } catch (const std::exception& e) {
    throw StrategyError(
        fmt::format("plugin '{}' ({}) failed to create its strategy: {}", name, plugin->info.path.string(), e.what()));
  } catch (...) {
    throw StrategyError(fmt::format("plugin '{}' ({}) failed to create its strategy: unknown exception", name,
                                    plugin->info.path.string()));
  }
  if (raw == nullptr)
    throw StrategyError(fmt::format("plugin '{}' ({}) returned no strategy", name, plugin->info.path.string()));
  // The deleter owns a reference to the library: the object can never outlive its code.
  auto library = plugin->library;
  auto destroy = plugin->descriptor->destroy;
  return StrategyHandle(raw, [library, destroy](Strategy* s) { destroy(s); });
}

fs::path builtin_plugin_dir() {
  // The build tree is laid out like the installed one (CMakeLists.txt): the bundled plugins are
  // <bin>/../lib/assignor/plugins in both.
  const fs::path exe = boost::dll::program_location().string();
  return (exe.parent_path() / ASSIGNOR_PLUGIN_DIR_FROM_BIN).lexically_normal();
}

}  // namespace assignor::host
