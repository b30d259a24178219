// Bad input at scale (docs/reliability.md): every input limit gives a clear error naming the limit
// and its config key; hostile YAML (deep nesting, alias cycles, "billion laughs") is refused
// quickly; lists that could make a reader quadratic stay linear; offset sums that overflow are
// pinned at 2^63-1 as Kafka pins them; the config's `isolation` and `limits` keys are strict.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "../test_files.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"

namespace assignor::host {
namespace {

using test::input_error;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Seconds `f` takes.
std::string cluster_error(const std::string& text, const InputLimits& limits = {}) {
  return input_error([&] { parse_cluster(text, "c.yaml", limits); });
}

std::string config_error(const std::string& text) {
  return input_error([&] { parse_config(text, "config.yaml", "/"); });
}

// n stateless tasks 0_0 .. 0_{n-1} and one client.
std::string tasks_file(std::size_t n) {
  std::string text = "tasks:\n";
  for (std::size_t i = 0; i < n; ++i) text += fmt::format("  - {{id: 0_{}}}\n", i);
  return text + "clients: [{id: c, threads: 1}]\n";
}

// ---- the defaults fit a 1M-task cluster ----

TEST(InputLimits, DefaultsFitAMillionTasks) {
  const InputLimits limits;
  EXPECT_GE(limits.max_tasks, 1'000'000u);
  EXPECT_GE(limits.max_clients, 10'000u);
  EXPECT_GE(limits.max_file_bytes, std::uint64_t{500} << 20);  // a 1M-task file is ~190 MB
  EXPECT_GE(limits.max_total_threads, limits.max_clients);
  EXPECT_GE(limits.max_id_length, 255u);
}

// ---- each limit: a clear error naming it ----

TEST(InputLimits, TooManyTasks) {
  InputLimits limits;
  limits.max_tasks = 3;
  EXPECT_NO_THROW(parse_cluster(tasks_file(3), "c.yaml", limits));
  EXPECT_THAT(cluster_error(tasks_file(4), limits),
              AllOf(HasSubstr("c.yaml:2:3: tasks: too many tasks (4); the limit is 3"), HasSubstr("limits.max_tasks")));
}

TEST(InputLimits, TooManyClients) {
  InputLimits limits;
  limits.max_clients = 2;
  const std::string text = "tasks: []\nclients: [{id: a, threads: 1}, {id: b, threads: 1}, {id: c, threads: 1}]\n";
  EXPECT_THAT(cluster_error(text, limits),
              AllOf(HasSubstr("too many clients (3); the limit is 2"), HasSubstr("limits.max_clients")));
}

TEST(InputLimits, TooManyThreadsOnOneClient) {
  // The default limit stops a client with 4 billion threads (the per-thread split would allocate
  // a name for each) before anything is allocated for it.
  EXPECT_THAT(cluster_error("tasks: []\nclients: [{id: a, threads: 4000000000}]\n"),
              AllOf(HasSubstr("client 'a': threads: 4000000000 is more than the limit of 1024"),
                    HasSubstr("limits.max_threads_per_client")));
}

TEST(InputLimits, TooManyThreadsInAll) {
  InputLimits limits;
  limits.max_total_threads = 10;
  EXPECT_THAT(cluster_error("tasks: []\nclients: [{id: a, threads: 6}, {id: b, threads: 6}]\n", limits),
              AllOf(HasSubstr("client 'b': threads"), HasSubstr("12 threads in all, more than the limit of 10"),
                    HasSubstr("limits.max_total_threads")));
}

TEST(InputLimits, IdsLongerThanTheLimit) {
  InputLimits limits;
  limits.max_id_length = 8;
  EXPECT_NO_THROW(parse_cluster("tasks: []\nclients: [{id: abcdefgh, threads: 1}]\n", "c.yaml", limits));
  EXPECT_THAT(cluster_error("tasks: []\nclients: [{id: abcdefghi, threads: 1}]\n", limits),
              AllOf(HasSubstr("9 bytes long, more than the limit of 8"), HasSubstr("limits.max_id_length")));
  EXPECT_THAT(cluster_error("tasks: [{id: 0_0, stores: [{name: a-very-long-store, logged: false}]}]\n"
                            "clients: [{id: c, threads: 1}]\n",
                            limits),
              HasSubstr("stores[0].name: 17 bytes long"));
  EXPECT_THAT(
      cluster_error("tasks: [{id: 0_0}]\nclients: [{id: c, threads: 1, previous_active: [000000000_0]}]\n", limits),
      HasSubstr("previous_active: 11 bytes long"));
}

TEST(InputLimits, FileSizeIsCheckedBeforeParsing) {
  InputLimits limits;
  limits.max_file_bytes = 64;
  EXPECT_THAT(cluster_error(tasks_file(10), limits),
              AllOf(HasSubstr("bytes is more than the limit of 64 bytes"), HasSubstr("limits.max_file_mb")));
  const auto dir = test::test_dir();
  const auto path = test::write_file(dir / "big.yaml", tasks_file(10));
  EXPECT_THAT(input_error([&] { read_cluster_file(path, limits); }),
              AllOf(HasSubstr("big.yaml: the cluster file is too large"), HasSubstr("the limit is 64 bytes")));
}

TEST(InputLimits, AnEndlessFileStopsAtTheLimit) {
  // /dev/zero never ends: the reader stops after the limit instead of reading forever.
  InputLimits limits;
  limits.max_file_bytes = 1 << 20;
  EXPECT_THAT(input_error([&] { read_cluster_file("/dev/zero", limits); }),
              HasSubstr("too large (more than 1048576 bytes)"));
}

TEST(InputLimits, AFifoWithoutAWriterIsAnEmptyFileNotAHang) {
  // Opening a FIFO normally waits for a writer; with none coming, that would be forever.
  const auto fifo = test::test_dir() / "cluster.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(input_error([&] { read_cluster_file(fifo, InputLimits{}); }),
              AllOf(HasSubstr("cluster.fifo"), HasSubstr("empty file")));
}

// ---- text that could forge output ----

TEST(PrintableText, ControlCharactersInNamesAreRefusedAndNeverPrintedRaw) {
  // A newline in a client id would start a forged line in messages and in --format table.
  const std::string message =
      cluster_error("tasks: [{id: 0_0}]\nclients:\n  - {id: \"evil\\nassignor: error: forged\", threads: 1}\n");
  EXPECT_THAT(message, HasSubstr("clients[0]: id: contains a control character (0x0a at offset 4)"));
  EXPECT_EQ(message.find('\n'), std::string::npos);
  for (const char* field : {"rack: \"az\\t1\"", "tags: {zone: \"z\\e[31m\"}"}) {
    SCOPED_TRACE(field);
    EXPECT_THAT(cluster_error(std::string("tasks: [{id: 0_0}]\nclients: [{id: c, threads: 1, ") + field + "}]\n"),
                HasSubstr("contains a control character"));
  }
  // A key is quoted in the message, escaped.
  const std::string key = cluster_error("tasks: [{id: 0_0}]\nclients: [{id: c, threads: 1, \"bad\\e[31mkey\": 1}]\n");
  EXPECT_THAT(key, HasSubstr("unknown key 'bad\\x1b[31mkey'"));
  EXPECT_EQ(key.find('\x1b'), std::string::npos);
}

TEST(PrintableText, EscapesEveryControlCharacter) {
  EXPECT_EQ(printable("a\nb\tc\rd\x01"
                      "e\x7f\x1b[0m"),
            "a\\nb\\tc\\rd\\x01e\\x7f\\x1b[0m");
  EXPECT_EQ(printable("line 1\nline 2", /*keep_newlines=*/true), "line 1\nline 2");
  EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 is kept
  EXPECT_EQ(printable("a\xff"
                      "b\xc3"
                      "c\xe2\x82"),
            "a\\xffb\\xc3c\\xe2\\x82");  // bytes that are not UTF-8 are not
}

TEST(PrintableText, UnicodeControlsAreRefusedAndEscaped) {
  // C1 controls (U+0085 NEL, U+009B CSI), bidirectional overrides and isolates (U+202E, U+2066),
  // marks (U+200F) and separators (U+2028): each reorders or breaks what a terminal shows.
  EXPECT_EQ(printable("a\xc2\x85"
                      "b\xc2\x9b"
                      "c\xe2\x80\xae"
                      "d\xe2\x81\xa6"
                      "e\xe2\x80\x8f"
                      "f\xe2\x80\xa8"
                      "g\xd8\x9c"),
            "a\\u0085b\\u009bc\\u202ed\\u2066e\\u200ff\\u2028g\\u061c");
  // Neighbours that are ordinary text are kept: U+00A0, U+2013 (en dash), U+2030 (per mille).
  EXPECT_EQ(printable("\xc2\xa0\xe2\x80\x93\xe2\x80\xb0"), "\xc2\xa0\xe2\x80\x93\xe2\x80\xb0");
  EXPECT_EQ(first_control_character("abc\xe2\x80\xae"), 3u);
  EXPECT_EQ(first_control_character("caf\xc3\xa9 \xe2\x80\x93"), std::string_view::npos);
  EXPECT_THAT(cluster_error("tasks: [{id: 0_0}]\nclients: [{id: \"evil\xe2\x80\xaegnp.exe\", threads: 1}]\n"),
              AllOf(HasSubstr("c.yaml:2:16: clients[0]: id: contains a Unicode control character (\\u202e at offset 4"),
                    ::testing::Not(HasSubstr("\xe2\x80\xae"))));
}

TEST(TaskIds, OneSpellingPerTask) {
  // "00_01" used to be read as 0_1, with messages naming a task the file never wrote.
  EXPECT_THAT(cluster_error("tasks: [{id: \"00_01\"}]\nclients: [{id: c, threads: 1}]\n"),
              HasSubstr("'00_01' is not a task id of the form S_P (e.g. 0_3; digits only, no leading zeros)"));
  EXPECT_THAT(cluster_error("tasks: [{id: 0_1}]\nclients: [{id: c, threads: 1, previous_active: [\"0_01\"]}]\n"),
              HasSubstr("'0_01' is not a task id"));
}

// ---- hostile YAML ----

TEST(HostileYaml, DeepNestingIsRefused) {
  for (const char* open : {"[", "{a: ", "- "}) {
    SCOPED_TRACE(open);
    std::string text = "tasks:\n";
    for (int i = 0; i < 100'000; ++i) text += open;
    text += "x\n";
    EXPECT_THAT(cluster_error(text), AllOf(HasSubstr("c.yaml"), HasSubstr("levels deep")));
  }
}

// "Billion laughs": nine levels of ten aliases each, 10^9 scalars from under 1 KB. `indent` puts
// the levels under a key of the file.
std::string laughs(const std::string& indent) {
  std::string text = indent + "l0: &l0 [a, b, c, d, e, f, g, h, i, j]\n";
  for (int level = 1; level < 9; ++level) {
    text += fmt::format("{}l{}: &l{} [", indent, level, level);
    for (int k = 0; k < 10; ++k) text += fmt::format("{}*l{}", k ? ", " : "", level - 1);
    text += "]\n";
  }
  return text;
}

// Refused by counting what the aliases would expand to, before expanding anything (the message says
// so); an expanding reader would need 10^9 nodes.
TEST(HostileYaml, BillionLaughsIsRefusedBeforeExpanding) {
  EXPECT_THAT(config_error("strategy: s\nstrategies:\n  s:\n" + laughs("    ")),
              AllOf(HasSubstr("config.yaml:"), HasSubstr("aliases expand the document")));
  EXPECT_THAT(cluster_error(laughs("") + "tasks: []\nclients: [{id: c, threads: 1}]\n"),
              AllOf(HasSubstr("c.yaml:"), HasSubstr("aliases expand the document")));
}

TEST(HostileYaml, AliasCycleIsRefused) {
  // yaml-cpp builds `&a [*a]` as a list that contains itself; any recursive reader would loop.
  EXPECT_THAT(config_error("strategy: s\nstrategies:\n  s: &a {x: *a}\n"),
              AllOf(HasSubstr("config.yaml:3:"), HasSubstr("an alias refers to a node that contains it")));
  EXPECT_THAT(cluster_error("tasks: &t [*t]\nclients: [{id: c, threads: 1}]\n"), HasSubstr("(a cycle)"));
}

TEST(HostileYaml, AFlowCollectionYamlCppWouldQueueIsRefusedBeforeParsing) {
  // `{tasks: [0, 0, ...]}` as a whole document: yaml-cpp would hold every token until the last
  // '}' (2.7 GB for 20 MB); the same list as a mapping's value is not queued and reaches the
  // reader, which says what is wrong with it.
  std::string items;
  for (int i = 0; i < 1'000'000; ++i) items += i ? ",0" : "0";
  EXPECT_THAT(cluster_error("# a comment\n{tasks: [" + items + "], clients: [{id: c, threads: 1}]}\n"),
              AllOf(HasSubstr("c.yaml:2:1: this flow collection"), HasSubstr("would need more than"),
                    HasSubstr("write it in block style, or the whole file as JSON")));
  EXPECT_THAT(cluster_error("tasks:\n  - [" + items + "]\n"), HasSubstr("c.yaml:2:5: this flow collection"));
  EXPECT_THAT(cluster_error("tasks: [[" + items + "]]\n"), HasSubstr("c.yaml:1:9: this flow collection"));
  EXPECT_THAT(cluster_error("tasks: [" + items + "]\n"), HasSubstr("tasks[0]: expected a map, got '0'"));
  // Brackets inside quoted scalars and comments are not collections.
  EXPECT_NO_THROW(parse_cluster("tasks: [{id: \"0_0\"}]  # {[{[\nclients: [{id: '[{', threads: 1}]\n", "c.yaml"));
}

TEST(HostileYaml, JsonBehindYamlCommentsIsReadAsJson) {
  // What JSON-minded tools write into a .yaml file: the JSON reader takes it (no token queue), and
  // every line and column in a message is still the file's own.
  const std::string json = "{\"tasks\": [{\"id\": \"0_0\"}], \"clients\": [{\"id\": \"c\", \"threads\": 1}]}\n";
  EXPECT_EQ(parse_cluster("# generated\n---\n" + json + "...\n# end\n", "c.yaml").task_count(), 1u);
  EXPECT_THAT(cluster_error("# generated\n# by a tool\n{\"tasks\": [{\"id\": 7}], \"clients\": []}\n"),
              HasSubstr("c.yaml:3:19: tasks[0]: id: expected a string, got the number 7"));
}

TEST(HostileYaml, ModestAliasesAreFine) {
  const Config config =
      parse_config("strategy: s\nstrategies:\n  s: &p {alpha: 1, beta: {gamma: 2}}\n  t: *p\n", "config.yaml", "/");
  EXPECT_EQ(config.strategy_params.at("t").values(), config.strategy_params.at("s").values());
  const Cluster cluster = parse_cluster(
      "tasks:\n  - {id: 0_0, partitions: [{topic: t, partition: 0, racks: &r [az1, az2]}]}\n"
      "  - {id: 0_1, partitions: [{topic: t, partition: 1, racks: *r}]}\n"
      "clients: [{id: c, threads: 1, rack: az1}]\n",
      "c.yaml");
  EXPECT_EQ(cluster.tasks[1].partitions[0].racks.size(), 2u);
}

// ---- lists that used to make a reader quadratic ----
// These inputs are large enough that a quadratic reader would run for minutes; how long they take is
// measured in bench/bench_readers.cpp (docs/benchmarks.md), never asserted here.

TEST(ReaderScaling, LongRackListIsLinear) {
  std::string text = "tasks:\n  - id: 0_0\n    partitions:\n      - topic: t\n        partition: 0\n        racks: [";
  constexpr int kRacks = 200'000;
  for (int i = 0; i < kRacks; ++i) text += fmt::format("{}r{}", i ? ", " : "", i);
  text += "]\nclients: [{id: c, threads: 1}]\n";
  const Cluster cluster = parse_cluster(text, "c.yaml");
  EXPECT_EQ(cluster.racks.size(), static_cast<std::size_t>(kRacks));
  EXPECT_THAT(cluster_error("tasks: [{id: 0_0, partitions: [{topic: t, partition: 0, racks: [a, b, a]}]}]\n"
                            "clients: [{id: c, threads: 1}]\n"),
              HasSubstr("rack 'a' listed twice"));
}

TEST(ReaderScaling, PreviousByThreadIsLinearInTheClientsTasks) {
  constexpr int kTasks = 100'000;
  std::string text = "tasks:\n";
  for (int i = 0; i < kTasks; ++i) text += fmt::format("  - {{id: 0_{}}}\n", i);
  std::string list;
  for (int i = 0; i < kTasks; ++i) list += fmt::format("{}0_{}", i ? ", " : "", i);
  text += fmt::format(
      "clients:\n  - id: c\n    threads: 1\n    previous_active: [{}]\n"
      "    previous_by_thread: {{t0: {{active: [{}]}}}}\n",
      list, list);
  const Cluster cluster = parse_cluster(text, "c.yaml");
  EXPECT_EQ(cluster.clients[0].threads_history[0].previous_active.size(), static_cast<std::size_t>(kTasks));
  EXPECT_THAT(cluster_error("tasks: [{id: 0_0}, {id: 0_1}]\nclients:\n"
                            "  - {id: c, threads: 1, previous_active: [0_0], previous_standby: [0_1],\n"
                            "     previous_by_thread: {t0: {active: [0_1]}}}\n"),
              HasSubstr("task '0_1' is not in the client's previous_active"));
}

// A task's store names are checked for repeats by a short scan while the list is short, by hashing
// when it is long (a hostile file): both find the repeat, with the line of the first.
TEST(ReaderScaling, LongStoreListIsLinear) {
  constexpr int kStores = 100'000;
  std::string stores;
  for (int i = 0; i < kStores; ++i) stores += fmt::format("{}{{name: s{}, logged: false}}", i ? ", " : "", i);
  // The list in a value position (`stores: [...]`): yaml-cpp does not queue it (HostileYaml below).
  const Cluster cluster = parse_cluster(
      fmt::format("tasks:\n  - id: 0_0\n    stores: [{}]\nclients: [{{id: c, threads: 1}}]\n", stores), "c.yaml");
  EXPECT_EQ(cluster.tasks[0].stores.size(), static_cast<std::size_t>(kStores));
  const std::string repeated = fmt::format(
      "tasks:\n  - id: 0_0\n    stores:\n{}      - {{name: s7, logged: false}}\nclients: [{{id: c, threads: 1}}]\n",
      [] {
        std::string lines;
        for (int i = 0; i < 40; ++i) lines += fmt::format("      - {{name: s{}, logged: false}}\n", i);
        return lines;
      }());
  EXPECT_THAT(cluster_error(repeated), HasSubstr("duplicate store name 's7' (first at line 11)"));
  EXPECT_THAT(cluster_error("tasks: [{id: 0_0, stores: [{name: a, logged: false}, {name: a, logged: false}]}]\n"
                            "clients: [{id: c, threads: 1}]\n"),
              HasSubstr("duplicate store name 'a' (first at line 1)"));
}

// ---- offset sums: Kafka pins an overflowing sum at Long.MAX_VALUE; so do we ----

TEST(OffsetOverflow, EndOffsetSumIsPinnedAtTheMaximum) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const Cluster cluster = parse_cluster(fmt::format("tasks:\n  - id: 0_0\n    stores:\n"
                                                    "      - {{name: a, changelog_end_offset: {}}}\n"
                                                    "      - {{name: b, changelog_end_offset: {}}}\n"
                                                    "clients:\n  - {{id: c, threads: 1, offset_sums: {{'0_0': {}}}}}\n"
                                                    "  - {{id: d, threads: 1}}\n",
                                                    max, max, max),
                                        "c.yaml");
  EXPECT_EQ(cluster.tasks[0].end_offset_sum, max);
  const LagModel lags(cluster, AssignmentSettings{});
  // c reports the pinned maximum: lag 0, caught up. d has nothing: a full restore of 2^63-1.
  EXPECT_EQ(lags.lag(0, 0).offsets, 0);
  EXPECT_EQ(lags.lag(0, 1).offsets, max);
  // Three restores of 2^63-1 each: restore_offsets saturates at 2^64-1 rather than wrapping.
  const Cluster three =
      parse_cluster(fmt::format("tasks:\n  - {{id: 0_0, stores: [{{name: a, changelog_end_offset: {0}}}]}}\n"
                                "  - {{id: 0_1, stores: [{{name: a, changelog_end_offset: {0}}}]}}\n"
                                "  - {{id: 0_2, stores: [{{name: a, changelog_end_offset: {0}}}]}}\n"
                                "clients: [{{id: c, threads: 3}}]\n",
                                max),
                    "c.yaml");
  const LagModel three_lags(three, AssignmentSettings{});
  Assignment all;
  all.actives = {{0, 0}, {1, 0}, {2, 0}};
  const Metrics m = compute_metrics(three, AssignmentSettings{}, three_lags, all);
  EXPECT_EQ(m.restore_offsets, std::numeric_limits<std::uint64_t>::max());
}

TEST(OffsetOverflow, IntegersPastSixtyFourBitsAreErrors) {
  EXPECT_THAT(cluster_error("tasks: [{id: 0_0, stores: [{name: a, changelog_end_offset: 9223372036854775808}]}]\n"
                            "clients: [{id: c, threads: 1}]\n"),
              HasSubstr("integer 9223372036854775808 is out of range (64-bit signed)"));
}

// ---- task ids at the edge of their range ----

TEST(HugeIds, SubTopologyNumbersNearTheMaximumCostNothing) {
  // The metrics used to size an array by the largest sub-topology number: 2147483647_0 overflowed
  // it (exit 1) and 1000000000_0 allocated 4 GB for a one-task cluster.
  const Cluster cluster = parse_cluster(
      "tasks: [{id: 2147483647_0}, {id: 2147483647_1}, {id: 0_0}]\nclients: [{id: a, threads: 1}, {id: b, threads: "
      "1}]\n",
      "c.yaml");
  const LagModel lags(cluster, AssignmentSettings{});
  Assignment a;
  a.actives = {{0, 0}, {1, 1}, {2, 0}};  // 0_0 on a; 2147483647_0 on a, 2147483647_1 on b
  const Metrics m = compute_metrics(cluster, AssignmentSettings{}, lags, a);
  EXPECT_EQ(m.max_subtopology_skew, 1u);  // sub-topology 0: one active on a, none on b
  a.actives = {{0, 0}, {1, 0}, {2, 0}};
  EXPECT_EQ(compute_metrics(cluster, AssignmentSettings{}, lags, a).max_subtopology_skew, 2u);
}

// ---- the config's isolation and limits keys ----

TEST(ConfigLimits, DefaultsAndValues) {
  Config c = parse_config("strategy: s\n", "config.yaml", "/");
  EXPECT_EQ(c.isolation, IsolationMode::automatic);  // bundled in process, plugins.paths isolated
  EXPECT_EQ(parse_config("strategy: s\nisolation: in_process\n", "config.yaml", "/").isolation,
            IsolationMode::in_process);
  EXPECT_EQ(parse_config("strategy: s\nisolation: auto\n", "config.yaml", "/").isolation, IsolationMode::automatic);
  EXPECT_EQ(c.strategy_limits.time_ms, StrategyLimits{}.time_ms);
  EXPECT_FALSE(c.allow_unsafe_plugin_permissions);
  c = parse_config(
      "strategy: s\nisolation: process\nplugins: {allow_unsafe_permissions: true}\n"
      "limits: {time_ms: 1500, memory_mb: 512, max_file_mb: 2, max_tasks: 10, max_clients: 3,\n"
      "         max_threads_per_client: 4, max_total_threads: 5, max_id_length: 6}\n",
      "config.yaml", "/");
  EXPECT_EQ(c.isolation, IsolationMode::process);
  EXPECT_TRUE(c.allow_unsafe_plugin_permissions);
  EXPECT_EQ(c.strategy_limits.time_ms, 1500u);
  EXPECT_EQ(c.strategy_limits.memory_mb, 512u);
  EXPECT_EQ(c.input_limits.max_file_bytes, 2u << 20);
  EXPECT_EQ(c.input_limits.max_tasks, 10u);
  EXPECT_EQ(c.input_limits.max_clients, 3u);
  EXPECT_EQ(c.input_limits.max_threads_per_client, 4u);
  EXPECT_EQ(c.input_limits.max_total_threads, 5u);
  EXPECT_EQ(c.input_limits.max_id_length, 6u);
}

TEST(ConfigLimits, StrictKeysWithSuggestions) {
  EXPECT_THAT(
      config_error("strategy: s\nisolation: proces\n"),
      AllOf(HasSubstr("isolation: 'proces' is not one of in_process, process"), HasSubstr("did you mean 'process'")));
  EXPECT_THAT(config_error("strategy: s\nlimits: {time_m: 5}\n"), HasSubstr("did you mean 'time_ms'"));
  EXPECT_THAT(config_error("strategy: s\nlimits: {time_ms: 0}\n"), HasSubstr("limits.time_ms: must be >= 1, got 0"));
  EXPECT_THAT(config_error("strategy: s\nlimits: {memory_mb: 1}\n"), HasSubstr("limits.memory_mb: must be >= 16"));
  EXPECT_THAT(config_error("strategy: s\nlimits: {max_tasks: -1}\n"), HasSubstr("limits.max_tasks: must be >= 1"));
  EXPECT_THAT(config_error("strategy: s\nisolaton: process\n"), HasSubstr("did you mean 'isolation'"));
  EXPECT_THAT(config_error("strategy: s\nplugins: {allow_unsafe_permissions: yes please}\n"),
              HasSubstr("expected a boolean"));
}

}  // namespace
}  // namespace assignor::host
