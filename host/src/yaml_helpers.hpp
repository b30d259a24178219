// Internal helpers shared by the readers (cluster, config, events): parsing a YAML or JSON document
// into a Document (document.hpp) and strict typed access to its nodes, with messages of the form
// "FILE:LINE:COL: <place>: <problem>". Not installed, not public.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "assignor/errors.hpp"
#include "assignor/host/limits.hpp"
#include "assignor/host/printable.hpp"
#include "document.hpp"

namespace assignor::host::detail {

// The node type the readers check: a YAML or JSON node with its position.
using Node = DocNode;

// Where a message points: the file name and a yaml-cpp mark (0-based; printed 1-based).
inline std::string location(const std::string& source, const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0) return source;
  return fmt::format("{}:{}:{}", source, mark.line + 1, mark.column + 1);
}

inline std::string location(const std::string& source, const DocMark& mark) {
  if (mark.is_null()) return source;
  return fmt::format("{}:{}:{}", source, mark.line + 1, mark.column + 1);
}

// "FILE:L:C: place: problem" (place omitted when empty).
// Place and problem quote text from the file: printable() keeps the message on one line.
[[noreturn]] inline void fail(const std::string& source, const YAML::Mark& mark, std::string_view place,
                              std::string_view problem) {
  if (place.empty()) throw InputError(fmt::format("{}: {}", location(source, mark), printable(problem)));
  throw InputError(fmt::format("{}: {}: {}", location(source, mark), printable(place), printable(problem)));
}
[[noreturn]] inline void fail(const std::string& source, const DocMark& mark, std::string_view place,
                              std::string_view problem) {
  if (place.empty()) throw InputError(fmt::format("{}: {}", location(source, mark), printable(problem)));
  throw InputError(fmt::format("{}: {}: {}", location(source, mark), printable(place), printable(problem)));
}

// "place: field" or "field" when the place is empty; "place" when the field is empty.
inline std::string join_place(std::string_view place, std::string_view field) {
  if (place.empty()) return std::string(field);
  if (field.empty()) return std::string(place);
  return fmt::format("{}: {}", place, field);
}

// A short description of a node for "expected X, got Y" messages.
inline std::string describe(const Node& node) {
  switch (node.Type()) {
    case DocType::Null:
    case DocType::Undefined:
      return "null";
    case DocType::Sequence:
      return "a list";
    case DocType::Map:
      return "a map";
    case DocType::Scalar:
      break;
  }
  std::string text(node.Scalar());
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  // Quoted scalars are strings for sure; plain ones are shown as written.
  if (node.Tag() == "!") return fmt::format("the string \"{}\"", text);
  return fmt::format("'{}'", text);
}

// The raw text of a whole file; InputError when it cannot be read or is larger than `max_bytes`.
// Reads at most max_bytes + 1 bytes, so a pipe or a device (/dev/zero) cannot make it read forever.
// A FIFO is opened without waiting for a writer: with none, it reads as an empty file instead of
// blocking forever (a pipe with a writer, e.g. the shell's <(...), reads as usual).
inline std::string read_text_file(const std::string& source, const std::filesystem::path& path,
                                  std::string_view what,
                                  std::uint64_t max_bytes = InputLimits{}.max_file_bytes) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InputError(fmt::format("{}: cannot read {}: no such file", source, what));
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: cannot read {}: it is a directory", source, what));
  auto too_large = [&](std::string_view size) {
    return InputError(fmt::format("{}: the {} is too large ({} bytes); the limit is {} bytes "
                                  "(limits.max_file_mb in the config)",
                                  source, what, size, max_bytes));
  };
  if (std::filesystem::is_regular_file(path, ec)) {
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes) throw too_large(std::to_string(size));
  }
  auto failed = [&](int error) {
    return InputError(fmt::format("{}: cannot read {}: {}", source, what,
                                  std::error_code(error, std::generic_category()).message()));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw failed(errno);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // Blocking again for the reads: a writer that is slow to write is waited for.
  if (const int flags = ::fcntl(fd, F_GETFL); flags == -1 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == -1)
    throw failed(errno);
  // A regular file is read into exactly its size; a stream (a pipe, a device) in chunks that are
  // joined only once it has ended within the limit, so memory never runs ahead of what was read.
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::vector<std::string> chunks;
  std::uint64_t total = 0;
  if (regular) chunks.emplace_back().reserve(static_cast<std::size_t>(std::min<std::uint64_t>(
                   static_cast<std::uint64_t>(st.st_size), max_bytes) + 1));
  for (;;) {
    if (chunks.empty() || (!regular && chunks.back().size() == kChunk)) chunks.emplace_back().reserve(kChunk);
    std::string& chunk = chunks.back();
    const std::size_t old = chunk.size();
    const std::size_t room = regular ? std::max<std::size_t>(chunk.capacity() - old, 1) : kChunk - old;
    chunk.resize(old + room);
    const ssize_t n = ::read(fd, chunk.data() + old, room);
    if (n < 0 && errno == EINTR) {
      chunk.resize(old);
      continue;
    }
    if (n < 0) throw failed(errno);
    chunk.resize(old + static_cast<std::size_t>(n));
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    if (total > max_bytes) throw too_large(fmt::format("more than {}", max_bytes));
  }
  if (chunks.size() == 1) return std::move(chunks.front());
  std::string text;
  text.reserve(static_cast<std::size_t>(total));
  for (const auto& chunk : chunks) text += chunk;
  return text;
}

