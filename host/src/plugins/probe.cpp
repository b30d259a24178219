#include "probe.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <system_error>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/process/child_process.hpp"

namespace assignor::host::loading {

namespace {

// How a library exports its entry point: a function (API 3 on), or, as plugins of API 2 and
// earlier did, a Boost.DLL alias (a variable holding the function's address). Told apart by the ELF
// symbol type the dynamic loader has for the exported name: calling a variable would run data.
enum class EntryKind { function, boost_alias, other };

EntryKind entry_kind(const void* address) {
  Dl_info info{};
  void* entry = nullptr;
  if (::dladdr1(address, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == nullptr || info.dli_sname == nullptr ||
      std::strcmp(info.dli_sname, kPluginEntryPoint) != 0)
    return EntryKind::other;
  const auto* symbol = static_cast<const Elf64_Sym*>(entry);
  switch (ELF64_ST_TYPE(symbol->st_info)) {
    case STT_FUNC: return EntryKind::function;
    case STT_OBJECT: return EntryKind::boost_alias;
    default: return EntryKind::other;
  }
}

// A plugin of another API version, refused by number with the way to rebuild it.
std::string api_version_mismatch(const std::string& where, std::uint32_t version) {
  if (version < kPluginApiVersion)
    return fmt::format(
        "{}: API version {}, this host supports {}: the plugin was built against an older Assignor "
        "SDK; rebuild it against this one (find_package(Assignor {}) in its CMakeLists.txt, then a "
        "fresh build directory)",
        where, version, kPluginApiVersion, kPluginApiVersion);
  return fmt::format(
      "{}: API version {}, this host supports {}: the plugin was built against a newer Assignor SDK; "
      "run it with an assignor that supports API {}, or rebuild it against this one "
      "(find_package(Assignor {}))",
      where, version, kPluginApiVersion, version, kPluginApiVersion);
}

bool parse_u32(const std::string& word, std::uint32_t& value) {
  const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  return ec == std::errc() && ptr == word.data() + word.size() && !word.empty();
}

}  // namespace

std::pair<std::shared_ptr<boost::dll::shared_library>, const PluginDescriptor*> open_plugin(const std::string& where) {
  auto library = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code load_error;
  library->load(boost::dll::fs::path(where), boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now,
                load_error);
  if (load_error) {
    const char* detail = ::dlerror();
    throw PluginError(
        fmt::format("{}: cannot load plugin: {}", where, detail != nullptr ? detail : load_error.message()));
  }
  // Never unloaded while the process runs (as LLVM does with its pass plugins): a thread a
  // strategy started may still be running its code when the registry goes away at exit, and
  // unmapping that code under it would crash the host after its result was written.
  (void)::dlopen(where.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  if (!library->has(kPluginEntryPoint))
    throw PluginError(fmt::format("{}: not an Assignor plugin: it does not export '{}'", where, kPluginEntryPoint));
  const EntryKind kind = entry_kind(&library->get<char>(kPluginEntryPoint));
  if (kind == EntryKind::other)
    throw PluginError(
        fmt::format("{}: not an Assignor plugin: its '{}' is neither a function nor the Boost.DLL alias "
                    "of API 2 and earlier",
                    where, kPluginEntryPoint));
  const PluginDescriptor* descriptor = nullptr;
  try {
    descriptor = kind == EntryKind::function ? library->get<PluginEntryPoint>(kPluginEntryPoint)()
                                             : library->get_alias<PluginEntryPoint>(kPluginEntryPoint)();
  } catch (const std::exception& e) {
    throw PluginError(fmt::format("{}: entry point '{}' failed: {}", where, kPluginEntryPoint, e.what()));
  }
  if (descriptor == nullptr)
    throw PluginError(fmt::format("{}: entry point '{}' returned no descriptor", where, kPluginEntryPoint));
  if (descriptor->api_version != kPluginApiVersion)
    throw PluginError(api_version_mismatch(where, descriptor->api_version));
  if (kind != EntryKind::function)
    throw PluginError(
        fmt::format("{}: declares API version {} but exports '{}' as a Boost.DLL alias, as plugins of "
                    "API 2 and earlier did; rebuild it with ASSIGNOR_PLUGIN from this SDK "
                    "(find_package(Assignor {}))",
                    where, descriptor->api_version, kPluginEntryPoint, kPluginApiVersion));
  if (descriptor->fingerprint == nullptr || std::strcmp(descriptor->fingerprint, kBuildFingerprint) != 0)
    throw PluginError(
        fmt::format("{}: built as '{}', this host is '{}'; rebuild the plugin against "
                    "this SDK with the same compiler",
                    where, descriptor->fingerprint ? descriptor->fingerprint : "(none)", kBuildFingerprint));
  if (descriptor->name == nullptr || *descriptor->name == '\0' || descriptor->create == nullptr ||
      descriptor->destroy == nullptr)
    throw PluginError(fmt::format("{}: incomplete descriptor (name, create and destroy are required)", where));
  return {std::move(library), descriptor};
}

// The probe's answer, one frame (process/frames.hpp): "plugin API CAPABILITIES N" + name, version
// and description, each ended by a NUL (they are C strings: none can hold one); or "fail plugin N" +
// the reason the library was refused.
PluginInfo probe(const std::string& where, std::uint64_t time_ms) {
  const process::ChildOutcome child = process::run_in_child(
      [&](int fd) {
        std::string answer;
        try {
          const auto [library, d] = open_plugin(where);
          std::string texts;
          for (const char* text : {d->name, d->version, d->description}) {
            texts.append(text != nullptr ? text : "");
            texts.push_back('\0');
          }
          answer =
              process::encode_frame({"plugin", std::to_string(d->api_version), std::to_string(d->capabilities)}, texts);
        } catch (const std::exception& e) {
          answer = process::failure_frame(ErrorKind::plugin, e.what());
        }
        ::_exit(process::write_all(fd, answer) ? 0 : 1);  // no destructor of the library's runs here
      },
      {time_ms, 1u << 20});
  switch (child.end) {
    case process::ChildEnd::not_started:
      throw PluginError(fmt::format("{}: cannot load plugin: {}", where, child.error));
    case process::ChildEnd::timed_out:
      throw PluginError(fmt::format("{}: did not finish loading within {} (limits.time_ms): its initialisers hang",
                                    where, process::describe_duration(time_ms)));
    case process::ChildEnd::malformed:
      throw PluginError(
          fmt::format("{}: cannot load plugin: its loader's answer is malformed ({})", where, child.error));
    case process::ChildEnd::signaled:
      throw PluginError(fmt::format("{}: crashed with {} while loading (in its initialisers)", where,
                                    process::describe_signal(child.status)));
    case process::ChildEnd::exited:
      throw PluginError(fmt::format("{}: ended its loader with exit status {} while loading (in its initialisers)",
                                    where, child.status));
    case process::ChildEnd::answered: break;
  }
  const process::Frame& frame = *child.frame;
  if (frame.kind() == "fail" && frame.words.size() == 2 && frame.words[1] == error_kind_name(ErrorKind::plugin))
    throw PluginError(frame.payload);
  PluginInfo info;
  std::vector<std::string> texts;
  for (std::size_t at = 0; at < frame.payload.size();) {
    const std::size_t end = frame.payload.find('\0', at);
    if (end == std::string::npos) break;
    texts.push_back(frame.payload.substr(at, end - at));
    at = end + 1;
  }
  if (frame.kind() != "plugin" || frame.words.size() != 3 || texts.size() != 3 || frame.payload.back() != '\0' ||
      !parse_u32(frame.words[1], info.api_version) || !parse_u32(frame.words[2], info.capabilities))
    throw PluginError(fmt::format("{}: cannot load plugin: its loader's answer is malformed", where));
  info.name = std::move(texts[0]);
  info.version = std::move(texts[1]);
  info.description = std::move(texts[2]);
  return info;
}

}  // namespace assignor::host::loading
