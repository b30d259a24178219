#include "assignor/host/plugin_registry.hpp"

#include <boost/dll/library_info.hpp>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dlfcn.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <cstring>
#include <system_error>

#include "assignor/errors.hpp"
#include "assignor/log.hpp"

namespace assignor::host {

namespace fs = std::filesystem;

namespace {

bool looks_like_library(const fs::path& p) {
  const auto name = p.filename().string();
  return p.extension() == ".so" || name.find(".so.") != std::string::npos;
}

std::string user_name(uid_t uid) {
  if (const passwd* pw = ::getpwuid(uid); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return "?";
}

// Why `path` (a plugin file or a directory plugins are loaded from; symlinks already resolved) must
// not be trusted, or "" when it can be: anyone who can write it, or its owner when that is neither
// root nor us, can make this process run their code.
std::string unsafe_reason(const fs::path& path, bool directory) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};  // the load itself reports what is missing
  const char* what = directory ? "directory" : "file";
  const auto mode = static_cast<unsigned>(st.st_mode & 07777);
  const bool group = (st.st_mode & S_IWGRP) != 0;
  const bool others = (st.st_mode & S_IWOTH) != 0;
  if (group || others)
    return fmt::format("the {} {} is writable by {} (mode {:04o}), so another user could put their code "
                       "in this process; fix it with 'chmod go-w {}'",
                       what, path.string(), group && others ? "its group and others" : (group ? "its group" : "others"),
                       mode, path.string());
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return fmt::format("the {} {} is owned by user '{}' (uid {}), neither root nor the user running assignor "
                       "('{}', uid {})",
                       what, path.string(), user_name(st.st_uid), st.st_uid, user_name(::geteuid()), ::geteuid());
  return {};
}

}  // namespace

struct PluginRegistry::Impl {
  struct Loaded {
    PluginInfo info;
    std::shared_ptr<boost::dll::shared_library> library;
    const PluginDescriptor* descriptor = nullptr;
  };
  std::deque<Loaded> loaded;  // a deque: references handed out stay valid across later loads
  std::vector<PluginInfo> infos;  // mirror of loaded[i].info, for plugins()
  bool allow_unsafe_permissions = false;

  void check_trusted(const fs::path& real, bool directory, const std::string& where) const {
    std::string reason = unsafe_reason(real, directory);
    if (reason.empty() && !directory) reason = unsafe_reason(real.parent_path(), /*directory=*/true);
    if (reason.empty()) return;
    if (allow_unsafe_permissions) {
      log().warn("{}: loading anyway (plugins.allow_unsafe_permissions): {}", where, reason);
      return;
    }
    throw PluginError(fmt::format("{}: refused: {}; or set 'plugins: {{allow_unsafe_permissions: true}}' in the "
                                  "config to load it anyway",
                                  where, reason));
  }
};

void PluginRegistry::set_allow_unsafe_permissions(bool allow) noexcept { impl_->allow_unsafe_permissions = allow; }

PluginRegistry::PluginRegistry() : impl_(std::make_unique<Impl>()) {}
PluginRegistry::~PluginRegistry() = default;

