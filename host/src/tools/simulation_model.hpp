// The simulation's model of a group between rebalances, shared by its parts: the timeline
// (simulation_timeline.cpp: the events as steps in time, and what each does to the group), the
// round model (simulation_state.cpp: what an assignment does to the group's offsets and what it
// costs) and the engine (simulation.cpp: the rounds, the protocol's follow-ups, the summary).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "assignor/host/tools/simulation.hpp"

namespace assignor::host::simulation_model {

constexpr std::int64_t kMaxOffset = std::numeric_limits<std::int64_t>::max();

inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return kMaxOffset;
  return out;
}

inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out;
  if (__builtin_add_overflow(a, b, &out)) return std::numeric_limits<std::uint64_t>::max();
  return out;
}

// What happens in the run, in order: the file's events, a restart with down_ms split into the
// client leaving and coming back. Under Kafka's protocol a client that stops without leaving the
// group first `stops` (no rebalance: its copies stop catching up), and the group notices it a
// session timeout later (the steps marked `noticed`).
struct Step {
  SimulationEvent event;
  enum class Phase : std::uint8_t { once, down, up, stops } phase = Phase::once;
  std::int64_t at_ms = 0;       // timed runs: when it happens
  bool noticed = false;         // follows a `stops` step: the session timeout has passed
  std::int64_t noticed_at = 0;  // a `stops` step: when the group notices it
};

std::vector<Step> plan_steps(std::vector<SimulationEvent> events, bool kafka, std::int64_t session_timeout_ms);

// Checks, before round 1, that every event can apply to the group as it will be by then.
void check_events(const Cluster& cluster, const std::vector<Step>& ordered);

// What one assignment costs while it holds (DESIGN 4.6): the task-milliseconds its stateful
// actives spend restoring before they process, and its tasks spend with fewer caught-up standbys
// than they can have, up to the next rebalance and until done; the offsets the copies replay; the
// copies not caught up when it takes effect.
struct AssignmentCost {
  std::int64_t restoring_until_next = 0;
  std::int64_t restoring_in_full = 0;
  std::int64_t under_replicated_until_next = 0;
  std::int64_t under_replicated_in_full = 0;
  std::uint64_t replayed_offsets = 0;
  std::uint64_t restoring_copies = 0;
  std::int64_t slowest_restore_ms = 0;         // with a rate: until the copy furthest behind is caught up
  std::int64_t slowest_active_restore_ms = 0;  // with a rate: until every active has restored
};

// How copies catch up between two rebalances `gap_ms` apart: by `catch_up` offsets (per round),
// fully (neither), or in time at `restore_rate` offsets per second.
struct CatchUp {
  std::optional<std::int64_t> per_round;
  std::optional<std::int64_t> rate;
  std::int64_t gap_ms = 0;
  std::int64_t acceptable = 0;  // acceptable_recovery_lag: caught up at or below it
  // Per client (by ClientIndex), when not empty: its own rate (a timeline's measured rates), and
  // how long it catches up (less than gap_ms when it stops during the interval).
  std::span<const std::int64_t> client_rate;
  std::span<const std::int64_t> client_gap_ms;
  // Per round (no rate): the next rebalance is this one's follow-up, seconds away, not a round of
  // catching up: nothing restores in between.
  bool instant = false;

  CatchUp of_client(ClientIndex c) const {
    CatchUp mine = *this;
    if (!client_rate.empty()) mine.rate = client_rate[c];
    if (!client_gap_ms.empty()) mine.gap_ms = client_gap_ms[c];
    return mine;
  }
};

// The clients as the run knows them: under Kafka's protocol a client restarted with its state
// wiped is a new process, so it comes back under a new id (`c2~1`); events keep naming it as the
// file does.
class Incarnations {
 public:
  const std::string& current(const std::string& named) const {
    const auto it = current_.find(named);
    return it == current_.end() ? named : it->second;
  }
  // A new id for `named`, used by no client the run has seen ("c2~1", "c2~2", ...).
  std::string renew(const std::string& named, const Cluster& state, const std::map<std::string, Client>& away) {
    for (std::uint32_t n = ++count_[named];; n = ++count_[named]) {
      std::string id = fmt::format("{}~{}", named, n);
      if (!state.find_client(id) && away.count(id) == 0 && used_.insert(id).second) return current_[named] = id;
    }
  }
  void forget(const std::string& named) { current_.erase(named); }

 private:
  std::map<std::string, std::string> current_;
  std::map<std::string, std::uint32_t> count_;
  std::set<std::string> used_;
};

// What the group reports after a round: the assignment becomes the history, every task held
// catches up, tasks no longer run are no longer "running". Linear in the assignment plus the
// offset sums on record; also what the assignment costs (AssignmentCost).
AssignmentCost apply_assignment(Cluster& state, const Assignment& assignment,
                                const std::optional<ThreadDistribution>& threads, const CatchUp& round_cu,
                                std::uint32_t standbys_wanted);

void add_new_data(Cluster& state, std::int64_t new_data);

// `end_before` holds each task's end-offset sum before this round's new data: a restarted client
// that was running a task checkpointed it there. `away` holds the clients down for a restart (by
// the id the events give). `renew` (Kafka's protocol): a wiped restart comes back as a new process.
// Returns the step as the round's events show it.
std::string apply_step(Cluster& state, const Step& step, const std::vector<std::int64_t>& end_before,
                       std::map<std::string, Client>& away, Incarnations& incarnations, bool renew);

// After a round that revoked actives (Kafka's protocol): the new owner's thread holds each one as
// a copy, not as an active, until the follow-up rebalance hands it over.
void hold_revoked_as_copies(Cluster& state, const std::vector<Placement>& revoked);

}  // namespace assignor::host::simulation_model
