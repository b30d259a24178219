// `isolation: process`: the strategy runs in a child process. A crash, a hang or running out of
// memory becomes an AssignmentFailed naming the strategy and what happened (exit 4), or a warning
// and the fallback's result; a healthy strategy gives exactly its in-process result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "assignor/errors.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/isolation.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/standard_output.hpp"
#include "assignor/validation.hpp"
#include "broken_test.hpp"
#include "cluster_builder.hpp"

namespace {

using namespace assignor_test::broken;
using assignor::host::IsolationMode;

Cluster cluster() {
  ClusterBuilder b;
  b.stateful("0_0", 1000).stateful("0_1", 1000).mixed("1_0", 500).stateless("2_0").stateless("2_1");
  b.client("a", 1).previous_active({"0_0", "1_0"}).offsets({{"0_0", -2}, {"1_0", -2}, {"0_1", 900}});
  b.client("b", 2).previous_active({"0_1", "2_0"}).offsets({{"0_1", -2}});
  b.client("c", 1);
  return b.build();
}

class Isolation : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.load_directory(ASSIGNOR_PLUGIN_DIR, assignor::host::PluginOrigin::bundled);
    for (const char* library :
         {TEST_PLUGIN_STRATEGY_CRASHES, TEST_PLUGIN_STRATEGY_HANGS, TEST_PLUGIN_STRATEGY_HOGS_MEMORY,
          TEST_PLUGIN_STRATEGY_PRINTS, TEST_PLUGIN_TRIVIAL_VALID, TEST_PLUGIN_STRATEGY_THROWS,
          TEST_PLUGIN_STRATEGY_INVALID, TEST_PLUGIN_FACTORY_BAD_PARAM, TEST_PLUGIN_STRATEGY_MISBEHAVES,
          TEST_PLUGIN_STRATEGY_FORGES_RESULT})
      registry_.load(library);
  }

  static Config isolated(const std::string& strategy) {
    Config config;
    config.strategy = strategy;
    config.isolation = IsolationMode::process;
    config.settings.num_standby_replicas = 1;
    // Far above what a healthy run needs even on a machine whose cores are busy: only the tests of
    // the time limit set a small one, with strategies that never finish.
    config.strategy_limits.time_ms = 60000;
    config.strategy_limits.memory_mb = 256;
    return config;
  }

  std::string failure(const Config& config) const {
    return message_of<AssignmentFailed>([&] { run_assignment(registry_, config, cluster(), config.strategy); });
  }

  PluginRegistry registry_;
};

TEST_F(Isolation, HealthyStrategiesGiveTheirInProcessResult) {
  const Cluster c = cluster();
  for (const std::string name : {"high_availability", "sticky", "fallback_prior", "test_trivial_valid"}) {
    SCOPED_TRACE(name);
    Config in_process = isolated(name);
    in_process.isolation = IsolationMode::in_process;
    const RunOutcome expected = run_assignment(registry_, in_process, c, name);
    const RunOutcome got = run_assignment(registry_, isolated(name), c, name);
    EXPECT_EQ(got.report.assignment, expected.report.assignment);
    EXPECT_EQ(got.report.strategy, name);
    EXPECT_FALSE(got.used_fallback);
    EXPECT_EQ(got.report.metrics.active_moves, expected.report.metrics.active_moves);
    EXPECT_GT(got.report.assign_ms, 0);
  }
}

TEST_F(Isolation, SegfaultIsAFailureNamingTheSignal) {
  EXPECT_THAT(failure(isolated("test_strategy_crashes")),
              HasSubstr("strategy 'test_strategy_crashes' crashed with SIGSEGV (Segmentation fault)"));
}

TEST_F(Isolation, AbortIsAFailureNamingTheSignal) {
  Config config = isolated("test_strategy_crashes");
  config.strategy_params["test_strategy_crashes"] = params_of({{"crash", "abort"}});
  EXPECT_THAT(failure(config), HasSubstr("crashed with SIGABRT (Aborted)"));
}

TEST_F(Isolation, ExitIsAFailureNamingTheStatus) {
  Config config = isolated("test_strategy_crashes");
  config.strategy_params["test_strategy_crashes"] = params_of({{"crash", "exit"}});
  EXPECT_THAT(failure(config), HasSubstr("ended its process with exit status 3 before returning a result"));
}

