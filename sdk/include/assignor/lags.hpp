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

// Every client in rank order for one task: the stored (explicit) entries first, in rank order, then
// the implicit clients (default lag) by client index. A forward range of ClientIndex.
class RankedCandidates {
 public:
  class iterator {
   public:
    using value_type = ClientIndex;
    using difference_type = std::ptrdiff_t;
    ClientIndex operator*() const noexcept;
    iterator& operator++() noexcept;
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.explicit_pos_ == b.explicit_pos_ && a.implicit_next_ == b.implicit_next_;
    }

   private:
    friend class RankedCandidates;
    void skip_explicit() noexcept;
    const RankedCandidates* owner_ = nullptr;
    std::size_t explicit_pos_ = 0;   // index into ranked entries while < size
    ClientIndex implicit_next_ = 0;  // next client index for the implicit tail
  };

  iterator begin() const noexcept;
  iterator end() const noexcept;
  std::size_t size() const noexcept { return client_count_; }

 private:
  friend class LagModel;
  std::span<const ClientIndex> ranked_;     // explicit clients in rank order
  std::span<const ClientIndex> by_client_;  // the same clients sorted by index
  std::size_t client_count_ = 0;
};

class LagModel {
 public:
  LagModel() = default;
  // Normalises every client's reported offset sums. Warnings (suspect state) are kept and also
  // logged through the host's logger.
  LagModel(const Cluster& cluster, const AssignmentSettings& settings);

  Lag lag(TaskIndex task, ClientIndex client) const noexcept;
  bool caught_up(TaskIndex task, ClientIndex client) const noexcept;

  // True when every client is caught up on the task (its end-offset sum is within the acceptable
  // lag, e.g. a task whose stores are all non-logged). Such a task never needs warmups.
  bool everyone_caught_up(TaskIndex task) const noexcept;

  // The clients caught up on a task, in rank order. Only meaningful when !everyone_caught_up(task):
  // then every caught-up client is an explicit entry, so this span is complete.
  std::span<const ClientIndex> caught_up_clients(TaskIndex task) const noexcept;
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
  std::vector<LagWarning> warnings_;
};

}  // namespace assignor
