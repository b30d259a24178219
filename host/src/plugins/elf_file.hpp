// What a plugin library's ELF file says before any of its code runs: whether it can be a shared
// library for this process at all, the library search path it carries and the plugin name notes
// ASSIGNOR_PLUGIN writes. The file is untrusted: every read is bounds-checked.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace assignor::host::loading {

// Why `file` cannot be a shared library for this process, read from its ELF header, or "".
std::string not_a_loadable_library(const std::filesystem::path& file);

// The library search path a shared library carries (DT_RUNPATH, else DT_RPATH), entry by entry.
std::vector<std::string> elf_search_path(const std::filesystem::path& file);

// The names a library's plugin name notes give ("" for a malformed one).
std::vector<std::string> plugin_name_notes(const std::filesystem::path& file);

}  // namespace assignor::host::loading
