// What the readers (cluster, config, events, assignment) share: reading a file, parsing a YAML or
// JSON text into a Document (document.hpp), and strict typed access to its nodes with messages of
// the form "FILE:LINE:COL: <place>: <problem>". The implementation is in yaml_json_reader.cpp.
// Public to the host's rooms (import reads its offsets files with it), not installed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "assignor/host/formats/document.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/support/utf8.hpp"

namespace assignor::host::detail {

// The node type the readers check: a YAML or JSON node with its position.
using Node = DocNode;

// Where a message points, "place" in "FILE:L:C: place: problem": text, or a function that makes
// the text. Readers pass a function where the text costs a format per element (a task's place in
// a 100k-task file) so that it is made only when there is a message to write. The function must
// outlive the call it is passed to (a lambda written in the call's arguments does).
class Place {
 public:
  Place(const char* text) noexcept : text_(text) {}
  Place(std::string_view text) noexcept : text_(text) {}
  Place(const std::string& text) noexcept : text_(text) {}
  template <class Make, std::enable_if_t<std::is_invocable_r_v<std::string, const Make&>, int> = 0>
  Place(const Make& make) noexcept
      : object_(&make), make_([](const void* f) { return (*static_cast<const Make*>(f))(); }) {}

  std::string str() const { return make_ ? make_(object_) : std::string(text_); }

 private:
  std::string_view text_;
  const void* object_ = nullptr;
  std::string (*make_)(const void*) = nullptr;
};

// "FILE:L:C" (1-based), or just FILE for a node without a position.
std::string location(const std::string& source, const DocMark& mark);

// Throws InputError "FILE:L:C: place: problem" (place omitted when empty). Place and problem
// quote text from the file: printable() keeps the message on one line.
[[noreturn]] void fail(const std::string& source, const DocMark& mark, std::string_view place,
                       std::string_view problem);

// "place: field" or "field" when the place is empty; "place" when the field is empty.
std::string join_place(std::string_view place, std::string_view field);

// A short description of a node for "expected X, got Y" messages.
std::string describe(const Node& node);

// Parses a single YAML or JSON document (document.hpp says what is refused and why). Texts longer
// than `max_bytes` are refused before parsing; running out of memory is an InputError.
struct LoadedDocument {
  std::unique_ptr<Document> document;
  Node root() const noexcept { return document->root(); }
};
// `readable`: bytes that may be read from text.data() (see parse_json_document).
LoadedDocument load_document(std::string_view text, const std::string& source, std::string_view what,
                             std::uint64_t max_bytes = InputLimits{}.max_file_bytes, std::size_t readable = 0);

// A document that must be strict JSON (a file a program wrote, e.g. an assignment): one JSON
// object; anything else is refused, with the place where its syntax breaks when YAML (a superset
// of JSON) finds one.
LoadedDocument load_json_document(std::string_view text, const std::string& source, std::string_view what,
                                  std::size_t readable = 0);

// ---- strict scalar conversions ----------------------------------------------------------------

// A plain (unquoted) scalar: numbers and booleans must not be quoted strings.
inline bool is_plain_scalar(const Node& node) { return node.IsScalar() && !node.IsQuoted(); }

enum class IntParse { ok, not_an_integer, out_of_range };
IntParse parse_int64(std::string_view text, std::int64_t& out);

// A finite number as FieldReader::number reads it (an optional '+', then std::from_chars).
enum class NumberParse { ok, not_a_number, not_finite };
NumberParse parse_number(std::string_view text, double& out) noexcept;

// Whether FieldReader::check_length accepts `s`, without a message: at most `max_length` bytes,
// valid UTF-8, no control character. Printable ASCII, what nearly every id and name is, is decided
// here; other text by the full checks.
bool acceptable_unicode_text(std::string_view s) noexcept;
inline bool acceptable_text(std::string_view s, std::uint64_t max_length) noexcept {
  if (s.size() > max_length) return false;
  for (const char c : s)
    if (c < 0x20 || c >= 0x7f) return acceptable_unicode_text(s);
  return true;
}

// Ids and names end up in JSON, which must be UTF-8: a file that holds other bytes is refused
// where they are (support/utf8.hpp), not at output time.
using host::invalid_utf8_at;

// Typed access to one field value. `place` is the full place used in messages (e.g.
// "client 'c1': threads" or "assignment.max_warmup_replicas").
class FieldReader {
 public:
  explicit FieldReader(const std::string& source) : source_(source) {}
  // Strings (ids, names) longer than `max_string_length` bytes are refused (limits.max_id_length).
  FieldReader(const std::string& source, std::uint64_t max_string_length)
      : source_(source), max_string_length_(max_string_length) {}

