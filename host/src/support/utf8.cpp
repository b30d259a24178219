#include "assignor/host/support/utf8.hpp"

#include <simdjson.h>
#include <utf8.h>

namespace assignor::host {

std::optional<Utf8Char> utf8_char_at(std::string_view text, std::size_t i) noexcept {
  auto it = text.begin() + static_cast<std::ptrdiff_t>(i);
  const auto start = it;
  try {
    const std::uint32_t code_point = utf8::next(it, text.end());
    return Utf8Char{code_point, static_cast<std::size_t>(it - start)};
  } catch (const utf8::exception&) {
    return std::nullopt;
  }
}

std::size_t invalid_utf8_at(std::string_view text) noexcept {
  if (simdjson::validate_utf8(text.data(), text.size())) return std::string_view::npos;
  const auto bad = utf8::find_invalid(text.begin(), text.end());
  return bad == text.end() ? std::string_view::npos : static_cast<std::size_t>(bad - text.begin());
}

}  // namespace assignor::host
