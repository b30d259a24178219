// compare_strategies and its outputs: every strategy on every scenario; failures and invalid
// results are rows with reasons while the others still run; timings over several runs; table,
// JSON, CSV and HTML carry every row.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "../test_files.hpp"
#include "../xml_check.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/report/compare_output.hpp"
#include "assignor/scenario.hpp"
#include "cluster_builder.hpp"
#include "with_plugins.hpp"

namespace assignor::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

class Compare : public test::WithPlugins {
 protected:
  static void SetUpTestSuite() { load_plugins({TEST_PLUGIN_STRATEGY_THROWS, TEST_PLUGIN_STRATEGY_INVALID}); }

  static Config config() {
    Config c;
    c.strategy = "high_availability";
    c.settings.num_standby_replicas = 1;
    return c;
  }

  static std::vector<CompareScenario> two_scenarios() {
    ScenarioSpec spec;
    spec.clients = 5;
    spec.threads = 2;
    spec.subtopologies = 3;
    spec.partitions = 6;
    spec.kind = ScenarioKind::scale_out;
    std::vector<CompareScenario> out;
    out.push_back(scenario_from_cluster("scale-out", generate_cluster(spec)));
    spec.kind = ScenarioKind::rolling_restart;
    out.push_back(scenario_from_cluster("rolling, \"restart\"", generate_cluster(spec)));
    return out;
  }

  // `strategies` on two_scenarios() under config(), `runs` timed runs each.
  static Comparison compare_on_two_scenarios(std::vector<std::string> strategies, std::uint32_t runs) {
    CompareOptions options;
    options.strategies = std::move(strategies);
    options.runs = runs;
    return compare_strategies(*registry_, config(), two_scenarios(), options);
  }
};

const CompareRow& row_of(const ScenarioComparison& s, const std::string& strategy) {
  for (const auto& r : s.rows)
    if (r.strategy == strategy) return r;
  throw std::runtime_error("no row for " + strategy);
}

TEST_F(Compare, FailingStrategiesAreRowsAndTheOthersStillRun) {
  CompareOptions options;
  options.strategies = {"high_availability", "test_strategy_throws", "test_strategy_invalid", "sticky"};
  options.runs = 3;
  Config with_fallback = config();
  with_fallback.fallback = "fallback_prior";  // ignored: a comparison shows each strategy as it is
  const Comparison result = compare_strategies(*registry_, with_fallback, two_scenarios(), options);

  ASSERT_EQ(result.scenarios.size(), 2u);
  EXPECT_FALSE(result.all_ok());
  for (const auto& s : result.scenarios) {
    ASSERT_EQ(s.rows.size(), 4u);
    EXPECT_EQ(s.tasks, 18u);
    EXPECT_EQ(s.clients, 5u);
    for (const char* good : {"high_availability", "sticky"}) {
      const CompareRow& r = row_of(s, good);
      EXPECT_EQ(r.status, CompareStatus::ok) << r.error;
      EXPECT_EQ(r.ran, good);
      EXPECT_EQ(r.assign_ms.runs, 3u);
      EXPECT_LE(r.assign_ms.min, r.assign_ms.median);
      EXPECT_LE(r.assign_ms.median, r.assign_ms.max);
      // (sticky, pre-KIP-441, ignores lags and may restore: only high_availability promises not to.)
      if (std::string(good) == "high_availability") {
        EXPECT_EQ(r.metrics.restoring_actives, 0u);
      }
    }
    const CompareRow& throws = row_of(s, "test_strategy_throws");
    EXPECT_EQ(throws.status, CompareStatus::failed);
    EXPECT_THAT(throws.error, HasSubstr("boom"));
    EXPECT_THAT(throws.validation_errors, IsEmpty());
    const CompareRow& invalid = row_of(s, "test_strategy_invalid");
    EXPECT_EQ(invalid.status, CompareStatus::invalid);
    EXPECT_THAT(invalid.error, HasSubstr("invalid assignment"));
    EXPECT_THAT(invalid.validation_errors, Not(IsEmpty()));
  }
}

