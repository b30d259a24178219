// Cluster file reader (DESIGN 4.1): every error path names file, line, place and field; happy paths
// build the SDK model (sorted tasks and clients, derived fields).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../test_files.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"

namespace assignor::host {
namespace {

using namespace test;  // input_error and the matchers

class ClusterReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::test_dir(); }

  std::filesystem::path write(const std::string& text, const std::string& name = "cluster.yaml") {
    return test::write_file(dir_ / name, text);
  }
  Cluster read(const std::string& text) { return read_cluster_file(write(text)); }
  // The InputError message for a cluster file with this text.
  std::string error(const std::string& text) {
    const auto path = write(text);
    return input_error([&] { read_cluster_file(path); });
  }

  std::filesystem::path dir_;
};

// A task index by id, failing the test when absent.
TaskIndex task(const Cluster& c, const std::string& id) {
  const auto t = c.find_task(*parse_task_id(id));
  EXPECT_TRUE(t.has_value()) << id;
  return t.value_or(0);
}

ClientIndex client(const Cluster& c, const std::string& id) {
  const auto i = c.find_client(id);
  EXPECT_TRUE(i.has_value()) << id;
  return i.value_or(0);
}

std::int64_t offset_sum(const Cluster& c, const std::string& client_id, const std::string& task_id) {
  const Client& cl = c.clients[client(c, client_id)];
  const TaskIndex t = task(c, task_id);
  for (const auto& e : cl.offset_sums)
    if (e.task == t) return e.sum;
  ADD_FAILURE() << client_id << " reports no offset sum for " << task_id;
  return 0;
}

// ---- happy paths ----------------------------------------------------------------------------

TEST_F(ClusterReaderTest, ExampleSmallScaleOut) {
  const Cluster c = read_cluster_file(std::filesystem::path(ASSIGNOR_SOURCE_DIR) / "examples/small-scale-out.yaml");
  ASSERT_EQ(c.task_count(), 7u);
  ASSERT_EQ(c.client_count(), 3u);
  EXPECT_EQ(c.clients[0].id, "alpha");
  EXPECT_EQ(c.clients[1].id, "beta");
  EXPECT_EQ(c.clients[2].id, "gamma");
  EXPECT_TRUE(c.end_offsets_known);

  // Logged, non-logged (stateful all the same) and stateless tasks.
  const Task& logged = c.tasks[task(c, "0_2")];
  EXPECT_TRUE(logged.stateful);
  EXPECT_TRUE(logged.has_logged_store);
  EXPECT_EQ(logged.end_offset_sum, 91000);
  const Task& nonlogged = c.tasks[task(c, "1_0")];
  EXPECT_TRUE(nonlogged.stateful);
  EXPECT_FALSE(nonlogged.has_logged_store);
  EXPECT_EQ(nonlogged.end_offset_sum, 0);
  ASSERT_EQ(nonlogged.stores.size(), 1u);
  EXPECT_EQ(nonlogged.stores[0].name, "dedupe");
  EXPECT_FALSE(nonlogged.stores[0].logged);
  const Task& stateless = c.tasks[task(c, "2_1")];
  EXPECT_FALSE(stateless.stateful);
  EXPECT_FALSE(stateless.has_logged_store);
  EXPECT_DOUBLE_EQ(stateless.weight, 1.0);

  // Tasks sorted by (S, P).
  for (std::size_t i = 1; i < c.task_count(); ++i) EXPECT_LT(c.tasks[i - 1].id, c.tasks[i].id);

  const Client& alpha = c.clients[0];
  EXPECT_EQ(alpha.threads, 2u);
  EXPECT_THAT(alpha.previous_active, ElementsAre(task(c, "0_0"), task(c, "0_1"), task(c, "1_0"), task(c, "2_0")));
  EXPECT_THAT(alpha.previous_standby, ElementsAre(task(c, "0_2")));
  EXPECT_EQ(offset_sum(c, "alpha", "0_0"), kRunningOffsetSum);
  EXPECT_EQ(offset_sum(c, "alpha", "0_2"), 90500);
  EXPECT_EQ(offset_sum(c, "beta", "0_0"), 61000);
  EXPECT_EQ(c.clients[2].threads, 1u);
  EXPECT_TRUE(c.clients[2].previous_active.empty());
  EXPECT_TRUE(c.clients[2].offset_sums.empty());
  EXPECT_EQ(c.previous_active_owner()[task(c, "0_2")], client(c, "beta"));
  EXPECT_EQ(c.previous_active_owner()[task(c, "1_1")], client(c, "beta"));
}