// Counts the nodes of a YAML text as the readers will see them, each alias (`*name`) as a copy of
// the node it refers to, from the parser's events (no node is built), and remembers where the
// latest document started. Refuses, while parsing:
//  - an alias inside the node it refers to (`&a [*a]`), which yaml-cpp turns into a cyclic graph
//    that any recursive reader would follow forever;
//  - more expanded nodes than kAliasExpansionFactor x the nodes written so far plus
//    kAliasExpansionAllowance ("billion laughs": a few lines that expand to 10^9 nodes).
class AliasExpansionGuard final : public YAML::EventHandler {
 public:
  explicit AliasExpansionGuard(const std::string& source) : source_(source) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    document_mark_ = mark;
    root_seen_ = false;
    anchor_size_.clear();  // anchors are numbered per document
    open_.clear();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    at_node(mark);
    if (anchor >= anchor_size_.size() || anchor_size_[anchor] == 0) return;  // unknown: yaml-cpp reports it
    if (anchor_size_[anchor] == kOpen)
      fail(source_, mark, "",
           "an alias refers to a node that contains it (a cycle); an alias must refer to a complete node "
           "defined before it");
    expanded_ += anchor_size_[anchor];
    check(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

  // Where the latest document starts: its root node, or its start when it has none.
  const YAML::Mark& document_mark() const noexcept { return document_mark_; }
  std::uint64_t written() const noexcept { return written_; }
  std::uint64_t expanded() const noexcept { return expanded_; }

 private:
  static constexpr std::uint64_t kOpen = std::numeric_limits<std::uint64_t>::max();

  void set_size(YAML::anchor_t anchor, std::uint64_t size) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= anchor_size_.size()) anchor_size_.resize(anchor + 1, 0);
    anchor_size_[anchor] = size;
  }
  void at_node(const YAML::Mark& mark) {
    if (!root_seen_) document_mark_ = mark;
    root_seen_ = true;
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    at_node(mark);
    ++written_;
    ++expanded_;
    set_size(anchor, 1);
    check(mark);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    at_node(mark);
    ++written_;
    ++expanded_;
    open_.emplace_back(anchor, expanded_ - 1);
    set_size(anchor, kOpen);
    check(mark);
  }
  void close() {
    if (open_.empty()) return;
    const auto [anchor, start] = open_.back();
    open_.pop_back();
    set_size(anchor, expanded_ - start);
  }
  void check(const YAML::Mark& mark) const {
    if (expanded_ > kAliasExpansionFactor * written_ + kAliasExpansionAllowance)
      fail(source_, mark, "",
           fmt::format("aliases expand the document to more than {} nodes from {} written (at most {} times "
                       "the written nodes plus {}); write the repeated parts out",
                       expanded_, written_, kAliasExpansionFactor, kAliasExpansionAllowance));
  }

  const std::string& source_;
  YAML::Mark document_mark_;
  bool root_seen_ = false;
  std::vector<std::uint64_t> anchor_size_;  // by anchor id: 0 unknown, kOpen while being parsed
  std::vector<std::pair<YAML::anchor_t, std::uint64_t>> open_;  // open collections: anchor, expanded at start
  std::uint64_t written_ = 0;
  std::uint64_t expanded_ = 0;
};

// Parses a single YAML or JSON document (document.hpp says what is refused and why). Texts longer
// than `max_bytes` are refused before parsing.
struct LoadedDocument {
  std::unique_ptr<Document> document;
  Node root() const noexcept { return document->root(); }
};

inline LoadedDocument load_document(std::string_view text, const std::string& source, std::string_view what,
                                    std::uint64_t max_bytes = InputLimits{}.max_file_bytes) {
  if (text.size() > max_bytes)
    throw InputError(fmt::format("{}: {} bytes is more than the limit of {} bytes (limits.max_file_mb in the "
                                 "config)",
                                 source, text.size(), max_bytes));
  try {
    // Strict JSON (what `assignor generate` and other tools write) takes the fast path.
    if (auto json = parse_json_document(text, source)) return {std::move(json)};
    return {parse_yaml_document(text, source, what)};
  } catch (const std::bad_alloc&) {
    throw InputError(fmt::format("{}: ran out of memory reading this {}-byte file; free memory, or split or "
                                 "shrink the file",
                                 source, text.size()));
  }
}

