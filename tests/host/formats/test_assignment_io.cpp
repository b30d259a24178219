// Assignment output (DESIGN 4.4): JSON shape, table, and reading it back for `assignor validate`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../test_files.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"

namespace assignor::host {
namespace {

using namespace test;  // input_error and the matchers

// The written assignment as a tree, read back by nlohmann (not by our own reader).
nlohmann::ordered_json to_json(const Cluster& cluster, const AssignmentReport& report) {
  return nlohmann::ordered_json::parse(assignment_json(cluster, report));
}

Cluster example_cluster() {
  return read_cluster_file(std::filesystem::path(ASSIGNOR_SOURCE_DIR) / "examples/small-scale-out.yaml");
}

class AssignmentIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::test_dir();
    cluster_ = example_cluster();
  }

  TaskIndex t(const std::string& id) const { return *cluster_.find_task(*parse_task_id(id)); }
  ClientIndex c(const std::string& id) const { return *cluster_.find_client(id); }

  // alpha: 0_0 0_1 1_0 2_0 active, 0_2 standby; beta: 0_2 1_1 2_1 active, 0_0 standby, 0_1 warmup;
  // gamma: nothing. Placements deliberately out of order.
  AssignmentReport report() const {
    AssignmentReport r;
    r.strategy = "high_availability";
    r.assignment.actives = {{t("2_0"), c("alpha")}, {t("2_1"), c("beta")},  {t("0_1"), c("alpha")},
                            {t("0_2"), c("beta")},  {t("1_0"), c("alpha")}, {t("1_1"), c("beta")},
                            {t("0_0"), c("alpha")}};
    r.assignment.standbys = {{t("0_2"), c("alpha")}, {t("0_0"), c("beta")}};
    r.assignment.warmups = {{t("0_1"), c("beta")}};
    r.assignment.probing_rebalance = true;
    r.probing_after_ms = 600000;
    r.metrics.active_moves = 1;
    r.metrics.restoring_actives = 2;
    r.metrics.cold_actives = 3;
    r.metrics.warmups = 1;
    r.metrics.standbys = 2;
    r.metrics.standby_shortfall = 1;
    r.metrics.active_load_spread = 1.5;
    r.metrics.total_load_spread = 2.25;
    r.metrics.weighted_load_spread = 3.75;
    r.metrics.max_subtopology_skew = 4;
    r.metrics.restore_offsets = 123456;
    r.assign_ms = 0.42;
    return r;
  }

  std::filesystem::path write(const std::string& text, const std::string& name = "assignment.json") {
    return test::write_file(dir_ / name, text);
  }
  ParsedAssignment read(const std::string& text) { return read_assignment_file(write(text), cluster_); }
  std::string error(const std::string& text) {
    const auto path = write(text);
    return input_error([&] { read_assignment_file(path, cluster_); });
  }

  std::filesystem::path dir_;
  Cluster cluster_;
};

// ---- writing --------------------------------------------------------------------------------

TEST_F(AssignmentIoTest, ToJsonHasTheContractShape) {
  const auto j = to_json(cluster_, report());
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("strategy", "assignment", "probing_rebalance", "metrics", "assign_ms"));
  EXPECT_EQ(j["strategy"], "high_availability");
  // Every client in cluster order, lists sorted by task order, empty lists present.
  EXPECT_EQ(j["assignment"].dump(), R"({"alpha":{"active":["0_0","0_1","1_0","2_0"],"standby":["0_2"],"warmup":[]},)"
                                    R"("beta":{"active":["0_2","1_1","2_1"],"standby":["0_0"],"warmup":["0_1"]},)"
                                    R"("gamma":{"active":[],"standby":[],"warmup":[]}})");
  EXPECT_EQ(j["probing_rebalance"].dump(), R"({"needed":true,"after_ms":600000})");
  EXPECT_DOUBLE_EQ(j["assign_ms"].get<double>(), 0.42);
  EXPECT_EQ(j["metrics"], nlohmann::ordered_json(report().metrics));
}