TEST_F(ClusterReaderTest, JsonInput) {
  const Cluster c = read(R"({
  "version": 1,
  "end_offsets_known": false,
  "tasks": [
    {"id": "1_0", "stores": [{"name": "s", "changelog_end_offset": 10}, {"name": "t", "logged": false}],
     "weight": 2.5},
    {"id": "0_3", "stores": []}
  ],
  "clients": [
    {"id": "zed", "threads": 3, "previous_active": ["1_0"], "offset_sums": {"1_0": -2}},
    {"id": "amy", "threads": 1, "previous_standby": ["1_0"], "offset_sums": {"1_0": 4}}
  ]
})");
  EXPECT_FALSE(c.end_offsets_known);
  ASSERT_EQ(c.task_count(), 2u);
  EXPECT_EQ(to_string(c.tasks[0].id), "0_3");
  EXPECT_FALSE(c.tasks[0].stateful);
  EXPECT_EQ(to_string(c.tasks[1].id), "1_0");
  EXPECT_TRUE(c.tasks[1].stateful);
  EXPECT_EQ(c.tasks[1].end_offset_sum, 10);  // the non-logged store adds nothing
  EXPECT_DOUBLE_EQ(c.tasks[1].weight, 2.5);
  ASSERT_EQ(c.client_count(), 2u);
  EXPECT_EQ(c.clients[0].id, "amy");
  EXPECT_EQ(c.clients[1].id, "zed");
  EXPECT_EQ(c.clients[1].threads, 3u);
  EXPECT_THAT(c.clients[0].previous_standby, ElementsAre(1u));
  EXPECT_EQ(offset_sum(c, "zed", "1_0"), -2);
  EXPECT_EQ(offset_sum(c, "amy", "1_0"), 4);
}

TEST_F(ClusterReaderTest, OutOfOrderTasksAreSortedAndReferencesRemapped) {
  const Cluster c = read(R"(
tasks:
  - {id: "1_0"}
  - {id: "0_10"}
  - {id: "0_2", stores: [{name: a, changelog_end_offset: 7}, {name: b, changelog_end_offset: 5}]}
clients:
  - {id: b, threads: 1, previous_active: ["0_10", "1_0"], offset_sums: {"0_2": 3, "1_0": -2}}
  - {id: a, threads: 2, previous_active: ["0_2"], previous_standby: ["1_0", "0_10"]}
)");
  ASSERT_EQ(c.task_count(), 3u);
  EXPECT_EQ(to_string(c.tasks[0].id), "0_2");
  EXPECT_EQ(to_string(c.tasks[1].id), "0_10");
  EXPECT_EQ(to_string(c.tasks[2].id), "1_0");
  EXPECT_EQ(c.tasks[0].end_offset_sum, 12);
  EXPECT_EQ(c.clients[0].id, "a");
  EXPECT_THAT(c.clients[0].previous_active, ElementsAre(0u));
  EXPECT_THAT(c.clients[0].previous_standby, ElementsAre(1u, 2u));
  EXPECT_THAT(c.clients[1].previous_active, ElementsAre(1u, 2u));
  EXPECT_EQ(offset_sum(c, "b", "0_2"), 3);
  EXPECT_EQ(offset_sum(c, "b", "1_0"), -2);
  EXPECT_THAT(c.previous_active_owner(), ElementsAre(0u, 1u, 1u));
}

TEST_F(ClusterReaderTest, RacksTagsAndPartitions) {
  const Cluster c = read(R"(
tasks:
  - id: "0_0"
    partitions:
      - {topic: orders, partition: 0, racks: [az2, az1]}
      - {topic: orders, partition: 1}
clients:
  - {id: c1, threads: 1, rack: az1, tags: {zone: eu-1a, tier: ""}}
  - {id: c2, threads: 1, rack: az3}
)");
  ASSERT_EQ(c.tasks[0].partitions.size(), 2u);
  const auto& p = c.tasks[0].partitions[0];
  EXPECT_EQ(p.topic, "orders");
  EXPECT_EQ(p.partition, 0);
  ASSERT_EQ(p.racks.size(), 2u);
  EXPECT_EQ(c.racks[p.racks[0]], "az2");
  EXPECT_EQ(c.racks[p.racks[1]], "az1");
  EXPECT_TRUE(c.tasks[0].partitions[1].racks.empty());
  EXPECT_EQ(c.racks[c.clients[0].rack], "az1");
  EXPECT_EQ(c.racks[c.clients[1].rack], "az3");
  EXPECT_EQ(c.racks.size(), 3u);
  EXPECT_EQ(c.clients[0].tags.at("zone"), "eu-1a");
  EXPECT_EQ(c.clients[0].tags.at("tier"), "");
  EXPECT_TRUE(c.has_racks());
}

