// Text from files and plugins, made safe to print: control characters (a newline, an escape
// sequence, a carriage return) are shown as \n, \t, \r or \xNN, and the Unicode characters that
// act like them (C1 controls U+0080-U+009F, bidirectional overrides and isolates such as U+202E,
// line and paragraph separators) as \uNNNN, so that an id or a plugin's message can never start a
// forged line on stderr or in a table, move the terminal's cursor or show other text than it holds.
//
//   throw InputError(fmt::format("unknown key '{}'", printable(key)));
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace assignor::host {

// `text` with every byte below 0x20 and 0x7f escaped, bytes that are not valid UTF-8 as \xNN, and
// the Unicode controls above as \uNNNN (other UTF-8 is kept). With keep_newlines, '\n' stays: for messages that are several lines by design.
std::string printable(std::string_view text, bool keep_newlines = false);

// The byte offset of the first control character in `text` (ASCII or one of the Unicode ones
// above), or npos.
std::size_t first_control_character(std::string_view text) noexcept;

}  // namespace assignor::host
