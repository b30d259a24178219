// Reading what a Kafka Streams leader logged (host/src/import): the Decided line in every layout
// and every ClientState variant Kafka shipped, each built here from the shape of that version's
// toString (docs/formats.md lists the versions); the reconstruction of Kafka's input from it,
// checked against values computed by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "assignor/host/import/kafka_log.hpp"
#include "assignor/task_id.hpp"

namespace assignor::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr const char* kA = "a126df22-663b-4d36-86c1-f8f7e8f7cafb";
constexpr const char* kB = "baf79be4-b6f4-4298-ad66-a02f36c92e87";

enum class Version { v2_6, v2_7, v3_2 };

// One ClientState as `version` printed it: tasks and maps as TreeSet / TreeMap.entrySet print.
std::string client_state(Version v, const std::string& active, const std::string& standby,
                         const std::string& prev_active, const std::string& prev_standby, const std::string& offsets,
                         const std::string& lags, int capacity, int assigned, const std::string& tags = "") {
  std::string s =
      fmt::format("[activeTasks: ([{}]) standbyTasks: ([{}]) prevActiveTasks: ([{}]) prevStandbyTasks: ([{}]) ", active,
                  standby, prev_active, prev_standby);
  if (v == Version::v2_6) s += "prevOwnedPartitionsByConsumerId: ([orders-0, orders-3]) ";
  s += fmt::format("changelogOffsetTotalsByTask: ([{}]) taskLagTotals: ([{}]) ", offsets, lags);
  if (v == Version::v3_2) s += fmt::format("clientTags: ([{}]) ", tags);
  return s + fmt::format("capacity: {} assigned: {}]", capacity, assigned);
}

// Two clients, four tasks: 0_0 and 0_1 logged (end-offset sums 1000 and 500), 1_0 and 1_1 stateless.
// a ran 0_0 (and 1_0) and has 0_1 at 450; b ran 0_1 (and 1_1) and has 0_0 at 700.
std::string decided(Version v, const std::string& with = " with no followup probing rebalance.") {
  const std::string a =
      client_state(v, "0_0, 1_0", "0_1", "0_0, 1_0", "0_1", "0_0=-2, 0_1=450", "0_0=-2, 0_1=50", 2, 3, "zone=eu-1a");
  const std::string b =
      client_state(v, "0_1, 1_1", "0_0", "0_1, 1_1", "0_0", "0_0=700, 0_1=-2", "0_0=300, 0_1=-2", 2, 3, "zone=eu-1b");
  return fmt::format("Decided on assignment: {{{}={}, {}={}}}{}", kA, a, kB, b, with);
}

TEST(DecidedMessage, EveryClientStateVariantKafkaShipped) {
  for (const auto& [v, name] : {std::pair{Version::v2_6, "2.6"}, {Version::v2_7, "2.7-3.1"}, {Version::v3_2, "3.2+"}}) {
    SCOPED_TRACE(name);
    const ParsedDecided p = parse_decided_message(decided(v));
    ASSERT_TRUE(p.rebalance) << p.problem;
    EXPECT_EQ(p.rebalance->variant, name);
    EXPECT_FALSE(p.rebalance->probing);
    ASSERT_EQ(p.rebalance->clients.size(), 2u);
    const LoggedClient& a = p.rebalance->clients[0];
    EXPECT_EQ(a.process, kA);
    EXPECT_EQ(a.capacity, 2u);
    EXPECT_THAT(a.active, ElementsAre(TaskId{0, 0}, TaskId{1, 0}));
    EXPECT_THAT(a.standby, ElementsAre(TaskId{0, 1}));
    EXPECT_EQ(a.offset_sums.size(), 2u);
    EXPECT_EQ(a.lags[1].second, 50);
    if (v == Version::v3_2) {
      EXPECT_THAT(a.tags, ElementsAre(std::pair<std::string, std::string>{"zone", "eu-1a"}));
    } else {
      EXPECT_THAT(a.tags, IsEmpty());
    }
  }
}