TEST_F(ClusterReaderTest, NegativeOffsetSumsAreNotInputErrors) {
  // "Negative other than -2" is suspect state, handled by the lag model with a warning.
  const Cluster c = read(R"(
tasks: [{id: "0_0", stores: [{name: s, changelog_end_offset: 100}]}]
clients: [{id: c1, threads: 1, offset_sums: {"0_0": -1}}, {id: c2, threads: 1, offset_sums: {"0_0": -500}}]
)");
  EXPECT_EQ(offset_sum(c, "c1", "0_0"), -1);
  EXPECT_EQ(offset_sum(c, "c2", "0_0"), -500);
}

TEST_F(ClusterReaderTest, OptionalFieldsDefaultAndNullMeansAbsent) {
  const Cluster c = read(R"(
tasks:
  - id: "0_0"
    stores:
  - id: "0_1"
clients:
  - id: c1
    threads: 1
    previous_active:
)");
  EXPECT_EQ(c.task_count(), 2u);
  EXPECT_FALSE(c.tasks[0].stateful);
  EXPECT_TRUE(c.end_offsets_known);
  EXPECT_EQ(c.clients[0].rack, kNoRack);
  EXPECT_TRUE(c.clients[0].previous_active.empty());
}

TEST_F(ClusterReaderTest, EmptyTaskListIsAllowed) {
  const Cluster c = read("tasks: []\nclients: [{id: c1, threads: 1}]\n");
  EXPECT_EQ(c.task_count(), 0u);
  EXPECT_EQ(c.client_count(), 1u);
}

TEST_F(ClusterReaderTest, ParseClusterUsesSourceName) {
  const Cluster c = parse_cluster("tasks: []\nclients: [{id: c1, threads: 1}]", "inline");
  EXPECT_EQ(c.client_count(), 1u);
  EXPECT_THAT(input_error([] { parse_cluster("tasks: []\nclients: []", "<stdin>"); }),
              HasSubstr("<stdin>:2:10: clients: no clients"));
}

TEST_F(ClusterReaderTest, LargeFileParsesQuickly) {
  // 100k tasks, 100 clients, every task previous active somewhere and reported by two clients.
  constexpr int kSub = 100, kPart = 1000, kClients = 100;
  std::string text = "{\"version\": 1, \"tasks\": [\n";
  for (int s = 0; s < kSub; ++s)
    for (int p = 0; p < kPart; ++p) {
      text += "{\"id\": \"" + std::to_string(s) + "_" + std::to_string(p) + "\"";
      if (s % 2 == 0) text += ", \"stores\": [{\"name\": \"st\", \"changelog_end_offset\": 1000}]";
      text += (s == kSub - 1 && p == kPart - 1) ? "}\n" : "},\n";
    }
  text += "], \"clients\": [\n";
  for (int c = 0; c < kClients; ++c) {
    std::string active, sums;
    for (int s = 0; s < kSub; ++s)
      for (int p = c; p < kPart; p += kClients) {
        const std::string id = "\"" + std::to_string(s) + "_" + std::to_string(p) + "\"";
        active += (active.empty() ? "" : ", ") + id;
        if (s % 2 == 0) sums += (sums.empty() ? "" : ", ") + id + ": -2";
      }
    text += "{\"id\": \"client-" + std::to_string(c) + "\", \"threads\": 4, \"previous_active\": [" + active +
            "], \"offset_sums\": {" + sums + "}}";
    text += c + 1 < kClients ? ",\n" : "\n";
  }
  text += "]}\n";
  const auto path = write(text, "big.json");
  const Cluster c = read_cluster_file(path);  // how long it takes: bench/bench_readers.cpp
  EXPECT_EQ(c.task_count(), 100000u);
  EXPECT_EQ(c.client_count(), 100u);
  EXPECT_EQ(c.clients[0].previous_active.size(), 1000u);
}

// ---- file-level errors --------------------------------------------------------------------

TEST_F(ClusterReaderTest, FileNotFound) {
  const auto path = dir_ / "missing.yaml";
  EXPECT_THAT(input_error([&] { read_cluster_file(path); }),
              AllOf(HasSubstr(path.string()), HasSubstr("no such file")));
}

TEST_F(ClusterReaderTest, DirectoryIsNotAFile) {
  EXPECT_THAT(input_error([&] { read_cluster_file(dir_); }), AllOf(HasSubstr(dir_.string()), HasSubstr("directory")));
}

TEST_F(ClusterReaderTest, EmptyFile) {
  EXPECT_THAT(error(""), AllOf(HasSubstr("cluster.yaml"), HasSubstr("empty file")));
  EXPECT_THAT(error("# just a comment\n\n"), AllOf(HasSubstr("cluster.yaml"), HasSubstr("empty file")));
}

TEST_F(ClusterReaderTest, YamlSyntaxErrorReportsLine) {
  EXPECT_THAT(error("tasks: [\n  {id: 0_0\nclients: x\n"),
              AllOf(HasSubstr("cluster.yaml:3:"), HasSubstr("YAML syntax error")));
}

