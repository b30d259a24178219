// Rounds of rebalancing until the group converges (`assignor simulate`, DESIGN 4.6).
//
// Round k: run the strategy on the cluster state (run_assignment, with the config's fallback);
// apply the assignment; every task a client holds catches up (by `catch_up` offsets per round,
// fully by default, or in time: `restore_rate` offsets per second until the next rebalance);
// `new_data` offsets arrive on every changelog; the events of round k apply. What the next
// round sees, per client:
//   previous_active / previous_standby  the assignment just made (warmups count as standbys), and
//                                       its per-thread split as previous_by_thread;
//   offset sums                         -2 for an active that is fully restored (it is running);
//                                       end - remaining lag for a standby, a warmup or an active
//                                       still restoring; a task it stopped running keeps the
//                                       offsets it had (it falls behind as new data arrives).
// Unknown end offsets (end_offsets_known: false) hold for round 1 only: the probing rebalance that
// round asks for finds them.
//
// Time: round k's rebalance costs `rebalance_ms`, then its assignment holds until the next one:
// at once when round k has events (a join or leave triggers a rebalance), after the probing
// interval it asked for otherwise (a round that asked for none is followed after the config's
// probing interval, the events file counting in rounds). Events placed in time (`at_ms`) trigger a
// rebalance when they happen: the next round starts at the earlier of the probing interval and the
// next event (an event during a rebalance applies right after it; events due together apply
// together). A restart with `down_ms` is a leave at `at_ms` and a rejoin `down_ms` later, with the
// state the client had (behind by the data that arrived), or none without keep_state. Copies
// restore only between rebalances.
//
// Balanced (is_balanced): stateful_load_spread, active_load_spread and the per-thread load each
// within one task, and no restoring active. The group converges when a round is balanced, needs no
// probing rebalance, has no stale standby (every standby caught up: fully replicated), and no
// event is still to come. A round that repeats the previous assignment with nothing left to catch
// up, needs no probing and has not converged ends the run as stalled; reaching max_rounds ends it
// with max_rounds_reached. Both are warnings on stderr.
// Under Kafka's protocol a round that needs no probing, revokes nothing and has no event after it
// is the last: nothing triggers another rebalance. The group has converged if that assignment is
// balanced once its copies behind (stale standbys, restoring actives) caught up, which they do
// without a rebalance: time_to_converged_ms is then the round's at_ms plus, in time, the slowest
// copy's restore. Otherwise it stays as it is: stalled.
//
// Kafka's protocol in time (Protocol::kafka, the default; DESIGN 4.6), as a Kafka Streams group
// on the classic cooperative protocol plays it:
//   follow-up  an assignment that takes an active task away from a client still in the group that
//              ran it is followed at once by another rebalance (the revoked task can be handed over
//              only once its owner released it); until then the new owner holds it as a standby,
//              as Kafka's StreamsPartitionAssignor gives it ("before it is revoked");
//   probing    a probing rebalance comes probing_after_ms after the rebalance that asked for it;
//              with neither, the next rebalance is the next event's (events in time);
//   session    a client that stops without leaving the group (leaves_group: false) keeps its
//              place until session_timeout_ms later: no rebalance completes before then (the
//              group waits for it), its copies stop catching up when it stops;
//   identity   a client restarted with its state wiped is a new process: it comes back under a
//              new id ("c2~1"), as Kafka Streams gives a process with an empty state directory.
// One round is one rebalance, so rounds count what a real group's log shows. Protocol::rounds is
// the model before (no follow-up; a rebalance every probing interval while events are to come;
// same id after a wiped restart): Kafka's own convergence tests count rounds this way.
//
//   SimulationOptions options;
//   options.events = read_events_file("examples/events/add-node.yaml");
//   SimulationResult r = simulate(registry, config, read_cluster_file("cluster.yaml"), options);
//   if (r.summary.converged) ...
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/formats/events.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/metrics.hpp"
#include "assignor/model.hpp"

