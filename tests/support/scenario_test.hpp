// What every scenario test (tests/plugins/scenarios) reads a run with: the group builder, the
// built-plugin runner and its readers, and gmock's matchers, named once here so that each test file
// opens with its scenarios instead of the same list of using-declarations.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cluster_builder.hpp"
#include "strategy_runner.hpp"

namespace assignor::scenario_test {

using assignor::testing::active_client_of;
using assignor::testing::actives_of;
using assignor::testing::builtin_plugins;
using assignor::testing::ClusterBuilder;
using assignor::testing::describe;
using assignor::testing::RunResult;
using assignor::testing::standbys_of;
using assignor::testing::warmups_of;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::IsSubsetOf;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

// The default settings but for `replicas` standby replicas of every task with a changelog.
inline AssignmentSettings standby_replicas(std::uint32_t replicas) {
  AssignmentSettings s;
  s.num_standby_replicas = replicas;
  return s;
}

// Runs the built plugin `strategy` through the host's registry and expects a valid assignment (a
// failure names the strategy and shows the assignment).
inline RunResult run_valid(const std::string& strategy, const Cluster& cluster, const AssignmentSettings& settings,
                           const StrategyParams& params = {}) {
  auto r = builtin_plugins().run(strategy, cluster, settings, params);
  EXPECT_THAT(r.errors, IsEmpty()) << strategy << "\n" << describe(cluster, r.assignment);
  return r;
}

}  // namespace assignor::scenario_test
