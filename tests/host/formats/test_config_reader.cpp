// Config reader (DESIGN 4.2): Kafka's defaults, plugin paths relative to the file, flattened strategy
// parameters, and an error naming file, line, key and problem for every malformed value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../test_files.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/formats/config_reader.hpp"

namespace assignor::host {
namespace {

using namespace test;  // input_error and the matchers
using ::testing::Pair;

class ConfigReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::test_dir(); }

  std::filesystem::path write(const std::string& text) { return test::write_file(dir_ / "config.yaml", text); }
  Config read(const std::string& text) { return read_config_file(write(text)); }
  std::string error(const std::string& text) {
    const auto path = write(text);
    return input_error([&] { read_config_file(path); });
  }

  std::filesystem::path dir_;
};

TEST_F(ConfigReaderTest, ExampleConfig) {
  const auto path = std::filesystem::path(ASSIGNOR_SOURCE_DIR) / "examples/config.yaml";
  const Config c = read_config_file(path);
  EXPECT_EQ(c.source, path);
  EXPECT_EQ(c.strategy, "high_availability");
  EXPECT_FALSE(c.fallback.has_value());
  EXPECT_EQ(c.settings.acceptable_recovery_lag, 10000);
  EXPECT_EQ(c.settings.max_warmup_replicas, 2u);
  EXPECT_EQ(c.settings.num_standby_replicas, 1u);
  EXPECT_EQ(c.settings.probing_rebalance_interval_ms, 600000);
}

TEST_F(ConfigReaderTest, DefaultsAreKafkas) {
  const Config c = read("strategy: sticky\n");
  EXPECT_EQ(c.strategy, "sticky");
  EXPECT_FALSE(c.fallback.has_value());
  EXPECT_TRUE(c.plugin_paths.empty());
  EXPECT_TRUE(c.strategy_params.empty());
  EXPECT_EQ(c.log_level, "info");
  EXPECT_EQ(c.settings.acceptable_recovery_lag, 10000);
  EXPECT_EQ(c.settings.max_warmup_replicas, 2u);
  EXPECT_EQ(c.settings.num_standby_replicas, 0u);
  EXPECT_EQ(c.settings.probing_rebalance_interval_ms, 600000);
  EXPECT_EQ(c.settings.rack_aware.strategy, RackAwareStrategy::none);
  EXPECT_FALSE(c.settings.rack_aware.traffic_cost.has_value());
  EXPECT_FALSE(c.settings.rack_aware.non_overlap_cost.has_value());
  EXPECT_TRUE(c.settings.rack_aware.tags.empty());
  EXPECT_FALSE(c.simulation.restore_rate.has_value());  // simulate catches up per round
  EXPECT_EQ(c.simulation.rebalance_ms, 0);
}

TEST_F(ConfigReaderTest, SimulationSection) {
  const Config c = read("strategy: x\nsimulation: {restore_rate: 25000, rebalance_ms: 3000}\n");
  EXPECT_EQ(c.simulation.restore_rate, 25000);
  EXPECT_EQ(c.simulation.rebalance_ms, 3000);
  EXPECT_THAT(error("strategy: x\nsimulation: {restore_rate: 0}\n"),
              HasSubstr("config.yaml:2:28: simulation.restore_rate: must be >= 1, got 0"));
  EXPECT_THAT(error("strategy: x\nsimulation: {rebalance_ms: -5}\n"),
              HasSubstr("config.yaml:2:28: simulation.rebalance_ms: must be >= 0, got -5"));
  EXPECT_THAT(error("strategy: x\nsimulation: {restore_rat: 5}\n"),
              HasSubstr("simulation: unknown key 'restore_rat'; did you mean 'restore_rate'?"));
}

TEST_F(ConfigReaderTest, EveryKeySet) {
  const Config c = read(R"(
strategy: least_movement
fallback: fallback_prior
assignment:
  acceptable_recovery_lag: 0
  max_warmup_replicas: 5
  num_standby_replicas: 2
  probing_rebalance_interval_ms: 60000
  rack_aware:
    strategy: balance_subtopology
    traffic_cost: 10
    non_overlap_cost: 0
    tags: [zone, cluster]
logging: {level: debug}
)");
  EXPECT_EQ(c.strategy, "least_movement");
  EXPECT_EQ(c.fallback, "fallback_prior");
  EXPECT_EQ(c.settings.acceptable_recovery_lag, 0);
  EXPECT_EQ(c.settings.max_warmup_replicas, 5u);
  EXPECT_EQ(c.settings.num_standby_replicas, 2u);
  EXPECT_EQ(c.settings.probing_rebalance_interval_ms, 60000);
  EXPECT_EQ(c.settings.rack_aware.strategy, RackAwareStrategy::balance_subtopology);
  EXPECT_EQ(c.settings.rack_aware.traffic_cost, 10);
  EXPECT_EQ(c.settings.rack_aware.non_overlap_cost, 0);
  EXPECT_THAT(c.settings.rack_aware.tags, ElementsAre("zone", "cluster"));
  EXPECT_EQ(c.log_level, "debug");
}

