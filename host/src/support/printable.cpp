#include "assignor/host/support/printable.hpp"

#include <fmt/format.h>

namespace assignor::host {

namespace {

bool is_control(unsigned char c) noexcept { return c < 0x20 || c == 0x7f; }

}  // namespace

std::string printable(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (!is_control(c) || (keep_newlines && c == '\n')) {
      out += ch;
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
  for (std::size_t i = 0; i < text.size(); ++i)
    if (is_control(static_cast<unsigned char>(text[i]))) return i;
  return std::string_view::npos;
}

}  // namespace assignor::host