TEST_F(ClusterReaderTest, SecondDocumentIsAnError) {
  EXPECT_THAT(error("tasks: []\nclients: [{id: c1, threads: 1}]\n---\ntasks: []\n"),
              AllOf(HasSubstr("cluster.yaml:4:"), HasSubstr("more than one YAML document")));
}

TEST_F(ClusterReaderTest, TopLevelNotAMap) {
  EXPECT_THAT(error("- a\n- b\n"),
              AllOf(HasSubstr("cluster.yaml:1:1:"), HasSubstr("expected a map"), HasSubstr("got a list")));
  EXPECT_THAT(error("42\n"), AllOf(HasSubstr("cluster.yaml:1:1:"), HasSubstr("expected a map")));
}

TEST_F(ClusterReaderTest, UnsupportedVersion) {
  EXPECT_THAT(error("version: 2\ntasks: []\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:1:10: version: unsupported version 2"));
  EXPECT_THAT(error("version: one\ntasks: []\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:1:10: version: expected an integer, got 'one'"));
}

TEST_F(ClusterReaderTest, EndOffsetsKnownMustBeBoolean) {
  EXPECT_THAT(error("end_offsets_known: maybe\ntasks: []\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:1:20: end_offsets_known: expected a boolean (true or false), got 'maybe'"));
}

TEST_F(ClusterReaderTest, UnknownTopLevelKeySuggestsNearest) {
  EXPECT_THAT(error("task: []\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:1:1: unknown key 'task'; did you mean 'tasks'?"));
  EXPECT_THAT(error("tasks: []\nclients: [{id: c1, threads: 1}]\nzzzzzzzzzz: 1\n"),
              AllOf(HasSubstr("cluster.yaml:3:1: unknown key 'zzzzzzzzzz'"), HasSubstr("known keys:"),
                    Not(HasSubstr("did you mean"))));
}

TEST_F(ClusterReaderTest, RepeatedKeyIsAnError) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: 1\n    threads: 2\n"),
              HasSubstr("cluster.yaml:5:5: client 'c1': key 'threads' given twice (first at line 4)"));
}

// ---- tasks ----------------------------------------------------------------------------------

TEST_F(ClusterReaderTest, TasksMissing) {
  EXPECT_THAT(error("clients: [{id: c1, threads: 1}]\n"),
              AllOf(HasSubstr("cluster.yaml:1:1:"), HasSubstr("missing required key 'tasks'")));
}

TEST_F(ClusterReaderTest, TasksNotAList) {
  EXPECT_THAT(error("tasks: 5\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:1:8: tasks: expected a list, got '5'"));
}

TEST_F(ClusterReaderTest, TaskNotAMap) {
  EXPECT_THAT(error("tasks:\n  - {id: \"0_0\"}\n  - \"0_1\"\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:3:5: tasks[1]: expected a map, got the string \"0_1\""));
}

TEST_F(ClusterReaderTest, TaskIdMissing) {
  EXPECT_THAT(error("tasks:\n  - {id: \"0_0\"}\n  - {weight: 2}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:3:5: tasks[1]: missing required key 'id'"));
}

TEST_F(ClusterReaderTest, TaskIdMalformed) {
  for (const std::string bad : {"0-3", "a_1", "1_", "-1_2", "1_2_3", "+1_2"}) {
    EXPECT_THAT(error("tasks:\n  - {id: \"" + bad + "\"}\nclients: [{id: c1, threads: 1}]\n"),
                HasSubstr("cluster.yaml:2:10: tasks[0]: id: '" + bad + "' is not a task id of the form S_P"))
        << bad;
  }
  EXPECT_THAT(error("tasks:\n  - {id: [1, 2]}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:2:10: tasks[0]: id: expected a string, got a list"));
}

TEST_F(ClusterReaderTest, DuplicateTaskIdNamesBothLines) {
  const std::string msg = error(R"(tasks:
  - {id: "0_0"}
  - {id: "1_0"}
  - {id: "0_0"}
clients: [{id: c1, threads: 1}]
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("cluster.yaml:4:10: task '0_0': duplicate task id"), HasSubstr("line 2"),
                         HasSubstr("line 4")));
}

TEST_F(ClusterReaderTest, UnknownTaskKeyNamesTheTask) {
  EXPECT_THAT(error("tasks:\n  - {id: \"0_0\", wieght: 2}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:2:17: task '0_0': unknown key 'wieght'; did you mean 'weight'?"));
}

TEST_F(ClusterReaderTest, StoresNotAList) {
  EXPECT_THAT(error("tasks:\n  - {id: \"0_0\", stores: {name: a}}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:2:25: task '0_0': stores: expected a list, got a map"));
}

TEST_F(ClusterReaderTest, StoreNotAMap) {
  EXPECT_THAT(error("tasks:\n  - {id: \"0_0\", stores: [counts]}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:2:26: task '0_0': stores[0]: expected a map, got 'counts'"));
}

