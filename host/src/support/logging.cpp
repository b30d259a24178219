#include "assignor/host/support/logging.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <memory>

#include "assignor/log.hpp"

namespace assignor::host {

namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::trace: return spdlog::level::trace;
    case LogLevel::debug: return spdlog::level::debug;
    case LogLevel::info: return spdlog::level::info;
    case LogLevel::warn: return spdlog::level::warn;
    case LogLevel::error: return spdlog::level::err;
    case LogLevel::off: return spdlog::level::off;
  }
  return spdlog::level::off;
}

LogLevel from_spdlog(spdlog::level::level_enum level) noexcept {
  switch (level) {
    case spdlog::level::trace: return LogLevel::trace;
    case spdlog::level::debug: return LogLevel::debug;
    case spdlog::level::info: return LogLevel::info;
    case spdlog::level::warn: return LogLevel::warn;
    case spdlog::level::err:
    case spdlog::level::critical: return LogLevel::error;
    default: return LogLevel::off;
  }
}

// SDK and plugin messages, into the host's logger.
void forward(LogLevel level, std::string_view message) noexcept {
  try {
    log().log(to_spdlog(level), "{}", message);
  } catch (...) {  // a failing sink must not take a strategy down
  }
}

spdlog::logger& make_logger() {
  static const std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>("assignor", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    l->set_pattern("assignor: %^%l%$: %v");
    l->set_level(to_spdlog(log_level()));
    set_log_sink(&forward);
    return l;
  }();
  return *logger;
}

}  // namespace

spdlog::logger& log() { return make_logger(); }

void set_log_level(const std::string& level) { set_log_level(spdlog::level::from_str(level)); }

void set_log_level(spdlog::level::level_enum level) {
  log().set_level(level);
  assignor::set_log_level(from_spdlog(level));
}

QuietLog::QuietLog() : saved_(static_cast<int>(log().level())) {
  if (saved_ < static_cast<int>(spdlog::level::err)) set_log_level(spdlog::level::err);
}

QuietLog::~QuietLog() { set_log_level(static_cast<spdlog::level::level_enum>(saved_)); }

}  // namespace assignor::host