const PluginInfo& PluginRegistry::load(const fs::path& library_path, PluginOrigin origin) {
  std::error_code ec;
  fs::path real = fs::canonical(library_path, ec);
  if (ec) throw PluginError(fmt::format("{}: cannot load plugin: {}", library_path.string(), ec.message()));
  const std::string where = real.string();
  if (real != fs::absolute(library_path, ec).lexically_normal())
    log().debug("{}: resolved to {}", library_path.string(), where);
  for (const auto& other : impl_->loaded)
    if (other.info.path == real) return other.info;  // the same file found twice (e.g. symlink)

  // Before any byte of the file runs: who could have written it, and is it a plugin at all? Only a
  // library whose symbol table (read from the file, without dlopen) carries the entry point is
  // opened, so a library that is not a plugin never runs its initialisers here.
  if (!fs::is_regular_file(real, ec))
    throw PluginError(fmt::format("{}: cannot load plugin: not a regular file", where));
  impl_->check_trusted(real, /*directory=*/false, where);
  try {
    boost::dll::library_info file(boost::dll::fs::path(where), /*throw_if_not_native=*/true);
    const auto symbols = file.symbols();
    if (std::find(symbols.begin(), symbols.end(), kPluginEntryPoint) == symbols.end())
      throw PluginError(fmt::format("{}: not an Assignor plugin: it does not export '{}'", where,
                                    kPluginEntryPoint));
  } catch (const PluginError&) {
    throw;
  } catch (const std::exception& e) {
    throw PluginError(fmt::format("{}: cannot load plugin: not a shared library this system can load ({})",
                                  where, e.what()));
  }

  auto library = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code load_error;
  library->load(boost::dll::fs::path(real.string()), boost::dll::load_mode::rtld_local |
                                                          boost::dll::load_mode::rtld_now,
                load_error);
  if (load_error) {
    const char* detail = ::dlerror();
    throw PluginError(fmt::format("{}: cannot load plugin: {}", where,
                                  detail != nullptr ? detail : load_error.message()));
  }
  if (!library->has(kPluginEntryPoint))
    throw PluginError(fmt::format("{}: not an Assignor plugin: it does not export '{}'", where,
                                  kPluginEntryPoint));

  const PluginDescriptor* descriptor = nullptr;
  try {
    auto& entry = library->get_alias<PluginEntryPoint>(kPluginEntryPoint);
    descriptor = entry();
  } catch (const std::exception& e) {
    throw PluginError(fmt::format("{}: entry point '{}' failed: {}", where, kPluginEntryPoint, e.what()));
  }
  if (descriptor == nullptr)
    throw PluginError(fmt::format("{}: entry point '{}' returned no descriptor", where, kPluginEntryPoint));
  if (descriptor->api_version != kPluginApiVersion)
    throw PluginError(fmt::format("{}: API version {}, this host supports {}", where,
                                  descriptor->api_version, kPluginApiVersion));
  if (descriptor->fingerprint == nullptr || std::strcmp(descriptor->fingerprint, kBuildFingerprint) != 0)
    throw PluginError(fmt::format("{}: built as '{}', this host is '{}'; rebuild the plugin against "
                                  "this SDK with the same compiler",
                                  where, descriptor->fingerprint ? descriptor->fingerprint : "(none)",
                                  kBuildFingerprint));
  if (descriptor->name == nullptr || *descriptor->name == '\0' || descriptor->create == nullptr ||
      descriptor->destroy == nullptr)
    throw PluginError(fmt::format("{}: incomplete descriptor (name, create and destroy are required)", where));

  PluginInfo info;
  info.origin = origin;
  info.name = descriptor->name;
  info.version = descriptor->version ? descriptor->version : "";
  info.description = descriptor->description ? descriptor->description : "";
  info.api_version = descriptor->api_version;
  info.capabilities = descriptor->capabilities;
  info.path = real;

  for (const auto& other : impl_->loaded) {
    if (other.info.path == real) return other.info;  // the same file found twice (e.g. symlink)
    if (other.info.name == info.name)
      throw PluginError(fmt::format("two plugins are named '{}': {} and {}", info.name,
                                    other.info.path.string(), where));
  }
  log().debug("loaded plugin '{}' {} from {}", info.name, info.version, where);
  impl_->loaded.push_back({info, std::move(library), descriptor});
  impl_->infos.push_back(info);
  return impl_->loaded.back().info;
}

