#include "assignor/host/formats/document.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <istream>
#include <limits>
#include <new>
#include <streambuf>
#include <utility>

#include "assignor/errors.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/host/support/printable.hpp"

namespace assignor::host::detail {

namespace {

[[noreturn]] void fail(const std::string& source, DocMark mark, std::string_view problem) {
  if (mark.is_null()) throw InputError(fmt::format("{}: {}", source, printable(problem)));
  throw InputError(fmt::format("{}:{}:{}: {}", source, mark.line + 1, mark.column + 1, printable(problem)));
}

[[noreturn]] void fail(const std::string& source, const YAML::Mark& mark, std::string_view problem) {
  if (mark.is_null() || mark.line < 0) fail(source, DocMark{}, problem);
  fail(source, DocMark{mark.line, mark.column}, problem);
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
      fail(source_, mark,
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
      fail(source_, mark,
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


}  // namespace

// ---- the budget ---------------------------------------------------------------------------------

DocumentBudget::DocumentBudget(std::size_t input_bytes) noexcept
    : input_bytes_(input_bytes),
      budget_(kDocumentBytesPerInputByte * static_cast<std::uint64_t>(input_bytes) + kDocumentBaseBytes) {}

DocumentBudget::Step DocumentBudget::expect(std::size_t nodes, std::size_t text_bytes) noexcept {
  // The node, its place among its parent's children and on the stack, per node.
  const std::uint64_t bytes = nodes * (kElementBytes[kNodes] + 2 * kElementBytes[kChildren]) + text_bytes;
  if (bytes > budget_ / 2) return Step::fits;
  capacity_[kNodes] = std::max<std::uint64_t>(capacity_[kNodes], nodes);
  capacity_[kChildren] = std::max<std::uint64_t>(capacity_[kChildren], nodes);
  capacity_[kText] = std::max<std::uint64_t>(capacity_[kText], text_bytes);
  text_room_ = std::min<std::uint64_t>(capacity_[kText], std::numeric_limits<std::uint32_t>::max());
  return Step::grew;
}

DocumentBudget::Step DocumentBudget::room(Array a, std::uint64_t extra) noexcept {
  if (size_[a] + extra <= capacity_[a]) return Step::fits;
  const std::uint64_t grown = std::max(capacity_[a] * 2, std::max<std::uint64_t>(size_[a] + extra, 64));
  std::uint64_t held = 0;  // the growing array's old buffer is still alive while its elements move
  for (std::size_t i = 0; i < kArrays; ++i) held += capacity_[i] * kElementBytes[i];
  const std::uint64_t peak = held + grown * kElementBytes[a];
  if (peak > budget_) {
    peak_ = peak;
    return Step::over_budget;
  }
  peak_ = std::max(peak_, peak);
  capacity_[a] = grown;
  text_room_ = std::min<std::uint64_t>(capacity_[kText], std::numeric_limits<std::uint32_t>::max());
  return Step::grew;
}

DocumentBudget::Step DocumentBudget::add_growing(Array a, std::uint64_t n) noexcept {
  const Step step = room(a, n);
  if (step == Step::over_budget) return step;
  size_[a] += n;
  return step;
}

DocumentBudget::Step DocumentBudget::scalar_growing(std::size_t text_bytes) noexcept {
  if (size_[kText] + text_bytes > std::numeric_limits<std::uint32_t>::max()) return Step::text_over_4gib;
  bool grew = false;
  for (const auto& [array, n] : {std::pair{kText, std::uint64_t{text_bytes}}, std::pair{kNodes, std::uint64_t{1}},
                                std::pair{kStack, std::uint64_t{1}}}) {
    const Step step = add(array, n);
    if (step == Step::over_budget) return step;
    grew = grew || step == Step::grew;
  }
  return grew ? Step::grew : Step::fits;
}

DocumentBudget::Step DocumentBudget::null() noexcept {
  const Step node = add(kNodes, 1);
  if (node == Step::over_budget) return node;
  const Step entry = add(kStack, 1);
  return entry == Step::fits ? node : entry;
}

DocumentBudget::Step DocumentBudget::close_growing(std::uint64_t mark) noexcept {
  const std::uint64_t entries = size_[kStack] - mark;
  const Step children = add(kChildren, entries);
  if (children == Step::over_budget) return children;
  size_[kStack] = mark;
  const Step entry = add(kStack, 1);
  return entry == Step::fits ? children : entry;
}

// ---- building -----------------------------------------------------------------------------------

// Builds a Document bottom-up: scalar(), null() and reference() push a node; open() ... close()
// makes the nodes pushed in between the container's children. Keeps to the memory budget: every
// step goes through the document's DocumentBudget first, and the arrays are reserved to the
// capacities it gives.
class DocumentBuilder {
  static_assert(sizeof(Document::Rec) == DocumentBudget::kElementBytes[DocumentBudget::kNodes]);
  static_assert(sizeof(std::uint32_t) == DocumentBudget::kElementBytes[DocumentBudget::kChildren]);

 public:
  DocumentBuilder(Document& doc, const std::string& source, std::size_t input_bytes)
      : doc_(doc), source_(source), budget_(doc.cost_) {
    doc_.cost_ = DocumentBudget(input_bytes);
  }

  // Reserves room up front for a strict JSON file (DocumentBudget::expect_json), within the
  // budget: such a file then fills its arrays without regrowing them (the old and the new buffer
  // alive at once are the builder's peak). Reserved room that is not filled costs no memory.
  void expect_json() { apply(budget_.expect_json(), {}); }

  void mark_json() noexcept { doc_.json_ = true; }

  std::uint32_t scalar(std::string_view text, bool quoted, DocMark mark) {
    apply(budget_.scalar(text.size()), mark);
    const auto index = static_cast<std::uint32_t>(doc_.nodes_.size());
    doc_.nodes_.push_back({DocType::Scalar, quoted, mark, static_cast<std::uint32_t>(doc_.text_.size()),
                           static_cast<std::uint32_t>(text.size())});
    doc_.text_.append(text);
    stack_.push_back(index);
    return index;
  }
  std::uint32_t null(DocMark mark) {
    apply(budget_.null(), mark);
    const auto index = static_cast<std::uint32_t>(doc_.nodes_.size());
    doc_.nodes_.push_back({DocType::Null, false, mark, 0, 0});
    stack_.push_back(index);
    return index;
  }
  // A node already built (a YAML alias): shared, not copied.
  void reference(std::uint32_t index, DocMark mark) {
    apply(budget_.reference(), mark);
    stack_.push_back(index);
  }
  struct Open {
    std::uint32_t index;
    std::size_t stack_mark;
  };
  Open open(DocType type, DocMark mark, std::size_t depth) {
    if (depth >= static_cast<std::size_t>(kMaxYamlDepth))
      fail(source_, mark,
           fmt::format("nested {} or more levels deep; refused (cluster and config files need a few levels)",
                       kMaxYamlDepth));
    const std::size_t stack_mark = stack_.size();
    apply(budget_.open(), mark);
    const auto index = static_cast<std::uint32_t>(doc_.nodes_.size());
    doc_.nodes_.push_back({type, false, mark, 0, 0});
    return {index, stack_mark};
  }
  void close(const Open& o) {
    apply(budget_.close(o.stack_mark), doc_.nodes_[o.index].mark);
    auto& rec = doc_.nodes_[o.index];
    rec.first = static_cast<std::uint32_t>(doc_.children_.size());
    rec.count = static_cast<std::uint32_t>(stack_.size() - o.stack_mark);
    doc_.children_.insert(doc_.children_.end(), stack_.begin() + static_cast<std::ptrdiff_t>(o.stack_mark),
                          stack_.end());
    stack_.resize(o.stack_mark);
    stack_.push_back(o.index);
  }

 private:
  // Carries out a budget step: reserves what it grew (so that the arrays never regrow on their
  // own, past the budget's sight), or refuses the document.
  void apply(DocumentBudget::Step step, DocMark mark) {
    using Step = DocumentBudget::Step;
    if (step == Step::fits) return;
    if (step == Step::grew) {
      reserve(doc_.nodes_, DocumentBudget::kNodes);
      reserve(doc_.children_, DocumentBudget::kChildren);
      reserve(stack_, DocumentBudget::kStack);
      reserve(doc_.text_, DocumentBudget::kText);
      return;
    }
    if (step == Step::text_over_4gib) fail(source_, mark, "the document's text is larger than 4 GiB");
    fail(source_, mark,
         fmt::format("the document would need more than {} MiB for {} nodes from a {}-byte file (at most {} "
                     "bytes per byte of text plus {} MiB): no cluster, config or events file is built like this; "
                     "refused",
                     budget_.peak() >> 20, budget_.size(DocumentBudget::kNodes), budget_.input_bytes(),
                     kDocumentBytesPerInputByte, kDocumentBaseBytes >> 20));
  }
  template <class Buffer>
  void reserve(Buffer& buffer, DocumentBudget::Array a) {
    const auto capacity = static_cast<std::size_t>(budget_.capacity(a));
    if (buffer.capacity() < capacity) buffer.reserve(capacity);
  }

  Document& doc_;
  const std::string& source_;
  DocumentBudget& budget_;  // the document's own (Document::cost())
  std::vector<std::uint32_t> stack_;
};

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
      case simdjson::ondemand::json_type::object:
        object(v.get_object().value(), mark, depth);
        return;
      case simdjson::ondemand::json_type::array: {
        const auto o = b_.open(DocType::Sequence, mark, depth);
        // A named array: iterating `v.get_array().value()` directly would range over a reference
        // into a destroyed temporary (simdjson_result::value() && returns T&&).
        simdjson::ondemand::array array = v.get_array().value();
        for (auto element : array) value(element.value(), depth + 1);
        b_.close(o);
        return;
      }
      case simdjson::ondemand::json_type::string:
        b_.scalar(v.get_string().value(), true, mark);
        return;
      case simdjson::ondemand::json_type::boolean:
        b_.scalar(v.get_bool().value() ? "true" : "false", false, mark);
        return;
      case simdjson::ondemand::json_type::null:
        // `nul`, `nullx`: not JSON (simdjson checks a value's text only when asked), the YAML parser's to read.
        (void)v.is_null().value();
        b_.null(mark);
        return;
      case simdjson::ondemand::json_type::number:
        b_.scalar(json_token_text(token), false, mark);
        return;
    }
  }

