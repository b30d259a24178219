// A parsed YAML or JSON document as one small tree type, so that the readers' checks are written
// once for both formats. YAML is built straight from yaml-cpp's parser events (no yaml-cpp node
// tree, which costs hundreds of bytes per node); JSON (a file whose first non-blank character is
// '{') goes through simdjson, about ten times faster on 100k-task cluster files, and the caller
// falls back to YAML when it is not strict JSON (YAML flow maps also start with '{').
//
// Memory is bounded by the input: a node costs 20 bytes plus its scalar's text in one arena, and a
// document may use at most kDocumentBytesPerInputByte bytes per byte of its text plus
// kDocumentBaseBytes (limits.hpp); a text that needs more (a list of millions of one-character
// items) is refused while it is being read, before it can take the machine's memory.
//
// The node API mirrors the subset of yaml-cpp's that the readers use (IsMap, Scalar, Mark, IsQuoted
// in place of Tag, iteration with it->first / it->second), with positions kept for every node:
// error messages point at the line and column of the offending value in either format. Not
// installed, not public.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace assignor::host::detail {

struct DocMark {
  int line = -1;    // 0-based
  int column = -1;  // 0-based
  bool is_null() const noexcept { return line < 0; }
};

enum class DocType : std::uint8_t { Undefined, Null, Scalar, Sequence, Map };

class Document;

class DocNode {
 public:
  DocNode() = default;

  DocType Type() const noexcept;
  bool IsDefined() const noexcept { return doc_ != nullptr; }
  bool IsNull() const noexcept { return Type() == DocType::Null; }
  bool IsScalar() const noexcept { return Type() == DocType::Scalar; }
  bool IsSequence() const noexcept { return Type() == DocType::Sequence; }
  bool IsMap() const noexcept { return Type() == DocType::Map; }
  // The scalar's text (unescaped); empty for other nodes. Valid while the Document lives.
  std::string_view Scalar() const noexcept;
  // A quoted scalar: a string for sure ("5" is not the integer 5).
  bool IsQuoted() const noexcept;
  // The document was JSON: an unquoted scalar is then a number or a boolean, never a string.
  bool FromJson() const noexcept;
  DocMark Mark() const noexcept;
  // Children of a sequence, or key/value pairs of a map.
  std::size_t size() const noexcept;
  // The i-th element of a sequence (undefined node when out of range or not a sequence).
  DocNode operator[](std::size_t i) const noexcept;

  struct Entry;
  class iterator;
  iterator begin() const noexcept;
  iterator end() const noexcept;

 private:
  friend class Document;
  DocNode(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}
  const Document* doc_ = nullptr;
  std::uint32_t index_ = 0;
};

// What iteration yields: for a sequence the element itself; for a map, first (key) and second (value).
struct DocNode::Entry : DocNode {
  DocNode first;
  DocNode second;
};

class DocNode::iterator {
 public:
  using value_type = Entry;
  using difference_type = std::ptrdiff_t;
  const Entry& operator*() const noexcept { return entry_; }
  const Entry* operator->() const noexcept { return &entry_; }
  iterator& operator++() noexcept;
  friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.pos_ == b.pos_; }
  friend bool operator!=(const iterator& a, const iterator& b) noexcept { return a.pos_ != b.pos_; }

 private:
  friend class DocNode;
  void load() noexcept;
  DocNode owner_;
  std::uint32_t pos_ = 0;
  Entry entry_;
};

// Owns the nodes; DocNode handles stay valid while it lives.
class Document {
 public:
  DocNode root() const noexcept { return {this, 0}; }

 private:
  friend class DocNode;
  friend class DocumentBuilder;
  struct Rec {
    DocType type;
    bool quoted;
    DocMark mark;
    std::uint32_t first;  // scalars: offset into text_; containers: first index into children_
    std::uint32_t count;  // scalars: length; sequences: elements; maps: 2 x pairs
  };
  std::vector<Rec> nodes_;
  std::vector<std::uint32_t> children_;
  std::string text_;  // every scalar's text, one after the other
  bool json_ = false;  // read as JSON: an unquoted scalar is a number, a boolean or null, never a string
};

