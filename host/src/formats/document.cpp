// The document's memory budget (DocumentBudget, document.hpp): what each building step may take.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "assignor/host/formats/document.hpp"
#include "assignor/host/formats/limits.hpp"

namespace assignor::host::detail {

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

}  // namespace assignor::host::detail
