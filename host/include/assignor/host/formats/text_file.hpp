// Reading a whole input file as text, bounded: what every reader (and a tool that keeps a file's
// text, like sweep's shards) starts with.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "assignor/host/formats/limits.hpp"

namespace assignor::host::detail {

// The raw text of a whole file; InputError when it cannot be read or is larger than `max_bytes`.
// Reads at most max_bytes + 1 bytes, so a pipe or a device (/dev/zero) cannot make it read forever.
// A FIFO is opened without waiting for a writer: with none, it reads as an empty file instead of
// blocking forever (a pipe with a writer, e.g. the shell's <(...), reads as usual).
// The name messages give a file: its path, or "standard input" for "-".
std::string source_name(const std::filesystem::path& path);

// "-" reads standard input.
std::string read_text_file(const std::string& source, const std::filesystem::path& path, std::string_view what,
                           std::uint64_t max_bytes = InputLimits{}.max_file_bytes);

}  // namespace assignor::host::detail