// The writer lays the file out as pretty_json() lays out the same tree, threads included (with a
// thread that holds nothing, a client without threads and names that need escaping).
TEST_F(AssignmentIoTest, WrittenLayoutIsPrettyJsonsLayout) {
  AssignmentReport r = report();
  cluster_.clients[c("gamma")].id = "gam\"ma\\";  // ids are only written here, never looked up
  ThreadDistribution threads;
  threads.clients.resize(cluster_.client_count());
  threads.clients[c("alpha")].threads = {{"t0", {t("0_0"), t("1_0")}, {t("0_2")}, {}},
                                         {"t\t1", {t("0_1"), t("2_0")}, {}, {}}};
  threads.clients[c("beta")].threads = {{"t0", {t("0_2"), t("1_1"), t("2_1")}, {t("0_0")}, {t("0_1")}},
                                        {"idle", {}, {}, {}}};
  r.threads = threads;
  const std::string text = assignment_json(cluster_, r);
  const auto tree = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(text, pretty_json(tree));
  EXPECT_EQ(tree["assignment"]["alpha"]["threads"]["t\t1"]["active"].dump(), R"(["0_1","2_0"])");
  EXPECT_EQ(tree["assignment"]["beta"]["threads"]["idle"].dump(), R"({"active":[],"standby":[],"warmup":[]})");
  EXPECT_EQ(tree["assignment"]["gam\"ma\\"]["threads"].dump(), "{}");
}

TEST_F(AssignmentIoTest, ToJsonProbingNotNeededStillHasAfterMs) {
  AssignmentReport r = report();
  r.assignment.probing_rebalance = false;
  r.probing_after_ms = 120000;
  EXPECT_EQ(to_json(cluster_, r)["probing_rebalance"].dump(), R"({"needed":false,"after_ms":120000})");
}

TEST_F(AssignmentIoTest, EmptyAssignmentListsEveryClient) {
  AssignmentReport r;
  r.strategy = "none";
  const auto j = to_json(cluster_, r);
  ASSERT_EQ(j["assignment"].size(), 3u);
  for (const auto& [id, entry] : j["assignment"].items())
    EXPECT_EQ(entry.dump(), R"({"active":[],"standby":[],"warmup":[]})") << id;
}

TEST_F(AssignmentIoTest, MetricsToJsonHasEveryFieldInOrder) {
  Metrics m = report().metrics;
  auto j = nlohmann::ordered_json(m);
  EXPECT_EQ(j.dump(),
            R"({"active_moves":1,"restoring_actives":2,"cold_actives":3,"warmups":1,"standbys":2,)"
            R"("standby_shortfall":1,"active_load_spread":1.5,"total_load_spread":2.25,)"
            R"("weighted_load_spread":3.75,"max_subtopology_skew":4,"subtopology_skews":{},)"
            R"("cross_rack_traffic":null,"restore_offsets":123456,)"
            R"("thread_load_spread":null,"tag_spread_shortfall":null,"stateful_load_spread":0.0,"stale_standbys":0,)"
            R"("copy_restore_offsets":0,"colocated_standbys":null})");
  m.cross_rack_traffic = 7;
  m.thread_load_spread = 1;
  m.tag_spread_shortfall = 2;
  j = nlohmann::ordered_json(m);
  EXPECT_EQ(j["cross_rack_traffic"], 7);
  EXPECT_EQ(j["thread_load_spread"], 1);
  EXPECT_EQ(j["tag_spread_shortfall"], 2);
  // The skewed sub-topologies by id, and back (compare's workers send metrics as JSON).
  m.subtopology_skews = {{3, 4}, {12, 2}};
  j = nlohmann::ordered_json(m);
  EXPECT_EQ(j["subtopology_skews"].dump(), R"({"3":4,"12":2})");
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<Metrics>().subtopology_skews, m.subtopology_skews);
}

