#include "assignor/task_id.hpp"

#include <cstdint>

namespace assignor {

namespace {

// Decimal digits without a sign or leading zeros, up to `stop` (or the end): one spelling per task,
// so "00_01" cannot be a second name of 0_1 (and messages always show the id as written). One pass,
// no search: the readers and the log importer call it for every task id they meet.
bool parse_component(std::string_view text, std::size_t& pos, char stop, std::int32_t& out) noexcept {
  const std::size_t start = pos;
  std::int64_t value = 0;
  while (pos < text.size() && text[pos] != stop) {
    const char c = text[pos];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
    if (value > INT32_MAX) return false;
    ++pos;
  }
  const std::size_t n = pos - start;
  if (n == 0 || (n > 1 && text[start] == '0')) return false;
  out = static_cast<std::int32_t>(value);
  return true;
}

}  // namespace

std::optional<TaskId> parse_task_id(std::string_view text) noexcept {
  TaskId id;
  std::size_t pos = 0;
  if (!parse_component(text, pos, '_', id.subtopology) || pos == text.size()) return std::nullopt;
  ++pos;  // the '_'
  if (!parse_component(text, pos, '\0', id.partition) || pos != text.size()) return std::nullopt;
  return id;
}

std::string to_string(TaskId id) { return std::to_string(id.subtopology) + "_" + std::to_string(id.partition); }

}  // namespace assignor