TEST_F(Isolation, HangIsKilledAtTheTimeLimit) {
  for (const std::string kind : {"spin", "sleep"}) {
    SCOPED_TRACE(kind);
    Config config = isolated("test_strategy_hangs");
    config.strategy_limits.time_ms = 300;
    config.strategy_params["test_strategy_hangs"] = params_of({{"hang", kind}});
    EXPECT_THAT(
        failure(config),
        HasSubstr("strategy 'test_strategy_hangs' exceeded its time limit of 300 ms (limits.time_ms) and was killed"));
  }
  Config seconds = isolated("test_strategy_hangs");
  seconds.strategy_limits.time_ms = 1000;
  EXPECT_THAT(failure(seconds), HasSubstr("time limit of 1 s"));
}

// A process the strategy started that left its process group and session (setsid) used to survive
// the time-limit kill. Now it is killed and reaped before run_assignment returns.
TEST_F(Isolation, WhatAHangingStrategyStartedDiesWithIt) {
  Config config = isolated("test_strategy_hangs");
  config.strategy_limits.time_ms = 3000;  // time enough to start the process and say its pid
  config.strategy_params["test_strategy_hangs"] =
      params_of({{"hang", "sleep"}, {"spawn", "detached"}, {"say_pids", "true"}});
  // The strategy can write no file: it says its pids on standard error, which it shares with us.
  ::testing::internal::CaptureStderr();
  const std::string message = failure(config);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(message, HasSubstr("exceeded its time limit"));
  const auto at = said.find("test_strategy_hangs pids: ");
  ASSERT_NE(at, std::string::npos) << "the strategy did not get to say its pids: " << said;
  std::istringstream in(said.substr(at + std::string("test_strategy_hangs pids: ").size()));
  pid_t strategy = 0, spawned = 0;
  ASSERT_TRUE(in >> strategy >> spawned);
  ASSERT_GT(spawned, 0);
  for (const pid_t pid : {strategy, spawned}) {
    errno = 0;
    EXPECT_EQ(::kill(pid, 0), -1) << "process " << pid << " is still there";
    EXPECT_EQ(errno, ESRCH);
  }
}

TEST_F(Isolation, RunningOutOfMemoryIsAFailureNamingTheLimit) {
  if (!assignor::host::isolation_memory_limit_enforced())
    GTEST_SKIP() << "AddressSanitizer build: RLIMIT_AS cannot be applied";
  EXPECT_THAT(failure(isolated("test_strategy_hogs_memory")),
              HasSubstr("strategy 'test_strategy_hogs_memory' ran out of memory (limit 256 MiB, limits.memory_mb)"));
}

TEST_F(Isolation, ThrowingStrategyFailsAsInProcess) {
  EXPECT_THAT(failure(isolated("test_strategy_throws")), HasSubstr("strategy 'test_strategy_throws' threw: boom"));
  Config config = isolated("test_strategy_throws");
  config.strategy_params["test_strategy_throws"] = params_of({{"throw", "int"}});
  EXPECT_THAT(failure(config), HasSubstr("threw an unknown exception"));
}

TEST_F(Isolation, InvalidResultIsValidatedInTheParent) {
  const Config config = isolated("test_strategy_invalid");
  try {
    run_assignment(registry_, config, cluster(), config.strategy);
    ADD_FAILURE() << "expected AssignmentFailed";
  } catch (const AssignmentFailed& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("active_assigned_multiple_times"));
    EXPECT_FALSE(e.errors().empty());
  }
}

TEST_F(Isolation, BadParameterIsStillAConfigError) {
  Config config = isolated("test_factory_bad_param");
  config.fallback = "test_trivial_valid";
  config.strategy_params["test_factory_bad_param"] = params_of({{"alpah", "1"}});
  EXPECT_THAT(message_of<ConfigError>([&] { run_assignment(registry_, config, cluster(), config.strategy); }),
              HasSubstr("did you mean 'alpha'"));
}

TEST_F(Isolation, UnknownStrategyIsStillAPluginError) {
  const Config config = isolated("no_such_strategy");
  EXPECT_THROW(run_assignment(registry_, config, cluster(), config.strategy), PluginError);
}

