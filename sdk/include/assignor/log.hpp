// Logging for the SDK and for plugins: everything goes through the host's spdlog logger.
//
// Plugins must not configure spdlog themselves (no set_default_logger, no sinks): they call
// assignor::log().warn("...") and the host decides where it goes and at which level.
#pragma once

#include <spdlog/logger.h>

#include <memory>

namespace assignor {

// The logger set by the host, or a stderr logger at level "warn" when no host has set one.
spdlog::logger& log();

// Called by the host once at start-up.
void set_logger(std::shared_ptr<spdlog::logger> logger);

}  // namespace assignor
