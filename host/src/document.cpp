#include "document.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "assignor/errors.hpp"
#include "assignor/host/limits.hpp"

namespace assignor::host::detail {

namespace {

const std::string kEmpty;

[[noreturn]] void fail(const std::string& source, DocMark mark, std::string_view problem) {
  if (mark.is_null()) throw InputError(fmt::format("{}: {}", source, problem));
  throw InputError(fmt::format("{}:{}:{}: {}", source, mark.line + 1, mark.column + 1, problem));
}

}  // namespace

// ---- DocNode ----------------------------------------------------------------------------------

DocType DocNode::Type() const noexcept { return doc_ ? doc_->nodes_[index_].type : DocType::Undefined; }

const std::string& DocNode::Scalar() const noexcept {
  if (!IsScalar()) return kEmpty;
  return doc_->scalars_[doc_->nodes_[index_].scalar];
}

std::string_view DocNode::Tag() const noexcept {
  return doc_ && doc_->nodes_[index_].quoted ? "!" : "?";
}

DocMark DocNode::Mark() const noexcept { return doc_ ? doc_->nodes_[index_].mark : DocMark{}; }

std::size_t DocNode::size() const noexcept {
  if (!doc_) return 0;
  const auto& rec = doc_->nodes_[index_];
  if (rec.type == DocType::Map) return rec.child_count / 2;
  if (rec.type == DocType::Sequence) return rec.child_count;
  return 0;
}

DocNode DocNode::operator[](std::size_t i) const noexcept {
  if (!IsSequence() || i >= size()) return {};
  const auto& rec = doc_->nodes_[index_];
  return {doc_, doc_->children_[rec.first_child + i]};
}

DocNode::iterator DocNode::begin() const noexcept {
  iterator it;
  it.owner_ = *this;
  it.pos_ = 0;
  it.load();
  return it;
}

DocNode::iterator DocNode::end() const noexcept {
  iterator it;
  it.owner_ = *this;
  it.pos_ = doc_ && (IsMap() || IsSequence()) ? doc_->nodes_[index_].child_count : 0;
  return it;
}

DocNode::iterator& DocNode::iterator::operator++() noexcept {
  pos_ += owner_.IsMap() ? 2 : 1;
  load();
  return *this;
}

void DocNode::iterator::load() noexcept {
  entry_ = Entry{};
  const Document* doc = owner_.doc_;
  if (!doc || !(owner_.IsMap() || owner_.IsSequence())) return;
  const auto& rec = doc->nodes_[owner_.index_];
  if (pos_ >= rec.child_count) return;
  const std::uint32_t* kids = doc->children_.data() + rec.first_child;
  if (owner_.IsMap()) {
    entry_.first = DocNode(doc, kids[pos_]);
    entry_.second = DocNode(doc, kids[pos_ + 1]);
  } else {
    static_cast<DocNode&>(entry_) = DocNode(doc, kids[pos_]);
  }
}

// ---- building -----------------------------------------------------------------------------------

class DocumentBuilder {
 public:
  DocumentBuilder(Document& doc, const std::string& source) : doc_(doc), source_(source) {}

  std::uint32_t scalar(std::string text, bool quoted, DocMark mark) {
    const auto index = add(DocType::Scalar, quoted, mark);
    doc_.nodes_[index].scalar = static_cast<std::uint32_t>(doc_.scalars_.size());
    doc_.scalars_.push_back(std::move(text));
    stack_.push_back(index);
    return index;
  }
  std::uint32_t null(DocMark mark) {
    const auto index = add(DocType::Null, false, mark);
    stack_.push_back(index);
    return index;
  }
  // open() ... children ... close(): children pushed in between become the container's.
  struct Open {
    std::uint32_t index;
    std::size_t stack_mark;
  };
  Open open(DocType type, DocMark mark, int depth) {
    if (depth >= kMaxYamlDepth)
      fail(source_, mark,
           fmt::format("nested {} or more levels deep; refused (cluster and config files need a few levels)",
                       kMaxYamlDepth));
    const auto index = add(type, false, mark);
    return {index, stack_.size()};
  }
  void close(const Open& o) {
    auto& rec = doc_.nodes_[o.index];
    rec.first_child = static_cast<std::uint32_t>(doc_.children_.size());
    rec.child_count = static_cast<std::uint32_t>(stack_.size() - o.stack_mark);
    doc_.children_.insert(doc_.children_.end(), stack_.begin() + static_cast<std::ptrdiff_t>(o.stack_mark),
                          stack_.end());
    stack_.resize(o.stack_mark);
    stack_.push_back(o.index);
  }