  const std::string& source() const noexcept { return source_; }
  std::uint64_t max_string_length() const noexcept { return max_string_length_; }

  // Refuses a scalar longer than max_string_length() (ids and names of every kind), text that is
  // not valid UTF-8 and control characters.
  void check_length(const Node& node, Place place) const;

  [[noreturn]] void fail_at(const Node& node, Place place, std::string_view problem) const;

  // A string scalar; empty only when allowed. The view lives as long as the document.
  std::string_view string_view(const Node& node, Place place, bool allow_empty = false) const;
  std::string string(const Node& node, Place place, bool allow_empty = false) const {
    return std::string(string_view(node, place, allow_empty));
  }
  std::int64_t integer(const Node& node, Place place) const;
  // An integer in [min, max]; messages "must be >= 1, got 0".
  std::int64_t integer_in(const Node& node, Place place, std::int64_t min,
                          std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  double number(const Node& node, Place place) const;
  bool boolean(const Node& node, Place place) const;
  void expect_list(const Node& node, Place place) const {
    if (!node.IsSequence()) wrong_kind(node, place, "a list");
  }
  void expect_map(const Node& node, Place place) const {
    if (!node.IsMap()) wrong_kind(node, place, "a map");
  }

 private:
  [[noreturn]] void wrong_kind(const Node& node, Place place, std::string_view expected) const;

  const std::string& source_;
  std::uint64_t max_string_length_ = std::numeric_limits<std::uint64_t>::max();
};

// The fields of one map, checked against the known keys: an unknown key is an error naming the
// nearest known key, a key given twice is an error naming both lines.
//
// The two-step form lets a reader name the place after reading the map's id:
//   Fields f(reader, node, "clients[3]", kKeys, Fields::defer_checks);
//   ... read the id ...
//   f.check("client 'c1'");   // unknown or repeated keys, reported with the client's id
class Fields {
 public:
  struct DeferChecks {};
  static constexpr DeferChecks defer_checks{};

  Fields(const FieldReader& reader, const Node& map, Place place, const std::vector<std::string>& known)
      : Fields(reader, map, place, known, defer_checks) {
    check(place);
  }

  // Collects the fields; unknown or repeated keys are reported by check().
  Fields(const FieldReader& reader, const Node& map, Place place, const std::vector<std::string>& known, DeferChecks);

  // Throws for the first unknown or repeated key, if any.
  void check(Place place) const {
    if (problem_) reader_.fail_at(problem_->first, place, problem_->second);
  }

  // Present with a non-null value (null counts as absent: "stores:" with nothing means no stores).
  bool has(std::size_t i) const { return present_[i] && !values_[i].IsNull(); }
  // Present at all, even with a null value.
  bool given(std::size_t i) const { return present_[i]; }
  const Node& value(std::size_t i) const { return values_[i]; }
  const Node& key(std::size_t i) const { return keys_[i]; }
  const Node& map() const { return map_; }
  const std::string& name(std::size_t i) const { return known_[i]; }

  // A required key: missing -> "missing required key 'x'" at the map; null -> "x: missing value".
  const Node& require(std::size_t i, Place place) const {
    if (!present_[i] || values_[i].IsNull()) missing(i, place);
    return values_[i];
  }

 private:
  [[noreturn]] void missing(std::size_t i, Place place) const;
  std::string unknown_key(std::string_view name) const;

  // The readers' maps have at most a dozen known keys: kept inline, no allocation per map.
  static constexpr std::size_t kInline = 12;
  const FieldReader& reader_;
  Node map_;
  const std::vector<std::string>& known_;
  boost::container::small_vector<Node, kInline> keys_;
  boost::container::small_vector<Node, kInline> values_;
  boost::container::small_vector<bool, kInline> present_;
  std::optional<std::pair<Node, std::string>> problem_;
};

}  // namespace assignor::host::detail
