// The parallel runner (process/parallel.hpp): workers are forked children speaking frames, with the
// protections every child of the host gets. Expectations come from the jobs themselves (each job's
// result is a function of its index), never from the runner.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "assignor/errors.hpp"
#include "assignor/host/process/parallel.hpp"
#include "assignor/host/support/errors.hpp"

namespace assignor::host::process {
namespace {

std::string square(std::size_t i) { return std::to_string(i * i); }

TEST(Parallel, ResultsComeBackInJobOrderForAnyNumberOfWorkers) {
  std::vector<std::string> expected;
  for (std::size_t i = 0; i < 40; ++i) expected.push_back(square(i));
  for (unsigned workers : {1u, 2u, 3u, 8u}) {
    std::size_t reported = 0;
    const auto results = run_jobs(40, workers, square, [&](std::size_t k) { reported = k; });
    EXPECT_EQ(results, expected) << workers << " workers";
    EXPECT_EQ(reported, 40u) << "progress reports every result";
  }
}

TEST(Parallel, LargeResultsCrossIntact) {
  const auto job = [](std::size_t i) { return std::string(300'000 + i, static_cast<char>('a' + i % 26)); };
  const auto results = run_jobs(6, 3, job);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(results[i], job(i));
}

template <class Error>
void expect_rethrown_as(ErrorKind kind) {
  const auto job = [kind](std::size_t i) -> std::string {
    if (i == 3) throw_error(kind, "job four failed");
    return "fine";
  };
  try {
    (void)run_jobs(6, 2, job);
    FAIL() << "the failure must be rethrown";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "job four failed");
    EXPECT_EQ(error_kind(e), kind) << "rethrown as the same kind, not a broader one";
  }
}

TEST(Parallel, AJobsFailureIsRethrownAsItsOwnKind) {
  expect_rethrown_as<ConfigError>(ErrorKind::config);
  expect_rethrown_as<InputError>(ErrorKind::input);
  expect_rethrown_as<PluginError>(ErrorKind::plugin);
  expect_rethrown_as<AssignmentFailed>(ErrorKind::failed);
  expect_rethrown_as<StrategyError>(ErrorKind::strategy);
}

TEST(Parallel, TheFirstFailingJobInOrderIsTheOneReported) {
  const auto job = [](std::size_t i) -> std::string {
    if (i >= 5) throw InputError("job " + std::to_string(i + 1));
    return "fine";
  };
  try {
    (void)run_jobs(12, 4, job);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "job 6");
  }
}

TEST(Parallel, AWorkerThatCrashesIsReportedWithItsJob) {
  const auto job = [](std::size_t i) -> std::string {
    if (i == 2) ::raise(SIGSEGV);
    return "fine";
  };
  try {
    (void)run_jobs(5, 2, job);
    FAIL() << "a crashed job has no result";
  } catch (const StrategyError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("job 3"), std::string::npos) << what;
    EXPECT_NE(what.find("SIGSEGV"), std::string::npos) << what;
  }
}

TEST(Parallel, WhatAJobPrintsCannotReachTheResults) {
  const auto job = [](std::size_t i) {
    ::write(STDOUT_FILENO, "start 0 0\n", 10);  // a forged frame on stdout goes to stderr
    return square(i);
  };
  const auto results = run_jobs(4, 2, job);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(results[i], square(i));
}

TEST(Parallel, WhatAWorkerStartsDoesNotOutliveTheRun) {
  const std::filesystem::path pid_file =
      std::filesystem::temp_directory_path() / ("assignor-parallel-daemon-" + std::to_string(::getpid()));
  std::filesystem::remove(pid_file);
  const auto job = [&](std::size_t i) -> std::string {
    if (i != 0) return "fine";
    const std::filesystem::path part = pid_file.string() + ".part";
    if (::fork() == 0) {  // a daemon: a new session, left running
      ::setsid();
      std::ofstream(part) << ::getpid();
      std::filesystem::rename(part, pid_file);
      for (;;) ::pause();
    }
    // Liveness only: wait until the daemon is up (a minute at most), so that there is one to kill.
    for (int k = 0; k < 60'000 && !std::filesystem::exists(pid_file); ++k) ::usleep(1000);
    return "fine";
  };
  (void)run_jobs(3, 2, job);
  std::ifstream in(pid_file);
  pid_t daemon = 0;
  ASSERT_TRUE(in >> daemon) << "the daemon wrote its pid before the run ended";
  std::filesystem::remove(pid_file);
  // It was killed and reaped by the runner: no such process any more.
  EXPECT_EQ(::kill(daemon, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

}  // namespace
}  // namespace assignor::host::process
