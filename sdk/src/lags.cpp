#include "assignor/lags.hpp"

#include <algorithm>

#include "assignor/log.hpp"

namespace assignor {

bool less_lag(const Lag& a, const Lag& b) noexcept {
  if (a.kind != b.kind) return static_cast<int>(a.kind) < static_cast<int>(b.kind);
  return a.kind == LagKind::known && a.offsets < b.offsets;
}

LagModel::LagModel(const Cluster& cluster, const AssignmentSettings& settings)
    : end_offsets_known_(cluster.end_offsets_known),
      acceptable_(settings.acceptable_recovery_lag),
      client_count_(cluster.client_count()) {
  const std::size_t n_tasks = cluster.task_count();
  end_sum_.resize(n_tasks);
  stateful_.resize(n_tasks);
  for (TaskIndex t = 0; t < n_tasks; ++t) {
    end_sum_[t] = cluster.tasks[t].end_offset_sum;
    stateful_[t] = cluster.tasks[t].stateful ? 1 : 0;
  }

  // Count the explicit entries per task (reports that differ from the default lag), then fill.
  offsets_.assign(n_tasks + 1, 0);
  auto is_explicit = [&](TaskIndex t, std::int64_t sum) {
    if (!stateful_[t]) return false;
    if (sum == kRunningOffsetSum) return true;
    if (!end_offsets_known_) return false;             // unknown, same as the default
    return sum >= 0 && sum <= end_sum_[t] && sum > 0;  // a lag strictly below the end-offset sum
  };
  for (ClientIndex c = 0; c < client_count_; ++c) {
    for (const auto& report : cluster.clients[c].offset_sums) {
      const Task& task = cluster.tasks[report.task];
      if (task.stateful && report.sum != kRunningOffsetSum && end_offsets_known_ &&
          (report.sum < 0 || report.sum > end_sum_[report.task])) {
        LagWarning w{report.task, c, report.sum, end_sum_[report.task], {}};
        w.message =
            "client '" + cluster.clients[c].id + "' reports offset sum " + std::to_string(report.sum) + " for task " +
            to_string(task.id) +
            (report.sum < 0 ? " (negative)" : " above its end-offset sum " + std::to_string(end_sum_[report.task])) +
            ": its local state is suspect; treating it as a restore from scratch";
        log(LogLevel::warn, w.message);
        warnings_.push_back(std::move(w));
      }
      if (is_explicit(report.task, report.sum)) ++offsets_[report.task + 1];
    }
  }
  for (std::size_t t = 0; t < n_tasks; ++t) offsets_[t + 1] += offsets_[t];
  by_client_.resize(offsets_[n_tasks]);
  std::vector<std::uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  // Clients are visited in index order, so each task's entries come out sorted by client.
  for (ClientIndex c = 0; c < client_count_; ++c) {
    for (const auto& report : cluster.clients[c].offset_sums) {
      if (!is_explicit(report.task, report.sum)) continue;
      const Lag lag = report.sum == kRunningOffsetSum ? Lag::running() : Lag::known(end_sum_[report.task] - report.sum);
      by_client_[fill[report.task]++] = Entry{c, lag};
    }
  }

  // Rank order within each task: running, then caught up (equal rank, by client), then by lag.
  ranked_.resize(by_client_.size());
  ranked_sorted_.resize(by_client_.size());
  caught_up_n_.assign(n_tasks, 0);
  running_n_.assign(n_tasks, 0);
  std::vector<Entry> scratch;
  for (TaskIndex t = 0; t < n_tasks; ++t) {
    const auto begin = offsets_[t];
    const auto end = offsets_[t + 1];
    scratch.assign(by_client_.begin() + begin, by_client_.begin() + end);
    auto rank_class = [&](const Lag& lag) {
      if (lag.kind == LagKind::running) return 0;
      if (lag.kind == LagKind::known && lag.offsets <= acceptable_) return 1;
      return 2;
    };
    std::sort(scratch.begin(), scratch.end(), [&](const Entry& a, const Entry& b) {
      const int ca = rank_class(a.lag);
      const int cb = rank_class(b.lag);
      if (ca != cb) return ca < cb;
      if (ca == 2 && a.lag.offsets != b.lag.offsets) return a.lag.offsets < b.lag.offsets;
      return a.client < b.client;  // a total order: no need for a (buffer-allocating) stable sort
    });
    std::uint32_t caught = 0, running = 0;
    for (std::size_t i = 0; i < scratch.size(); ++i) {
      ranked_[begin + i] = scratch[i].client;
      ranked_sorted_[begin + i] = by_client_[begin + i].client;
      if (rank_class(scratch[i].lag) <= 1) ++caught;
      if (rank_class(scratch[i].lag) == 0) ++running;
    }
    caught_up_n_[t] = caught;
    running_n_[t] = running;
  }
}

Lag LagModel::default_lag(TaskIndex task) const noexcept {
  return end_offsets_known_ ? Lag::known(end_sum_[task]) : Lag::unknown();
}

std::span<const LagModel::Entry> LagModel::entries_by_client(TaskIndex task) const noexcept {
  return {by_client_.data() + offsets_[task], offsets_[task + 1] - offsets_[task]};
}

Lag LagModel::lag(TaskIndex task, ClientIndex client) const noexcept {
  auto entries = entries_by_client(task);
  auto it = std::lower_bound(entries.begin(), entries.end(), client,
                             [](const Entry& e, ClientIndex c) { return e.client < c; });
  if (it != entries.end() && it->client == client) return it->lag;
  return default_lag(task);
}

std::optional<std::int64_t> LagModel::offsets_behind(TaskIndex task, ClientIndex client) const noexcept {
  if (!stateful_[task]) return 0;
  const Lag l = lag(task, client);
  if (l.kind == LagKind::running) return 0;
  if (l.kind == LagKind::known) return l.offsets;
  return std::nullopt;
}

bool LagModel::has_state(TaskIndex task, ClientIndex client) const noexcept {
  const auto entries = entries_by_client(task);
  const auto it = std::lower_bound(entries.begin(), entries.end(), client,
                                   [](const Entry& e, ClientIndex c) { return e.client < c; });
  return it != entries.end() && it->client == client;
}

bool LagModel::everyone_caught_up(TaskIndex task) const noexcept {
  return stateful_[task] && end_offsets_known_ && end_sum_[task] <= acceptable_;
}

bool LagModel::caught_up(TaskIndex task, ClientIndex client) const noexcept {
  if (!stateful_[task]) return true;
  const Lag l = lag(task, client);
  return l.kind == LagKind::running || (l.kind == LagKind::known && l.offsets <= acceptable_);
}

RankedCandidates LagModel::caught_up_clients(TaskIndex task) const noexcept {
  return range(task, stateful_[task] ? caught_up_count(task) : 0);
}

std::size_t LagModel::caught_up_count(TaskIndex task) const noexcept {
  return everyone_caught_up(task) ? client_count_ : caught_up_n_[task];
}

RankedCandidates LagModel::ranked(TaskIndex task) const noexcept {
  return range(task, stateful_[task] ? client_count_ : 0);
}

RankedCandidates LagModel::range(TaskIndex task, std::size_t limit) const noexcept {
  RankedCandidates r;
  r.limit_ = limit;
  auto& it = r.first_;
  const auto begin = offsets_[task];
  const auto size = offsets_[task + 1] - begin;
  it.ranked_ = {ranked_.data() + begin, size};
  it.by_client_ = {ranked_sorted_.data() + begin, size};
  it.running_ = running_n_[task];
  it.caught_ = caught_up_n_[task];
  it.implicit_caught_up_ = everyone_caught_up(task);
  it.clients_ = static_cast<ClientIndex>(client_count_);
  it.limit_ = limit;
  if (limit > 0) it.advance();
  return r;
}

// RankedCandidates: running stored entries; then the caught-up stored entries merged by index with
// the implicit clients when those are caught up too (everyone caught up); else the rest of the
// stored entries, then the implicit clients (the largest lag, the end-offset sum) by index.

RankedCandidates::iterator RankedCandidates::begin() const noexcept { return first_; }

RankedCandidates::iterator RankedCandidates::end() const noexcept {
  iterator it;
  it.emitted_ = limit_;
  return it;
}

ClientIndex RankedCandidates::iterator::next_implicit(ClientIndex from) const noexcept {
  while (from < clients_ && std::binary_search(by_client_.begin(), by_client_.end(), from)) ++from;
  return from;
}

void RankedCandidates::iterator::advance() noexcept {
  if (pos_ < running_) {
    current_ = ranked_[pos_++];
    return;
  }
  if (implicit_caught_up_) {  // merge the caught-up stored entries with the implicit clients by index
    implicit_ = next_implicit(implicit_);
    const bool stored = pos_ < caught_;
    if (stored && (implicit_ >= clients_ || ranked_[pos_] < implicit_)) {
      current_ = ranked_[pos_++];
    } else {
      current_ = implicit_++;
    }
    return;
  }
  if (pos_ < ranked_.size()) {
    current_ = ranked_[pos_++];
    return;
  }
  implicit_ = next_implicit(implicit_);
  current_ = implicit_++;
}

RankedCandidates::iterator& RankedCandidates::iterator::operator++() noexcept {
  if (++emitted_ < limit_) advance();
  return *this;
}

}  // namespace assignor
