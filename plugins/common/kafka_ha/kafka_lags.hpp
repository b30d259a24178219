// Kafka's own view of lags, as HighAvailabilityTaskAssignor sees them.
//
// Kafka computes a raw lag per (client, task with a changelog) in ClientState.computeTaskLags: the
// reported offset sum -2 (running) stays -2, Kafka's "unknown" sentinel -3 stays -3, a sum above the
// task's end-offset sum E gives E (suspect state), no report gives E, anything else E - sum. The
// assignor then uses two views of it:
//   - caught up: lag -2, or 0 <= lag <= acceptable_recovery_lag (everyone when that is INT64_MAX);
//   - "by lag": every client ordered by (raw lag, client id), so -3 sorts ahead of -2 and a client
//     with the same lag as another but a lower id comes first.
// The SDK's LagModel ranks differently (caught-up clients tie, unknown never sorts first), which is
// the better rule for our own strategies but not Kafka's; this class is the exact Kafka rule.
//
// Storage is sparse like LagModel's: per task only the clients whose lag differs from E are stored
// (sorted by client for lookups and by lag for walks); every other client has lag E.
#pragma once

#include <assignor/model.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace assignor::plugins::kafka_ha {

// Kafka's sentinel offset sum for "unknown" (SubscriptionInfo.UNKNOWN_OFFSET_SUM).
inline constexpr std::int64_t kUnknownOffsetSum = -3;

class KafkaLags {
 public:
  KafkaLags(const Cluster& cluster, std::int64_t acceptable_recovery_lag);

  // Only for tasks with a logged store (Kafka's stateful tasks).
  std::int64_t lag(TaskIndex t, ClientIndex c) const noexcept;
  bool caught_up(TaskIndex t, ClientIndex c) const noexcept { return caught_up_lag(lag(t, c)); }
  std::size_t caught_up_count(TaskIndex t) const noexcept;

  // Calls fn(c) for every caught-up client of t, in no particular order.
  template <class Fn>
  void for_each_caught_up(TaskIndex t, Fn&& fn) const {
    if (implicit_caught_up(t)) {
      for (ClientIndex c = 0; c < clients_; ++c)
        if (caught_up(t, c)) fn(c);
      return;
    }
    for (const Entry& e : by_lag(t))
      if (caught_up_lag(e.lag)) fn(e.client);
  }

  // The first client in Kafka's by-lag order.
  ClientIndex most_caught_up(TaskIndex t) const noexcept;

  // Kafka's mostCaughtUpEligibleClient: the first client in by-lag order that satisfies `ok`,
  // looking only at the clients ahead of `stop`; kNoClient when `stop` comes first.
  template <class Pred>
  ClientIndex first_ahead_of(TaskIndex t, ClientIndex stop, Pred&& ok) const {
    for (const Entry& e : by_lag(t)) {  // every stored lag is below E: they all come first
      if (e.client == stop) return kNoClient;
      if (ok(e.client)) return e.client;
    }
    const auto stored = by_client(t);
    std::size_t next_stored = 0;
    for (ClientIndex c = 0; c < clients_; ++c) {  // then the clients at lag E, by id
      while (next_stored < stored.size() && stored[next_stored].client < c) ++next_stored;
      if (next_stored < stored.size() && stored[next_stored].client == c) continue;
      if (c == stop) return kNoClient;
      if (ok(c)) return c;
    }
    return kNoClient;
  }

 private:
  struct Entry {
    std::int64_t lag;
    ClientIndex client;
  };
  std::span<const Entry> by_lag(TaskIndex t) const noexcept {
    return {by_lag_.data() + offsets_[t], offsets_[t + 1] - offsets_[t]};
  }
  std::span<const Entry> by_client(TaskIndex t) const noexcept {
    return {by_client_.data() + offsets_[t], offsets_[t + 1] - offsets_[t]};
  }
  bool caught_up_lag(std::int64_t lag) const noexcept;
  bool implicit_caught_up(TaskIndex t) const noexcept { return caught_up_lag(end_sum_[t]); }

  std::int64_t acceptable_;
  ClientIndex clients_;
  std::vector<std::int64_t> end_sum_;         // per task
  std::vector<std::uint32_t> offsets_;        // CSR, size tasks + 1
  std::vector<Entry> by_client_;              // stored entries of a task, sorted by client
  std::vector<Entry> by_lag_;                 // the same, sorted by (lag, client)
  std::vector<std::uint32_t> stored_caught_;  // per task: stored entries that are caught up
};

}  // namespace assignor::plugins::kafka_ha