TEST_F(Isolation, FallbackRescuesCrashHangAndOutOfMemory) {
  struct Case {
    const char* strategy;
    const char* why;
  };
  for (const Case& k :
       {Case{"test_strategy_crashes", "crashed with SIGSEGV"}, Case{"test_strategy_hangs", "exceeded its time limit"},
        Case{"test_strategy_hogs_memory", "ran out of memory"}}) {
    SCOPED_TRACE(k.strategy);
    if (std::string(k.strategy) == "test_strategy_hogs_memory" && !assignor::host::isolation_memory_limit_enforced())
      continue;
    Config config = isolated(k.strategy);
    // The hang's limit, and also the fallback's, which needs about a millisecond: a wide margin.
    if (std::string(k.strategy) == "test_strategy_hangs") config.strategy_limits.time_ms = 3000;
    config.fallback = "fallback_prior";
    const Cluster c = cluster();
    const RunOutcome out = run_assignment(registry_, config, c, k.strategy);
    EXPECT_TRUE(out.used_fallback);
    EXPECT_EQ(out.report.strategy, "fallback_prior");
    EXPECT_THAT(assignor::validate(c, config.settings, out.report.assignment), IsEmpty());
    EXPECT_THAT(out.warnings,
                Contains(AllOf(HasSubstr(k.why), HasSubstr("using the fallback strategy 'fallback_prior'"))));
  }
}

TEST_F(Isolation, WhatTheStrategyPrintsNeverReachesStdout) {
  ::testing::internal::CaptureStdout();
  const RunOutcome out = run_assignment(registry_, isolated("test_strategy_prints"), cluster(), "test_strategy_prints");
  const std::string stdout_text = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.report.strategy, "test_strategy_prints");
  EXPECT_THAT(stdout_text, Not(HasSubstr("chatty strategy")));
}

// Issue 32: a child that wrote its own record (assign_ms -123456, NaN) and ended with _exit(0) used
// to have it printed. The host measures the time itself, fork to answer; an answer it does not
// know the shape of is malformed, whatever it claims.
TEST_F(Isolation, TheHostMeasuresTheTimeWhateverTheChildWrites) {
  Config config = isolated("test_strategy_forges_result");
  config.strategy_params["test_strategy_forges_result"] = params_of({{"forge", "valid_frame"}, {"sleep_ms", "200"}});
  const RunOutcome out = run_assignment(registry_, config, cluster(), config.strategy);
  EXPECT_EQ(out.report.assignment.actives.size(), 5u);  // its placements are its answer
  EXPECT_TRUE(std::isfinite(out.report.assign_ms));
  EXPECT_GE(out.report.assign_ms, 200.0) << "the 200 ms the strategy slept before answering count";
  for (const std::string forge : {"negative_time", "nan_time", "huge_count"}) {
    SCOPED_TRACE(forge);
    config.strategy_params["test_strategy_forges_result"] = params_of({{"forge", forge}});
    EXPECT_THAT(failure(config), HasSubstr("returned a malformed result from its process"));
  }
}

TEST_F(Isolation, ManyRunsLeaveNoProcessBehind) {
  // Each run reaps its child: after a hundred isolated runs this process has no child at all.
  const Cluster c = cluster();
  const Config config = isolated("test_trivial_valid");
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(run_assignment(registry_, config, c, config.strategy).used_fallback);
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD) << "a child process is left";
}

// ---- the default in-process mode keeps the same contract ----

class InProcess : public Isolation {
 protected:
  static Config in_process(const std::string& strategy) {
    Config config = isolated(strategy);
    config.isolation = IsolationMode::in_process;
    return config;
  }
};

TEST_F(InProcess, WhatTheStrategyPrintsGoesToStderr) {
  // The host's results go to a copy of the original standard output, reserved before any strategy
  // runs (the command does this at start-up).
  const int results = assignor::host::result_output_fd();
  ASSERT_GE(results, 3);
  struct stat original {};
  ASSERT_EQ(::fstat(STDOUT_FILENO, &original), 0);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const RunOutcome out =
      run_assignment(registry_, in_process("test_strategy_prints"), cluster(), "test_strategy_prints");
  // After the run fd 1 still leads to stderr: a strategy thread that goes on printing can never
  // reach the result (the command writes it to `results`).
  std::cout << "printed after the run" << std::flush;
  const std::string stdout_text = ::testing::internal::GetCapturedStdout();
  const std::string stderr_text = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out.report.strategy, "test_strategy_prints");
  EXPECT_THAT(stdout_text, Not(HasSubstr("chatty strategy")));
  EXPECT_THAT(stdout_text, Not(HasSubstr("printed after the run")));
  EXPECT_THAT(stderr_text, AllOf(HasSubstr("hello from std::cout"), HasSubstr("hello from printf"),
                                 HasSubstr("printed after the run")));
  struct stat reserved {};
  ASSERT_EQ(::fstat(results, &reserved), 0);
  EXPECT_TRUE(reserved.st_dev == original.st_dev && reserved.st_ino == original.st_ino)
      << "the reserved descriptor is the original standard output";
}

