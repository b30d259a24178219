#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "assignor/log.hpp"

namespace assignor {
namespace {

std::vector<std::string> g_lines;

void capture(LogLevel level, std::string_view message) noexcept {
  g_lines.push_back(std::string(to_string(level)) + " " + std::string(message));
}

// Restores the process-wide defaults whatever the test does.
class Log : public ::testing::Test {
 protected:
  void SetUp() override {
    g_lines.clear();
    set_log_sink(&capture);
  }
  void TearDown() override {
    set_log_sink(nullptr);
    set_log_level(LogLevel::warn);
  }
};

TEST_F(Log, TheLevelFiltersBeforeTheSink) {
  set_log_level(LogLevel::info);
  log(LogLevel::debug, "hidden");
  log(LogLevel::info, "shown");
  log(LogLevel::error, "also shown");
  log(LogLevel::off, "never a level to write at");
  EXPECT_EQ(g_lines, (std::vector<std::string>{"info shown", "error also shown"}));
  EXPECT_FALSE(log_enabled(LogLevel::debug));
  EXPECT_TRUE(log_enabled(LogLevel::warn));
}

TEST_F(Log, OffSilencesEverything) {
  set_log_level(LogLevel::off);
  log(LogLevel::error, "x");
  EXPECT_TRUE(g_lines.empty());
  EXPECT_EQ(log_level(), LogLevel::off);
}

TEST_F(Log, TheDefaultIsWarnAndAbove) {
  log(LogLevel::info, "x");
  log(LogLevel::warn, "y");
  EXPECT_EQ(g_lines, (std::vector<std::string>{"warn y"}));
}

}  // namespace
}  // namespace assignor