TEST_F(ConfigReaderTest, RelativePluginPathsResolvedAgainstTheConfigDirectory) {
  const Config c = read("strategy: x\nplugins:\n  paths: [plugins, ../common/./lib, /opt/assignor/plugins]\n");
  const auto base = std::filesystem::absolute(dir_);
  ASSERT_EQ(c.plugin_paths.size(), 3u);
  EXPECT_EQ(c.plugin_paths[0], (base / "plugins").lexically_normal());
  EXPECT_EQ(c.plugin_paths[1], (base.parent_path() / "common/lib").lexically_normal());
  EXPECT_EQ(c.plugin_paths[2], std::filesystem::path("/opt/assignor/plugins"));
}

TEST_F(ConfigReaderTest, ParseConfigUsesBaseDir) {
  const Config c = parse_config("strategy: x\nplugins: {paths: [p]}\n", "inline", "/etc/assignor");
  EXPECT_EQ(c.source, std::filesystem::path());
  ASSERT_EQ(c.plugin_paths.size(), 1u);
  EXPECT_EQ(c.plugin_paths[0], std::filesystem::path("/etc/assignor/p"));
  EXPECT_THAT(input_error([] { parse_config("strategy: [x]\n", "<text>", "/"); }),
              HasSubstr("<text>:1:11: strategy: expected a string, got a list"));
}

TEST_F(ConfigReaderTest, StrategyParamsFlattened) {
  const Config c = read(R"(
strategy: sticky
strategies:
  sticky:
    balance: 0.5
    name: "quoted text"
    nested: {depth: 2, deeper: {flag: true}}
  high_availability: {}
  weighted:
)");
  ASSERT_EQ(c.strategy_params.size(), 3u);
  EXPECT_THAT(c.strategy_params.at("sticky").values(),
              ElementsAre(Pair("balance", "0.5"), Pair("name", "quoted text"), Pair("nested.deeper.flag", "true"),
                          Pair("nested.depth", "2")));
  EXPECT_TRUE(c.strategy_params.at("high_availability").values().empty());
  EXPECT_TRUE(c.strategy_params.at("weighted").values().empty());
  EXPECT_EQ(c.strategy_params.at("sticky").get_double("balance", 0), 0.5);
}

// ---- errors ---------------------------------------------------------------------------------

TEST_F(ConfigReaderTest, FileNotFound) {
  const auto path = dir_ / "nope.yaml";
  EXPECT_THAT(input_error([&] { read_config_file(path); }), AllOf(HasSubstr(path.string()), HasSubstr("no such file")));
}

TEST_F(ConfigReaderTest, EmptyFile) {
  EXPECT_THAT(error(""), AllOf(HasSubstr("config.yaml"), HasSubstr("empty file")));
  EXPECT_THAT(error("# nothing\n"), AllOf(HasSubstr("config.yaml"), HasSubstr("empty file")));
}

TEST_F(ConfigReaderTest, SyntaxError) {
  EXPECT_THAT(error("strategy: x\nassignment: {num_standby_replicas: 1\n"),
              AllOf(HasSubstr("config.yaml:"), HasSubstr("YAML syntax error")));
}

TEST_F(ConfigReaderTest, TopLevelNotAMap) {
  EXPECT_THAT(error("- strategy\n"), HasSubstr("config.yaml:1:1: expected a map at the top level, got a list"));
}

TEST_F(ConfigReaderTest, StrategyIsOptionalButNeverEmpty) {
  // Optional: --strategy names it, and compare, sweep and replay choose their own.
  const Config config = parse_config("fallback: fallback_prior\n", "config.yaml", ".");
  EXPECT_EQ(config.strategy, "");
  EXPECT_EQ(config.places.count("strategy"), 0u);
  EXPECT_EQ(strategy_to_run(config, "sticky"), "sticky");
  try {
    (void)strategy_to_run(config, "");
    ADD_FAILURE() << "no strategy anywhere was accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("give --strategy NAME, or add 'strategy: NAME'"));
  }
  EXPECT_EQ(strategy_to_run(parse_config("strategy: weighted\n", "config.yaml", "."), ""), "weighted");
  EXPECT_THAT(error("strategy:\n"), HasSubstr("config.yaml:1:1: strategy: missing value"));
  EXPECT_THAT(error("strategy: \"\"\n"), HasSubstr("config.yaml:1:11: strategy: must not be empty"));
}