TEST_F(ClusterReaderTest, StoreNameMissing) {
  EXPECT_THAT(error("tasks:\n  - id: \"0_3\"\n    stores:\n      - {changelog_end_offset: 5}\n"
                    "clients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:4:9: task '0_3': stores[0]: missing required key 'name'"));
}

TEST_F(ClusterReaderTest, StoreUnknownKey) {
  EXPECT_THAT(error("tasks:\n  - id: \"0_3\"\n    stores:\n      - {name: s, loged: false}\n"
                    "clients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:4:19: task '0_3': stores[0]: unknown key 'loged'; did you mean 'logged'?"));
}

TEST_F(ClusterReaderTest, StoreLoggedNotABoolean) {
  EXPECT_THAT(error("tasks:\n  - id: \"0_3\"\n    stores:\n      - {name: s, logged: \"no\"}\n"
                    "clients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:4:27: task '0_3': stores[0].logged: expected a boolean"));
}

TEST_F(ClusterReaderTest, LoggedStoreWithoutEndOffset) {
  EXPECT_THAT(error("tasks:\n  - id: \"0_3\"\n    stores:\n      - {name: a, changelog_end_offset: 1}\n"
                    "      - {name: counts}\nclients: [{id: c1, threads: 1}]\n"),
              AllOf(HasSubstr("cluster.yaml:5:9: task '0_3': stores[1]: store 'counts' is logged but has no "
                              "changelog_end_offset")));
}

TEST_F(ClusterReaderTest, NegativeEndOffset) {
  EXPECT_THAT(error("tasks:\n  - id: \"0_3\"\n    stores:\n      - {name: a, changelog_end_offset: 1}\n"
                    "      - {name: b, changelog_end_offset: -5}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:5:41: task '0_3': stores[1].changelog_end_offset: must be >= 0, got -5"));
}

TEST_F(ClusterReaderTest, FractionalEndOffset) {
  EXPECT_THAT(error("tasks:\n  - id: \"0_3\"\n    stores:\n      - {name: b, changelog_end_offset: 1.5}\n"
                    "clients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:4:41: task '0_3': stores[0].changelog_end_offset: expected an integer, "
                        "got '1.5'"));
}

TEST_F(ClusterReaderTest, EndOffsetOnNonLoggedStore) {
  EXPECT_THAT(
      error("tasks:\n  - id: \"0_3\"\n    stores:\n      - {name: b, logged: false, changelog_end_offset: 9}\n"
            "clients: [{id: c1, threads: 1}]\n"),
      AllOf(HasSubstr("cluster.yaml:4:34: task '0_3': stores[0].changelog_end_offset:"), HasSubstr("not logged")));
}

TEST_F(ClusterReaderTest, DuplicateStoreName) {
  EXPECT_THAT(error("tasks:\n  - id: \"0_3\"\n    stores:\n      - {name: a, changelog_end_offset: 1}\n"
                    "      - {name: a, logged: false}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:5:16: task '0_3': stores[1].name: duplicate store name 'a' (first at line 4)"));
}

TEST_F(ClusterReaderTest, WeightMustBePositiveFiniteNumber) {
  auto with_weight = [&](const std::string& w) {
    return error("tasks:\n  - {id: \"0_3\", weight: " + w + "}\nclients: [{id: c1, threads: 1}]\n");
  };
  EXPECT_THAT(with_weight("0"), HasSubstr("cluster.yaml:2:25: task '0_3': weight: must be > 0, got 0"));
  EXPECT_THAT(with_weight("-1.5"), HasSubstr("cluster.yaml:2:25: task '0_3': weight: must be > 0, got -1.5"));
  EXPECT_THAT(with_weight("heavy"), HasSubstr("cluster.yaml:2:25: task '0_3': weight: expected a number"));
  EXPECT_THAT(with_weight(".inf"), HasSubstr("cluster.yaml:2:25: task '0_3': weight: expected a number"));
  EXPECT_THAT(with_weight("1e999"), HasSubstr("cluster.yaml:2:25: task '0_3': weight: must be a finite number"));
  EXPECT_THAT(with_weight("\"2\""), HasSubstr("task '0_3': weight: expected a number, got the string \"2\""));
}

