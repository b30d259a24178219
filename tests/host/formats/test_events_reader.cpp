// The events file of `assignor simulate`: the three kinds with their short and long forms, and a
// precise FILE:LINE:COL message for every mistake.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "../test_files.hpp"
#include "assignor/host/tools/simulation.hpp"

namespace assignor::host {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(EventsReader, ReadsEveryKindInFileOrder) {
  const auto events = parse_events(R"(events:
  - {round: 2, join: {id: c9, threads: 2, rack: r1, tags: {zone: z1}}}
  - {round: 1, leave: c1}
  - round: 4
    restart: {id: c2, keep_state: false}
  - {round: 5, restart: c3}
  - {round: 6, leave: {id: c4}}
  - {round: 7, join: {id: c10}}
)",
                                   "ev.yaml");
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[0].kind, EventKind::join);
  EXPECT_EQ(events[0].round, 2u);
  EXPECT_EQ(events[0].client, "c9");
  EXPECT_EQ(events[0].threads, 2u);
  EXPECT_EQ(events[0].rack, "r1");
  EXPECT_EQ(events[0].tags.at("zone"), "z1");
  EXPECT_EQ(events[0].where, "ev.yaml:2:5");
  EXPECT_EQ(events[1].kind, EventKind::leave);
  EXPECT_EQ(events[1].client, "c1");
  EXPECT_EQ(events[2].kind, EventKind::restart);
  EXPECT_FALSE(events[2].keep_state);
  EXPECT_EQ(events[3].client, "c3");
  EXPECT_TRUE(events[3].keep_state);  // the default
  EXPECT_EQ(events[4].client, "c4");
  EXPECT_EQ(events[5].threads, 1u);
  EXPECT_FALSE(events[5].rack);
  EXPECT_EQ(describe(events[0]), "c9 joins (2 threads, rack r1)");
  EXPECT_EQ(describe(events[2]), "c2 restarts, losing its state");
}

TEST(EventsReader, EmptyListsAreNoEvents) {
  EXPECT_THAT(parse_events("events: []\n", "e.yaml"), IsEmpty());
  EXPECT_THAT(parse_events("events:\n", "e.yaml"), IsEmpty());
}

std::string error_of(const std::string& text) {
  return test::input_error([&] { parse_events(text, "ev.yaml"); });
}

TEST(EventsReader, MistakesNameFileLineColumnAndPlace) {
  EXPECT_EQ(error_of("events:\n  - {round: 1, jion: {id: c9}}\n"),
            "ev.yaml:2:16: events[0]: unknown key 'jion'; did you mean 'join'?");
  EXPECT_EQ(error_of("events:\n  - {round: 0, leave: c1}\n"), "ev.yaml:2:13: events[0]: round: must be >= 1, got 0");
  EXPECT_EQ(error_of("events:\n  - {leave: c1}\n"),
            "ev.yaml:2:5: events[0]: expected 'round' (a rebalance number) or 'at_ms' (a time)");
  EXPECT_EQ(error_of("events:\n  - {round: 1, at_ms: 5, leave: c1}\n"),
            "ev.yaml:2:5: events[0]: 'round' and 'at_ms' in one entry: give one");
  EXPECT_EQ(error_of("events:\n  - {round: 1, leave: c1}\n  - {at_ms: 5, leave: c2}\n"),
            "ev.yaml:3:5: events[1]: the file mixes events by round and events in time (at_ms): give every event one "
            "or the other");
  EXPECT_EQ(error_of("events:\n  - {round: 1, restart: {id: c1, down_ms: 5}}\n"),
            "ev.yaml:2:25: events[0]: restart: down_ms needs an event placed in time (at_ms instead of round)");
  EXPECT_EQ(error_of("events:\n  - {at_ms: 1, leave: []}\n"),
            "ev.yaml:2:23: events[0]: leave: an empty list: name at least one client");
  EXPECT_EQ(error_of("events:\n  - {round: 1}\n"),
            "ev.yaml:2:5: events[0]: expected one of 'join', 'leave' or 'restart'");
  EXPECT_EQ(error_of("events:\n  - {round: 1, leave: c1, restart: c2}\n"),
            "ev.yaml:2:27: events[0]: 'leave' and 'restart' in one entry: write one entry per event");
  EXPECT_EQ(error_of("events:\n  - {round: 1, join: {id: c9, threads: 0}}\n"),
            "ev.yaml:2:40: events[0]: join: threads: must be >= 1, got 0");
  EXPECT_EQ(error_of("events:\n  - {round: 1, join: {threads: 2}}\n"),
            "ev.yaml:2:22: events[0]: join: missing required key 'id'");
  EXPECT_EQ(error_of("events:\n  - {round: 1, restart: {id: c2, keep_state: maybe}}\n"),
            "ev.yaml:2:46: events[0]: restart: keep_state: expected a boolean (true or false), got 'maybe'");

  EXPECT_EQ(error_of("events:\n  - {round: two, leave: c1}\n"),
            "ev.yaml:2:13: events[0]: round: expected an integer, got 'two'");
  EXPECT_EQ(error_of("evnets: []\n"), "ev.yaml:1:1: unknown key 'evnets'; did you mean 'events'?");
  EXPECT_EQ(error_of("events: {round: 1}\n"), "ev.yaml:1:9: events: expected a list, got a map");
  EXPECT_EQ(error_of("- {round: 1, leave: c1}\n"),
            "ev.yaml:1:1: expected a map with an 'events' list at the top level, got a list");
  EXPECT_THAT(error_of(""), HasSubstr("ev.yaml: empty file"));
  EXPECT_THAT(error_of("events: [\n"), HasSubstr("YAML syntax error"));
}