 private:
  DocumentBuilder& b_;
  std::string_view text_;
  std::size_t offset_ = 0, line_ = 0, line_start_ = 0;
};

}  // namespace

std::unique_ptr<Document> parse_json_document(std::string_view text, const std::string& source,
                                              std::size_t readable) {
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

namespace {

// A read-only std::streambuf over the text, so that the YAML parser reads it without a copy.
class TextBuffer final : public std::streambuf {
 public:
  explicit TextBuffer(std::string_view text) {
    char* begin = const_cast<char*>(text.data());  // never written: only get-area functions are used
    setg(begin, begin, begin + text.size());
  }
};

// yaml-cpp's parser events -> Document, with the alias checks of AliasExpansionGuard on the way.
class YamlEvents final : public YAML::EventHandler {
 public:
  YamlEvents(DocumentBuilder& b, const std::string& source) : b_(b), guard_(source) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    guard_.OnDocumentStart(mark);
    anchors_.clear();
  }
  void OnDocumentEnd() override { guard_.OnDocumentEnd(); }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    guard_.OnNull(mark, anchor);
    root_is_null_ = open_.empty();
    remember(anchor, b_.null(mark_of(mark)));
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    guard_.OnScalar(mark, tag, anchor, value);
    remember(anchor, b_.scalar(value, tag == "!", mark_of(mark)));
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    guard_.OnAlias(mark, anchor);  // refuses cycles and runaway expansion
    if (anchor < anchors_.size() && anchors_[anchor] != kNone) b_.reference(anchors_[anchor], mark_of(mark));
    else b_.null(mark_of(mark));  // yaml-cpp reports an unknown anchor itself
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value style) override {
    guard_.OnSequenceStart(mark, tag, anchor, style);
    open(DocType::Sequence, mark, anchor);
  }
  void OnSequenceEnd() override {
    guard_.OnSequenceEnd();
    close();
  }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value style) override {
    guard_.OnMapStart(mark, tag, anchor, style);
    open(DocType::Map, mark, anchor);
  }
  void OnMapEnd() override {
    guard_.OnMapEnd();
    close();
  }

  const YAML::Mark& document_mark() const noexcept { return guard_.document_mark(); }
  bool root_is_null() const noexcept { return root_is_null_; }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  static DocMark mark_of(const YAML::Mark& m) { return {m.line, m.column}; }
  void remember(YAML::anchor_t anchor, std::uint32_t index) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= anchors_.size()) anchors_.resize(anchor + 1, kNone);
    anchors_[anchor] = index;
  }
  void open(DocType type, const YAML::Mark& mark, YAML::anchor_t anchor) {
    root_is_null_ = false;
    open_.push_back(b_.open(type, mark_of(mark), open_.size()));
    remember(anchor, open_.back().index);
  }
  void close() {
    if (open_.empty()) return;
    b_.close(open_.back());
    open_.pop_back();
  }

  DocumentBuilder& b_;
  AliasExpansionGuard guard_;
  std::vector<DocumentBuilder::Open> open_;
  std::vector<std::uint32_t> anchors_;  // by anchor id: the node it names
  bool root_is_null_ = false;
};

}  // namespace