TEST_F(ClusterReaderTest, PartitionErrors) {
  auto with_partition = [&](const std::string& p) {
    return error("tasks:\n  - id: \"0_3\"\n    partitions:\n      - " + p + "\nclients: [{id: c1, threads: 1}]\n");
  };
  EXPECT_THAT(with_partition("{partition: 1}"),
              HasSubstr("cluster.yaml:4:9: task '0_3': partitions[0]: missing required key 'topic'"));
  EXPECT_THAT(with_partition("{topic: t, partition: -1}"),
              HasSubstr("cluster.yaml:4:31: task '0_3': partitions[0].partition: must be >= 0, got -1"));
  EXPECT_THAT(with_partition("{topic: t, partition: x}"),
              HasSubstr("cluster.yaml:4:31: task '0_3': partitions[0].partition: expected an integer, got 'x'"));
  EXPECT_THAT(with_partition("{topic: t, partition: 1, racks: az1}"),
              HasSubstr("cluster.yaml:4:41: task '0_3': partitions[0].racks: expected a list, got 'az1'"));
  EXPECT_THAT(with_partition("{topic: t, partition: 1, racks: [az1, az1]}"),
              HasSubstr("cluster.yaml:4:47: task '0_3': partitions[0].racks: rack 'az1' listed twice"));
  EXPECT_THAT(with_partition("{topic: t, partition: 1, rack: [az1]}"),
              HasSubstr("cluster.yaml:4:34: task '0_3': partitions[0]: unknown key 'rack'; did you mean 'racks'?"));
  EXPECT_THAT(error("tasks:\n  - id: \"0_3\"\n    partitions:\n      - {topic: t, partition: 1}\n"
                    "      - {topic: t, partition: 1}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:5:9: task '0_3': partitions[1]: partition 1 of topic 't' listed twice"));
}

// ---- clients --------------------------------------------------------------------------------

TEST_F(ClusterReaderTest, ClientsMissing) {
  EXPECT_THAT(error("tasks: []\n"), AllOf(HasSubstr("cluster.yaml:1:1:"), HasSubstr("missing required key 'clients'")));
}

TEST_F(ClusterReaderTest, ClientsEmpty) {
  EXPECT_THAT(error("tasks: []\nclients: []\n"),
              HasSubstr("cluster.yaml:2:10: clients: no clients (an empty group cannot be assigned)"));
}

TEST_F(ClusterReaderTest, ClientsNotAList) {
  EXPECT_THAT(error("tasks: []\nclients: {c1: 1}\n"),
              HasSubstr("cluster.yaml:2:10: clients: expected a list, got a map"));
}

TEST_F(ClusterReaderTest, ClientNotAMap) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - c1\n"),
              HasSubstr("cluster.yaml:3:5: clients[0]: expected a map, got 'c1'"));
}

TEST_F(ClusterReaderTest, ClientIdMissingOrEmpty) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - {id: c1, threads: 1}\n  - {threads: 1}\n"),
              HasSubstr("cluster.yaml:4:5: clients[1]: missing required key 'id'"));
  EXPECT_THAT(error("tasks: []\nclients:\n  - {id: \"\", threads: 1}\n"),
              HasSubstr("cluster.yaml:3:10: clients[0]: id: must not be empty"));
}

TEST_F(ClusterReaderTest, MisspeltIdKeyIsSuggestedRatherThanMissing) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - {idd: c1, threads: 1}\n"),
              HasSubstr("cluster.yaml:3:6: clients[0]: unknown key 'idd'; did you mean 'id'?"));
  EXPECT_THAT(error("tasks:\n  - {task_id: \"0_0\"}\nclients: [{id: c1, threads: 1}]\n"),
              HasSubstr("cluster.yaml:2:6: tasks[0]: unknown key 'task_id'"));
}

TEST_F(ClusterReaderTest, DuplicateClientIdNamesBothLines) {
  EXPECT_THAT(
      error("tasks: []\nclients:\n  - {id: c1, threads: 1}\n  - {id: c2, threads: 1}\n  - {id: c1, threads: 2}\n"),
      AllOf(HasSubstr("cluster.yaml:5:10: client 'c1': duplicate client id"), HasSubstr("line 3"),
            HasSubstr("line 5")));
}

TEST_F(ClusterReaderTest, UnknownClientKeySuggestsNearest) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    thread: 2\n"),
              HasSubstr("cluster.yaml:4:5: client 'c1': unknown key 'thread'; did you mean 'threads'?"));
}

const char* kThreadedHeader =
    "tasks: [{id: '0_0'}, {id: '0_1'}, {id: '0_2'}]\n"
    "clients:\n"
    "  - id: c1\n"
    "    threads: 2\n"
    "    previous_active: ['0_0', '0_1']\n"
    "    previous_standby: ['0_2']\n";

TEST_F(ClusterReaderTest, PreviousByThreadIsReadPerThread) {
  const Cluster c = read(std::string(kThreadedHeader) +
                         "    previous_by_thread:\n"
                         "      t1: {active: ['0_1'], standby: ['0_2']}\n"
                         "      t0: {active: ['0_0']}\n");
  const auto& threads = c.clients[0].threads_history;
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].name, "t1");
  EXPECT_EQ(threads[0].previous_active, (std::vector<TaskIndex>{task(c, "0_1")}));
  EXPECT_EQ(threads[0].previous_standby, (std::vector<TaskIndex>{task(c, "0_2")}));
  EXPECT_EQ(threads[1].previous_active, (std::vector<TaskIndex>{task(c, "0_0")}));
}