TEST(DecidedMessage, BothSpellingsOfTheEnd) {
  // Kafka's releases: " with" + (p ? "" : " no"); unreleased code: " with " + (p ? "" : "no").
  EXPECT_TRUE(parse_decided_message(decided(Version::v3_2, " with followup probing rebalance.")).rebalance->probing);
  EXPECT_TRUE(parse_decided_message(decided(Version::v3_2, " with  followup probing rebalance.")).rebalance->probing);
  EXPECT_FALSE(
      parse_decided_message(decided(Version::v3_2, " with no followup probing rebalance.")).rebalance->probing);
  EXPECT_FALSE(parse_decided_message(decided(Version::v3_2, " withno followup probing rebalance.")).rebalance->probing);
}

TEST(DecidedMessage, WhatCannotBeReadIsSaidNeverGuessed) {
  // A variant without lags (Kafka before 2.6, or unreleased): it cannot give the input.
  const std::string no_lags = fmt::format(
      "Decided on assignment: {{{}=[activeTasks: ([0_0]) standbyTasks: ([]) prevActiveTasks: ([0_0]) "
      "prevStandbyTasks: ([]) changelogOffsetTotalsByTask: ([0_0=-2]) capacity: 1 assigned: 1]}} with no "
      "followup probing rebalance.",
      kA);
  EXPECT_THAT(parse_decided_message(no_lags).problem, HasSubstr("unsupported: no lags"));
  // Cut in the middle (a log shipper's line limit).
  const std::string full = decided(Version::v3_2);
  EXPECT_THAT(parse_decided_message(full.substr(0, full.size() / 2)).problem, HasSubstr("cut: the line ends before"));
  // A field no released version prints.
  std::string unknown = full;
  unknown.replace(unknown.find("clientTags"), 10, "clientRacks");
  EXPECT_THAT(parse_decided_message(unknown).problem, HasSubstr("unknown ClientState variant: field 'clientRacks'"));
  // Fields in an order no version printed.
  std::string reordered = decided(Version::v2_7);
  const std::string lags = "taskLagTotals: ([0_0=-2, 0_1=50]) ";
  reordered.erase(reordered.find(lags), lags.size());
  reordered.insert(reordered.find("activeTasks"), lags);
  EXPECT_THAT(parse_decided_message(reordered).problem,
              HasSubstr("unknown ClientState variant (fields taskLagTotals, activeTasks"));
  // Garbled values.
  std::string garbled = full;
  garbled.replace(garbled.find("0_1=50"), 6, "0_1=5x");
  EXPECT_THAT(parse_decided_message(garbled).problem, HasSubstr("garbled: taskLagTotals entry '0_1=5x'"));
  // Lags below 0 other than Kafka's sentinels -2 (running) and -3 (unknown): no state Kafka had.
  for (const std::string lag : {"-5", "-1", "-9223372036854775808"}) {
    std::string negative = full;
    negative.replace(negative.find("0_1=50"), 6, "0_1=" + lag);
    EXPECT_THAT(parse_decided_message(negative).problem,
                HasSubstr("garbled: taskLagTotals entry '0_1=" + lag + "': a lag is 0 or more, or Kafka's -2"))
        << lag;
  }
  for (const std::string lag : {"-2", "-3", "0"}) {
    std::string sentinel = full;
    sentinel.replace(sentinel.find("0_1=50"), 6, "0_1=" + lag);
    EXPECT_EQ(parse_decided_message(sentinel).problem, "") << lag;
  }
  std::string bad_task = full;
  bad_task.replace(bad_task.find("[0_0, 1_0]"), 10, "[0_0, x_0]");
  EXPECT_THAT(parse_decided_message(bad_task).problem, HasSubstr("garbled: 'x_0' is not a task id"));
  std::string not_uuid = full;
  not_uuid.replace(not_uuid.find(kB), std::string(kB).size(), "b\xff\nnot-a-uuid");
  EXPECT_THAT(parse_decided_message(not_uuid).problem,
              HasSubstr("garbled: process id 'b\\xff\\nnot-a-uuid' is not a UUID"));
  std::string bad_tag = full;
  bad_tag.replace(bad_tag.find("zone=eu-1a"), 10, "zone=eu\x01a");
  EXPECT_THAT(parse_decided_message(bad_tag).problem, HasSubstr("garbled: clientTags entry"));
  std::string named = full;
  named.replace(named.find("[0_0, 1_0]"), 10, "[0_0, app__1_0]");
  EXPECT_THAT(parse_decided_message(named).problem,
              HasSubstr("unsupported: task 'app__1_0' belongs to a named topology"));
}