TEST_F(AssignmentIoTest, ToJsonRejectsOutOfRangePlacements) {
  AssignmentReport r = report();
  r.assignment.actives.push_back({99, 0});
  EXPECT_THROW(to_json(cluster_, r), std::invalid_argument);
  r = report();
  r.assignment.warmups.push_back({0, 7});
  EXPECT_THROW(to_json(cluster_, r), std::invalid_argument);
}

TEST_F(AssignmentIoTest, TableRowsProbingAndMetrics) {
  const std::string table = to_table(cluster_, report());
  EXPECT_THAT(table, HasSubstr("strategy: high_availability\n"));
  EXPECT_THAT(table, HasSubstr("client  threads  active  standby  warmup  tasks\n"));
  EXPECT_THAT(table, HasSubstr("alpha         2       4        1       0  active 0_0 0_1 1_0 2_0 | standby 0_2\n"));
  EXPECT_THAT(table,
              HasSubstr("beta          2       3        1       1  active 0_2 1_1 2_1 | standby 0_0 | warmup 0_1\n"));
  EXPECT_THAT(table, HasSubstr("gamma         1       0        0       0  -\n"));
  EXPECT_THAT(table, HasSubstr("probing rebalance: needed, after 600000 ms\n"));
  EXPECT_THAT(table, HasSubstr("  active_moves          1\n"));
  EXPECT_THAT(table, HasSubstr("  active_load_spread    1.5\n"));
  EXPECT_THAT(table, HasSubstr("  total_load_spread     2.25\n"));
  EXPECT_THAT(table, HasSubstr("  weighted_load_spread  3.75\n"));
  EXPECT_THAT(table, HasSubstr("  cross_rack_traffic    n/a"));
  EXPECT_THAT(table, HasSubstr("  restore_offsets       123456\n"));
  // Rows in cluster order.
  EXPECT_LT(table.find("alpha"), table.find("beta"));
  EXPECT_LT(table.find("beta"), table.find("gamma"));

  AssignmentReport r = report();
  r.assignment.probing_rebalance = false;
  EXPECT_THAT(to_table(cluster_, r), AllOf(HasSubstr("probing rebalance: not needed\n"), Not(HasSubstr("after"))));
}

TEST_F(AssignmentIoTest, TableTruncatesLongTaskLists) {
  std::string text = "tasks:\n";
  for (int p = 0; p < 13; ++p) text += "  - {id: \"0_" + std::to_string(p) + "\"}\n";
  text += "clients: [{id: a-very-long-client-identifier, threads: 4}]\n";
  const Cluster big = parse_cluster(text, "big");
  AssignmentReport r;
  r.strategy = "s";
  for (TaskIndex i = 0; i < 13; ++i) r.assignment.actives.push_back({i, 0});
  const std::string table = to_table(big, r);
  // The id column is as wide as the longest id (29), then two spaces.
  EXPECT_THAT(table, HasSubstr("client" + std::string(29 - 6 + 2, ' ') + "threads"));
  EXPECT_THAT(table, HasSubstr("0_0 0_1 0_2 0_3 0_4 0_5 0_6 0_7 0_8 0_9 \u2026 (+3 more)\n"));
  EXPECT_THAT(table, Not(HasSubstr("0_10")));
}

// ---- reading --------------------------------------------------------------------------------

TEST_F(AssignmentIoTest, ReadRoundTripsToJson) {
  const AssignmentReport r = report();
  const ParsedAssignment parsed = read(to_json(cluster_, r).dump(2));
  EXPECT_TRUE(parsed.errors.empty());
  EXPECT_EQ(parsed.strategy, "high_availability");
  Assignment expected = r.assignment;
  expected.normalize();
  EXPECT_EQ(parsed.assignment, expected);
  EXPECT_TRUE(parsed.assignment.probing_rebalance);
}

TEST_F(AssignmentIoTest, ReadMinimalFile) {
  // Only "assignment" is required; an absent list is an empty one; probing defaults to false.
  const ParsedAssignment parsed =
      read(R"({"assignment": {"alpha": {"active": ["0_0"]}, "beta": {}, "gamma": {"standby": []}}})");
  EXPECT_TRUE(parsed.errors.empty());
  EXPECT_TRUE(parsed.strategy.empty());
  EXPECT_THAT(parsed.assignment.actives, ElementsAre(Placement{t("0_0"), c("alpha")}));
  EXPECT_FALSE(parsed.assignment.probing_rebalance);
}