TEST_F(Compare, DefaultIsEveryLoadedPluginByNameAndDuplicatesCollapse) {
  CompareOptions options;
  options.runs = 1;
  std::vector<CompareScenario> one{two_scenarios().front()};
  const Comparison all = compare_strategies(*registry_, config(), one, options);
  std::vector<std::string> names;
  for (const auto& p : registry_->plugins()) names.push_back(p.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(all.strategies, names);

  options.strategies = {"sticky", "high_availability", "sticky"};
  EXPECT_THAT(compare_strategies(*registry_, config(), one, options).strategies,
              ElementsAre("sticky", "high_availability"));
}

TEST_F(Compare, UnknownStrategyFailsBeforeAnyScenarioIsRead) {
  bool loaded = false;
  std::vector<CompareScenario> lazy{{"lazy", "lazy", [&] {
                                       loaded = true;
                                       return Cluster{};
                                     }}};
  CompareOptions options;
  options.strategies = {"high_availability", "hihg_availability"};
  EXPECT_THROW(compare_strategies(*registry_, config(), lazy, options), PluginError);
  EXPECT_FALSE(loaded);
  options.strategies = {"high_availability"};
  options.runs = 0;
  EXPECT_THROW(compare_strategies(*registry_, config(), lazy, options), InputError);
}

TEST_F(Compare, UnknownEndOffsetsSayWhichStrategyRan) {
  const Cluster c = testing::ClusterBuilder()
                        .stateful("0_0", 1000)
                        .end_offsets_unknown()
                        .client("a")
                        .running_actives({"0_0"})
                        .client("b")
                        .build();
  CompareOptions options;
  options.strategies = {"high_availability"};
  options.runs = 1;
  const Comparison result = compare_strategies(*registry_, config(), {scenario_from_cluster("unknown", c)}, options);
  const CompareRow& r = result.scenarios[0].rows[0];
  EXPECT_EQ(r.status, CompareStatus::ok);
  EXPECT_EQ(r.ran, "fallback_prior");
  EXPECT_THAT(r.notes, ElementsAre(HasSubstr("end offsets are unknown")));
  EXPECT_TRUE(r.probing_rebalance);
  EXPECT_THAT(compare_table(result), HasSubstr("ok*"));
}

// A CSV parser for the test (RFC 4180: quoted fields, doubled quotes, commas and newlines inside).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, in_field = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += '"', ++i;
      else if (ch == '"')
        quoted = false;
      else
        field += ch;
    } else if (ch == '"') {
      quoted = in_field = true;
    } else if (ch == ',') {
      rows.back().push_back(field), field.clear();
    } else if (ch == '\n') {
      rows.back().push_back(field), field.clear();
      rows.emplace_back();
    } else {
      field += ch;
      in_field = true;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

TEST_F(Compare, OutputsCarryEveryRowAndParseBack) {
  const Comparison result =
      compare_on_two_scenarios({"high_availability", "test_strategy_throws", "fallback_prior"}, 2);

  // Table: one block per scenario, failures below with their reasons.
  const std::string table = compare_table(result);
  EXPECT_THAT(table, HasSubstr("scenario scale-out: 18 tasks"));
  EXPECT_THAT(table, HasSubstr("FAILED"));
  EXPECT_THAT(table, HasSubstr("test_strategy_throws: failed: strategy 'test_strategy_throws' threw: boom"));
  EXPECT_THAT(table, HasSubstr("restoring"));

  // JSON.
  const auto json = nlohmann::json::parse(compare_json(result).dump());
  EXPECT_EQ(json["runs"], 2);
  ASSERT_EQ(json["scenarios"].size(), 2u);
  EXPECT_EQ(json["scenarios"][1]["name"], "rolling, \"restart\"");
  for (const auto& s : json["scenarios"]) {
    ASSERT_EQ(s["results"].size(), 3u);
    EXPECT_EQ(s["results"][0]["status"], "ok");
    EXPECT_TRUE(s["results"][0]["metrics"].contains("restoring_actives"));
    EXPECT_TRUE(s["results"][0]["metrics"].contains("active_load_spread"));
    EXPECT_EQ(s["results"][0]["assign_ms"]["runs"], 2);
    EXPECT_EQ(s["results"][1]["status"], "failed");
    EXPECT_TRUE(s["results"][1]["metrics"].is_null());
    EXPECT_THAT(s["results"][1]["error"].get<std::string>(), HasSubstr("boom"));
    EXPECT_EQ(s["results"][2]["probing_rebalance"]["needed"], true);
  }

  // CSV: a header and one row per (scenario, strategy), all the same width.
  const auto rows = parse_csv(compare_csv(result));
  ASSERT_EQ(rows.size(), 1u + 2 * 3);
  const auto& header = rows[0];
  for (const auto& r : rows) EXPECT_EQ(r.size(), header.size());
  auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  for (const char* name :
       {"scenario", "strategy", "status", "active_moves", "restoring_actives", "cold_actives", "warmups", "standbys",
        "standby_shortfall", "active_load_spread", "total_load_spread", "max_subtopology_skew", "cross_rack_traffic",
        "restore_offsets", "probing_rebalance", "assign_ms_median", "assign_ms_min", "assign_ms_max", "error"})
    EXPECT_LT(col(name), header.size()) << name;
  EXPECT_EQ(rows[4][col("scenario")], "rolling, \"restart\"");
  EXPECT_EQ(rows[2][col("status")], "failed");
  EXPECT_THAT(rows[2][col("error")], HasSubstr("boom"));
  EXPECT_EQ(rows[1][col("status")], "ok");
  EXPECT_NO_THROW((void)std::stod(rows[1][col("assign_ms_median")]));
}

TEST_F(Compare, HtmlReportIsWellFormedWithOneSvgPerChart) {
  const Comparison result = compare_on_two_scenarios({"high_availability", "test_strategy_invalid", "sticky"}, 2);
  const std::string html = compare_html(result);
  const auto check = test::check_xml(html);
  ASSERT_EQ(check.problem, "");
  EXPECT_EQ(check.elements.at("svg"), static_cast<int>(compare_chart_names().size()));
  EXPECT_EQ(compare_chart_names().size(), 9u);
  EXPECT_THAT(html, HasSubstr("<h2>stateful_load_spread</h2>"));  // the state-aware figures are charted by default
  for (const auto& name : compare_chart_names()) EXPECT_THAT(html, HasSubstr("<h2>" + name + "</h2>"));
  EXPECT_THAT(html, HasSubstr("rolling, &quot;restart&quot;"));
  EXPECT_THAT(html, HasSubstr("test_strategy_invalid / scale-out: invalid"));
}

// compare --simulate: each ok row carries the simulation `assignor simulate` would give for that
// strategy from that scenario (without the config's fallback); failing strategies are not
// simulated; every output carries the figures and the report draws three more charts.
TEST_F(Compare, SimulationsPerStrategyMatchSimulateAndReachEveryOutput) {
  CompareOptions options;
  options.strategies = {"high_availability", "streams_sticky", "test_strategy_throws"};
  options.runs = 1;
  SimulationOptions simulation;
  simulation.restore_rate = 5000;
  simulation.rebalance_ms = 2000;
  simulation.max_rounds = 200;
  options.simulation = simulation;
  Config with_fallback = config();
  with_fallback.fallback = "fallback_prior";
  const auto scenarios = two_scenarios();
  const Comparison result = compare_strategies(*registry_, with_fallback, scenarios, options);
  ASSERT_TRUE(result.simulated);
  EXPECT_FALSE(result.all_ok());  // test_strategy_throws
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const ScenarioComparison& sc = result.scenarios[i];
    for (const char* strategy : {"high_availability", "streams_sticky"}) {
      const CompareRow& row = row_of(sc, strategy);
      ASSERT_TRUE(row.simulation) << strategy << " " << row.simulation_error;
      SimulationOptions direct = simulation;
      direct.strategy = strategy;
      Config plain = config();  // what simulate gives without a fallback
      const SimulationSummary expected = simulate(*registry_, plain, scenarios[i].load(), direct).summary;
      EXPECT_EQ(nlohmann::ordered_json(*row.simulation).dump(), nlohmann::ordered_json(expected).dump()) << strategy;
      EXPECT_TRUE(row.simulation->restoring_task_ms.has_value());
    }
    EXPECT_FALSE(row_of(sc, "test_strategy_throws").simulation);
  }

  const std::string table = compare_table(result);
  EXPECT_THAT(table, HasSubstr("simulated:"));
  EXPECT_THAT(table, HasSubstr("restoring task-time"));
  const auto json = nlohmann::json::parse(compare_json(result).dump());
  const auto& ha = json["scenarios"][0]["results"][0];
  EXPECT_EQ(ha["strategy"], "high_availability");
  EXPECT_EQ(ha["simulation"]["rounds"], row_of(result.scenarios[0], "high_availability").simulation->rounds);
  EXPECT_TRUE(json["scenarios"][0]["results"][2]["simulation"].is_null());
  const std::string csv = compare_csv(result);
  EXPECT_THAT(csv, HasSubstr(",sim_converged,sim_stalled,sim_rounds,"));
  const std::string html = compare_html(result);
  const auto check = test::check_xml(html);
  ASSERT_EQ(check.problem, "");
  EXPECT_EQ(check.elements.at("svg"),
            static_cast<int>(compare_chart_names().size() + compare_simulation_chart_names().size()));
  EXPECT_THAT(html, HasSubstr("test_strategy_throws / scale-out: failed"));

  // Without --simulate nothing changes: no column, no block.
  options.simulation.reset();
  const Comparison plain_result = compare_strategies(*registry_, config(), scenarios, options);
  EXPECT_THAT(compare_csv(plain_result), Not(HasSubstr("sim_")));
  EXPECT_THAT(compare_table(plain_result), Not(HasSubstr("simulated:")));
}

