// run_assignment against the broken strategies: failures become AssignmentFailed naming the strategy
// and the reasons; config.fallback rescues them; unknown end offsets switch to fallback_prior.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/validation.hpp"
#include "broken_test.hpp"
#include "cluster_builder.hpp"

namespace {

using namespace assignor_test::broken;

// Three stateful tasks and a stateless one on two clients, each with a previous active.
Cluster two_client_cluster(bool end_offsets_known = true) {
  ClusterBuilder b;
  b.stateful("0_0", 1000).stateful("0_1", 1000).mixed("1_0", 500).stateless("2_0");
  if (!end_offsets_known) b.end_offsets_unknown();
  b.client("a", 1).previous_active({"0_0", "1_0"}).offsets({{"0_0", -2}, {"1_0", -2}, {"0_1", 900}});
  b.client("b", 2).previous_active({"0_1", "2_0"}).offsets({{"0_1", -2}});
  return b.build();
}

std::vector<ValidationErrorKind> kinds_of(const AssignmentFailed& e) {
  std::vector<ValidationErrorKind> kinds;
  for (const auto& err : e.errors()) kinds.push_back(err.kind);
  return kinds;
}

class Runner : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.load_directory(ASSIGNOR_PLUGIN_DIR);
    for (const char* library : {TEST_PLUGIN_TRIVIAL_VALID, TEST_PLUGIN_STRATEGY_THROWS, TEST_PLUGIN_STRATEGY_INVALID,
                                TEST_PLUGIN_STRATEGY_UNKNOWN_TASK, TEST_PLUGIN_FACTORY_THROWS, TEST_PLUGIN_FACTORY_NULL,
                                TEST_PLUGIN_FACTORY_BAD_PARAM, TEST_PLUGIN_DECLARES_HA_RESTORES})
      registry_.load(library);
  }

  Config config_for(const std::string& strategy) const {
    Config config;
    config.strategy = strategy;
    return config;
  }

  AssignmentFailed failure_of(const Config& config, const Cluster& cluster) const {
    try {
      run_assignment(registry_, config, cluster, config.strategy);
    } catch (const AssignmentFailed& e) {
      return e;
    }
    ADD_FAILURE() << "expected AssignmentFailed";
    return AssignmentFailed("", {});
  }

  PluginRegistry registry_;
};

// ---- a healthy run, for contrast ----

TEST_F(Runner, ValidStrategyRunsWithoutFallback) {
  const Cluster cluster = two_client_cluster();
  const RunOutcome out = run_assignment(registry_, config_for("test_trivial_valid"), cluster, "test_trivial_valid");
  EXPECT_EQ(out.report.strategy, "test_trivial_valid");
  EXPECT_EQ(out.requested_strategy, "test_trivial_valid");
  EXPECT_FALSE(out.used_fallback);
  EXPECT_THAT(out.warnings, IsEmpty());
  EXPECT_THAT(assignor::validate(cluster, {}, out.report.assignment), IsEmpty());
  EXPECT_FALSE(out.report.assignment.probing_rebalance);
  EXPECT_EQ(out.report.metrics.active_moves, 2u);  // 0_1 and 2_0 left client b
}

// ---- failures without a fallback: AssignmentFailed naming the strategy and the reasons ----

