// The host's one UTF-8 validator and decoder. Ids and names end up in JSON, which must be UTF-8,
// and in terminal output and reports, which must show what they hold: readers refuse invalid
// bytes where they are, printable() and the HTML reports escape them. Valid means what RFC 3629
// says: no overlong forms, no surrogates, nothing past U+10FFFF. Whole texts are first checked by
// simdjson's SIMD validator; utfcpp finds where a text that failed goes wrong and decodes single
// characters.
//
//   if (auto bad = invalid_utf8_at(id); bad != std::string_view::npos) refuse(id, bad);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace assignor::host {

// The offset of the first byte that is not part of valid UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text) noexcept;

// The character whose valid UTF-8 sequence starts at text[i]: its code point and length (1-4), or
// nullopt when the bytes there are not one (a stray continuation byte, a cut sequence, an overlong
// form, a surrogate, past U+10FFFF).
struct Utf8Char {
  std::uint32_t code_point;
  std::size_t length;
};
std::optional<Utf8Char> utf8_char_at(std::string_view text, std::size_t i) noexcept;

// The length of the valid sequence at text[i] (utf8_char_at), or 0.
inline std::size_t utf8_sequence_at(std::string_view text, std::size_t i) noexcept {
  const auto c = utf8_char_at(text, i);
  return c ? c->length : 0;
}

}  // namespace assignor::host
