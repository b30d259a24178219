// Appending JSON text to a string, for the writers that produce large files straight from the
// model (the cluster file, the assignment) instead of building a JSON tree first. Not public.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "assignor/task_id.hpp"

namespace assignor::host::detail {

inline void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

inline void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// A task id as written in files, "S_P", without a temporary string.
inline void append_task_id(std::string& out, TaskId id) {
  append_int(out, id.subtopology);
  out.push_back('_');
  append_int(out, id.partition);
}

// A JSON string literal: escapes '"', '\\' and control characters (as nlohmann's dump() does);
// other bytes (UTF-8) as they are.
void append_json_string(std::string& out, std::string_view s);

}  // namespace assignor::host::detail
