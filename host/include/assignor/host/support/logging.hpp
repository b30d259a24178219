// The host's logger. The host logs with spdlog; the SDK and plugins log through the SDK's narrow
// interface (assignor/log.hpp: a level and text), which the host routes into this same logger, so
// that one level and one format govern every message.
#pragma once

#include <spdlog/logger.h>

#include <string>

namespace assignor::host {

// The host's logger ("assignor: <level>: <message>" on standard error; level warn until set).
spdlog::logger& log();

// Sets the level of the host's logger and of the SDK's messages ("trace" ... "off"), and routes the
// SDK's messages into the host's logger.
void set_log_level(const std::string& level);
void set_log_level(spdlog::level::level_enum level);

// Raises the log level to errors for its lifetime: jobs that repeat a run (compare's timed
// repeats, a sweep's combinations, replay's runs in time) would repeat every warning, and what
// they would say is in their results (stalls, the round limit).
class QuietLog {
 public:
  QuietLog();
  ~QuietLog();
  QuietLog(const QuietLog&) = delete;
  QuietLog& operator=(const QuietLog&) = delete;

 private:
  int saved_;  // the spdlog level before
};

}  // namespace assignor::host