TEST(EventsReader, ReadsFiles) {
  const auto dir = test::test_dir();
  const auto path = test::write_file(dir / "e.yaml", "events:\n  - {round: 3, leave: c1}\n");
  const auto events = read_events_file(path);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].where, path.string() + ":2:5");
  EXPECT_THAT(test::input_error([&] { read_events_file(dir / "missing.yaml"); }), HasSubstr("no such file"));
}

}  // namespace
TEST(EventsReader, EventsInTimeAndSeveralClientsAtOnce) {
  const auto events = parse_events(
      "events:\n  - {at_ms: 180000, restart: {id: c3, down_ms: 60000}}\n"
      "  - {at_ms: 600000, join: [{id: c10, threads: 2}, {id: c11}]}\n  - {at_ms: 900000, leave: [c4, c5]}\n",
      "ev.yaml");
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].at_ms, 180000);
  EXPECT_EQ(events[0].down_ms, 60000);
  EXPECT_EQ(events[0].round, 0u);
  EXPECT_EQ(describe(events[0]), "c3 restarts, down for 60 s, keeping its state");
  EXPECT_EQ(events[1].client, "c10");
  EXPECT_EQ(events[1].threads, 2u);
  EXPECT_EQ(events[2].client, "c11");
  EXPECT_EQ(events[2].at_ms, 600000);
  EXPECT_EQ(events[3].kind, EventKind::leave);
  EXPECT_EQ(events[4].client, "c5");
  EXPECT_TRUE(events[4].leaves_group);
}

// leaves_group: false (a kill -9, or Kafka Streams' close() of a dynamic member): only in time.
TEST(EventsReader, ClientsThatStopWithoutLeavingTheGroup) {
  const auto events = parse_events(
      "events:\n  - {at_ms: 1000, leave: {id: c1, leaves_group: false}}\n"
      "  - {at_ms: 2000, restart: {id: c2, down_ms: 20000, keep_state: false, leaves_group: false}}\n"
      "  - {at_ms: 3000, leave: [{id: c3, leaves_group: false}, c4]}\n",
      "ev.yaml");
  ASSERT_EQ(events.size(), 4u);
  EXPECT_FALSE(events[0].leaves_group);
  EXPECT_EQ(describe(events[0]), "c1 stops without leaving the group");
  EXPECT_FALSE(events[1].leaves_group);
  EXPECT_EQ(describe(events[1]), "c2 stops without leaving the group and restarts after 20 s, losing its state");
  EXPECT_FALSE(events[2].leaves_group);
  EXPECT_TRUE(events[3].leaves_group);
  EXPECT_EQ(error_of("events:\n  - {round: 1, leave: {id: c1, leaves_group: false}}\n"),
            "ev.yaml:2:23: events[0]: leave: leaves_group: false needs an event placed in time (at_ms instead of "
            "round): the session timeout is a time");
  EXPECT_EQ(error_of("events:\n  - {round: 1, leave: [{id: c1, leaves_group: false}]}\n"),
            "ev.yaml:2:24: events[0]: leave[0]: leaves_group: false needs an event placed in time (at_ms instead of "
            "round): the session timeout is a time");
  EXPECT_EQ(error_of("events:\n  - {at_ms: 1, leave: {id: c1, leaves_group: 3}}\n"),
            "ev.yaml:2:46: events[0]: leave: leaves_group: expected a boolean (true or false), got '3'");
  EXPECT_EQ(error_of("events:\n  - {at_ms: 1, leave: {id: c1, leave_group: false}}\n"),
            "ev.yaml:2:32: events[0]: leave: unknown key 'leave_group'; did you mean 'leaves_group'?");
}

}  // namespace assignor::host