TEST_F(ConfigReaderTest, FallbackWrongType) {
  EXPECT_THAT(error("strategy: x\nfallback: {a: 1}\n"),
              HasSubstr("config.yaml:2:11: fallback: expected a string, got a map"));
}

TEST_F(ConfigReaderTest, UnknownTopLevelKeySuggestsNearest) {
  EXPECT_THAT(error("stratgy: x\n"), HasSubstr("config.yaml:1:1: unknown key 'stratgy'; did you mean 'strategy'?"));
}

TEST_F(ConfigReaderTest, UnknownAssignmentKeySuggestsNearest) {
  EXPECT_THAT(error("strategy: x\nassignment:\n  num_standby_replica: 1\n"),
              HasSubstr("config.yaml:3:3: assignment: unknown key 'num_standby_replica'; did you mean "
                        "'num_standby_replicas'?"));
  EXPECT_THAT(error("strategy: x\nassignment:\n  rack_aware: {stratgy: none}\n"),
              HasSubstr("config.yaml:3:16: assignment.rack_aware: unknown key 'stratgy'; did you mean 'strategy'?"));
}

TEST_F(ConfigReaderTest, RepeatedKey) {
  EXPECT_THAT(error("strategy: x\nstrategy: y\n"),
              HasSubstr("config.yaml:2:1: key 'strategy' given twice (first at line 1)"));
}

TEST_F(ConfigReaderTest, AssignmentNotAMap) {
  EXPECT_THAT(error("strategy: x\nassignment: [1]\n"),
              HasSubstr("config.yaml:2:13: assignment: expected a map, got a list"));
}

TEST_F(ConfigReaderTest, MaxWarmupReplicasBelowOne) {
  EXPECT_THAT(error("strategy: x\nassignment:\n  max_warmup_replicas: 0\n"),
              HasSubstr("config.yaml:3:24: assignment.max_warmup_replicas: must be >= 1, got 0"));
}

TEST_F(ConfigReaderTest, AcceptableRecoveryLagNegative) {
  EXPECT_THAT(error("strategy: x\nassignment:\n  acceptable_recovery_lag: -1\n"),
              HasSubstr("config.yaml:3:28: assignment.acceptable_recovery_lag: must be >= 0, got -1"));
}

TEST_F(ConfigReaderTest, NumStandbyReplicasNegativeOrNotInteger) {
  EXPECT_THAT(error("strategy: x\nassignment:\n  num_standby_replicas: -2\n"),
              HasSubstr("config.yaml:3:25: assignment.num_standby_replicas: must be >= 0, got -2"));
  EXPECT_THAT(error("strategy: x\nassignment:\n  num_standby_replicas: one\n"),
              HasSubstr("config.yaml:3:25: assignment.num_standby_replicas: expected an integer, got 'one'"));
  EXPECT_THAT(error("strategy: x\nassignment:\n  num_standby_replicas: \"1\"\n"),
              HasSubstr("config.yaml:3:25: assignment.num_standby_replicas: expected an integer, got the string"));
}

TEST_F(ConfigReaderTest, ProbingIntervalTooShort) {
  EXPECT_THAT(error("strategy: x\nassignment:\n  probing_rebalance_interval_ms: 59999\n"),
              HasSubstr("config.yaml:3:34: assignment.probing_rebalance_interval_ms: must be >= 60000, got 59999"));
}

TEST_F(ConfigReaderTest, ProbingIntervalPastTwoToTheFortyIsRefused) {
  // 2^40 ms (about 35 years) is accepted; one more is not: near 2^63 a simulation's times overflowed.
  EXPECT_EQ(read("strategy: x\nassignment:\n  probing_rebalance_interval_ms: 1099511627776\n")
                .settings.probing_rebalance_interval_ms,
            std::int64_t{1} << 40);
  EXPECT_THAT(error("strategy: x\nassignment:\n  probing_rebalance_interval_ms: 9223372036854775000\n"),
              HasSubstr("config.yaml:3:34: assignment.probing_rebalance_interval_ms: must be <= 1099511627776"));
}