TEST_F(InProcess, AStrategyThatWritesItsConstInputChangesOnlyItsOwnCopy) {
  // It drops every task and gives every client 2^30 threads through const_cast, then answers for
  // what it sees. The host validates against its own copy: no task has an active (exit 4), never
  // an empty "valid" assignment or a per-thread split of a billion threads.
  Config config = in_process("test_strategy_misbehaves");
  config.strategy_params["test_strategy_misbehaves"] = params_of({{"mode", "writes_input"}});
  const Cluster input = cluster();
  const std::string msg =
      message_of<AssignmentFailed>([&] { run_assignment(registry_, config, input, config.strategy); });
  EXPECT_THAT(msg, AllOf(HasSubstr("returned an invalid assignment"), HasSubstr("0_0")));
  EXPECT_EQ(input.task_count(), 5u);
  EXPECT_EQ(input.clients[0].threads, 1u);
  // With a fallback, the fallback runs on the real input.
  config.fallback = "high_availability";
  const RunOutcome out = run_assignment(registry_, config, input, config.strategy);
  EXPECT_TRUE(out.used_fallback);
  EXPECT_EQ(out.report.assignment.actives.size(), 5u);
  ASSERT_TRUE(out.report.threads.has_value());
  EXPECT_EQ(out.report.threads->clients[1].thread_count, 2u);
}

TEST_F(Isolation, AResultIsTakenWhenTheChildEndsWhateverItsDaemonsHold) {
  // The strategy forks a daemon that leaves the session and sleeps for two minutes holding the
  // result pipe, then answers at once. The run used to wait for the pipe's end, hit the time
  // limit and throw the valid answer away; now it ends with the child and kills the daemon.
  Config config = isolated("test_strategy_misbehaves");
  config.strategy_params["test_strategy_misbehaves"] = params_of({{"mode", "daemon"}, {"sleep_s", "120"}});
  const RunOutcome out = run_assignment(registry_, config, cluster(), config.strategy);
  EXPECT_EQ(out.report.strategy, "test_strategy_misbehaves");
  EXPECT_EQ(out.report.assignment.actives.size(), 5u);
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD) << "the daemon was killed and reaped with the run";
}

TEST_F(InProcess, EndingTheProcessIsAFailureNeverASuccess) {
  for (const char* status : {"0", "3"}) {  // 0 would look like success, 3 like "plugin not loaded"
    SCOPED_TRACE(status);
    Config config = in_process("test_strategy_crashes");
    config.strategy_params["test_strategy_crashes"] = params_of({{"crash", "exit"}, {"status", status}});
    EXPECT_EXIT(run_assignment(registry_, config, cluster(), config.strategy),
                ::testing::ExitedWithCode(assignor::host::kExitStrategyFailed),
                "strategy 'test_strategy_crashes' ended the process while assigning");
  }
}

TEST_F(InProcess, PluginsFromElsewhereRunIsolatedByDefault) {
  // Loaded from a test directory, not the bundled one: with isolation: auto a crash is contained.
  Config config = isolated("test_strategy_crashes");
  config.isolation = IsolationMode::automatic;
  EXPECT_THAT(failure(config), HasSubstr("crashed with SIGSEGV"));
  // Bundled strategies keep running in process: the same result either way.
  Config bundled = isolated("high_availability");
  bundled.isolation = IsolationMode::automatic;
  EXPECT_EQ(
      run_assignment(registry_, bundled, cluster(), "high_availability").report.assignment,
      run_assignment(registry_, in_process("high_availability"), cluster(), "high_availability").report.assignment);
}

}  // namespace
