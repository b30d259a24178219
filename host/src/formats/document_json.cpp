// Strict JSON -> Document (parse_json_document, document.hpp): simdjson's on-demand parser, with
// positions computed from token addresses.
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "document_builder.hpp"

namespace assignor::host::detail {

namespace {

// simdjson (on demand) -> Document, with positions computed from token addresses.
class JsonBuilder {
 public:
  JsonBuilder(DocumentBuilder& b, std::string_view text) : b_(b), text_(text) {}

  // Line and column of a token. simdjson visits tokens in text order, so a cursor moving forward
  // finds them without a table of line starts (which could cost more than the text itself).
  DocMark at(const char* p) {
    const auto offset = static_cast<std::size_t>(p - text_.data());
    if (offset < offset_) offset_ = line_ = line_start_ = 0;  // not expected; start over
    while (offset_ < offset) {
      const void* nl = std::memchr(text_.data() + offset_, '\n', offset - offset_);
      if (nl == nullptr) break;
      ++line_;
      line_start_ = static_cast<std::size_t>(static_cast<const char*>(nl) - text_.data()) + 1;
      offset_ = line_start_;
    }
    offset_ = offset;
    return {static_cast<int>(line_), static_cast<int>(offset - line_start_)};
  }

  void object(simdjson::ondemand::object obj, DocMark mark, std::size_t depth) {
    const auto o = b_.open(DocType::Map, mark, depth);
    for (auto field : obj) {
      const char* key_at = field.key().value().raw() - 1;  // the opening quote
      b_.scalar(field.unescaped_key().value(), true, at(key_at));
      value(field.value().value(), depth + 1);
    }
    b_.close(o);
  }

  void value(simdjson::ondemand::value v, std::size_t depth) {
    const std::string_view token = v.raw_json_token();
    const DocMark mark = at(token.data());
    switch (v.type().value()) {
      case simdjson::ondemand::json_type::object: object(v.get_object().value(), mark, depth); return;
      case simdjson::ondemand::json_type::array: {
        const auto o = b_.open(DocType::Sequence, mark, depth);
        // A named array: iterating `v.get_array().value()` directly would range over a reference
        // into a destroyed temporary (simdjson_result::value() && returns T&&).
        simdjson::ondemand::array array = v.get_array().value();
        for (auto element : array) value(element.value(), depth + 1);
        b_.close(o);
        return;
      }
      case simdjson::ondemand::json_type::string: b_.scalar(v.get_string().value(), true, mark); return;
      case simdjson::ondemand::json_type::boolean:
        b_.scalar(v.get_bool().value() ? "true" : "false", false, mark);
        return;
      case simdjson::ondemand::json_type::null:
        // `nul`, `nullx`: not JSON (simdjson checks a value's text only when asked), the YAML parser's to read.
        (void)v.is_null().value();
        b_.null(mark);
        return;
      case simdjson::ondemand::json_type::number: b_.scalar(json_token_text(token), false, mark); return;
    }
  }

 private:
  DocumentBuilder& b_;
  std::string_view text_;
  std::size_t offset_ = 0, line_ = 0, line_start_ = 0;
};

}  // namespace

std::unique_ptr<Document> parse_json_document(std::string_view text, const std::string& source, std::size_t readable) {
  static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return nullptr;
  try {
    simdjson::ondemand::parser parser;
    // Parsed in place when the buffer has the padding (a file read by read_text_file), else copied.
    simdjson::padded_string copy;
    simdjson::padded_string_view padded(text.data(), text.size(), std::max(readable, text.size()));
    if (padded.padding() < simdjson::SIMDJSON_PADDING) {
      copy = simdjson::padded_string(text);
      padded = copy;
    }
    auto json = parser.iterate(padded).value();
    auto doc = std::make_unique<Document>();
    DocumentBuilder b(*doc, source, text.size());
    b.mark_json();
    b.expect_json();
    JsonBuilder builder(b, std::string_view(padded.data(), text.size()));
    const char* start = json.current_location().value();
    builder.object(json.get_object().value(), builder.at(start), 0);
    // Anything after the root object (a second document, garbage): let the YAML parser explain.
    if (json.current_location().error() != simdjson::OUT_OF_BOUNDS) return nullptr;
    return doc;
  } catch (const simdjson::simdjson_error& e) {
    // simdjson allocates with new(std::nothrow): running out of memory is one of its error codes,
    // not a sign that the text is not JSON (the YAML path would then refuse it for the wrong reason).
    if (e.error() == simdjson::MEMALLOC) throw std::bad_alloc();
    return nullptr;
  }
}

}  // namespace assignor::host::detail