 private:
  std::uint32_t add(DocType type, bool quoted, DocMark mark) {
    doc_.nodes_.push_back({type, quoted, mark, 0, 0, 0});
    return static_cast<std::uint32_t>(doc_.nodes_.size() - 1);
  }
  Document& doc_;
  const std::string& source_;
  std::vector<std::uint32_t> stack_;
};

namespace {

// yaml-cpp -> Document.
void from_yaml(DocumentBuilder& b, const YAML::Node& node, int depth) {
  const DocMark mark{node.Mark().line, node.Mark().column};
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      b.null(mark);
      return;
    case YAML::NodeType::Scalar:
      b.scalar(node.Scalar(), node.Tag() == "!", mark);
      return;
    case YAML::NodeType::Sequence: {
      const auto o = b.open(DocType::Sequence, mark, depth);
      for (const auto& child : node) from_yaml(b, child, depth + 1);
      b.close(o);
      return;
    }
    case YAML::NodeType::Map: {
      const auto o = b.open(DocType::Map, mark, depth);
      for (auto it = node.begin(); it != node.end(); ++it) {
        from_yaml(b, it->first, depth + 1);
        from_yaml(b, it->second, depth + 1);
      }
      b.close(o);
      return;
    }
  }
}

// simdjson (on demand) -> Document, with positions computed from token addresses.
class JsonBuilder {
 public:
  JsonBuilder(DocumentBuilder& b, std::string_view text) : b_(b), text_(text) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
  }

  DocMark at(const char* p) const {
    const auto offset = static_cast<std::size_t>(p - text_.data());
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const auto line = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
    return {static_cast<int>(line), static_cast<int>(offset - line_starts_[line])};
  }

  void object(simdjson::ondemand::object obj, DocMark mark, int depth) {
    const auto o = b_.open(DocType::Map, mark, depth);
    for (auto field : obj) {
      const char* key_at = field.key().value().raw() - 1;  // the opening quote
      b_.scalar(std::string(field.unescaped_key().value()), true, at(key_at));
      value(field.value().value(), depth + 1);
    }
    b_.close(o);
  }

  void value(simdjson::ondemand::value v, int depth) {
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
        b_.scalar(std::string(v.get_string().value()), true, mark);
        return;
      case simdjson::ondemand::json_type::boolean:
        b_.scalar(v.get_bool().value() ? "true" : "false", false, mark);
        return;
      case simdjson::ondemand::json_type::null:
        (void)v.is_null();
        b_.null(mark);
        return;
      case simdjson::ondemand::json_type::number: {
        std::string_view number = token;
        while (!number.empty() && (number.back() == ' ' || number.back() == '\t' || number.back() == '\n' ||
                                   number.back() == '\r'))
          number.remove_suffix(1);
        b_.scalar(std::string(number), false, mark);
        return;
      }
    }
  }

 private:
  DocumentBuilder& b_;
  std::string_view text_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace

std::unique_ptr<Document> parse_json_document(std::string_view text, const std::string& source) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return nullptr;
  try {
    simdjson::ondemand::parser parser;
    const simdjson::padded_string padded(text);
    auto json = parser.iterate(padded).value();
    auto doc = std::make_unique<Document>();
    DocumentBuilder b(*doc, source);
    JsonBuilder builder(b, std::string_view(padded.data(), text.size()));
    const char* start = json.current_location().value();
    builder.object(json.get_object().value(), builder.at(start), 0);
    // Anything after the root object (a second document, garbage): let the YAML parser explain.
    if (json.current_location().error() != simdjson::OUT_OF_BOUNDS) return nullptr;
    return doc;
  } catch (const simdjson::simdjson_error&) {
    return nullptr;
  }
}

std::unique_ptr<Document> document_from_yaml(const YAML::Node& root, const std::string& source) {
  auto doc = std::make_unique<Document>();
  DocumentBuilder b(*doc, source);
  from_yaml(b, root, 0);
  return doc;
}

}  // namespace assignor::host::detail