// ---- layouts ----

TEST(DecidedLine, FoundInEveryCommonLayout) {
  const std::string m = decided(Version::v3_2);
  struct Case {
    std::string line, timestamp, instance;
  };
  const Case cases[] = {
      // log4j, Kafka's default: [%d] %p %m (%c)
      {"[2026-11-20 09:20:02,771] INFO " + m +
           " (org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor)",
       "2026-11-20 09:20:02,771", ""},
      // Spring Boot / logback
      {"2026-11-20 09:20:02.771  INFO 1 --- [-StreamThread-1] a.k.s.p.i.a.HighAvailabilityTaskAssignor : " + m,
       "2026-11-20 09:20:02.771", ""},
      // docker compose
      {"app_3  | 2026-11-20 09:20:02.771  INFO 1 --- [-StreamThread-1] a.k.s.p.i.a.HighAvailabilityTaskAssignor : " + m,
       "2026-11-20 09:20:02.771", "app_3"},
      // kubectl logs --prefix, ISO time with a zone
      {"[pod/orders-7d9f/app] 2026-11-20T10:20:02.771+01:00 INFO " + m, "2026-11-20T10:20:02.771+01:00",
       "pod/orders-7d9f/app"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line.substr(0, 60));
    const auto found = find_decided_line(c.line);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->timestamp, c.timestamp);
    ASSERT_TRUE(found->time_ms);
    EXPECT_EQ(*found->time_ms, 1795166402771);  // 2026-11-20 09:20:02.771 UTC, computed independently
    EXPECT_EQ(found->instance, c.instance);
    EXPECT_TRUE(parse_decided_message(found->message).rebalance) << parse_decided_message(found->message).problem;
  }
  EXPECT_FALSE(find_decided_line("[2026-11-20 09:20:02,771] INFO Decided to rebalance (x)"));
}

TEST(DecidedLine, JsonLinesWithTheMessageInAField) {
  // logstash: the message is a JSON string (quotes inside escaped); docker's json-file driver: the
  // whole text line in "log".
  std::string escaped;
  for (char c : decided(Version::v3_2)) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  const std::string logstash = "{\"@timestamp\":\"2026-11-20T09:20:02.771Z\",\"@version\":\"1\",\"message\":\"" +
                               escaped +
                               "\",\"logger_name\":\"o.a.k.s.p.i.a.HighAvailabilityTaskAssignor\",\"level\":\"INFO\","
                               "\"HOSTNAME\":\"x\",\"host\":\"orders-2\"}";
  auto found = find_decided_line(logstash);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->timestamp, "2026-11-20T09:20:02.771Z");
  EXPECT_EQ(*found->time_ms, 1795166402771);
  EXPECT_EQ(found->instance, "orders-2");
  EXPECT_TRUE(parse_decided_message(found->message).rebalance);
  const std::string docker = "{\"log\":\"2026-11-20 09:20:02.771  INFO 1 --- [-StreamThread-1] x : " + escaped +
                             "\\n\",\"stream\":\"stdout\",\"time\":\"2026-11-20T09:20:02.999Z\"}";
  found = find_decided_line(docker);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->timestamp, "2026-11-20 09:20:02.771");  // the line's own, not the shipper's
  EXPECT_TRUE(parse_decided_message(found->message).rebalance);
}