TEST_F(AssignmentIoTest, ReadReportsUnknownAndMissingClients) {
  const ParsedAssignment parsed = read(R"({"assignment": {
    "alpha": {"active": ["0_0"], "standby": [], "warmup": []},
    "zeta": {"active": ["0_1"], "standby": [], "warmup": []}}})");
  ASSERT_EQ(parsed.errors.size(), 3u);
  EXPECT_EQ(parsed.errors[0].kind, ValidationErrorKind::unknown_client);
  EXPECT_THAT(parsed.errors[0].message, HasSubstr("'zeta'"));
  EXPECT_EQ(parsed.errors[1].kind, ValidationErrorKind::missing_client);
  EXPECT_EQ(parsed.errors[1].client, c("beta"));
  EXPECT_THAT(parsed.errors[1].message, HasSubstr("'beta'"));
  EXPECT_EQ(parsed.errors[2].kind, ValidationErrorKind::missing_client);
  EXPECT_EQ(parsed.errors[2].client, c("gamma"));
  // The resolvable placements are kept, the unknown client's are not.
  EXPECT_THAT(parsed.assignment.actives, ElementsAre(Placement{t("0_0"), c("alpha")}));
}

TEST_F(AssignmentIoTest, ReadReportsUnknownAndMalformedTasks) {
  const ParsedAssignment parsed = read(R"({"assignment": {
    "alpha": {"active": ["0_0", "9_9"], "standby": [], "warmup": []},
    "beta": {"active": [], "standby": ["0_x"], "warmup": []},
    "gamma": {"active": [], "standby": [], "warmup": ["0_1"]}}})");
  ASSERT_EQ(parsed.errors.size(), 2u);
  EXPECT_EQ(parsed.errors[0].kind, ValidationErrorKind::unknown_task);
  EXPECT_EQ(parsed.errors[0].client, c("alpha"));
  EXPECT_THAT(parsed.errors[0].message, AllOf(HasSubstr("'alpha'"), HasSubstr("active"), HasSubstr("'9_9'")));
  EXPECT_EQ(parsed.errors[1].kind, ValidationErrorKind::unknown_task);
  EXPECT_EQ(parsed.errors[1].client, c("beta"));
  EXPECT_THAT(parsed.errors[1].message, AllOf(HasSubstr("'beta'"), HasSubstr("standby"), HasSubstr("'0_x'")));
  EXPECT_THAT(parsed.assignment.actives, ElementsAre(Placement{t("0_0"), c("alpha")}));
  EXPECT_TRUE(parsed.assignment.standbys.empty());
  EXPECT_THAT(parsed.assignment.warmups, ElementsAre(Placement{t("0_1"), c("gamma")}));
}

TEST_F(AssignmentIoTest, ReadReportsDuplicatesWithinOneList) {
  const ParsedAssignment parsed = read(R"({"assignment": {
    "alpha": {"active": ["0_0", "0_0"], "standby": ["0_1", "0_1"], "warmup": []},
    "beta": {"active": [], "standby": [], "warmup": ["0_2", "0_2"]},
    "gamma": {"active": ["0_0"], "standby": [], "warmup": []}}})");
  ASSERT_EQ(parsed.errors.size(), 3u);
  EXPECT_EQ(parsed.errors[0].kind, ValidationErrorKind::active_assigned_multiple_times);
  EXPECT_EQ(parsed.errors[0].task, t("0_0"));
  EXPECT_EQ(parsed.errors[0].client, c("alpha"));
  EXPECT_THAT(parsed.errors[0].message, AllOf(HasSubstr("'alpha'"), HasSubstr("active"), HasSubstr("'0_0'")));
  EXPECT_EQ(parsed.errors[1].kind, ValidationErrorKind::duplicate_standby);
  EXPECT_THAT(parsed.errors[1].message, AllOf(HasSubstr("'alpha'"), HasSubstr("standby"), HasSubstr("'0_1'")));
  EXPECT_EQ(parsed.errors[2].kind, ValidationErrorKind::duplicate_standby);
  EXPECT_THAT(parsed.errors[2].message, AllOf(HasSubstr("'beta'"), HasSubstr("warmup"), HasSubstr("'0_2'")));
  // One placement kept per duplicate; the same task active on two clients is validate()'s business.
  EXPECT_THAT(parsed.assignment.actives, ElementsAre(Placement{t("0_0"), c("alpha")}, Placement{t("0_0"), c("gamma")}));
  EXPECT_THAT(parsed.assignment.standbys, ElementsAre(Placement{t("0_1"), c("alpha")}));
  EXPECT_THAT(parsed.assignment.warmups, ElementsAre(Placement{t("0_2"), c("beta")}));
}

