#include "assignor/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <mutex>

namespace assignor {

namespace {

std::mutex& logger_mutex() {
  static std::mutex m;
  return m;
}

std::shared_ptr<spdlog::logger>& logger_slot() {
  static std::shared_ptr<spdlog::logger> slot;
  return slot;
}

}  // namespace

spdlog::logger& log() {
  std::lock_guard lock(logger_mutex());
  auto& slot = logger_slot();
  if (!slot) {
    slot = std::make_shared<spdlog::logger>("assignor",
                                            std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    slot->set_level(spdlog::level::warn);
  }
  return *slot;
}

void set_logger(std::shared_ptr<spdlog::logger> logger) {
  std::lock_guard lock(logger_mutex());
  logger_slot() = std::move(logger);
}

}  // namespace assignor