namespace {

// What yaml-cpp holds per token it has scanned but not yet handed to the parser (a Token with its
// mark, value string and parameter vector, in a std::queue), measured on yaml-cpp 0.7: 270 MB for
// a million-item `[0,0,...]` in a queued place (two tokens an item), 119 MB for 100,000 small maps.
constexpr std::uint64_t kYamlQueuedTokenBytes = 128;

bool blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// yaml-cpp keeps every token of a flow collection that may still turn out to be a simple key
// queued until the collection closes: one that starts a line or a block sequence entry (`{...}`
// as a whole document, as JSON-minded tools write YAML; `- [...]`), or that follows '[' or ','
// inside another flow collection. So its memory grows with the collection, long before any node
// reaches the document's budget (`key: [...]`, block style and JSON do not queue; measured).
// This linear pass finds those collections, counts their tokens (indicators, and the entry or
// value token each ',' or ':' brings) and refuses one whose queue would not fit the document's
// budget, before yaml-cpp runs.
void refuse_oversized_flow_collections(std::string_view text, const std::string& source) {
  const std::uint64_t budget =
      kDocumentBytesPerInputByte * static_cast<std::uint64_t>(text.size()) + kDocumentBaseBytes;
  const std::uint64_t max_tokens = budget / kYamlQueuedTokenBytes;
  int depth = 0;         // flow nesting
  int queued_at = 0;     // depth of the outermost collection being queued, 0 when none is
  std::uint64_t tokens = 0;
  DocMark open{};
  int line = 0;
  std::size_t line_start = 0;
  bool node_start = true;  // block context: a line start, or after '- ' or '? ' (not after ': ')
  char previous = '\n';   // the last character that was not a blank ('\n' at a line's start)
  auto refuse = [&] {
    fail(source, open,
         fmt::format("this flow collection ([...] or {{...}}, more than {} tokens) would need more than {} MiB "
                     "to parse as YAML, more than the document may use for a {}-byte file (at most {} bytes per byte "
                     "of text plus {} MiB); write it in block style, or the whole file as JSON (read without this "
                     "cost)",
                     tokens, (tokens * kYamlQueuedTokenBytes) >> 20, text.size(), kDocumentBytesPerInputByte,
                     kDocumentBaseBytes >> 20));
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      previous = '\n';
      if (depth == 0) node_start = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (c == '#' && (i == 0 || blank(text[i - 1]))) {  // a comment, to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    const bool token_start = previous == '\n' || previous == '[' || previous == '{' || previous == ',' ||
                             previous == ':' || previous == '-' || previous == '?';
    if ((c == '"' || c == '\'') && token_start) {  // a quoted scalar, perhaps over several lines
      for (++i; i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++line;
          line_start = i + 1;
        } else if (c == '"' && text[i] == '\\') {
          ++i;
        } else if (text[i] == c) {
          if (c == '\'' && i + 1 < text.size() && text[i + 1] == '\'') ++i;  // '' is a quote inside
          else break;
        }
      }
      if (queued_at > 0) ++tokens;
      node_start = false;
      previous = 'x';
      continue;
    }
    if (depth == 0 && c != '[' && c != '{') {
      node_start = (c == '-' || c == '?') && node_start && (i + 1 == text.size() || blank(text[i + 1]));
      previous = c;
      continue;
    }
    switch (c) {
      case '[':
      case '{': {
        const bool queues = depth == 0 ? node_start : (previous == '[' || previous == '{' || previous == ',');
        ++depth;
        if (queued_at == 0 && queues) {
          queued_at = depth;
          tokens = 0;
          open = DocMark{line, static_cast<int>(i - line_start)};
        }
        ++tokens;
        break;
      }
      case ']':
      case '}':
        if (depth == 0) break;  // unbalanced: yaml-cpp explains
        ++tokens;
        if (depth-- == queued_at) {
          if (tokens > max_tokens) refuse();
          queued_at = 0;
        }
        if (depth == 0) node_start = false;
        break;
      case ',':
      case ':':
        tokens += 2;  // the indicator, and the entry or value token that comes with it
        break;
      default:
        break;
    }
    if (queued_at > 0 && tokens > max_tokens) refuse();
    previous = c;
  }
}

// yaml-cpp reports a tab in indentation as "illegal map value" or "illegal block entry" without a
// word of the tab: the last line up to the error's that starts with whitespace holding a tab, as a
// hint for the message ("" when there is none, or the message already says it).
std::string tab_hint(std::string_view text, int error_line, std::string_view message) {
  if (message.find("tab") != std::string_view::npos || error_line < 0) return {};
  int line = 0, found = -1;
  for (std::size_t i = 0; i < text.size() && line <= error_line;) {
    const std::size_t end = std::min(text.find('\n', i), text.size());
    for (std::size_t k = i; k < end && (text[k] == ' ' || text[k] == '\t'); ++k)
      if (text[k] == '\t') {
        found = line;
        break;
      }
    i = end + 1;
    ++line;
  }
  if (found < 0) return {};
  return fmt::format(" (line {} is indented with a tab: YAML indents with spaces only)", found + 1);
}

}  // namespace

