// The host's one UTF-8 validator. Ids and names end up in JSON, which must be UTF-8, and in
// terminal output, which must show what they hold: readers refuse invalid bytes where they are,
// printable() escapes them. Valid means what RFC 3629 says: no overlong forms, no surrogates,
// nothing past U+10FFFF. Whole texts are first checked by simdjson's SIMD validator; the byte-wise
// scan runs only to find where a text that failed goes wrong.
//
//   if (auto bad = invalid_utf8_at(id); bad != std::string_view::npos) refuse(id, bad);
#pragma once

#include <cstddef>
#include <string_view>

namespace assignor::host {

// The offset of the first byte that is not part of valid UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text) noexcept;

// The length (2-4) of the valid multi-byte sequence starting at text[i], or 0 when the bytes there
// are not one (a stray continuation byte, a cut sequence, an overlong form, a surrogate, past
// U+10FFFF). text[i] must be >= 0x80.
std::size_t utf8_sequence_at(std::string_view text, std::size_t i) noexcept;

}  // namespace assignor::host