// A strategy is held to what it declares: high availability means no restoring active.
TEST_F(Runner, DeclaringHighAvailabilityAndRestoringIsAFailure) {
  const Cluster cluster = ClusterBuilder()
                              .stateful("0_0", 100000)
                              .client("a")
                              .client("b")
                              .previous_active({"0_0"})
                              .offsets({{"0_0", -2}})
                              .build();
  const AssignmentFailed e = failure_of(config_for("test_declares_ha_restores"), cluster);
  EXPECT_THAT(kinds_of(e), ::testing::ElementsAre(ValidationErrorKind::restoring_active));
  EXPECT_THAT(std::string(e.what()),
              HasSubstr("task 0_0 is active on client 'a', which must restore 100000 offsets while client 'b' is "
                        "caught up (the strategy declares high availability)"));
  // With a fallback, the fallback's result is used instead.
  Config with_fallback = config_for("test_declares_ha_restores");
  with_fallback.fallback = "fallback_prior";
  EXPECT_TRUE(run_assignment(registry_, with_fallback, cluster, with_fallback.strategy).used_fallback);
  // A strategy that declares nothing is not held to it.
  EXPECT_FALSE(
      run_assignment(registry_, config_for("test_trivial_valid"), cluster, "test_trivial_valid").used_fallback);
  // Where a client reported suspect state (here Kafka's "unknown" sum), strategies may rank it as
  // they see fit: no error.
  const Cluster suspect = ClusterBuilder()
                              .stateful("0_0", 100000)
                              .client("a")
                              .offsets({{"0_0", -3}})
                              .client("b")
                              .previous_active({"0_0"})
                              .offsets({{"0_0", -2}})
                              .build();
  EXPECT_FALSE(run_assignment(registry_, config_for("test_declares_ha_restores"), suspect, "test_declares_ha_restores")
                   .used_fallback);
}

TEST_F(Runner, StrategyThatThrowsFailsNamingItAndTheException) {
  const AssignmentFailed e = failure_of(config_for("test_strategy_throws"), two_client_cluster());
  EXPECT_THAT(std::string(e.what()), HasSubstr("test_strategy_throws"));
  EXPECT_THAT(std::string(e.what()), HasSubstr("boom"));
  EXPECT_THAT(e.errors(), IsEmpty());
}

TEST_F(Runner, StrategyThatThrowsANonStandardExceptionFails) {
  Config config = config_for("test_strategy_throws");
  config.strategy_params["test_strategy_throws"] = params_of({{"throw", "int"}});
  const AssignmentFailed e = failure_of(config, two_client_cluster());
  EXPECT_THAT(std::string(e.what()), HasSubstr("test_strategy_throws"));
  EXPECT_THAT(std::string(e.what()), HasSubstr("unknown exception"));
}

TEST_F(Runner, InvalidAssignmentFailsListingEveryError) {
  const AssignmentFailed e = failure_of(config_for("test_strategy_invalid"), two_client_cluster());
  const std::string what = e.what();
  EXPECT_THAT(what, HasSubstr("test_strategy_invalid"));
  EXPECT_THAT(what, HasSubstr("invalid assignment"));
  EXPECT_THAT(what, HasSubstr("active_assigned_multiple_times"));
  EXPECT_THAT(what, HasSubstr("task_without_active"));
  EXPECT_THAT(what, HasSubstr("0_0"));  // active twice
  EXPECT_THAT(what, HasSubstr("0_1"));  // no active
  EXPECT_THAT(kinds_of(e), Contains(ValidationErrorKind::active_assigned_multiple_times));
  EXPECT_THAT(kinds_of(e), Contains(ValidationErrorKind::task_without_active));
}

TEST_F(Runner, OutOfRangeTaskIndexIsAnUnknownTaskError) {
  const AssignmentFailed e = failure_of(config_for("test_strategy_unknown_task"), two_client_cluster());
  EXPECT_THAT(std::string(e.what()), HasSubstr("test_strategy_unknown_task"));
  EXPECT_THAT(std::string(e.what()), HasSubstr("unknown_task"));
  EXPECT_THAT(kinds_of(e), Contains(ValidationErrorKind::unknown_task));
}

TEST_F(Runner, FactoryFailuresFailTheRun) {
  for (const std::string name : {"test_factory_throws", "test_factory_null"}) {
    SCOPED_TRACE(name);
    const AssignmentFailed e = failure_of(config_for(name), two_client_cluster());
    EXPECT_THAT(std::string(e.what()), HasSubstr(name));
  }
  EXPECT_THAT(std::string(failure_of(config_for("test_factory_throws"), two_client_cluster()).what()),
              HasSubstr("boom"));
}

