// Logging for the SDK and for plugins, through a narrow interface the SDK owns: plain text and a
// level cross the plugin boundary, never a logging library's objects. The host decides where
// messages go and from which level; a plugin formats its message itself (with std::to_string,
// fmt or anything it links) and hands over the text:
//
//   assignor::log(assignor::LogLevel::warn, "my_strategy: rack awareness is off: " + reason);
//   if (assignor::log_enabled(assignor::LogLevel::debug)) assignor::log(assignor::LogLevel::debug, expensive());
//
// Plugins must not install sinks or change the level: that is the host's (set_log_sink,
// set_log_level). Without a host, messages at warn and above go to standard error.
#pragma once

#include <cstdint>
#include <string_view>

namespace assignor {

enum class LogLevel : std::uint8_t { trace, debug, info, warn, error, off };

// Writes one message at `level` when the level is enabled. Never throws; safe from any thread.
void log(LogLevel level, std::string_view message) noexcept;
bool log_enabled(LogLevel level) noexcept;

// The host's side. A sink receives every enabled message; nullptr restores the default (standard
// error, "assignor: <level>: <message>"). The level is the lowest that is written (default warn).
using LogSink = void (*)(LogLevel level, std::string_view message) noexcept;
void set_log_sink(LogSink sink) noexcept;
void set_log_level(LogLevel level) noexcept;
LogLevel log_level() noexcept;

// "trace", "debug", "info", "warn", "error", "off".
std::string_view to_string(LogLevel level) noexcept;

}  // namespace assignor
