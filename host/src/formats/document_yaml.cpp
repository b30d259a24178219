// YAML -> Document (parse_yaml_document, document.hpp): yaml-cpp's parser events straight into the
// document (no yaml-cpp node tree), with yaml-cpp's weak spots defended before and while it runs:
// aliases that expand without bound or refer to themselves, flow collections whose queued tokens
// would outgrow the budget, nesting past kMaxYamlDepth, several documents in one file.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <istream>
#include <limits>
#include <memory>
#include <streambuf>
#include <utility>

#include "document_builder.hpp"

namespace assignor::host::detail {

namespace {

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
  std::vector<std::uint64_t> anchor_size_;                      // by anchor id: 0 unknown, kOpen while being parsed
  std::vector<std::pair<YAML::anchor_t, std::uint64_t>> open_;  // open collections: anchor, expanded at start
  std::uint64_t written_ = 0;
  std::uint64_t expanded_ = 0;
};

}  // namespace

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
    if (anchor < anchors_.size() && anchors_[anchor] != kNone)
      b_.reference(anchors_[anchor], mark_of(mark));
    else
      b_.null(mark_of(mark));  // yaml-cpp reports an unknown anchor itself
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
  int depth = 0;      // flow nesting
  int queued_at = 0;  // depth of the outermost collection being queued, 0 when none is
  std::uint64_t tokens = 0;
  DocMark open{};
  int line = 0;
  std::size_t line_start = 0;
  bool node_start = true;  // block context: a line start, or after '- ' or '? ' (not after ': ')
  char previous = '\n';    // the last character that was not a blank ('\n' at a line's start)
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
          if (c == '\'' && i + 1 < text.size() && text[i + 1] == '\'')
            ++i;  // '' is a quote inside
          else
            break;
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
      default: break;
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

std::unique_ptr<Document> parse_yaml_document(std::string_view text, const std::string& source, std::string_view what) {
  // yaml-cpp takes a NUL for the end of the stream and reports whatever it was in the middle of
  // ("unknown escape character: \n"); YAML text holds none, so say where it is and what it means.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const std::string_view before = text.substr(0, nul);
    const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
    throw InputError(
        fmt::format("{}:{}:{}: a NUL byte, which YAML and JSON text never hold (a binary file, or text "
                    "in UTF-16?)",
                    source, std::count(before.begin(), before.end(), '\n') + 1, nul - line_start + 1));
  }
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