// ---- strict scalar conversions ----------------------------------------------------------------

// A plain (unquoted) scalar: numbers and booleans must not be quoted strings.
inline bool is_plain_scalar(const Node& node) {
  return node.IsScalar() && node.Tag() != "!";
}

enum class IntParse { ok, not_an_integer, out_of_range };

inline IntParse parse_int64(std::string_view text, std::int64_t& out) {
  if (text.empty()) return IntParse::not_an_integer;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') ++first;  // "+5" is an integer too
  if (first == last || (*first != '-' && (*first < '0' || *first > '9'))) return IntParse::not_an_integer;
  auto [ptr, ec] = std::from_chars(first, last, out);
  if (ec == std::errc::result_out_of_range) {
    // Make sure the rest is digits, so that "99999999999999999999x" is "not an integer".
    const char* p = first + (*first == '-' ? 1 : 0);
    for (; p != last; ++p)
      if (*p < '0' || *p > '9') return IntParse::not_an_integer;
    return IntParse::out_of_range;
  }
  if (ec != std::errc{} || ptr != last) return IntParse::not_an_integer;
  return IntParse::ok;
}

// The offset of the first byte that is not part of valid UTF-8 (overlong forms, surrogates and
// code points past U+10FFFF are invalid too), or npos. Ids and names end up in JSON, which must be
// UTF-8: a file that holds other bytes is refused where they are, not at output time.
inline std::size_t invalid_utf8_at(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;  // continuation bytes
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) n = 2;
    else if (c >= 0xF0 && c <= 0xF4) n = 3;
    else return i;
    std::uint32_t cp = c & (0x7Fu >> (n + 1));
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0u) != 0x80u) return i;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
      return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

// Typed access to one field value. `place` is the full place text used in messages (e.g.
// "client 'c1': threads" or "assignment.max_warmup_replicas").
class FieldReader {
 public:
  explicit FieldReader(const std::string& source) : source_(source) {}
  // Strings (ids, names) longer than `max_string_length` bytes are refused (limits.max_id_length).
  FieldReader(const std::string& source, std::uint64_t max_string_length)
      : source_(source), max_string_length_(max_string_length) {}

  const std::string& source() const noexcept { return source_; }
  std::uint64_t max_string_length() const noexcept { return max_string_length_; }

  // Refuses a scalar longer than max_string_length() (ids and names of every kind).
  // Also refuses text that is not valid UTF-8.
  void check_length(const Node& node, std::string_view place) const {
    if (!node.IsScalar()) return;
    const std::string_view s = node.Scalar();
    if (s.size() > max_string_length_)
      fail_at(node, place,
              fmt::format("{} bytes long, more than the limit of {} (limits.max_id_length in the config)",
                          s.size(), max_string_length_));
    if (const std::size_t bad = invalid_utf8_at(s); bad != std::string_view::npos)
      fail_at(node, place,
              fmt::format("not valid UTF-8 (byte 0x{:02x} at offset {}); files must be UTF-8",
                          static_cast<unsigned char>(s[bad]), bad));
    if (const std::size_t bad = first_control_character(s); bad != std::string_view::npos)
      fail_at(node, place,
              fmt::format("contains a control character (0x{:02x} at offset {}); ids and names must be printable",
                          static_cast<unsigned char>(s[bad]), bad));
  }

  [[noreturn]] void fail_at(const Node& node, std::string_view place, std::string_view problem) const {
    fail(source_, node.Mark(), place, problem);
  }

  std::string string(const Node& node, std::string_view place, bool allow_empty = false) const {
    if (!node.IsScalar()) fail_at(node, place, fmt::format("expected a string, got {}", describe(node)));
    const std::string_view s = node.Scalar();
    if (!allow_empty && s.empty()) fail_at(node, place, "must not be empty");
    check_length(node, place);
    return std::string(s);
  }

  std::int64_t integer(const Node& node, std::string_view place) const {
    if (!is_plain_scalar(node)) fail_at(node, place, fmt::format("expected an integer, got {}", describe(node)));
    std::int64_t value = 0;
    switch (parse_int64(node.Scalar(), value)) {
      case IntParse::ok:
        return value;
      case IntParse::out_of_range:
        fail_at(node, place, fmt::format("integer {} is out of range (64-bit signed)", node.Scalar()));
      case IntParse::not_an_integer:
        break;
    }
    fail_at(node, place, fmt::format("expected an integer, got {}", describe(node)));
  }