TEST_F(Runner, BadParameterIsAConfigErrorEvenWithAFallback) {
  Config config = config_for("test_factory_bad_param");
  config.fallback = "test_trivial_valid";
  config.strategy_params["test_factory_bad_param"] = params_of({{"alpah", "1"}});
  const std::string msg =
      message_of<ConfigError>([&] { run_assignment(registry_, config, two_client_cluster(), config.strategy); });
  EXPECT_THAT(msg, HasSubstr("did you mean 'alpha'"));
}

TEST_F(Runner, UnknownStrategyIsAPluginError) {
  const std::string msg = message_of<PluginError>(
      [&] { run_assignment(registry_, config_for("high_availabilty"), two_client_cluster(), "high_availabilty"); });
  EXPECT_THAT(msg, HasSubstr("did you mean 'high_availability'"));
}

// ---- config.fallback rescues every failing strategy ----

class RunnerFallback : public Runner, public ::testing::WithParamInterface<const char*> {};

TEST_P(RunnerFallback, FallbackGivesAValidReportAndAWarning) {
  const std::string broken = GetParam();
  Config config = config_for(broken);
  config.fallback = "test_trivial_valid";
  const Cluster cluster = two_client_cluster();
  const RunOutcome out = run_assignment(registry_, config, cluster, broken);
  EXPECT_TRUE(out.used_fallback);
  EXPECT_EQ(out.requested_strategy, broken);
  EXPECT_EQ(out.report.strategy, "test_trivial_valid");
  EXPECT_THAT(assignor::validate(cluster, config.settings, out.report.assignment), IsEmpty());
  for (const char* task : {"0_0", "0_1", "1_0", "2_0"})
    EXPECT_EQ(active_client_of(cluster, out.report.assignment, task), "a");
  EXPECT_THAT(out.warnings, Contains(AllOf(HasSubstr(broken), HasSubstr("fallback strategy 'test_trivial_valid'"))));
  EXPECT_EQ(out.report.probing_after_ms, config.settings.probing_rebalance_interval_ms);
}

INSTANTIATE_TEST_SUITE_P(BrokenStrategies, RunnerFallback,
                         ::testing::Values("test_strategy_throws", "test_strategy_invalid",
                                           "test_strategy_unknown_task", "test_factory_throws", "test_factory_null"));

TEST_F(Runner, FallbackWarningCarriesTheValidationErrors) {
  Config config = config_for("test_strategy_invalid");
  config.fallback = "test_trivial_valid";
  const RunOutcome out = run_assignment(registry_, config, two_client_cluster(), config.strategy);
  EXPECT_THAT(out.warnings,
              Contains(AllOf(HasSubstr("active_assigned_multiple_times"), HasSubstr("task_without_active"))));
}

TEST_F(Runner, FallbackThatIsTheFailingStrategyIsNotRetried) {
  Config config = config_for("test_strategy_throws");
  config.fallback = "test_strategy_throws";
  const AssignmentFailed e = failure_of(config, two_client_cluster());
  EXPECT_THAT(std::string(e.what()), HasSubstr("boom"));
  EXPECT_THAT(std::string(e.what()), Not(HasSubstr("fallback failed too")));
}

TEST_F(Runner, FailingFallbackReportsBothFailures) {
  Config config = config_for("test_strategy_throws");
  config.fallback = "test_strategy_invalid";
  const AssignmentFailed e = failure_of(config, two_client_cluster());
  const std::string what = e.what();
  EXPECT_THAT(what, HasSubstr("test_strategy_throws"));
  EXPECT_THAT(what, HasSubstr("boom"));
  EXPECT_THAT(what, HasSubstr("the fallback failed too"));
  EXPECT_THAT(what, HasSubstr("test_strategy_invalid"));
  EXPECT_THAT(kinds_of(e), Contains(ValidationErrorKind::task_without_active));
}

