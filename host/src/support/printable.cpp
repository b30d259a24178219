#include "assignor/host/support/printable.hpp"

#include <fmt/format.h>

#include "assignor/host/support/utf8.hpp"

namespace assignor::host {

namespace {

bool is_control(unsigned char c) noexcept { return c < 0x20 || c == 0x7f; }

// The length of the UTF-8 sequence at text[i] when it encodes a character that changes how a
// terminal shows the text around it, else 0: the C1 controls (U+0080-U+009F; U+009B is CSI, an
// escape sequence by itself), the bidirectional formatting characters (U+061C, U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069: they reorder what follows, so a message can show other text than
// it holds) and the line and paragraph separators (U+2028, U+2029).
std::size_t invisible_control_at(std::string_view text, std::size_t i, std::uint32_t& code) noexcept {
  const auto b = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
  if (b(0) == 0xC2 && b(1) >= 0x80 && b(1) <= 0x9F) {
    code = b(1);
    return 2;
  }
  if (b(0) == 0xD8 && b(1) == 0x9C) {
    code = 0x061C;
    return 2;
  }
  if (b(0) == 0xE2 && (b(1) == 0x80 || b(1) == 0x81) && b(2) >= 0x80 && b(2) <= 0xBF) {
    code = 0x2000u | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu);
    const bool bidi =
        code == 0x200E || code == 0x200F || (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
    if (bidi || code == 0x2028 || code == 0x2029) return 3;
  }
  return 0;
}

}  // namespace

std::string printable(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::uint32_t code = 0;
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence_at(text, i);
      if (n == 0) {
        out += fmt::format("\\x{:02x}", c);
      } else if (invisible_control_at(text, i, code) > 0) {
        out += fmt::format("\\u{:04x}", code);
        i += n - 1;
      } else {
        out.append(text.substr(i, n));
        i += n - 1;
      }
    } else if (!is_control(c) || (keep_newlines && c == '\n')) {
      out += text[i];
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

std::size_t first_control_character(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::uint32_t code = 0;
    if (is_control(c) || (c >= 0x80 && invisible_control_at(text, i, code) > 0)) return i;
  }
  return std::string_view::npos;
}

}  // namespace assignor::host