namespace assignor::host {

struct SimulationRound {
  std::uint32_t round = 0;
  std::string strategy;  // whose assignment it is (the fallback's, when it was used)
  bool used_fallback = false;
  std::size_t clients = 0;
  Metrics metrics;
  bool probing_rebalance = false;
  std::int64_t probing_after_ms = 0;
  bool balanced = false;
  double assign_ms = 0;
  std::vector<std::string> events;  // described, applied at the end of this round
  // Why this rebalance happened: "start" (round 1), "events", "follow-up" (the previous round
  // revoked tasks), "probing", or "interval" (events by round: the next round after a probing
  // interval with none asked for).
  std::string cause = "start";
  // Kafka's protocol: actives this assignment takes from a client still in the group that ran
  // them; when any, the next rebalance follows at once (follow-up).
  std::uint64_t revoked = 0;
  std::int64_t at_ms = 0;  // when this round's assignment takes effect (t = 0: round 1 starts)
  // With a restore rate: the task-milliseconds stateful actives of this assignment spent restoring
  // before they could process, up to the next rebalance (the last round: until restored).
  std::optional<std::int64_t> restoring_task_ms;
  // Offsets the copies that were behind restored from changelogs until the next rebalance.
  std::uint64_t replayed_offsets = 0;
  // Copies (active, standby or warmup of a task with a changelog) not caught up when this
  // assignment takes effect: each has a restore to do.
  std::uint64_t restoring_copies = 0;
  // Task-milliseconds with fewer caught-up standbys than the task can have (num_standby_replicas,
  // at most clients - 1), up to the next rebalance (the last round, with a restore rate: until
  // fully replicated).
  std::int64_t under_replicated_task_ms = 0;
  // Standby and warmup copies placed on a client that held no copy of the task before.
  std::uint64_t standby_moves = 0;
  // With a restore rate: ms from this assignment taking effect until its copy furthest behind is
  // caught up (0: none is behind). A lower bound on the simulated time still to come.
  std::optional<std::int64_t> slowest_restore_ms;
};

using Protocol = SimulationProtocol;  // kafka, rounds (config_reader.hpp)

struct SimulationOptions {
  std::string strategy;                 // empty: the config's strategy
  Protocol protocol = Protocol::kafka;  // Kafka's protocol in time, or rounds only (above)
  // Kafka's protocol: how long a client that stopped without leaving keeps its place (>= 1).
  std::int64_t session_timeout_ms = 45000;
  std::uint32_t max_rounds = 1000;       // >= 1 (DESIGN 4.3: 1000 wherever a simulation runs)
  std::optional<std::int64_t> catch_up;  // offsets per round per task held; nullopt: fully
  // Offsets per second each copy restores (>= 1): catch-up in time instead of per round. Exclusive
  // with catch_up.
  std::optional<std::int64_t> restore_rate;
  std::int64_t rebalance_ms = 0;  // cost of one rebalance, >= 0
  std::int64_t new_data = 0;      // offsets per round on every changelog
  std::vector<SimulationEvent> events;
  std::function<void(const SimulationRound&)> on_round;  // after each round, for streaming
  // Offsets per second per copy on named clients (a timeline measured from a log), instead of
  // restore_rate there; clients not named restore at restore_rate. Needs restore_rate.
  std::map<std::string, std::int64_t> client_restore_rates;
  // Each round's decision on the state it was made for (replay --in-time compares it with Kafka's).
  std::function<void(std::uint32_t round, const Cluster& state, const Assignment& decided)> on_decision;
};

struct SimulationSummary {
  std::string strategy;
  bool converged = false;
  bool stalled = false;
  std::uint32_t rounds = 0;
  std::uint64_t active_moves = 0;  // totals over the rounds
  std::uint64_t restore_offsets = 0;
  std::uint64_t warmups = 0;
  std::uint32_t probing_rounds = 0;  // rounds that asked for a probing rebalance
  // The first round whose assignment is balanced, counted after the last event that changed the
  // group (a balance before a client joined says nothing about the group it joined).
  std::optional<std::uint32_t> first_balanced_round;
  std::optional<std::int64_t> time_to_balanced_ms;   // at_ms of first_balanced_round
  std::optional<std::int64_t> time_to_converged_ms;  // at_ms of the last round, when converged
  std::optional<std::int64_t> restoring_task_ms;     // sum over the rounds, with a restore rate
  std::int64_t under_replicated_task_ms = 0;         // sum over the rounds
  std::uint64_t replayed_offsets = 0;                // sum over the rounds: the restore traffic
  std::uint64_t peak_restoring_copies = 0;           // the most copies restoring at one round
  bool max_rounds_reached = false;                   // ended at max_rounds, neither converged nor stalled
  std::uint32_t followup_rounds = 0;                 // Kafka's protocol: rounds that were follow-ups
};

struct SimulationResult {
  std::vector<SimulationRound> rounds;
  SimulationSummary summary;
  Cluster final_state;  // what the next round would see: after the last round and its events
};

// The time model of a config's `simulation:` section (restore rate, rebalance cost, protocol,
// session timeout), every other option at its default: what simulate, compare --simulate and
// sweep start from before their command-line options.
SimulationOptions simulation_options(const Config& config);

// Balanced: stateful_load_spread <= 1, active_load_spread <= 1, thread_load_spread (when known)
// <= 1 and no restoring active.
bool is_balanced(const Metrics& metrics) noexcept;
// The same spreads, whatever restores: what the assignment is once its restoring actives caught up.
bool is_balanced_once_restored(const Metrics& metrics) noexcept;
// Converged: balanced, no probing rebalance wanted and no stale standby.
bool is_converged(const Metrics& metrics, bool probing_rebalance) noexcept;

// Throws InputError for bad options or events that cannot apply (a join of a client already in the
// group, a leave or restart of one that is not, the last client leaving), before round 1;
// PluginError / AssignmentFailed as run_assignment does (the rounds done so far were reported
// through on_round).
SimulationResult simulate(const PluginRegistry& registry, const Config& config, Cluster cluster,
                          const SimulationOptions& options);

// A round's JSON line and the summary line (DESIGN 4.6), keys in its order (record_json.hpp):
// `ordered_json j = round;`. The summary back (results crossing a process boundary: compare --jobs,
// sweep): `j.get<SimulationSummary>()`, a missing key keeping its default.
void to_json(nlohmann::ordered_json& j, const SimulationRound& round);
void to_json(nlohmann::ordered_json& j, const SimulationSummary& summary);
void from_json(const nlohmann::json& j, SimulationSummary& summary);

}  // namespace assignor::host