TEST_F(Compare, AnyMetricCanBeChartedOnce) {
  const Comparison result = compare_on_two_scenarios({"high_availability", "sticky"}, 1);
  // A default chart asked again is not drawn twice; cross_rack_traffic is not measured here (no racks).
  const std::string html = compare_html(result, {"max_subtopology_skew", "warmups", "cross_rack_traffic"});
  const auto check = test::check_xml(html);
  ASSERT_EQ(check.problem, "");
  EXPECT_EQ(check.elements.at("svg"), static_cast<int>(compare_chart_names().size()) + 2);
  EXPECT_THAT(html, HasSubstr("<h2>max_subtopology_skew</h2>"));
  EXPECT_THAT(html, HasSubstr("sticky / scale-out: not measured"));
  const auto skew = html.find("<h2>max_subtopology_skew</h2>");
  EXPECT_LT(skew, html.find("<h2>assign_ms</h2>"));
  EXPECT_EQ(html.find("<h2>warmups</h2>"), html.rfind("<h2>warmups</h2>"));
}

TEST(CompareCharts, NamesAreCheckedAndAllMeansEveryMetric) {
  EXPECT_EQ(check_chart_names({"all"}), compare_metric_names());
  EXPECT_EQ(check_chart_names({"max_subtopology_skew"}), std::vector<std::string>{"max_subtopology_skew"});
  try {
    check_chart_names({"max_subtopolgy_skew"});
    FAIL() << "accepted a misspelt metric";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown metric 'max_subtopolgy_skew'"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'max_subtopology_skew'"));
  }
  EXPECT_THAT(compare_metric_names(), ::testing::Contains("max_subtopology_skew"));
}

