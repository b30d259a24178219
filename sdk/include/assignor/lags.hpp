// Lag normalisation and the ranked-candidate model (DESIGN section 2).
//
// For client c and stateful task t, with E = the task's end-offset sum (logged stores only):
//   reported -2            -> running: caught up, ranked ahead of everything else
//   not reported           -> lag E (restore from scratch)
//   reported > E, or < 0   -> suspect local state: lag E, and a warning naming client and task
//   otherwise              -> lag E - reported
// When the cluster's end offsets are unknown every lag that is not "running" is Unknown: a distinct
// state that never sorts ahead of a real lag. Stateless tasks have no lag and no candidates.
//
// Storage is sparse so that 100k tasks x 1,000 clients fits in memory: per task, only the clients
// whose lag differs from the default (E, or Unknown) are stored; every other client is implicit.
//
//   assignor::LagModel lags(cluster, settings);
//   for (ClientIndex c : lags.ranked(t)) { ... }        // best candidate first
//   if (lags.caught_up(t, c)) { ... }
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "assignor/model.hpp"
#include "assignor/settings.hpp"

namespace assignor {

enum class LagKind : std::uint8_t { running, known, unknown };

struct Lag {
  LagKind kind = LagKind::unknown;
  std::int64_t offsets = 0;  // meaningful only for LagKind::known

  static constexpr Lag running() noexcept { return {LagKind::running, 0}; }
  static constexpr Lag known(std::int64_t v) noexcept { return {LagKind::known, v}; }
  static constexpr Lag unknown() noexcept { return {LagKind::unknown, 0}; }
  friend constexpr bool operator==(const Lag&, const Lag&) = default;
};

// "Is a strictly better candidate than": running < known (by value) < unknown.
bool less_lag(const Lag& a, const Lag& b) noexcept;

struct LagWarning {
  TaskIndex task;
  ClientIndex client;
  std::int64_t reported;
  std::int64_t end_offset_sum;
  std::string message;  // names client and task
};

class LagModel;

// Every client in rank order for one task (DESIGN 2): running clients first, then the caught-up
// ones, then the rest by increasing lag; ties by client index. A forward range of ClientIndex.
// Its iterators hold what they need (spans into the LagModel's storage, never a pointer to the
// range object), so one taken from a temporary range stays valid while the LagModel lives.
class RankedCandidates {
 public:
  class iterator {
   public:
    using value_type = ClientIndex;
    using difference_type = std::ptrdiff_t;
    ClientIndex operator*() const noexcept { return current_; }
    iterator& operator++() noexcept;
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    // Iterators of one range compare by how many clients they have passed.
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.emitted_ == b.emitted_; }

   private:
    friend class RankedCandidates;
    friend class LagModel;
    ClientIndex next_implicit(ClientIndex from) const noexcept;
    void advance() noexcept;
    std::span<const ClientIndex> ranked_;     // stored clients in rank order
    std::span<const ClientIndex> by_client_;  // the same clients sorted by index
    std::size_t running_ = 0;                 // ranked_[0, running_): running
    std::size_t caught_ = 0;                  // ranked_[running_, caught_): caught up, by index
    bool implicit_caught_up_ = false;         // the other clients (lag = end-offset sum) are caught up
    ClientIndex clients_ = 0;
    std::size_t limit_ = 0;     // how many clients the range yields
    std::size_t emitted_ = 0;   // how many were yielded before current_
    std::size_t pos_ = 0;       // next stored entry
    ClientIndex implicit_ = 0;  // next client to consider for the implicit ones
    ClientIndex current_ = kNoClient;
  };

  iterator begin() const noexcept;
  iterator end() const noexcept;
  std::size_t size() const noexcept { return limit_; }

 private:
  friend class LagModel;
  iterator first_;  // begin(), fully set up
  std::size_t limit_ = 0;
};

class LagModel {
 public:
  LagModel() = default;
  // Normalises every client's reported offset sums. Warnings (suspect state) are kept and also
  // logged through the host's logger.
  LagModel(const Cluster& cluster, const AssignmentSettings& settings);

  Lag lag(TaskIndex task, ClientIndex client) const noexcept;
  bool caught_up(TaskIndex task, ClientIndex client) const noexcept;

  // The lag as a number: the offsets `client` must restore before it can run `task` (0 when it is
  // running it, and for a stateless task); nullopt when the end offsets are unknown.
  //   std::sort(cs.begin(), cs.end(), [&](ClientIndex a, ClientIndex b) {
  //     return lags.offsets_behind(t, a).value_or(INT64_MAX) < lags.offsets_behind(t, b).value_or(INT64_MAX); });
  std::optional<std::int64_t> offsets_behind(TaskIndex task, ClientIndex client) const noexcept;
  // Whether `client` has state of `task` that saves restoring: it runs it, or (end offsets known)
  // its lag is below a restore from scratch. A client that reported nothing, 0, or a suspect sum
  // has none; with unknown end offsets only running clients are known to have state. ranked(task)
  // lists the clients with state before every other.
  bool has_state(TaskIndex task, ClientIndex client) const noexcept;

  // True when every client is caught up on the task (its end-offset sum is within the acceptable
  // lag, e.g. a task whose stores are all non-logged). Such a task never needs warmups.
  bool everyone_caught_up(TaskIndex task) const noexcept;

  // The clients caught up on a task, in rank order: the first caught_up_count(task) of ranked(task)
  // (every client when everyone_caught_up(task)).
  RankedCandidates caught_up_clients(TaskIndex task) const noexcept;
  std::size_t caught_up_count(TaskIndex task) const noexcept;

  RankedCandidates ranked(TaskIndex task) const noexcept;

  bool end_offsets_known() const noexcept { return end_offsets_known_; }
  std::int64_t acceptable_recovery_lag() const noexcept { return acceptable_; }
  const std::vector<LagWarning>& warnings() const noexcept { return warnings_; }

 private:
  struct Entry {
    ClientIndex client;
    Lag lag;
  };
  std::span<const Entry> entries_by_client(TaskIndex task) const noexcept;
  Lag default_lag(TaskIndex task) const noexcept;
  RankedCandidates range(TaskIndex task, std::size_t limit) const noexcept;

  bool end_offsets_known_ = true;
  std::int64_t acceptable_ = 0;
  std::size_t client_count_ = 0;
  std::vector<std::int64_t> end_sum_;       // per task
  std::vector<std::uint8_t> stateful_;      // per task
  std::vector<std::uint32_t> offsets_;      // CSR offsets, size tasks + 1
  std::vector<Entry> by_client_;            // explicit entries sorted by client within a task
  std::vector<ClientIndex> ranked_;         // explicit clients in rank order within a task
  std::vector<ClientIndex> ranked_sorted_;  // explicit clients by index (for the implicit tail)
  std::vector<std::uint32_t> caught_up_n_;  // per task: explicit caught-up entries (a rank prefix)
  std::vector<std::uint32_t> running_n_;    // per task: explicit running entries (a rank prefix)
  std::vector<LagWarning> warnings_;
};

}  // namespace assignor