TEST(StreamsConfigDump, TheAssignmentSettingsAreRead) {
  EXPECT_TRUE(starts_streams_config_dump("[2026-11-20 09:00:00,001] INFO StreamsConfig values: "));
  const auto entries = streams_config_entries(
      "StreamsConfig values: \n\tacceptable.recovery.lag = 20000\n\tapplication.id = orders\n\tnum.standby.replicas = "
      "2\n"
      "\track.aware.assignment.tags = [zone, rack]\n");
  ASSERT_EQ(entries.size(), 3u);
  StreamsSettings s;
  for (const auto& [k, v] : entries) apply_streams_property(s, k, v, "log:1");
  EXPECT_EQ(s.settings.acceptable_recovery_lag, 20000);
  EXPECT_EQ(s.settings.num_standby_replicas, 2u);
  EXPECT_THAT(s.settings.rack_aware.tags, ElementsAre("zone", "rack"));
  StreamsSettings bad;
  try {
    apply_streams_property(bad, "probing.rebalance.interval.ms", "1000", "app.properties:4");
    ADD_FAILURE() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("app.properties:4: probing.rebalance.interval.ms = 1000: expected an integer from 60000"));
  }
  try {
    apply_streams_property(bad, "probing.rebalance.interval.ms", "9223372036854775000", "app.properties:5");
    ADD_FAILURE() << "accepted an interval past 2^40 ms";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("app.properties:5: probing.rebalance.interval.ms = 9223372036854775000: expected an "
                          "integer from 60000 to 1099511627776"));
  }
}

// ---- reconstruction ----

TEST(Reconstruct, TheInputAndKafkasDecision) {
  const auto logged = *parse_decided_message(decided(Version::v3_2, " with followup probing rebalance.")).rebalance;
  AssignmentSettings settings;
  settings.num_standby_replicas = 1;
  const Reconstructed r = reconstruct(logged, settings, /*settings_given=*/true);
  const Cluster& c = r.cluster;
  ASSERT_EQ(c.task_count(), 4u);
  // End-offset sums: 0_0 from b (offset 700, lag 300): 1000; 0_1 from a (450 + 50): 500.
  EXPECT_EQ(c.tasks[0].end_offset_sum, 1000);
  EXPECT_EQ(c.tasks[1].end_offset_sum, 500);
  EXPECT_FALSE(c.tasks[2].stateful);  // 1_0: no lag entry, stateless for Kafka
  ASSERT_EQ(c.client_count(), 2u);
  EXPECT_EQ(c.clients[0].id, kA);
  EXPECT_EQ(c.clients[0].threads, 2u);
  EXPECT_EQ(c.clients[0].tags.at("zone"), "eu-1a");
  EXPECT_EQ(c.clients[1].offset_sums.size(), 2u);
  EXPECT_EQ(r.kafka.actives.size(), 4u);
  EXPECT_EQ(r.kafka.standbys.size(), 2u);
  EXPECT_TRUE(r.kafka.warmups.empty());
  EXPECT_TRUE(r.kafka.probing_rebalance);
  EXPECT_THAT(r.notes, IsEmpty());
}

LoggedRebalance group(std::vector<LoggedClient> clients) {
  LoggedRebalance r;
  r.variant = "3.2+";
  r.clients = std::move(clients);
  return r;
}

LoggedClient client(const std::string& id, std::vector<TaskId> active, std::vector<TaskId> standby,
                    std::vector<std::pair<TaskId, std::int64_t>> offsets,
                    std::vector<std::pair<TaskId, std::int64_t>> lags) {
  LoggedClient c;
  c.process = id;
  c.capacity = 1;
  c.active = std::move(active);
  c.standby = std::move(standby);
  c.offset_sums = std::move(offsets);
  c.lags = std::move(lags);
  return c;
}