// The per-thread split is validated like the rest (exit 4, every problem listed): alpha (2 threads)
// has one task on two threads and a thread listing a task that is not its own; beta (2 threads) has
// a task on no thread and a task twice on one thread; gamma (1 thread) has three thread entries,
// one of them nameless.
TEST_F(AssignmentIoTest, ReadValidatesThePerThreadSplit) {
  const ParsedAssignment parsed = read(R"({"assignment": {
    "alpha": {"active": ["0_0", "0_1"], "standby": [], "warmup": [],
              "threads": {"t0": {"active": ["0_0"]}, "t1": {"active": ["0_1", "0_0"], "standby": ["0_2"]}}},
    "beta": {"active": ["0_2", "1_1"], "standby": [], "warmup": [],
             "threads": {"t0": {"active": ["0_2", "0_2"]}}},
    "gamma": {"active": [], "standby": [], "warmup": [],
              "threads": {"": {}, "t1": {}, "t2": {}}}}})");
  std::vector<std::string> messages;
  for (const auto& e : parsed.errors) {
    EXPECT_EQ(e.kind, ValidationErrorKind::thread_assignment) << e.message;
    messages.push_back(e.message);
  }
  EXPECT_THAT(messages,
              ::testing::UnorderedElementsAre(
                  "client 'alpha': threads: task '0_0' is on two threads, 't0' and 't1'",
                  "client 'alpha': threads: thread 't1': standby: task '0_2' is not in the client's standby list",
                  "client 'beta': threads: thread 't0': task '0_2' is listed twice",
                  "client 'beta': threads: task '1_1' (active) is on no thread",
                  "client 'gamma': threads: 3 thread entries, but the client has 1 thread",
                  "client 'gamma': threads: a thread has an empty name"));
  // A consistent split is no error: what the command writes reads back clean.
  EXPECT_THAT(read(assignment_json(cluster_, report())).errors, ::testing::IsEmpty());
}

TEST_F(AssignmentIoTest, ReadProbingNeeded) {
  EXPECT_TRUE(read(R"({"assignment": {"alpha": {}, "beta": {}, "gamma": {}},
                       "probing_rebalance": {"needed": true, "after_ms": 600000}})")
                  .assignment.probing_rebalance);
  EXPECT_FALSE(read(R"({"assignment": {"alpha": {}, "beta": {}, "gamma": {}},
                        "probing_rebalance": {"needed": false}})")
                   .assignment.probing_rebalance);
}

