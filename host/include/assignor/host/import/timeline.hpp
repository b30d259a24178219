// The real timeline of a group, rebuilt from an import (DESIGN 4.10): when each rebalance happened
// and why, which processes joined, left, came back or restarted between two rebalances, how fast
// copies restored, and the settings, said as given, measured or assumed. `assignor replay --in-time`
// plays it forward in the simulator.
//
//   auto index = read_import_index("imported/");
//   RealTimeline t = read_timeline("imported/", index, {});
//   t.rebalances_to_converged;   // 24: from the first rebalance to the settled one, inclusive
//   t.events;                    // "+45 s: 6f1c... joins (2 threads)", ...
//
// From the log alone:
//   membership   a process id that appears is a new process (a join; at the same rebalance as one
//                that disappears: a restart with its state wiped, which gives a new process id);
//                one that disappears left (or died and was noticed); one that reappears came back
//                with its state (the id lives in the state directory); one that stays but no longer
//                reports the actives it was given restarted in place, keeping its state. Each event
//                is placed at the rebalance that first shows it.
//   follow-ups   Kafka's decision at a rebalance revokes an active from a process still in the
//                group that ran it: the next rebalance is its follow-up; the median time between
//                the two is the cost of one rebalance (rebalance_ms).
//   probing      the median time from a rebalance that asked for probing to the next one (neither a
//                follow-up nor an event), less rebalance_ms, is the probing interval.
//   restore      per copy held between two logged rebalances: offsets gained over the time between
//                them. A copy still behind at the second restored the whole time (its rate); one
//                caught up by then restored sooner (a lower bound). Per client the median of the
//                copies still behind, else the largest lower bound; overall the median of clients.
//   converged    the first rebalance at or after the last event that asks for no probing and
//                revokes nothing (DESIGN 4.10): rebalances counts from `from` to it, inclusive, and
//                time_to_converged_ms is the time between the two.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/import/importer.hpp"
#include "assignor/model.hpp"

namespace assignor::host {

// A change of the group between two logged rebalances, placed at the later one.
struct TimelineEvent {
  enum class Kind : std::uint8_t { join, leave, back, restart };
  Kind kind = Kind::join;
  std::int64_t at_ms = 0;               // the rebalance that first shows it, since `from`
  std::string rebalance;                // that rebalance's name
  std::string client;                   // the process id
  std::uint32_t threads = 1;            // join, back: the capacity it reported
  std::optional<std::string> replaces;  // join: the process that disappeared at the same rebalance
  std::int64_t gone_ms = 0;             // back: when it disappeared (since `from`)
};
// "6f1c... joins (2 threads, replacing 0a2b...: a restart with its state wiped)".
std::string describe(const TimelineEvent& event);

// One logged rebalance on the timeline.
struct TimelineRebalance {
  std::string name;
  std::string timestamp;
  std::int64_t at_ms = 0;  // since `from`
  std::size_t clients = 0;
  bool probing = false;     // Kafka asked for a probing rebalance
  std::size_t revoked = 0;  // actives Kafka's decision took from a process still here that ran them
  std::uint64_t active_moves = 0, warmups = 0;
  // Why it happened, as far as the log tells: "start" (the first), "events", "follow-up",
  // "probing", or "other" (none of these: a thread replaced, a topic changed, ...).
  std::string cause;
  std::vector<std::string> events;  // described
};

struct TimelineSettings {
  Config config;                   // what the simulations run with
  std::string from;                // where the assignment settings came from (the import's settings_from)
  bool assumed = false;            // Kafka's defaults stand in for the application's settings
  std::vector<std::string> notes;  // each setting measured, inferred or assumed, for stdout and reports
  std::int64_t rebalance_ms = 0;
  bool rebalance_ms_measured = false;
  std::optional<std::int64_t> probing_interval_measured;
  std::int64_t restore_rate = 0;  // offsets per second per copy (median of clients); 0: fully
  bool restore_rate_measured = false;
  std::map<std::string, std::int64_t> client_rates;  // clients with a measured rate
};

struct RealTimeline {
  std::string from;  // the first rebalance of the timeline
  std::string from_timestamp;
  std::vector<TimelineRebalance> rebalances;   // from `from` to the end of the log
  std::vector<TimelineEvent> events;           // in time order
  std::optional<std::size_t> converged_index;  // into `rebalances`
  std::size_t rebalances_to_converged = 0;     // to the converged one, else every one
  std::optional<std::int64_t> time_to_converged_ms;
  std::uint64_t active_moves = 0, warmups = 0;  // Kafka's decisions, to the converged one
  TimelineSettings settings;
  Cluster start;  // the group at `from` (Kafka's input there)
};

struct TimelineOptions {
  std::optional<std::string> from;           // a rebalance name; default the first
  std::optional<Config> config;              // instead of the import's settings (replay's --config)
  std::int64_t default_rebalance_ms = 3000;  // when the log has no follow-up to measure it on
};

// Throws InputError for an unknown --from (naming the nearest), a rebalance without a time, or
// files that do not read.
RealTimeline read_timeline(const std::filesystem::path& dir, const std::vector<ImportedRebalance>& index,
                           const TimelineOptions& options);

// Kafka's decision at one imported rebalance, by process id: the actives and the copies (standby
// and warmup together) of each client, and the probing flag. `same_decision` compares two.
struct DecisionByClient {
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> clients;
  bool probing = false;
};
DecisionByClient decision_by_client(const Cluster& cluster, const Assignment& assignment);
DecisionByClient read_logged_decision(const std::filesystem::path& dir, const std::string& name);
bool same_decision(const DecisionByClient& a, const DecisionByClient& b);

}  // namespace assignor::host