void PluginRegistry::load_directory(const fs::path& dir, PluginOrigin origin) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw PluginError(fmt::format("{}: plugin directory does not exist", dir.string()));
  const fs::path real_dir = fs::canonical(dir, ec);
  if (!ec) impl_->check_trusted(real_dir, /*directory=*/true, real_dir.string());
  std::vector<fs::path> candidates;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file(ec) && looks_like_library(entry.path())) candidates.push_back(entry.path());
  if (ec) throw PluginError(fmt::format("{}: cannot list plugin directory: {}", dir.string(), ec.message()));
  std::sort(candidates.begin(), candidates.end());
  for (const auto& path : candidates) {
    // Only libraries that carry the entry point are plugins; skip the rest quietly. The symbol
    // table is read from the file, without dlopen: a library that is not a plugin never runs its
    // initialisers here, and a plugin is opened once, by load(), with every symbol bound (RTLD_NOW).
    const fs::path real = fs::canonical(path, ec);
    if (!ec) impl_->check_trusted(real, /*directory=*/false, real.string());  // before reading a byte of it
    bool is_plugin = false;
    try {
      boost::dll::library_info info(boost::dll::fs::path(path.string()), /*throw_if_not_native=*/false);
      const auto symbols = info.symbols();
      is_plugin = std::find(symbols.begin(), symbols.end(), kPluginEntryPoint) != symbols.end();
    } catch (const std::exception&) {
      is_plugin = false;
    }
    if (!is_plugin) {
      log().debug("{}: skipped, not an Assignor plugin", path.string());
      continue;
    }
    load(path, origin);
  }
}

const std::vector<PluginInfo>& PluginRegistry::plugins() const noexcept { return impl_->infos; }

const PluginInfo* PluginRegistry::find(const std::string& name) const noexcept {
  for (const auto& p : impl_->loaded)
    if (p.info.name == name) return &p.info;
  return nullptr;
}

const PluginInfo& PluginRegistry::require(const std::string& name) const {
  if (const PluginInfo* info = find(name)) return *info;
  std::vector<std::string> names;
  for (const auto& p : impl_->loaded) names.push_back(p.info.name);
  std::string message = fmt::format("no strategy named '{}'", name);
  const std::string suggestion = nearest(name, names);
  if (!suggestion.empty()) message += fmt::format("; did you mean '{}'?", suggestion);
  message += fmt::format(" (loaded plugins: {})", names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
  throw PluginError(message);
}

StrategyHandle PluginRegistry::create(const std::string& name, const StrategyParams& params) const {
  const PluginInfo& info = require(name);
  const Impl::Loaded* plugin = nullptr;
  for (const auto& p : impl_->loaded)
    if (p.info.path == info.path) plugin = &p;
  Strategy* raw = nullptr;
  try {
    raw = plugin->descriptor->create(params);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("strategies.{}: {}", name, e.what()));
  } catch (const std::exception& e) {
    throw StrategyError(fmt::format("plugin '{}' ({}) failed to create its strategy: {}", name,
                                    plugin->info.path.string(), e.what()));
  } catch (...) {
    throw StrategyError(fmt::format("plugin '{}' ({}) failed to create its strategy: unknown exception",
                                    name, plugin->info.path.string()));
  }
  if (raw == nullptr)
    throw StrategyError(fmt::format("plugin '{}' ({}) returned no strategy", name,
                                    plugin->info.path.string()));
  // The deleter owns a reference to the library: the object can never outlive its code.
  auto library = plugin->library;
  auto destroy = plugin->descriptor->destroy;
  return StrategyHandle(raw, [library, destroy](Strategy* s) { destroy(s); });
}

fs::path builtin_plugin_dir() {
  const fs::path exe = boost::dll::program_location().string();
  const fs::path bin = exe.parent_path();
  for (const fs::path& candidate : {bin.parent_path() / "plugins", bin.parent_path() / "lib" / "assignor" / "plugins"}) {
    std::error_code ec;
    if (fs::is_directory(candidate, ec)) return candidate;
  }
  return bin.parent_path() / "lib" / "assignor" / "plugins";
}

}  // namespace assignor::host
