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

// Why `path` cannot be read as an input file, or "" when it can be opened: "no such file", "a
// symlink to X, which does not exist", "a symlink loop (too many levels of symbolic links)", "a
// directory, not a file", or the system's reason ("Permission denied"). "-" (standard input) has
// none. A FIFO or a device is an input (read as a stream, within the reader's limit).
std::string input_path_problem(const std::filesystem::path& path);

// For an entry of a directory of inputs (shards, scenarios), where nothing but a file belongs: "" for
// a regular file (through symlinks), else what it is ("a FIFO", "a directory, not a file", "a
// device", "a socket") or input_path_problem()'s reason.
std::string regular_file_problem(const std::filesystem::path& path);

// Opens an input for reading as every reader does: InputError "SOURCE: cannot read WHAT: why" when
// input_path_problem() has a reason or open fails; a FIFO is opened without waiting for a writer
// (with none, it reads as an empty file); "-" is a copy of standard input. The caller closes it.
int open_input(const std::string& source, const std::filesystem::path& path, std::string_view what);

}  // namespace assignor::host::detail