TEST_F(ClusterReaderTest, PreviousByThreadTaskMustBeTheClientsOwn) {
  EXPECT_THAT(error(std::string(kThreadedHeader) + "    previous_by_thread: {t0: {active: ['0_2']}}\n"),
              HasSubstr("cluster.yaml:7:40: client 'c1': previous_by_thread: t0: active: task '0_2' is not in "
                        "the client's previous_active"));
}

TEST_F(ClusterReaderTest, PreviousByThreadTaskOnTwoThreads) {
  EXPECT_THAT(
      error(std::string(kThreadedHeader) + "    previous_by_thread: {t0: {active: ['0_0']}, t1: {active: ['0_0']}}\n"),
      HasSubstr("task '0_0' is also on thread 't0'"));
}

TEST_F(ClusterReaderTest, PreviousByThreadMoreThreadsThanCapacity) {
  EXPECT_THAT(error(std::string(kThreadedHeader) + "    previous_by_thread: {a: {}, b: {}, c: {}}\n"),
              HasSubstr("3 threads named but the client has threads: 2"));
}

TEST_F(ClusterReaderTest, PreviousByThreadUnknownRoleSuggestsNearest) {
  EXPECT_THAT(error(std::string(kThreadedHeader) + "    previous_by_thread: {t0: {actives: ['0_0']}}\n"),
              HasSubstr("unknown key 'actives'; did you mean 'active'?"));
}

TEST_F(ClusterReaderTest, ThreadsMissing) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    rack: az1\n"),
              HasSubstr("cluster.yaml:3:5: client 'c1': missing required key 'threads'"));
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads:\n"),
              HasSubstr("cluster.yaml:4:5: client 'c1': threads: missing value"));
}

TEST_F(ClusterReaderTest, ThreadsBelowOne) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: 0\n"),
              HasSubstr("cluster.yaml:4:14: client 'c1': threads: must be >= 1, got 0"));
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: -3\n"),
              HasSubstr("cluster.yaml:4:14: client 'c1': threads: must be >= 1, got -3"));
}

TEST_F(ClusterReaderTest, ThreadsWrongType) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: two\n"),
              HasSubstr("cluster.yaml:4:14: client 'c1': threads: expected an integer, got 'two'"));
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: \"2\"\n"),
              HasSubstr("cluster.yaml:4:14: client 'c1': threads: expected an integer, got the string \"2\""));
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: 1.5\n"),
              HasSubstr("cluster.yaml:4:14: client 'c1': threads: expected an integer, got '1.5'"));
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: [1]\n"),
              HasSubstr("cluster.yaml:4:14: client 'c1': threads: expected an integer, got a list"));
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: 99999999999999999999\n"),
              HasSubstr("cluster.yaml:4:14: client 'c1': threads: integer 99999999999999999999 is out of range"));
  EXPECT_THAT(error("tasks: []\nclients:\n  - id: c1\n    threads: 4294967296\n"),
              HasSubstr("cluster.yaml:4:14: client 'c1': threads: must be <= 4294967295, got 4294967296"));
}

TEST_F(ClusterReaderTest, RackWrongType) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - {id: c1, threads: 1, rack: [az1]}\n"),
              HasSubstr("cluster.yaml:3:32: client 'c1': rack: expected a string, got a list"));
}

TEST_F(ClusterReaderTest, TagsWrongType) {
  EXPECT_THAT(error("tasks: []\nclients:\n  - {id: c1, threads: 1, tags: [zone]}\n"),
              HasSubstr("cluster.yaml:3:32: client 'c1': tags: expected a map, got a list"));
  EXPECT_THAT(error("tasks: []\nclients:\n  - {id: c1, threads: 1, tags: {zone: [a]}}\n"),
              HasSubstr("cluster.yaml:3:39: client 'c1': tags.zone: expected a string, got a list"));
}

class ClientListTest : public ClusterReaderTest {
 protected:
  // Two tasks, client c1 (line 5) and client c2 (line 6) with the given extra fields.
  std::string error_with(const std::string& c1_extra, const std::string& c2_extra = "") {
    return error("tasks:\n  - {id: \"0_0\"}\n  - {id: \"0_1\"}\nclients:\n  - {id: c1, threads: 1" + c1_extra +
                 "}\n  - {id: c2, threads: 1" + c2_extra + "}\n");
  }
};

TEST_F(ClientListTest, PreviousActiveUnknownTask) {
  EXPECT_THAT(error_with(", previous_active: [\"0_1\", \"9_9\"]"),
              HasSubstr("cluster.yaml:5:51: client 'c1': previous_active: unknown task '9_9'"));
}