TEST(Reconstruct, AnOffsetSumAboveTheEndIsKafkasCorruptStateRule) {
  // Kafka prints the whole end-offset sum as the lag of a client whose offset sum is above it:
  // a (offset 9000, lag 1000) allows 10000 or 1000; b (no state, lag 1000) only 1000.
  const TaskId t{0, 0};
  const auto r = reconstruct(
      group({client(kA, {t}, {}, {{t, 9000}}, {{t, 1000}}), client(kB, {}, {}, {}, {{t, 1000}})}), {}, true);
  EXPECT_EQ(r.cluster.tasks[0].end_offset_sum, 1000);
  EXPECT_THAT(r.notes, IsEmpty());
  // Alone, a allows both; Kafka warns whenever an offset sum is above the end, so without its
  // warning lag + offset is what happened, and with it the sum it names.
  const auto alone = reconstruct(group({client(kA, {t}, {}, {{t, 9000}}, {{t, 1000}})}), {}, true);
  EXPECT_EQ(alone.cluster.tasks[0].end_offset_sum, 10000);
  EXPECT_THAT(alone.notes, IsEmpty());
  const auto warning = corrupt_end_warning(
      std::string(
          "[2026-11-20 09:20:02,700] WARN Task 0_0 had endOffsetSum=1000 smaller than offsetSum=9000 on member ") +
      kA +
      ". This probably means the task is corrupted, ... "
      "(org.apache.kafka.streams.processor.internals.assignment.ClientState)");
  ASSERT_TRUE(warning);
  EXPECT_EQ(warning->second, 1000);
  const auto warned = reconstruct(group({client(kA, {t}, {}, {{t, 9000}}, {{t, 1000}})}), {}, true, {*warning});
  EXPECT_EQ(warned.cluster.tasks[0].end_offset_sum, 1000);
  // Only a running copy: no lag says anything; the largest offset sum reported is used, and said.
  const auto running = reconstruct(group({client(kA, {t}, {}, {{t, -2}}, {{t, -2}})}), {}, true);
  EXPECT_THAT(running.notes[0], HasSubstr("end-offset sum not in the log"));
}

TEST(Reconstruct, OldStateOfTasksTheGroupNoLongerHasIsLeftOutAndSaid) {
  const TaskId t{0, 0}, gone{7, 3};
  LoggedClient a = client(kA, {t}, {}, {{t, -2}, {gone, 55}}, {{t, -2}});
  a.previous_standby = {gone};
  const auto r = reconstruct(group({a, client(kB, {}, {}, {}, {{t, 100}})}), {}, true);
  EXPECT_EQ(r.cluster.task_count(), 1u);
  EXPECT_EQ(r.cluster.clients[0].offset_sums.size(), 1u);
  EXPECT_THAT(r.notes.back(), HasSubstr("tasks the group no longer has"));
  EXPECT_THAT(r.notes.back(), HasSubstr("7_3"));
}

TEST(Reconstruct, WarmupsAreTheCopiesBeyondTheStandbysOnTheClientsFurthestBehind) {
  // 0_0 has two copies with one standby configured: the one on c (lag 800, not caught up with an
  // acceptable lag of 100) is the warmup, the one on b (lag 20) the standby.
  const TaskId t{0, 0};
  constexpr const char* kC = "0f1d2c3b-4a59-4e6f-8a7b-9c0d1e2f3a4b";
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  s.acceptable_recovery_lag = 100;
  const auto r = reconstruct(group({client(kA, {t}, {}, {{t, -2}}, {{t, -2}}),
                                    client(kB, {}, {t}, {{t, 980}}, {{t, 20}}), client(kC, {}, {t}, {}, {{t, 1000}})}),
                             s, true);
  ASSERT_EQ(r.kafka.warmups.size(), 1u);
  EXPECT_EQ(r.cluster.clients[r.kafka.warmups[0].client].id, kC);
  ASSERT_EQ(r.kafka.standbys.size(), 1u);
  EXPECT_EQ(r.cluster.clients[r.kafka.standbys[0].client].id, kB);
  // Not given, the standby count is what most tasks with a changelog have, and said as inferred.
  const auto inferred =
      reconstruct(group({client(kA, {t}, {}, {{t, -2}}, {{t, -2}}), client(kB, {}, {t}, {{t, 980}}, {{t, 20}})}), {},
                  /*settings_given=*/false);
  EXPECT_TRUE(inferred.standbys_inferred);
  EXPECT_EQ(inferred.num_standby_replicas, 1u);
  EXPECT_TRUE(inferred.kafka.warmups.empty());
}