TEST_F(ConfigReaderTest, ANulByteIsNamedWithItsPlace) {
  // yaml-cpp alone said "unknown escape character: \n" at the line after it.
  const std::string text("strategy: x\nassignment:\n  num_standby_replicas: 1\0\n", 51);
  EXPECT_THAT(error(text), HasSubstr("config.yaml:3:26: a NUL byte"));
}

TEST_F(ConfigReaderTest, RackAwareErrors) {
  EXPECT_THAT(error("strategy: x\nassignment:\n  rack_aware: {strategy: min_trafic}\n"),
              AllOf(HasSubstr("config.yaml:3:26: assignment.rack_aware.strategy: 'min_trafic' is not one of none, "
                              "min_traffic, balance_subtopology"),
                    HasSubstr("did you mean 'min_traffic'?")));
  EXPECT_THAT(error("strategy: x\nassignment:\n  rack_aware: {traffic_cost: -1}\n"),
              HasSubstr("config.yaml:3:30: assignment.rack_aware.traffic_cost: must be >= 0, got -1"));
  EXPECT_THAT(error("strategy: x\nassignment:\n  rack_aware: {non_overlap_cost: 1.5}\n"),
              HasSubstr("config.yaml:3:34: assignment.rack_aware.non_overlap_cost: expected an integer, got '1.5'"));
  EXPECT_THAT(error("strategy: x\nassignment:\n  rack_aware: {tags: zone}\n"),
              HasSubstr("config.yaml:3:22: assignment.rack_aware.tags: expected a list, got 'zone'"));
  EXPECT_THAT(error("strategy: x\nassignment:\n  rack_aware: {tags: [zone, zone]}\n"),
              HasSubstr("config.yaml:3:29: assignment.rack_aware.tags: tag 'zone' listed twice"));
}

TEST_F(ConfigReaderTest, PluginsErrors) {
  EXPECT_THAT(error("strategy: x\nplugins:\n  paths: plugins\n"),
              HasSubstr("config.yaml:3:10: plugins.paths: expected a list, got 'plugins'"));
  EXPECT_THAT(error("strategy: x\nplugins:\n  path: [plugins]\n"),
              HasSubstr("config.yaml:3:3: plugins: unknown key 'path'; did you mean 'paths'?"));
  EXPECT_THAT(error("strategy: x\nplugins: [plugins]\n"),
              HasSubstr("config.yaml:2:10: plugins: expected a map, got a list"));
  EXPECT_THAT(error("strategy: x\nplugins:\n  paths: [\"\"]\n"),
              HasSubstr("config.yaml:3:11: plugins.paths: must not be empty"));
}

TEST_F(ConfigReaderTest, StrategiesErrors) {
  EXPECT_THAT(error("strategy: x\nstrategies:\n  sticky: {order: [a, b]}\n"),
              HasSubstr("config.yaml:3:19: strategies.sticky.order: lists are not supported"));
  EXPECT_THAT(error("strategy: x\nstrategies:\n  sticky: {a: {b: [1]}}\n"),
              HasSubstr("config.yaml:3:19: strategies.sticky.a.b: lists are not supported"));
  EXPECT_THAT(error("strategy: x\nstrategies: [sticky]\n"),
              HasSubstr("config.yaml:2:13: strategies: expected a map, got a list"));
  EXPECT_THAT(error("strategy: x\nstrategies:\n  sticky: 3\n"),
              HasSubstr("config.yaml:3:11: strategies.sticky: expected a map, got '3'"));
  EXPECT_THAT(error("strategy: x\nstrategies:\n  sticky: {a.b: 1, a: {b: 2}}\n"),
              HasSubstr("config.yaml:3:24: strategies.sticky.a.b: parameter 'a.b' given twice"));
  EXPECT_THAT(error("strategy: x\nstrategies:\n  sticky: {a: }\n"),
              HasSubstr("config.yaml:3:12: strategies.sticky.a: missing value"));
}

TEST_F(ConfigReaderTest, LoggingLevelErrors) {
  EXPECT_THAT(
      error("strategy: x\nlogging: {level: verbose}\n"),
      HasSubstr("config.yaml:2:18: logging.level: 'verbose' is not one of trace, debug, info, warn, error, off"));
  EXPECT_THAT(error("strategy: x\nlogging: {levl: info}\n"),
              HasSubstr("config.yaml:2:11: logging: unknown key 'levl'; did you mean 'level'?"));
}

}  // namespace
}  // namespace assignor::host
