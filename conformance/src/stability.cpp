// The stability property: the round model of DESIGN 4.6 (full catch-up), a strategy run to
// convergence in it, then one more rebalance and the rounds until converged again.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "assignor/conformance.hpp"
#include "assignor/validation.hpp"

namespace assignor::conformance {

namespace {
constexpr const char* kKit = "conformance kit";
constexpr TaskIndex kEnd = std::numeric_limits<TaskIndex>::max();
}  // namespace

bool balanced(const Metrics& m) noexcept {
  return m.stateful_load_spread <= 1.0 && m.active_load_spread <= 1.0 && m.thread_load_spread.value_or(0) <= 1 &&
         m.restoring_actives == 0;
}

bool converged(const Metrics& m, bool probing_rebalance) noexcept {
  return balanced(m) && !probing_rebalance && m.stale_standbys == 0;
}

namespace {

// Per client, in task order: its actives, and its copies (standbys and warmups together).
struct Held {
  std::vector<std::vector<TaskIndex>> actives, copies;
};
Held held_by_client(std::size_t clients, const Assignment& assignment) {
  Held h{std::vector<std::vector<TaskIndex>>(clients), std::vector<std::vector<TaskIndex>>(clients)};
  for (const Placement& p : assignment.actives) h.actives[p.client].push_back(p.task);
  for (const Placement& p : assignment.standbys) h.copies[p.client].push_back(p.task);
  for (const Placement& p : assignment.warmups) h.copies[p.client].push_back(p.task);
  for (auto& list : h.actives) std::sort(list.begin(), list.end());
  for (auto& list : h.copies) std::sort(list.begin(), list.end());
  return h;
}

}  // namespace

Cluster next_round(const Cluster& state, const Assignment& assignment, const ThreadDistribution& threads) {
  Cluster next = state;
  next.end_offsets_known = true;
  const std::size_t n = state.client_count();
  const Held held = held_by_client(n, assignment);
  const auto& actives = held.actives;
  const auto& copies = held.copies;
  for (ClientIndex c = 0; c < n; ++c) {
    Client& client = next.clients[c];
    // Merge the offset sums on record with the tasks held now, all three in task order.
    std::vector<OffsetSum> sums;
    std::size_t o = 0, a = 0, s = 0;
    const auto& old = state.clients[c].offset_sums;
    for (;;) {
      const TaskIndex t = std::min({o < old.size() ? old[o].task : kEnd, a < actives[c].size() ? actives[c][a] : kEnd,
                                    s < copies[c].size() ? copies[c][s] : kEnd});
      if (t == kEnd) break;
      const bool on_record = o < old.size() && old[o].task == t;
      const std::int64_t reported = on_record ? old[o].sum : 0;
      if (on_record) ++o;
      const Task& task = state.tasks[t];
      if (a < actives[c].size() && actives[c][a] == t) {
        ++a;
        if (task.stateful) sums.push_back({t, kRunningOffsetSum});  // running, caught up
      } else if (s < copies[c].size() && copies[c][s] == t) {
        ++s;
        sums.push_back({t, task.end_offset_sum});  // a copy, caught up
      } else {
        sums.push_back({t, reported == kRunningOffsetSum ? task.end_offset_sum : reported});
      }
    }
    client.offset_sums = std::move(sums);
    client.previous_active = actives[c];
    client.previous_standby = copies[c];
    client.threads_history.clear();
    if (c < threads.clients.size())
      for (const ThreadTasks& th : threads.clients[c].threads) {
        ThreadHistory h;
        h.name = th.name;
        h.previous_active = th.active;
        h.previous_standby.resize(th.standby.size() + th.warmup.size());
        std::merge(th.standby.begin(), th.standby.end(), th.warmup.begin(), th.warmup.end(),
                   h.previous_standby.begin());
        client.threads_history.push_back(std::move(h));
      }
  }
  next.finalize();
  return next;
}

namespace {

// Whether `assignment` is what `state` says ran last: the same actives and the same copies
// (standbys and warmups together) on every client. Such a round changes nothing.
bool repeats(const Cluster& state, const Assignment& assignment) {
  const Held held = held_by_client(state.client_count(), assignment);
  for (ClientIndex c = 0; c < state.client_count(); ++c)
    if (held.actives[c] != state.clients[c].previous_active || held.copies[c] != state.clients[c].previous_standby)
      return false;
  return true;
}

// One rebalance of the model: the strategy's assignment on `state`, checked valid, its figures,
// and whether it settles the group (converged, or nothing changes).
struct Round {
  Assignment assignment;
  Metrics metrics;
  ThreadDistribution threads;
  bool settles = false;
};

bool run_round(Strategy& strategy, const Cluster& state, const AssignmentSettings& settings, std::uint32_t number,
               Round& out) {
  const LagModel lags(state, settings);
  out.assignment = strategy.assign(AssignmentInput{state, settings, lags});
  const auto errors = validate(state, settings, out.assignment);
  if (!errors.empty()) {
    ADD_FAILURE_AT(kKit, -1) << "round " << number
                             << " of the stability run: invalid assignment: " << to_string(errors.front().kind) << ": "
                             << errors.front().message;
    return false;
  }
  out.assignment.normalize();
  out.threads = distribute_over_threads(state, lags, out.assignment);
  out.metrics = compute_metrics(state, settings, lags, out.assignment, &out.threads);
  out.settles = converged(out.metrics, out.assignment.probing_rebalance) || repeats(state, out.assignment);
  return true;
}

}  // namespace

void Suite::check_stability(const Case& c) const {
  const StabilityOptions& o = options_.stability;
  const std::string& off = c.settled ? o.settled_groups_off_because : o.generated_off_because;
  if (!off.empty()) {
    std::printf("[ stability] %s: %s: left out: %s\n", name_.c_str(), c.name.c_str(), off.c_str());
    GTEST_SKIP() << "left out: " << off;
  }
  const std::string command = options_.assignor.empty() ? std::string("assignor") : options_.assignor;
  const std::string library = options_.library.empty() ? "path/to/" + name_ + ".so" : options_.library;
  std::string lines = reproduction(c, name_, options_.library, options_.assignor);
  // The kit plays rounds without Kafka's follow-up rebalances, as simulate's `--protocol rounds`
  // does; its default (Kafka's protocol) would play another path.
  if (c.settled)
    lines += fmt::format(
        "  # the rebalances from the settled group on (the kit's round model)\n"
        "  {0} simulate --protocol rounds --config {1}.yaml --cluster {1}.json --plugin-path {2} | head -{3}\n",
        command, c.name, library, o.max_rounds + 1);
  else
    lines += fmt::format(
        "  # the rounds to convergence, then from the state they left (one more rebalance and on)\n"
        "  {0} simulate --protocol rounds --config {1}.yaml --cluster {1}.json --plugin-path {2} \\\n"
        "      --final-state {1}.settled.json | tail -1\n"
        "  {0} simulate --protocol rounds --config {1}.yaml --cluster {1}.settled.json --plugin-path {2} | head -{3}\n",
        command, c.name, library, o.max_rounds + 1);
  const ::testing::ScopedTrace trace(kKit, -1, lines);
  const std::shared_ptr<Strategy> strategy = factory_();
  Cluster state = cluster_of(c);
  Round round;
  std::uint32_t settle_rounds = 0;
  std::uint64_t settle_moves = 0;
  if (!c.settled) {
    do {
      if (settle_rounds == o.settle_limit) {
        ADD_FAILURE_AT(kKit, -1) << "the group never settled (converged, or the same assignment twice) in "
                                 << o.settle_limit << " rounds: nothing settled to test stability on";
        return;
      }
      if (!run_round(*strategy, state, c.settings, ++settle_rounds, round)) return;
      settle_moves += round.metrics.active_moves;
      state = next_round(state, round.assignment, round.threads);
    } while (!round.settles);
  }
  // One more rebalance, and the rounds until one settles the group again.
  std::uint32_t rounds = 0;
  std::uint64_t moves = 0, first_moves = 0;
  bool settled_again = false;
  while (rounds <= o.max_rounds && !settled_again) {
    if (!run_round(*strategy, state, c.settings, settle_rounds + ++rounds, round)) return;
    moves += round.metrics.active_moves;
    if (rounds == 1) first_moves = round.metrics.active_moves;
    settled_again = round.settles;
    state = next_round(state, round.assignment, round.threads);
  }
  const std::string where =
      c.settled ? std::string("on the settled group as given")
                : fmt::format("after settling in {} rounds ({} active moves)", settle_rounds, settle_moves);
  const std::string again =
      settled_again ? fmt::format("settled again after {} rounds ({} active moves)", rounds, moves)
                    : fmt::format("not settled again within {} rounds ({} active moves so far)", rounds, moves);
  std::printf("[ stability] %s: %s: %s; one more rebalance moves %llu actives, %s\n", name_.c_str(), c.name.c_str(),
              where.c_str(), static_cast<unsigned long long>(first_moves), again.c_str());
  if (!settled_again || rounds > o.max_rounds)
    ADD_FAILURE_AT(kKit, -1) << "not stable: " << where << ", the next rebalances are " << again << " (at most "
                             << o.max_rounds << " rounds)";
  if (moves > o.max_active_moves)
    ADD_FAILURE_AT(kKit, -1) << "not stable: " << where << ", " << moves << " actives moved before the group settled "
                             << "again (at most " << o.max_active_moves << "); the first rebalance moved "
                             << first_moves;
}

}  // namespace assignor::conformance
