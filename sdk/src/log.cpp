#include "assignor/log.hpp"

#include <unistd.h>

#include <atomic>
#include <string>

namespace assignor {

namespace {

std::atomic<LogSink> g_sink{nullptr};
std::atomic<LogLevel> g_level{LogLevel::warn};

void to_stderr(LogLevel level, std::string_view message) noexcept {
  try {
    std::string line = "assignor: ";
    line += to_string(level);
    line += ": ";
    line += message;
    line += '\n';
    // One write per line, so lines from several threads or processes do not interleave.
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  } catch (...) {  // out of memory while logging: drop the line
  }
}

}  // namespace

std::string_view to_string(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::trace: return "trace";
    case LogLevel::debug: return "debug";
    case LogLevel::info: return "info";
    case LogLevel::warn: return "warn";
    case LogLevel::error: return "error";
    case LogLevel::off: return "off";
  }
  return "off";
}

bool log_enabled(LogLevel level) noexcept {
  return level != LogLevel::off && level >= g_level.load(std::memory_order_relaxed);
}

void log(LogLevel level, std::string_view message) noexcept {
  if (!log_enabled(level)) return;
  const LogSink sink = g_sink.load(std::memory_order_acquire);
  if (sink != nullptr)
    sink(level, message);
  else
    to_stderr(level, message);
}

void set_log_sink(LogSink sink) noexcept { g_sink.store(sink, std::memory_order_release); }
void set_log_level(LogLevel level) noexcept { g_level.store(level, std::memory_order_relaxed); }
LogLevel log_level() noexcept { return g_level.load(std::memory_order_relaxed); }

}  // namespace assignor
