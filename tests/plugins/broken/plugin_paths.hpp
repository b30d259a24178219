// Paths of the test plugins, as CMake built them ($<TARGET_FILE:...>), and small test helpers.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "assignor/settings.hpp"

namespace assignor_test {

namespace fs = std::filesystem;

// The real path of a built library: what the registry's messages name.
inline std::string real_path(const char* built) { return fs::canonical(built).string(); }

// The directory a test plugin was built into (its own, or dup/ for the duplicates).
inline fs::path dir_of(const char* built) { return fs::path(built).parent_path(); }

// Strategy parameters from a brace list: params_of({{"alpha", "1"}}).
inline assignor::StrategyParams params_of(std::map<std::string, std::string> values) {
  return assignor::StrategyParams(std::move(values));
}

// Runs `f`, which must throw E; returns what() ("" and a test failure when nothing is thrown; any
// other exception escapes and fails the test with its message).
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return {};
}

}  // namespace assignor_test