TEST_F(Runner, FallbackThatIsNotLoadedIsAPluginError) {
  Config config = config_for("test_strategy_throws");
  config.fallback = "no_such_fallback";
  EXPECT_THROW(run_assignment(registry_, config, two_client_cluster(), config.strategy), PluginError);
}

// ---- unknown end offsets: keep every previous active with fallback_prior, probe soon ----

TEST_F(Runner, UnknownEndOffsetsSwitchHighAvailabilityToFallbackPrior) {
  const Cluster cluster = two_client_cluster(/*end_offsets_known=*/false);
  Config config = config_for("high_availability");
  config.settings.num_standby_replicas = 1;
  const RunOutcome out = run_assignment(registry_, config, cluster, "high_availability");
  EXPECT_EQ(out.requested_strategy, "high_availability");
  EXPECT_EQ(out.report.strategy, "fallback_prior");
  EXPECT_FALSE(out.used_fallback);
  EXPECT_TRUE(out.report.assignment.probing_rebalance);
  EXPECT_EQ(out.report.probing_after_ms, config.settings.probing_rebalance_interval_ms);
  EXPECT_THAT(out.warnings, Contains(AllOf(HasSubstr("end offsets are unknown"), HasSubstr("high_availability"))));
  EXPECT_THAT(assignor::validate(cluster, config.settings, out.report.assignment), IsEmpty());
  for (const auto& client : cluster.clients)
    for (assignor::TaskIndex t : client.previous_active)
      EXPECT_EQ(active_client_of(cluster, out.report.assignment, assignor::to_string(cluster.tasks[t].id)), client.id)
          << "task " << assignor::to_string(cluster.tasks[t].id);
  EXPECT_EQ(out.report.metrics.active_moves, 0u);
}

TEST_F(Runner, UnknownEndOffsetsNeverRunAStrategyThatDoesNotHandleThem) {
  // Even a strategy that would throw is not called: fallback_prior runs instead.
  const Cluster cluster = two_client_cluster(/*end_offsets_known=*/false);
  const RunOutcome out = run_assignment(registry_, config_for("test_strategy_throws"), cluster, "test_strategy_throws");
  EXPECT_EQ(out.report.strategy, "fallback_prior");
  EXPECT_TRUE(out.report.assignment.probing_rebalance);
}

TEST_F(Runner, UnknownEndOffsetsRunAStrategyThatHandlesThem) {
  const Cluster cluster = two_client_cluster(/*end_offsets_known=*/false);
  const RunOutcome out = run_assignment(registry_, config_for("fallback_prior"), cluster, "fallback_prior");
  EXPECT_EQ(out.report.strategy, "fallback_prior");
  EXPECT_TRUE(out.report.assignment.probing_rebalance);
  EXPECT_THAT(out.warnings, Not(Contains(HasSubstr("end offsets are unknown"))));
}

TEST_F(Runner, KnownEndOffsetsDoNotForceAProbingRebalance) {
  // test_trivial_valid never asks for one; only unknown end offsets make the host request it.
  const Cluster known = two_client_cluster();
  EXPECT_FALSE(run_assignment(registry_, config_for("test_trivial_valid"), known, "test_trivial_valid")
                   .report.assignment.probing_rebalance);
}

TEST(RunnerWithoutBuiltins, UnknownEndOffsetsWithoutFallbackPriorIsAPluginError) {
  PluginRegistry registry;
  registry.load(TEST_PLUGIN_TRIVIAL_VALID);
  Config config;
  config.strategy = "test_trivial_valid";
  const std::string msg =
      message_of<PluginError>([&] { run_assignment(registry, config, two_client_cluster(false), config.strategy); });
  EXPECT_THAT(msg, HasSubstr("fallback_prior"));
}

}  // namespace
