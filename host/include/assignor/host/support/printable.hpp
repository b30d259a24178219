// Text from files and plugins, made safe to print: control characters (a newline, an escape
// sequence, a carriage return) are shown as \n, \t, \r or \xNN, so that an id or a plugin's message
// can never start a forged line on stderr or in a table, nor move the terminal's cursor.
//
//   throw InputError(fmt::format("unknown key '{}'", printable(key)));
#pragma once

#include <string>
#include <string_view>

namespace assignor::host {

// `text` with every byte below 0x20 and 0x7f escaped (bytes from 0x80 up, UTF-8, are kept).
// With keep_newlines, '\n' stays: for messages that are several lines by design.
std::string printable(std::string_view text, bool keep_newlines = false);

// The offset of the first control character in `text`, or npos.
std::size_t first_control_character(std::string_view text) noexcept;

}  // namespace assignor::host