// ---- the node accessors, inline: the readers call them for every node ---------------------------

inline DocType DocNode::Type() const noexcept { return doc_ ? doc_->nodes_[index_].type : DocType::Undefined; }

inline std::string_view DocNode::Scalar() const noexcept {
  if (!IsScalar()) return {};
  const auto& rec = doc_->nodes_[index_];
  return std::string_view(doc_->text_).substr(rec.first, rec.count);
}

inline bool DocNode::IsQuoted() const noexcept { return doc_ && doc_->nodes_[index_].quoted; }

inline bool DocNode::FromJson() const noexcept { return doc_ && doc_->json_; }

inline DocMark DocNode::Mark() const noexcept { return doc_ ? doc_->nodes_[index_].mark : DocMark{}; }

inline std::size_t DocNode::size() const noexcept {
  if (!doc_) return 0;
  const auto& rec = doc_->nodes_[index_];
  if (rec.type == DocType::Map) return rec.count / 2;
  if (rec.type == DocType::Sequence) return rec.count;
  return 0;
}

inline DocNode DocNode::operator[](std::size_t i) const noexcept {
  if (!IsSequence() || i >= size()) return {};
  const auto& rec = doc_->nodes_[index_];
  return {doc_, doc_->children_[rec.first + i]};
}

inline DocNode::iterator DocNode::begin() const noexcept {
  iterator it;
  it.owner_ = *this;
  it.pos_ = 0;
  it.load();
  return it;
}

inline DocNode::iterator DocNode::end() const noexcept {
  iterator it;
  it.owner_ = *this;
  it.pos_ = doc_ && (IsMap() || IsSequence()) ? doc_->nodes_[index_].count : 0;
  return it;
}

inline DocNode::iterator& DocNode::iterator::operator++() noexcept {
  pos_ += owner_.IsMap() ? 2 : 1;
  load();
  return *this;
}

inline void DocNode::iterator::load() noexcept {
  entry_ = Entry{};
  const Document* doc = owner_.doc_;
  if (!doc || !(owner_.IsMap() || owner_.IsSequence())) return;
  const auto& rec = doc->nodes_[owner_.index_];
  if (pos_ >= rec.count) return;
  const std::uint32_t* kids = doc->children_.data() + rec.first;
  if (owner_.IsMap()) {
    entry_.first = DocNode(doc, kids[pos_]);
    entry_.second = DocNode(doc, kids[pos_ + 1]);
  } else {
    static_cast<DocNode&>(entry_) = DocNode(doc, kids[pos_]);
  }
}

// Bytes the JSON parser may read past the end of a text (never used): a text whose buffer has
// this many more bytes is parsed where it is, any other is copied first.
inline constexpr std::size_t kJsonPadding = 64;

// The document, when `text` is one strict JSON object and nothing else; nullptr otherwise (the
// caller then reads it as YAML, which explains any syntax error). Throws InputError for nesting
// deeper than kMaxYamlDepth or a document over its memory budget. `readable` is how many bytes
// from text.data() may be read (the buffer's capacity; text.size() when unknown).
std::unique_ptr<Document> parse_json_document(std::string_view text, const std::string& source,
                                              std::size_t readable = 0);

// One YAML document, built from the parser's events. InputError (with the file, line and column)
// for: no document at all or a bare null ("empty file (expected <what>)"), a second document, a
// syntax error, nesting deeper than kMaxYamlDepth, an alias inside the node it refers to, aliases
// that expand the document too far ("billion laughs"), or a document over its memory budget.
std::unique_ptr<Document> parse_yaml_document(std::string_view text, const std::string& source,
                                              std::string_view what);

}  // namespace assignor::host::detail
