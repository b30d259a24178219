// The plugin boundary: one exported C entry point per shared library, `assignor_plugin_entry`,
// returning a PluginDescriptor (the shape of LLVM's `llvmGetPassPluginInfo` for pass plugins).
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
//
// Besides the entry point, a plugin library carries its name in an ELF note (owner "Assignor", in
// section .note.assignor), written by the same macro from the same string literal: the host reads
// it from the file, without running anything, to open only the library of the strategy it needs
// (`assignor assign`), and to find two libraries claiming one name before either is opened. Its
// descriptor must then give the same name, or the library is refused.
//
// This header and every header it includes need only the C++ standard library: no Boost (the host
// uses Boost.DLL to load plugins, a plugin needs none of it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "assignor/errors.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"
#include "assignor/version.hpp"

// Gives one symbol default visibility in a library built with hidden visibility (and the version
// script of cmake/assignor-plugin.map, which exports the entry point alone).
#define ASSIGNOR_PLUGIN_EXPORT __attribute__((visibility("default")))

// Where the name note goes, kept whole: `used` (nothing references it), and under clang's
// AddressSanitizer not padded with a redzone (GCC leaves globals in a named section alone).
#if defined(__clang__)
#define ASSIGNOR_PLUGIN_NOTE_ATTRIBUTES [[gnu::used, gnu::section(".note.assignor"), clang::no_sanitize("address")]]
#else
#define ASSIGNOR_PLUGIN_NOTE_ATTRIBUTES [[gnu::used, gnu::section(".note.assignor")]]
#endif

namespace assignor {

// The name of the exported entry point: a function `const PluginDescriptor* ()` with C linkage.
// (Plugins of API 2 and earlier exported a Boost.DLL alias of that name instead: a pointer to the
// function, as data. The host still reads their version through it, to refuse them by number.)
inline constexpr const char* kPluginEntryPoint = "assignor_plugin_entry";

// The plugin's name note: ELF note owner and type, in section kPluginNoteSection.
inline constexpr const char* kPluginNoteOwner = "Assignor";
inline constexpr std::uint32_t kPluginNameNoteType = 1;
inline constexpr const char* kPluginNoteSection = ".note.assignor";

// Capability flags a strategy declares.
inline constexpr std::uint32_t kCapabilityHighAvailability = 1u << 0;    // never a restoring active
inline constexpr std::uint32_t kCapabilityHandlesUnknownLags = 1u << 1;  // run even when lags are unknown
// Given num_standby_replicas as configured: the host caps it at clients - 1 for every other strategy
// (a number in the config must not bound the work). For a strategy whose arithmetic counts what was
// asked for (Kafka's KIP-1071 per-member quotas do); it must bound its own work by the input (stop
// a task's replicas at the first that no client can take). A flag, not a settings field, so that
// AssignmentSettings keeps its layout and an older host just gives the capped number.
inline constexpr std::uint32_t kCapabilityConfiguredStandbys = 1u << 2;

struct PluginDescriptor {
  std::uint32_t api_version;  // must equal the host's kPluginApiVersion
  const char* fingerprint;    // must equal the host's kBuildFingerprint
  const char* name;           // unique among loaded plugins; [a-z0-9_]+; the name note's too
  const char* version;
  const char* description;  // one line
  std::uint32_t capabilities;
  // Makes a strategy configured by `params` (the config's strategies.<name> map). May throw
  // ConfigError for bad parameters; must not return null.
  Strategy* (*create)(const StrategyParams& params);
  void (*destroy)(Strategy* strategy) noexcept;
};

using PluginEntryPoint = const PluginDescriptor*();

namespace plugin_detail {

// An ELF note (Elf64_Nhdr, then the owner and the description, each padded to 4 bytes) whose
// description is a plugin's name, NUL-terminated: laid out by the compiler, placed by the linker in
// a PT_NOTE segment of the library. Aligned to exactly 4 (alignas: the compiler would otherwise
// align a large object to 32, and a note segment must be aligned to 4 or 8).
template <std::size_t N>
struct NameNote {
  std::uint32_t owner_size;
  std::uint32_t name_size;
  std::uint32_t type;
  char owner[12];  // "Assignor" and its NUL, padded to 4 bytes
  char name[(N + 3) / 4 * 4];
};

template <std::size_t N>
constexpr NameNote<N> name_note(const char (&name)[N]) {
  static_assert(N > 1, "a plugin's name must not be empty");
  NameNote<N> note{9, static_cast<std::uint32_t>(N), kPluginNameNoteType, {}, {}};
  for (std::size_t i = 0; i < 9; ++i) note.owner[i] = "Assignor"[i];
  for (std::size_t i = 0; i < N; ++i) note.name[i] = name[i];
  return note;
}

}  // namespace plugin_detail

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

// The entry point, defined by ASSIGNOR_PLUGIN (or ASSIGNOR_PLUGIN_DESCRIPTOR) in a plugin library.
extern "C" ASSIGNOR_PLUGIN_EXPORT const assignor::PluginDescriptor* assignor_plugin_entry();

// Exports DESCRIPTOR, a PluginDescriptor with static storage whose name is NAME (the same string
// literal), as this library's plugin: the entry point, the name note and this_plugin(). For a
// descriptor ASSIGNOR_PLUGIN cannot write (the loader's own test plugins); a strategy uses
// ASSIGNOR_PLUGIN.
#define ASSIGNOR_PLUGIN_DESCRIPTOR(DESCRIPTOR, NAME)                                                                \
  namespace assignor_plugin_detail {                                                                                \
  ASSIGNOR_PLUGIN_NOTE_ATTRIBUTES alignas(4) constexpr auto name_note = ::assignor::plugin_detail::name_note(NAME); \
  }                                                                                                                 \
  extern "C" const ::assignor::PluginDescriptor* assignor_plugin_entry() { return &(DESCRIPTOR); }                  \
  const ::assignor::PluginDescriptor& assignor::this_plugin() noexcept { return DESCRIPTOR; }

// NAME must be a string literal (the name note is made from it at compile time).
#define ASSIGNOR_PLUGIN(StrategyClass, NAME, VERSION, DESCRIPTION, CAPABILITIES)                                      \
  namespace assignor_plugin_detail {                                                                                  \
  static ::assignor::Strategy* create(const ::assignor::StrategyParams& params) { return new StrategyClass(params); } \
  static void destroy(::assignor::Strategy* strategy) noexcept { delete strategy; }                                   \
  static const ::assignor::PluginDescriptor descriptor{::assignor::kPluginApiVersion,                                 \
                                                       ::assignor::kBuildFingerprint,                                 \
                                                       NAME,                                                          \
                                                       VERSION,                                                       \
                                                       DESCRIPTION,                                                   \
                                                       CAPABILITIES,                                                  \
                                                       &create,                                                       \
                                                       &destroy};                                                     \
  }                                                                                                                   \
  ASSIGNOR_PLUGIN_DESCRIPTOR(assignor_plugin_detail::descriptor, NAME)
