// Shared by the fuzz targets: quiet logging, the limits they run under, a reader's one allowed
// refusal, and a loud failure.
// The same sources build the libFuzzer targets (clang, scripts/fuzz) and the regression replay
// (replay_main.cpp, any compiler, run by ctest).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>

#include "assignor/errors.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/host/support/logging.hpp"

namespace assignor::fuzz {

// Lag warnings and plugin logs would flood the fuzzer's output and slow it down.
inline void quiet_logs() {
  static const bool done = [] {
    assignor::host::set_log_level(spdlog::level::off);
    return true;
  }();
  (void)done;
}

// The default limits: what the assignor command applies to a cluster file.
inline const host::InputLimits& limits() {
  static const host::InputLimits defaults;
  return defaults;
}

// What `read` makes of the input, or nothing when it refuses it with an InputError: the one answer
// to bad input a reader may give (any other exception reaches the fuzzer as a crash).
template <class Read>
auto accepted(std::string_view text, Read&& read) -> std::optional<decltype(read(text))> {
  try {
    return read(text);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// A property that must hold did not: print what and abort, which the fuzzer records as a crash.
[[noreturn]] inline void fail(std::string_view what, std::string_view detail, std::string_view more) {
  std::fprintf(stderr, "FUZZ PROPERTY VIOLATED: %.*s\n  %.*s\n  %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size() > 4000 ? 4000 : detail.size()), detail.data(),
               static_cast<int>(more.size() > 4000 ? 4000 : more.size()), more.data());
  std::abort();
}

}  // namespace assignor::fuzz
