// What the registry, runner and isolation tests against the broken plugins read: the host's loading
// and running names, the test plugins' paths and helpers (plugin_paths.hpp) and gmock's matchers,
// named once here instead of in a list of using-declarations at the top of every test file.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assignor/errors.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/validation.hpp"
#include "cluster_builder.hpp"
#include "plugin_paths.hpp"

namespace assignor_test::broken {

using assignor::Cluster;
using assignor::ConfigError;
using assignor::StrategyError;
using assignor::StrategyParams;
using assignor::ValidationErrorKind;
using assignor::host::AssignmentFailed;
using assignor::host::Config;
using assignor::host::PluginError;
using assignor::host::PluginInfo;
using assignor::host::PluginRegistry;
using assignor::host::run_assignment;
using assignor::host::RunOutcome;
using assignor::host::StrategyHandle;
using assignor::testing::active_client_of;
using assignor::testing::ClusterBuilder;
using assignor_test::dir_of;
using assignor_test::message_of;
using assignor_test::params_of;
using assignor_test::real_path;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

}  // namespace assignor_test::broken
