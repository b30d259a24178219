#include "kafka_ha/kafka_lags.hpp"

#include <algorithm>
#include <limits>

namespace assignor::plugins::kafka_ha {

namespace {

// ClientState.computeTaskLags for a reported offset sum. Negative sums other than Kafka's two
// sentinels never reach Kafka's leader (the client refuses to send them); the cluster-file contract
// reads them as suspect state, which is lag E here too.
std::int64_t raw_lag(std::int64_t reported, std::int64_t end_sum) noexcept {
  if (reported == kRunningOffsetSum || reported == kUnknownOffsetSum) return reported;
  if (reported < 0 || reported > end_sum) return end_sum;
  return end_sum - reported;
}

}  // namespace

KafkaLags::KafkaLags(const Cluster& cluster, std::int64_t acceptable_recovery_lag)
    : acceptable_(acceptable_recovery_lag), clients_(static_cast<ClientIndex>(cluster.client_count())) {
  const std::size_t n = cluster.task_count();
  end_sum_.resize(n);
  for (TaskIndex t = 0; t < n; ++t) end_sum_[t] = cluster.tasks[t].end_offset_sum;
  auto stored = [&](const OffsetSum& r) {
    return cluster.tasks[r.task].has_logged_store && raw_lag(r.sum, end_sum_[r.task]) != end_sum_[r.task];
  };
  offsets_.assign(n + 1, 0);
  for (const Client& client : cluster.clients)
    for (const OffsetSum& r : client.offset_sums)
      if (stored(r)) ++offsets_[r.task + 1];
  for (std::size_t t = 0; t < n; ++t) offsets_[t + 1] += offsets_[t];
  by_client_.resize(offsets_[n]);
  std::vector<std::uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (ClientIndex c = 0; c < clients_; ++c)  // clients in order: each task's entries sorted by client
    for (const OffsetSum& r : cluster.clients[c].offset_sums)
      if (stored(r)) by_client_[fill[r.task]++] = Entry{raw_lag(r.sum, end_sum_[r.task]), c};
  by_lag_ = by_client_;
  stored_caught_.assign(n, 0);
  for (TaskIndex t = 0; t < n; ++t) {
    auto first = by_lag_.begin() + offsets_[t];
    auto last = by_lag_.begin() + offsets_[t + 1];
    if (last - first > 1)  // (lag, client): entries arrive in client order, so this is a stable sort by lag
      std::sort(first, last,
                [](const Entry& a, const Entry& b) { return a.lag != b.lag ? a.lag < b.lag : a.client < b.client; });
    for (auto it = first; it != last; ++it) stored_caught_[t] += caught_up_lag(it->lag) ? 1 : 0;
  }
}

bool KafkaLags::caught_up_lag(std::int64_t lag) const noexcept {
  return lag == kRunningOffsetSum || acceptable_ == std::numeric_limits<std::int64_t>::max() ||
         (lag >= 0 && lag <= acceptable_);
}

std::int64_t KafkaLags::lag(TaskIndex t, ClientIndex c) const noexcept {
  const auto entries = by_client(t);
  auto it =
      std::lower_bound(entries.begin(), entries.end(), c, [](const Entry& e, ClientIndex x) { return e.client < x; });
  return it != entries.end() && it->client == c ? it->lag : end_sum_[t];
}

std::size_t KafkaLags::caught_up_count(TaskIndex t) const noexcept {
  const std::size_t stored = offsets_[t + 1] - offsets_[t];
  return stored_caught_[t] + (implicit_caught_up(t) ? clients_ - stored : 0);
}

ClientIndex KafkaLags::most_caught_up(TaskIndex t) const noexcept {
  if (clients_ == 0) return kNoClient;
  const auto entries = by_lag(t);
  return entries.empty() ? 0 : entries.front().client;
}

}  // namespace assignor::plugins::kafka_ha