TEST_F(AssignmentIoTest, ReadInputErrorsNameTheFile) {
  const auto missing = dir_ / "missing.json";
  EXPECT_THAT(input_error([&] { read_assignment_file(missing, cluster_); }),
              AllOf(HasSubstr(missing.string()), HasSubstr("no such file")));
  EXPECT_THAT(error(""), AllOf(HasSubstr("assignment.json"), HasSubstr("empty file")));
  EXPECT_THAT(error("strategy: x\n"),
              AllOf(HasSubstr("assignment.json"), HasSubstr("expected an assignment JSON object (a JSON object")));
  EXPECT_THAT(error("[1, 2]"), AllOf(HasSubstr("assignment.json"), HasSubstr("(a JSON object, starting with '{')")));
  // Strict JSON only, and a syntax error says where it is.
  EXPECT_THAT(error("{assignment: {}}"), AllOf(HasSubstr("assignment.json"), HasSubstr("not valid JSON")));
  EXPECT_THAT(error("{\"assignment\": {\n  \"alpha\": [}\n"),
              AllOf(HasSubstr("assignment.json:2:"), HasSubstr("(not valid JSON)")));
  EXPECT_THAT(error(R"({"strategy": "x"})"), AllOf(HasSubstr("assignment.json"), HasSubstr("no \"assignment\"")));
  EXPECT_THAT(error(R"({"assignment": []})"),
              AllOf(HasSubstr("assignment.json"),
                    HasSubstr("assignment.json:1:16: assignment: expected an object of clients, got a list")));
  EXPECT_THAT(error(R"({"strategy": 5, "assignment": {}})"),
              AllOf(HasSubstr("assignment.json"), HasSubstr("strategy: expected a string, got the number 5")));
  EXPECT_THAT(error(R"({"assignment": {}, "extra": 1})"),
              AllOf(HasSubstr("assignment.json"), HasSubstr("unknown key 'extra'")));
  EXPECT_THAT(error(R"({"assignment": {}, "probing_rebalance": {"needed": "yes"}})"),
              AllOf(HasSubstr("assignment.json"),
                    HasSubstr("probing_rebalance.needed: expected a boolean (true or false), got the string \"yes\"")));
  EXPECT_THAT(
      error(R"({"assignment": {}, "probing_rebalance": true})"),
      AllOf(HasSubstr("assignment.json"), HasSubstr("probing_rebalance: expected a map, got the boolean true")));
}

TEST_F(AssignmentIoTest, ReadInputErrorsInClientEntries) {
  EXPECT_THAT(error(R"({"assignment": {"alpha": ["0_0"]}})"),
              AllOf(HasSubstr("assignment.json"), HasSubstr("client 'alpha'"), HasSubstr("expected an object")));
  EXPECT_THAT(
      error(R"({"assignment": {"alpha": {"active": "0_0"}}})"),
      AllOf(HasSubstr("assignment.json"), HasSubstr("assignment.json:1:37: assignment: client 'alpha': active: "
                                                    "expected an array of task id strings, got the string \"0_0\"")));
  EXPECT_THAT(error(R"({"assignment": {"beta": {"standby": ["0_0", 1]}}})"),
              AllOf(HasSubstr("assignment.json"), HasSubstr("client 'beta': standby: expected an array of task id "
                                                            "strings, found the number 1")));
  EXPECT_THAT(error(R"({"assignment": {"beta": {"actives": []}}})"),
              AllOf(HasSubstr("assignment.json"), HasSubstr("client 'beta': unknown key 'actives'; did you mean "
                                                            "'active'?")));
  EXPECT_THAT(error(R"({"assignment": {"alpha": {}, "alpha": {"active": ["0_0"]}}})"),
              AllOf(HasSubstr("assignment.json"), HasSubstr("key 'alpha' given twice")));
}

}  // namespace
}  // namespace assignor::host

namespace assignor::host {
namespace {

TEST(PrettyJson, TaskListsOnOneLineObjectsIndentedAndRoundTrips) {
  const nlohmann::ordered_json v = nlohmann::ordered_json::parse(
      R"({"strategy":"s","assignment":{"a":{"active":["0_0","0_1"],"standby":[],"warmup":[]}},)"
      R"("probing_rebalance":{"needed":true,"after_ms":600000},"nested":[{"x":1},[2,3]]})");
  const std::string text = pretty_json(v);
  EXPECT_NE(text.find("\"active\": [\"0_0\", \"0_1\"],\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    \"a\": {\n"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(nlohmann::ordered_json::parse(text), v);
}

}  // namespace
}  // namespace assignor::host
