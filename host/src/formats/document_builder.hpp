// What the two parsers behind document.hpp share (document_json.cpp: simdjson; document_yaml.cpp:
// yaml-cpp's events): the builder that makes a Document bottom-up within its memory budget, and
// the message for a refused document. Private to the formats room.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/formats/document.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/host/support/printable.hpp"

namespace assignor::host::detail {

// "SOURCE:LINE:COL: problem", the message of a document refused while it is read.
[[noreturn]] inline void fail(const std::string& source, DocMark mark, std::string_view problem) {
  if (mark.is_null()) throw InputError(fmt::format("{}: {}", source, printable(problem)));
  throw InputError(fmt::format("{}:{}:{}: {}", source, mark.line + 1, mark.column + 1, printable(problem)));
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

}  // namespace assignor::host::detail
