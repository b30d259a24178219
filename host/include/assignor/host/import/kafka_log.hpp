// Reading the rebalances a Kafka Streams group leader logged (DESIGN 4.7).
//
// At every rebalance the leader's HighAvailabilityTaskAssignor logs, at INFO, its whole input and
// its decision on one line (Kafka 2.6 to 4.x, classic protocol):
//
//   Decided on assignment: {<process uuid>=[activeTasks: ([0_0, 1_2]) standbyTasks: ([0_1])
//   prevActiveTasks: ([0_0]) prevStandbyTasks: ([]) changelogOffsetTotalsByTask: ([0_0=-2, 0_1=4411])
//   taskLagTotals: ([0_0=-2, 0_1=590]) clientTags: ([]) capacity: 4 assigned: 3], ...} with followup
//   probing rebalance.
//
// ClientState.toString has three shapes: 2.6 (with prevOwnedPartitionsByConsumerId after
// prevStandbyTasks), 2.7 to 3.1 (without it), 3.2 on (clientTags after taskLagTotals). The end is
// " with followup probing rebalance." or " with no followup ..." (and, in code Kafka never
// released, " with  followup ..."). find_decided_line() finds the message in any common layout
// (log4j, logback/Spring Boot, container prefixes, JSON lines with the message in a field);
// parse_decided_message() reads it; reconstruct() turns it into the cluster file that was the input
// and the assignment Kafka decided. Every step that cannot read something says what and where:
// nothing is guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"
#include "assignor/task_id.hpp"

namespace assignor::host {

// One client of a Decided line, as Kafka printed it.
struct LoggedClient {
  std::string process;                  // the process UUID (the map's key)
  std::vector<TaskId> active, standby;  // Kafka's decision (standby holds the warmups too)
  std::vector<TaskId> previous_active, previous_standby;
  std::vector<std::pair<TaskId, std::int64_t>> offset_sums;  // changelogOffsetTotalsByTask
  std::vector<std::pair<TaskId, std::int64_t>> lags;         // taskLagTotals
  std::vector<std::pair<std::string, std::string>> tags;     // clientTags (3.2 on)
  std::uint32_t capacity = 0;                                // threads
};

struct LoggedRebalance {
  std::string variant;  // "2.6", "2.7-3.1" or "3.2+": which ClientState.toString printed it
  bool probing = false;
  std::vector<LoggedClient> clients;  // in the order printed (Kafka's)
};

// Where a Decided line was found in one line of a log, in any layout: its message (JSON-decoded
// when the line is a JSON object), the timestamp the layout gave the line, and the instance that
// wrote it (a container prefix such as "app_1  | ", or a JSON field), if any.
struct DecidedLine {
  std::string message;                  // from "Decided on assignment: " to the end of the message
  std::string timestamp;                // as printed, "" when the line has none
  std::optional<std::int64_t> time_ms;  // the timestamp as ms since 1970 (UTC when no zone is given)
  std::string instance;
};

// nullopt when the line holds no Decided message. Throws nothing; a JSON line that does not parse
// is searched as text.
std::optional<DecidedLine> find_decided_line(std::string_view line);

// "StreamsConfig values: " dumps (every Kafka Streams application logs one at start-up): the
// `key = value` entries of one line (a JSON message holds the whole dump; a text layout has one
// entry per line, starting with a tab). Only the assignment settings are kept.
bool starts_streams_config_dump(std::string_view line) noexcept;
std::vector<std::pair<std::string, std::string>> streams_config_entries(std::string_view text);

// Parses a Decided message; on failure returns the reason ("cut: no 'followup probing rebalance.'
// at its end", "unsupported: no lags (taskLagTotals), ...", "unknown ClientState variant: ...").
struct ParsedDecided {
  std::optional<LoggedRebalance> rebalance;
  std::string problem;
};
ParsedDecided parse_decided_message(std::string_view message);

// Kafka's assignment settings from Kafka Streams properties (`num.standby.replicas` ...,
// `rack.aware.assignment.tags`); unknown keys are ignored (a properties file holds many others).
// Throws InputError naming the key and value when a value is not what Kafka accepts.
struct StreamsSettings {
  AssignmentSettings settings;
  std::vector<std::string> given;  // the assignment keys that were set
};
void apply_streams_property(StreamsSettings& out, const std::string& key, const std::string& value,
                            const std::string& where);
StreamsSettings read_streams_properties(const std::string& path);

// What one rebalance was: the cluster file that was Kafka's input (clients = process ids, threads
// = capacity, previous tasks and offset sums as reported, stateful = the tasks with lags, each
// one's end-offset sum recovered from a client's offset sum and lag), and Kafka's decision with its
// warmups told apart from the standbys. Notes say what could not be recovered exactly.
struct Reconstructed {
  Cluster cluster;
  Assignment kafka;
  std::uint32_t num_standby_replicas = 0;  // used to tell warmups apart (given, or inferred)
  bool standbys_inferred = false;          // not given: the copy count most logged tasks have
  std::size_t warmups_by_lag = 0;          // warmups chosen by lag among more candidates than warmups
  std::vector<std::string> notes;
};
// `settings_given`: the standby count comes from the user (properties or the log's dump); else it
// is inferred from the decision when Kafka's default (0) cannot explain the copies.
// `corrupt_ends`: end-offset sums from Kafka's own warnings before the line ("Task 0_3 had
// endOffsetSum=E smaller than offsetSum=O on member ..."): the one case where a lag is the whole
// end-offset sum; without such a warning a client's lag and offset sum add up to it.
Reconstructed reconstruct(const LoggedRebalance& logged, const AssignmentSettings& settings, bool settings_given,
                          const std::vector<std::pair<TaskId, std::int64_t>>& corrupt_ends = {});

// Kafka's warning that a client's offset sum is above a task's end-offset sum: (task, end), or
// nullopt when the line is not one.
std::optional<std::pair<TaskId, std::int64_t>> corrupt_end_warning(std::string_view line);

}  // namespace assignor::host
