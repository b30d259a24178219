// Task ids of the form `<subtopology>_<partition>` (e.g. "3_17"), ordered by (subtopology, partition).
//
//   auto id = assignor::parse_task_id("3_17");   // std::optional<TaskId>{3, 17}
//   std::string s = assignor::to_string(*id);      // "3_17"
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace assignor {

struct TaskId {
  std::int32_t subtopology = 0;
  std::int32_t partition = 0;

  friend constexpr auto operator<=>(const TaskId&, const TaskId&) = default;
};

// Parses "S_P" with S, P decimal integers >= 0 written without a sign or leading zeros ("0_3", not
// "00_03"); nullopt on any other text.
std::optional<TaskId> parse_task_id(std::string_view text) noexcept;

std::string to_string(TaskId id);

}  // namespace assignor