std::unique_ptr<Document> parse_yaml_document(std::string_view text, const std::string& source,
                                              std::string_view what) {
  refuse_oversized_flow_collections(text, source);
  auto doc = std::make_unique<Document>();
  DocumentBuilder b(*doc, source, text.size());
  try {
    TextBuffer buffer(text);
    std::istream in(&buffer);
    YAML::Parser parser(in);
    YamlEvents events(b, source);
    if (!parser.HandleNextDocument(events) || events.root_is_null())
      throw InputError(fmt::format("{}: empty file (expected {})", source, what));
    // A second document: stop at its start (never YAML::LoadAll: in yaml-cpp 0.7 it loops forever,
    // allocating, on some malformed input such as a stray ',' at the top level, jbeder/yaml-cpp#1040).
    if (parser.HandleNextDocument(events))
      fail(source, events.document_mark(),
           "more than one YAML document (or text after the end of the first); expected exactly one");
  } catch (const YAML::DeepRecursion& e) {
    fail(source, e.mark,
         fmt::format("nested {} or more levels deep; refused (cluster and config files need a few levels)",
                     kMaxYamlDepth));
  } catch (const YAML::ParserException& e) {
    fail(source, e.mark, fmt::format("YAML syntax error: {}{}", e.msg, tab_hint(text, e.mark.line, e.msg)));
  } catch (const YAML::Exception& e) {
    fail(source, e.mark, fmt::format("cannot parse YAML: {}", e.msg));
  }
  return doc;
}

}  // namespace assignor::host::detail