TEST_F(ClientListTest, PreviousActiveMalformedTaskId) {
  EXPECT_THAT(error_with(", previous_active: [\"zero\"]"),
              HasSubstr("cluster.yaml:5:44: client 'c1': previous_active: 'zero' is not a task id of the form S_P"));
}

TEST_F(ClientListTest, PreviousActiveNotAList) {
  EXPECT_THAT(error_with(", previous_active: \"0_0\""),
              HasSubstr("cluster.yaml:5:43: client 'c1': previous_active: expected a list, got the string \"0_0\""));
  EXPECT_THAT(error_with(", previous_active: [[\"0_0\"]]"),
              HasSubstr("cluster.yaml:5:44: client 'c1': previous_active: expected a task id string, got a list"));
}

TEST_F(ClientListTest, PreviousActiveDuplicate) {
  EXPECT_THAT(error_with(", previous_active: [\"0_0\", \"0_0\"]"),
              HasSubstr("cluster.yaml:5:51: client 'c1': previous_active: task '0_0' is listed twice"));
}

TEST_F(ClientListTest, PreviousActiveOnTwoClientsNamesBoth) {
  EXPECT_THAT(error_with(", previous_active: [\"0_0\"]", ", previous_active: [\"0_1\", \"0_0\"]"),
              AllOf(HasSubstr("cluster.yaml:6:51: client 'c2': previous_active: task '0_0' is also previous "
                              "active on client 'c1' (line 5)")));
}

TEST_F(ClientListTest, PreviousStandbyUnknownTask) {
  EXPECT_THAT(error_with("", ", previous_standby: [\"3_0\"]"),
              HasSubstr("cluster.yaml:6:45: client 'c2': previous_standby: unknown task '3_0'"));
}

TEST_F(ClientListTest, PreviousStandbyDuplicate) {
  EXPECT_THAT(error_with("", ", previous_standby: [\"0_1\", \"0_1\"]"),
              HasSubstr("cluster.yaml:6:52: client 'c2': previous_standby: task '0_1' is listed twice"));
}

TEST_F(ClientListTest, TaskBothActiveAndStandbyOnOneClient) {
  // Reported on the standby entry whatever the key order.
  EXPECT_THAT(error_with(", previous_standby: [\"0_1\"], previous_active: [\"0_1\"]"),
              HasSubstr("cluster.yaml:5:45: client 'c1': previous_standby: task '0_1' is also in previous_active"));
}

TEST_F(ClusterReaderTest, StandbyOnOneClientActiveOnAnotherIsFine) {
  const Cluster c = read(
      "tasks: [{id: \"0_0\"}, {id: \"0_1\"}]\nclients:\n"
      "  - {id: c1, threads: 1, previous_active: [\"0_0\"]}\n"
      "  - {id: c2, threads: 1, previous_standby: [\"0_0\"], previous_active: [\"0_1\"]}\n");
  EXPECT_THAT(c.clients[1].previous_standby, ElementsAre(0u));
  EXPECT_THAT(c.previous_active_owner(), ElementsAre(0u, 1u));
}

TEST_F(ClientListTest, OffsetSumsUnknownTask) {
  EXPECT_THAT(error_with(", offset_sums: {\"0_0\": 5, \"7_7\": 1}"),
              HasSubstr("cluster.yaml:5:50: client 'c1': offset_sums: unknown task '7_7'"));
}

TEST_F(ClientListTest, OffsetSumsMalformedTaskId) {
  EXPECT_THAT(error_with(", offset_sums: {x: 5}"),
              HasSubstr("cluster.yaml:5:40: client 'c1': offset_sums: 'x' is not a task id of the form S_P"));
}

TEST_F(ClientListTest, OffsetSumsNonInteger) {
  EXPECT_THAT(error_with("", ", offset_sums: {\"0_1\": 1.5}"),
              HasSubstr("cluster.yaml:6:47: client 'c2': offset_sums.0_1: expected an integer, got '1.5'"));
  EXPECT_THAT(error_with("", ", offset_sums: {\"0_1\": lots}"),
              HasSubstr("cluster.yaml:6:47: client 'c2': offset_sums.0_1: expected an integer, got 'lots'"));
}

TEST_F(ClientListTest, OffsetSumsNotAMap) {
  EXPECT_THAT(error_with(", offset_sums: [\"0_0\"]"),
              HasSubstr("cluster.yaml:5:39: client 'c1': offset_sums: expected a map, got a list"));
}

TEST_F(ClientListTest, OffsetSumsDuplicateTask) {
  EXPECT_THAT(error_with(", offset_sums: {\"0_0\": 1, \"0_0\": 2}"),
              HasSubstr("cluster.yaml:5:50: client 'c1': offset_sums: task '0_0' is listed twice"));
}

}  // namespace
}  // namespace assignor::host