TEST_F(Compare, ScenariosInADirectoryAreReadInNameOrderWhenTheirTurnComes) {
  const auto dir = test::test_dir();
  ScenarioSpec spec;
  spec.clients = 3;
  spec.threads = 1;
  spec.subtopologies = 2;
  spec.partitions = 3;
  test::write_file(dir / "b.json", cluster_to_json(generate_cluster(spec)));
  test::write_file(dir / "a.yaml", "tasks: [{id: '0_0'}]\nclients: [{id: c1, threads: 1}]\n");
  test::write_file(dir / "notes.txt", "not a cluster");
  test::write_file(dir / "c.yml", "tasks: [{id: '0_0'}]\nclients: [{id: c1, threads: 0}]\n");
  const auto scenarios = scenarios_in_directory(dir);
  ASSERT_EQ(scenarios.size(), 3u);
  EXPECT_EQ(scenarios[0].name, "a");
  EXPECT_EQ(scenarios[1].name, "b");
  EXPECT_EQ(scenarios[2].name, "c");
  EXPECT_EQ(scenarios[0].load().task_count(), 1u);
  CompareOptions options;
  options.strategies = {"high_availability"};
  options.runs = 1;
  EXPECT_THAT(test::input_error([&] { compare_strategies(*registry_, config(), scenarios, options); }),
              HasSubstr("c.yml:2:"));

  const auto empty = dir / "empty";
  std::filesystem::create_directories(empty);
  EXPECT_THAT(test::input_error([&] { scenarios_in_directory(empty); }), HasSubstr("no cluster files"));
  EXPECT_THAT(test::input_error([&] { scenarios_in_directory(dir / "missing"); }), HasSubstr("not a directory"));
}

}  // namespace
}  // namespace assignor::host
