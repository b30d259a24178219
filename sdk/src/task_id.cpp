#include "assignor/task_id.hpp"

#include <charconv>

namespace assignor {

namespace {

// Decimal digits without a sign or leading zeros: one spelling per task, so "00_01" cannot be a
// second name of 0_1 (and messages always show the id as written).
bool parse_component(std::string_view text, std::int32_t& out) noexcept {
  if (text.empty() || text.front() < '0' || text.front() > '9') return false;
  if (text.size() > 1 && text.front() == '0') return false;
  const auto* first = text.data();
  const auto* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, out);
  return ec == std::errc{} && ptr == last;
}

}  // namespace

std::optional<TaskId> parse_task_id(std::string_view text) noexcept {
  const auto sep = text.find('_');
  if (sep == std::string_view::npos) return std::nullopt;
  TaskId id;
  if (!parse_component(text.substr(0, sep), id.subtopology)) return std::nullopt;
  if (!parse_component(text.substr(sep + 1), id.partition)) return std::nullopt;
  return id;
}

std::string to_string(TaskId id) {
  return std::to_string(id.subtopology) + "_" + std::to_string(id.partition);
}

}  // namespace assignor