TEST(Reconstruct, TheBridgesFallbackLineIsReadFromItsLagsExactly) {
  // The Assignor bridge's fallback runs Kafka's HighAvailabilityTaskAssignor on ClientStates built
  // from lags: its Decided line has no offset sums at all. By hand: 0_0 (lags: a running, b 1000) and
  // 0_1 (a 400, b 100) end at their largest lags, 1000 and 400; a reports -2 for 0_0 and nothing for
  // 0_1 (its lag is the whole sum); b nothing for 0_0 and 400 - 100 = 300 for 0_1.
  const std::string a = client_state(Version::v3_2, "0_0", "", "0_0", "", "", "0_0=-2, 0_1=400", 1, 1);
  const std::string b = client_state(Version::v3_2, "0_1", "0_0", "0_1", "", "", "0_0=1000, 0_1=100", 1, 2);
  const ParsedDecided p = parse_decided_message(
      fmt::format("Decided on assignment: {{{}={}, {}={}}} with no followup probing rebalance.", kA, a, kB, b));
  ASSERT_TRUE(p.rebalance) << p.problem;
  AssignmentSettings s;
  s.num_standby_replicas = 1;
  const Reconstructed r = reconstruct(*p.rebalance, s, true);
  EXPECT_THAT(r.notes, IsEmpty());
  ASSERT_EQ(r.cluster.task_count(), 2u);
  EXPECT_EQ(r.cluster.tasks[0].end_offset_sum, 1000);
  EXPECT_EQ(r.cluster.tasks[1].end_offset_sum, 400);
  ASSERT_EQ(r.cluster.clients[0].offset_sums.size(), 1u);
  EXPECT_EQ(r.cluster.clients[0].offset_sums[0].sum, -2);
  ASSERT_EQ(r.cluster.clients[1].offset_sums.size(), 1u);
  EXPECT_EQ(r.cluster.clients[1].offset_sums[0].task, 1u);
  EXPECT_EQ(r.cluster.clients[1].offset_sums[0].sum, 300);
  // A client that leaves a task's lag out: the lags cannot be read exactly, and the line is refused.
  const std::string partial = client_state(Version::v3_2, "0_1", "0_0", "0_1", "", "", "0_0=1000", 1, 2);
  const ParsedDecided q = parse_decided_message(
      fmt::format("Decided on assignment: {{{}={}, {}={}}} with no followup probing rebalance.", kA, a, kB, partial));
  ASSERT_TRUE(q.rebalance) << q.problem;
  try {
    (void)reconstruct(*q.rebalance, s, true);
    ADD_FAILURE() << "a partial line was read";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("client " + std::string(kB) + " printed lags for 1 of the 2 tasks with lags"));
  }
}

TEST(Reconstruct, TaskIdsSpreadFarApartCostNoTable) {
  // Sub-topologies and partitions up to 65,535 apart: the dense table would be 16 GiB; ids that far
  // apart go to a hash map, and every task is still found.
  std::vector<LoggedClient> clients{client(kA, {}, {}, {}, {}), client(kB, {}, {}, {}, {})};
  for (int i = 0; i < 2000; ++i) {
    const TaskId t{(i * 37) % 65536, 65535 - (i * 101) % 65536};
    clients[static_cast<std::size_t>(i % 2)].active.push_back(t);
    clients[0].lags.emplace_back(t, i % 2 == 0 ? -2 : 10);
    clients[1].lags.emplace_back(t, i % 2 == 1 ? -2 : 10);
  }
  const auto r = reconstruct(group(clients), {}, true);
  EXPECT_EQ(r.cluster.task_count(), 2000u);
  EXPECT_EQ(r.kafka.actives.size(), 2000u);
  for (const auto& task : r.cluster.tasks) EXPECT_EQ(task.end_offset_sum, 10);
}

}  // namespace
}  // namespace assignor::host