  // An integer in [min, max]; messages "must be >= 1, got 0".
  std::int64_t integer_in(const Node& node, std::string_view place, std::int64_t min,
                          std::int64_t max = std::numeric_limits<std::int64_t>::max()) const {
    const std::int64_t v = integer(node, place);
    if (v < min) fail_at(node, place, fmt::format("must be >= {}, got {}", min, v));
    if (v > max) fail_at(node, place, fmt::format("must be <= {}, got {}", max, v));
    return v;
  }

  double number(const Node& node, std::string_view place) const {
    if (!is_plain_scalar(node)) fail_at(node, place, fmt::format("expected a number, got {}", describe(node)));
    const std::string_view s = node.Scalar();
    const char* first = s.data();
    const char* last = s.data() + s.size();
    if (first != last && *first == '+') ++first;
    double value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (first == last || ec == std::errc::invalid_argument || ptr != last)
      fail_at(node, place, fmt::format("expected a number, got {}", describe(node)));
    if (ec == std::errc::result_out_of_range || !std::isfinite(value))
      fail_at(node, place, fmt::format("must be a finite number, got {}", s));
    return value;
  }

  bool boolean(const Node& node, std::string_view place) const {
    if (is_plain_scalar(node)) {
      const std::string_view s = node.Scalar();
      if (s == "true" || s == "True" || s == "TRUE") return true;
      if (s == "false" || s == "False" || s == "FALSE") return false;
    }
    fail_at(node, place, fmt::format("expected a boolean (true or false), got {}", describe(node)));
  }

  void expect_list(const Node& node, std::string_view place) const {
    if (!node.IsSequence()) fail_at(node, place, fmt::format("expected a list, got {}", describe(node)));
  }
  void expect_map(const Node& node, std::string_view place) const {
    if (!node.IsMap()) fail_at(node, place, fmt::format("expected a map, got {}", describe(node)));
  }

 private:
  const std::string& source_;
  std::uint64_t max_string_length_ = std::numeric_limits<std::uint64_t>::max();
};

// The fields of one YAML map, checked against the known keys: an unknown key is an error naming
// the nearest known key, a key given twice is an error naming both lines.
//
// The two-step form lets a reader name the place after reading the map's id:
//   Fields f(reader, node, "clients[3]", kKeys, Fields::defer_checks);
//   ... read the id ...
//   f.check("client 'c1'");   // unknown or repeated keys, reported with the client's id
class Fields {
 public:
  struct DeferChecks {};
  static constexpr DeferChecks defer_checks{};

  Fields(const FieldReader& reader, const Node& map, std::string_view place,
         const std::vector<std::string>& known)
      : Fields(reader, map, place, known, defer_checks) {
    check(place);
  }

  // Collects the fields; unknown or repeated keys are reported by check().
  Fields(const FieldReader& reader, const Node& map, std::string_view place,
         const std::vector<std::string>& known, DeferChecks)
      : reader_(reader), map_(map), known_(known), keys_(known.size()), values_(known.size()),
        present_(known.size(), false) {
    reader.expect_map(map, place);
    for (auto it = map.begin(); it != map.end(); ++it) {
      const Node key = it->first;
      if (!key.IsScalar())
        reader.fail_at(key, place, fmt::format("keys must be strings, got {}", describe(key)));
      const std::string name(key.Scalar());
      std::size_t i = 0;
      while (i < known.size() && known[i] != name) ++i;
      if (i == known.size()) {
        if (!problem_) problem_.emplace(key, unknown_key(name));
        continue;
      }
      if (present_[i]) {
        if (!problem_)
          problem_.emplace(key, fmt::format("key '{}' given twice (first at line {})", name,
                                            keys_[i].Mark().line + 1));
        continue;
      }
      present_[i] = true;
      keys_[i] = key;
      values_[i] = it->second;
    }
  }

  // Throws for the first unknown or repeated key, if any.
  void check(std::string_view place) const {
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
  const Node& require(std::size_t i, std::string_view place) const {
    if (!present_[i]) reader_.fail_at(map_, place, fmt::format("missing required key '{}'", known_[i]));
    if (values_[i].IsNull()) reader_.fail_at(keys_[i], join_place(place, known_[i]), "missing value");
    return values_[i];
  }

 private:
  std::string unknown_key(const std::string& name) const {
    std::string problem = fmt::format("unknown key '{}'", name);
    if (const std::string near = nearest(name, known_); !near.empty())
      return problem + fmt::format("; did you mean '{}'?", near);
    problem += "; known keys:";
    for (std::size_t k = 0; k < known_.size(); ++k) problem += (k ? ", " : " ") + known_[k];
    return problem;
  }

  const FieldReader& reader_;
  Node map_;
  const std::vector<std::string>& known_;
  std::vector<Node> keys_;
  std::vector<Node> values_;
  std::vector<bool> present_;
  std::optional<std::pair<Node, std::string>> problem_;
};

}  // namespace assignor::host::detail
