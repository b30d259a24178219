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

// What a Document costs while it is built, and the check that keeps it within its budget
// (kDocumentBytesPerInputByte per byte of the file plus kDocumentBaseBytes, limits.hpp).
//
// The builder's four arrays (the nodes, the children of every container, the entries of the
// containers still open, the scalars' text) are modelled by their sizes and capacities: a full
// array grows by doubling (to at least 64 elements), and a growth whose peak (every array's
// capacity, the growing one's old buffer included, plus its new buffer) would pass the budget
// refuses the document before the memory is taken. DocumentBuilder keeps its arrays at exactly
// these capacities. The cluster reader's JSON fast path, which builds no document, takes the same
// steps in the same order (a key or scalar, a null, an open and a close per container), so it
// knows whether building the document would have been refused, and then leaves the file to the
// document path, which says so.
class DocumentBudget {
 public:
  enum Array : std::uint8_t { kNodes, kChildren, kStack, kText };
  static constexpr std::size_t kArrays = 4;
  // A node's record (checked in document.cpp), a child's index, an entry's index, a byte of text.
  static constexpr std::uint64_t kElementBytes[kArrays] = {20, 4, 4, 1};
  // A step fits the arrays as they are, grows one or more of them (the builder then reserves the
  // new capacities), or refuses the document: over its budget, or text past 4 GiB (scalars are
  // addressed by 32-bit offsets).
  enum class Step : std::uint8_t { fits, grew, over_budget, text_over_4gib };

  explicit DocumentBudget(std::size_t input_bytes) noexcept;

  // Room for about `nodes` nodes and `text_bytes` of text reserved up front, when that takes at most
  // half the budget: a file of known kind then fills its arrays without regrowing them.
  Step expect(std::size_t nodes, std::size_t text_bytes) noexcept;
  // What parse_json_document expects of a strict JSON file: cluster files as tools write them
  // have about 9 bytes per node and half their bytes in scalars.
  Step expect_json() noexcept { return expect(input_bytes_ / 6 + 64, input_bytes_ / 2 + 64); }

  // A scalar or a map key: its text, its node and its entry among the open containers' entries.
  Step scalar(std::size_t text_bytes) noexcept {
    if (size_[kText] + text_bytes > text_room_ || size_[kNodes] == capacity_[kNodes] ||
        size_[kStack] == capacity_[kStack])
      return scalar_growing(text_bytes);
    size_[kText] += text_bytes;
    ++size_[kNodes];
    ++size_[kStack];
    return Step::fits;
  }
  // A null: a node and its entry.
  Step null() noexcept;
  // A YAML alias: an entry that refers to a node already built.
  Step reference() noexcept { return add(kStack, 1); }
  // A map or a sequence: its node. Its entries are what is added to the stack until its close(),
  // which takes the stack_size() of this moment.
  Step open() noexcept { return add(kNodes, 1); }
  // Moves the container's entries to the children array; the container becomes an entry of its parent.
  Step close(std::uint64_t mark) noexcept {
    const std::uint64_t entries = size_[kStack] - mark;
    if (size_[kChildren] + entries > capacity_[kChildren] || mark + 1 > capacity_[kStack]) return close_growing(mark);
    size_[kChildren] += entries;
    size_[kStack] = mark + 1;
    return Step::fits;
  }

  std::uint64_t stack_size() const noexcept { return size_[kStack]; }
  std::uint64_t size(Array a) const noexcept { return size_[a]; }
  std::uint64_t capacity(Array a) const noexcept { return capacity_[a]; }
  // The largest peak a growth reached (after over_budget: the refused growth's), in bytes.
  std::uint64_t peak() const noexcept { return peak_; }
  std::uint64_t limit() const noexcept { return budget_; }
  std::size_t input_bytes() const noexcept { return input_bytes_; }

  friend bool operator==(const DocumentBudget&, const DocumentBudget&) = default;

 private:
  Step add(Array a, std::uint64_t n) noexcept {
    if (size_[a] + n > capacity_[a]) return add_growing(a, n);
    size_[a] += n;
    return Step::fits;
  }
  Step add_growing(Array a, std::uint64_t n) noexcept;
  Step scalar_growing(std::size_t text_bytes) noexcept;
  Step close_growing(std::uint64_t mark) noexcept;
  // Grows array `a` for `extra` more elements when they do not fit; over_budget past the budget.
  Step room(Array a, std::uint64_t extra) noexcept;

  std::size_t input_bytes_;
  std::uint64_t budget_;
  std::uint64_t size_[kArrays] = {};
  std::uint64_t capacity_[kArrays] = {};
  std::uint64_t text_room_ = 0;  // min(text capacity, 4 GiB - 1): past it, scalar() takes the slow way
  std::uint64_t peak_ = 0;
};

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
  // What building it cost: the arrays' sizes and capacities and the largest peak, by DocumentBudget.
  const DocumentBudget& cost() const noexcept { return cost_; }

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
  std::string text_;        // every scalar's text, one after the other
  bool json_ = false;       // read as JSON: an unquoted scalar is a number, a boolean or null, never a string
  DocumentBudget cost_{0};  // the builder's model of the arrays above
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

// simdjson's raw token of a value without the blanks that follow it: a number's text as the
// document holds it. (simdjson does not check a number it is not asked to parse: the readers' own
// conversions decide, on this text, in both the document and the cluster fast path.)
inline std::string_view json_token_text(std::string_view token) noexcept {
  while (!token.empty() &&
         (token.back() == ' ' || token.back() == '\t' || token.back() == '\n' || token.back() == '\r'))
    token.remove_suffix(1);
  return token;
}

// The document, when `text` is one strict JSON object and nothing else; nullptr otherwise (the
// caller then reads it as YAML, which explains any syntax error). Throws InputError for nesting
// deeper than kMaxYamlDepth or a document over its memory budget, std::bad_alloc when memory runs
// out (simdjson's own allocations included). `readable` is how many bytes
// from text.data() may be read (the buffer's capacity; text.size() when unknown).
std::unique_ptr<Document> parse_json_document(std::string_view text, const std::string& source,
                                              std::size_t readable = 0);

// One YAML document, built from the parser's events. InputError (with the file, line and column)
// for: no document at all or a bare null ("empty file (expected <what>)"), a second document, a
// syntax error, nesting deeper than kMaxYamlDepth, an alias inside the node it refers to, aliases
// that expand the document too far ("billion laughs"), or a document over its memory budget.
std::unique_ptr<Document> parse_yaml_document(std::string_view text, const std::string& source, std::string_view what);

}  // namespace assignor::host::detail
