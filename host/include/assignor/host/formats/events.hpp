// The events of a simulation (`--events`, DESIGN 4.6): clients that join, leave or restart, by
// round or in time. A file format like the others: read and checked here, played by the simulator
// (tools/simulation.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assignor/host/formats/limits.hpp"

namespace assignor::host {

enum class EventKind { join, leave, restart };

// One event of the --events file; it applies at the end of round `round` (>= 1), or at `at_ms`.
struct SimulationEvent {
  std::uint32_t round = 1;              // 0 for an event placed in time
  std::optional<std::int64_t> at_ms;    // placed in time instead of a round
  std::optional<std::int64_t> down_ms;  // restart: how long the client is gone (needs at_ms)
  EventKind kind = EventKind::join;
  std::string client;
  std::uint32_t threads = 1;                // join
  std::optional<std::string> rack;          // join
  std::map<std::string, std::string> tags;  // join
  bool keep_state = true;                   // restart: keep the offset sums on disk, or lose them
  // leave, restart (in time, Kafka's protocol): false when the client stops without leaving the
  // group (kill -9, or Kafka Streams' close() of a dynamic member): noticed after the session timeout.
  bool leaves_group = true;
  std::string where;  // "FILE:LINE:COL" of the event, for messages
};

// "c9 joins (2 threads, rack r1)", "c1 leaves", "c2 restarts, keeping its state",
// "c1 stops without leaving the group".
std::string describe(const SimulationEvent& event);

// The events file (YAML):
//   events:
//     - {round: 2, join: {id: c9, threads: 2, rack: r1}}
//     - {round: 3, leave: c1}
//     - {round: 4, restart: {id: c2, keep_state: false}}
//     - {at_ms: 180000, restart: {id: c3, down_ms: 60000}}     # in time
//     - {at_ms: 600000, join: [{id: c10}, {id: c11}]}          # several at once
//     - {at_ms: 900000, leave: [c4, c5]}
// Checked strictly like the other readers: InputError "FILE:LINE:COL: events[i]: problem" for
// unknown keys (with the nearest known key), wrong types, round < 1, threads < 1 or above
// limits.max_threads_per_client, more clients or threads joining in all than limits.max_clients and
// limits.max_total_threads, ids longer than limits.max_id_length, times past 2^40 ms, an
// event with no or several kinds, both or neither of round and at_ms, a file mixing rounds and
// times, down_ms without at_ms. The file is read within limits.max_file_mb. Events come back in
// file order (a list of clients as one event each).
std::vector<SimulationEvent> read_events_file(const std::filesystem::path& path, const InputLimits& limits = {});
std::vector<SimulationEvent> parse_events(std::string_view text, const std::string& source_name,
                                          const InputLimits& limits = {});

// The latest time an event may be placed at (~35 years): sums of times stay exact.
inline constexpr std::int64_t kMaxEventMs = std::int64_t{1} << 40;

}  // namespace assignor::host
