// The scenario generator (the cluster-file writer is the host's: host/src/formats/cluster_writer.cpp).
// docs/generation.md is the specification: every
// draw here is listed there in the same order, so keep the two in step (and the reference
// implementation tests/cli/generate_reference.py, which the command-line tests compare byte for byte).
#include "assignor/scenario.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "assignor/errors.hpp"

namespace assignor {

namespace {

// The phases of the generator, each drawing from its own stream, so that e.g. the end offsets do
// not change when only the scenario or the number of clients does.
enum Phase : std::uint64_t {
  kStoresPhase = 1,
  kOffsetsPhase = 2,
  kRacksPhase = 3,
  kMembersPhase = 4,
  kLagsPhase = 5,
  kWeightsPhase = 6,  // only with WeightDistribution::zipf: uniform files draw nothing from it
  kThreadsPhase = 7,  // only with a range of threads: one thread count per client
};

constexpr std::uint64_t kSmallLag = 5'000;    // standby and restarted state: lag in [0, 5000]
constexpr std::uint64_t kFarLagMin = 10'001;  // one standby in ten is beyond the default
constexpr std::uint64_t kFarLagMax = 50'000;  // acceptable_recovery_lag (10000)
constexpr std::uint64_t kFarLagOneIn = 10;

// round(count * fraction), half up, in IEEE-754 binary64 (the same in every language): the product
// is rounded to a double before 0.5 is added. `volatile` keeps the compiler from fusing the two into
// one fused multiply-add (-ffp-contract on targets with FMA), which would round only once.
std::uint32_t rounded_share(std::uint32_t count, double fraction) {
  const volatile double product = static_cast<double>(count) * fraction;
  return static_cast<std::uint32_t>(std::floor(product + 0.5));
}

// Item i of n is chosen when floor((i + 1) * k / n) > floor(i * k / n): exactly k of n, spread evenly.
bool spread_pick(std::uint64_t i, std::uint64_t k, std::uint64_t n) { return (i + 1) * k / n > i * k / n; }

// ~10% of n, at least one: max(1, floor((n + 5) / 10)).
std::uint32_t tenth(std::uint32_t n) { return std::max<std::uint32_t>(1, (n + 5) / 10); }

void check_range(const char* field, std::uint64_t value, std::uint64_t lo, std::uint64_t hi) {
  if (value < lo || value > hi)
    throw InputError(fmt::format("scenario: {} must be between {} and {}, got {}", field, lo, hi, value));
}

void check_fraction(const char* field, double value) {
  if (!(value >= 0.0 && value <= 1.0))  // also rejects NaN
    throw InputError(fmt::format("scenario: {} must be a fraction in [0, 1], got {}", field, value));
}

// Zero-padded decimal: names sort as their numbers do.
std::string padded(std::uint32_t v, int width) { return fmt::format("{:0{}}", v, width); }

// Which previous member (if any) each current client is, and who left, for one scenario.
struct Membership {
  std::uint32_t members = 0;            // M: the clients the previous assignment was made over
  std::vector<std::uint32_t> slot;      // slot x < M -> member id; ids >= clients have departed
  std::uint32_t restarted = kNoClient;  // rolling_restart: the client that came back
};

Membership draw_membership(const ScenarioSpec& spec) {
  Membership m;
  const std::uint32_t n = spec.clients;
  std::uint32_t pool = n;  // ids shuffled: current clients 0..n-1, then departed n..
  const std::uint32_t changed = spec.changed_clients.value_or(tenth(n));
  switch (spec.kind) {
    case ScenarioKind::fresh: return m;
    case ScenarioKind::scale_out: m.members = n - changed; break;
    case ScenarioKind::scale_in:
      pool = n + changed;
      m.members = pool;
      break;
    case ScenarioKind::rolling_restart: m.members = n; break;
  }
  // Fisher-Yates from the top: the first `members` entries are the previous members in slot order.
  m.slot.resize(pool);
  std::iota(m.slot.begin(), m.slot.end(), 0U);
  SplitMix64 rng = SplitMix64::stream(spec.seed, kMembersPhase);
  for (std::uint32_t i = pool - 1; i >= 1; --i) {
    const auto j = static_cast<std::uint32_t>(rng.below(std::uint64_t{i} + 1));
    std::swap(m.slot[i], m.slot[j]);
  }
  m.slot.resize(m.members);
  if (spec.kind == ScenarioKind::rolling_restart) m.restarted = m.slot[0];
  return m;
}

// Zipf-like task weights: within each sub-topology (in order) a Fisher-Yates shuffle of the
// partitions ranks them, and the partition of rank k (1-based) weighs h / 100 with
// h = max(1, round(1000 / k)), rounding half up: 10, 5, 3.33, 2.5, 2, 1.67, ... Integer-derived, so
// every language gets the same doubles (the nearest to h / 100).
void assign_zipf_weights(const ScenarioSpec& spec, Cluster& cluster) {
  SplitMix64 rng = SplitMix64::stream(spec.seed, kWeightsPhase);
  const std::uint32_t n_part = spec.partitions;
  std::vector<std::uint32_t> by_rank(n_part);
  for (std::uint32_t s = 0; s < spec.subtopologies; ++s) {
    std::iota(by_rank.begin(), by_rank.end(), 0U);
    for (std::uint32_t i = n_part - 1; i >= 1; --i) {
      const auto j = static_cast<std::uint32_t>(rng.below(std::uint64_t{i} + 1));
      std::swap(by_rank[i], by_rank[j]);
    }
    for (std::uint64_t k = 1; k <= n_part; ++k) {
      const std::uint64_t hundredths = std::max<std::uint64_t>(1, (2000 + k) / (2 * k));
      cluster.tasks[std::size_t{s} * n_part + by_rank[k - 1]].weight = static_cast<double>(hundredths) / 100.0;
    }
  }
}

// The previous assignment and the offset sums: task t (in task order) was active on the member in
// slot t mod M and had its standbys on slots t+1 .. t+K' (mod M).
void write_history(const ScenarioSpec& spec, Cluster& cluster) {
  const Membership m = draw_membership(spec);
  if (m.members == 0) return;
  const std::uint32_t n = spec.clients;
  const std::uint64_t standbys = std::min<std::uint64_t>(spec.standbys, m.members - 1);
  SplitMix64 rng = SplitMix64::stream(spec.seed, kLagsPhase);
  const auto present = [&](std::uint32_t member) { return member < n; };
  const auto behind = [](std::int64_t end, std::uint64_t lag) {
    return std::max<std::int64_t>(0, end - static_cast<std::int64_t>(lag));
  };

  for (TaskIndex t = 0; t < cluster.tasks.size(); ++t) {
    const Task& task = cluster.tasks[t];
    const std::uint32_t active = m.slot[t % m.members];
    const bool active_runs = present(active) && active != m.restarted;
    if (active_runs) cluster.clients[active].previous_active.push_back(t);
    if (!task.stateful) continue;
    if (!task.has_logged_store) {
      // Nothing to restore from: running reports -2, the restarted client 0 (its end-offset sum).
      if (active_runs)
        cluster.clients[active].offset_sums.push_back({t, kRunningOffsetSum});
      else if (active == m.restarted)
        cluster.clients[active].offset_sums.push_back({t, 0});
      continue;
    }
    const std::uint64_t restart_lag = rng.below(kSmallLag + 1);
    if (active_runs)
      cluster.clients[active].offset_sums.push_back({t, kRunningOffsetSum});
    else if (active == m.restarted)
      cluster.clients[active].offset_sums.push_back({t, behind(task.end_offset_sum, restart_lag)});
    // The standbys of a departed client's task are caught up (the group relies on them now).
    const bool keep_close = !present(active);
    for (std::uint64_t j = 1; j <= standbys; ++j) {
      const std::uint64_t far = rng.below(kFarLagOneIn);
      const std::uint64_t lag =
          far == 0 && !keep_close ? rng.between(kFarLagMin, kFarLagMax) : rng.below(kSmallLag + 1);
      const std::uint32_t holder = m.slot[(t + j) % m.members];
      if (!present(holder)) continue;
      Client& client = cluster.clients[holder];
      if (holder != m.restarted) client.previous_standby.push_back(t);
      client.offset_sums.push_back({t, behind(task.end_offset_sum, lag)});
    }
  }
}

}  // namespace

std::string_view to_string(ScenarioKind kind) noexcept {
  switch (kind) {
    case ScenarioKind::fresh: return "fresh";
    case ScenarioKind::scale_out: return "scale-out";
    case ScenarioKind::scale_in: return "scale-in";
    case ScenarioKind::rolling_restart: return "rolling-restart";
  }
  return "unknown";
}

std::optional<ScenarioKind> parse_scenario_kind(std::string_view text) noexcept {
  if (text == "fresh") return ScenarioKind::fresh;
  if (text == "scale-out" || text == "scale_out") return ScenarioKind::scale_out;
  if (text == "scale-in" || text == "scale_in") return ScenarioKind::scale_in;
  if (text == "rolling-restart" || text == "rolling_restart") return ScenarioKind::rolling_restart;
  return std::nullopt;
}

std::string_view to_string(WeightDistribution weights) noexcept {
  switch (weights) {
    case WeightDistribution::uniform: return "uniform";
    case WeightDistribution::zipf: return "zipf";
  }
  return "unknown";
}

std::optional<WeightDistribution> parse_weight_distribution(std::string_view text) noexcept {
  if (text == "uniform") return WeightDistribution::uniform;
  if (text == "zipf") return WeightDistribution::zipf;
  return std::nullopt;
}

void validate(const ScenarioSpec& spec) {
  check_range("clients", spec.clients, 1, kMaxScenarioClients);
  check_range("threads", spec.threads, 1, kMaxScenarioThreads);
  check_range("subtopologies", spec.subtopologies, 1, kMaxScenarioSubtopologies);
  check_range("partitions", spec.partitions, 1, kMaxScenarioPartitions);
  const std::uint64_t tasks = std::uint64_t{spec.subtopologies} * spec.partitions;
  if (tasks > kMaxScenarioTasks)
    throw InputError(fmt::format("scenario: subtopologies x partitions = {} tasks, more than the {} allowed", tasks,
                                 kMaxScenarioTasks));
  check_fraction("stateful_fraction", spec.stateful_fraction);
  check_fraction("nonlogged_fraction", spec.nonlogged_fraction);
  check_range("standbys", spec.standbys, 0, kMaxScenarioStandbys);
  check_range("racks", spec.racks, 0, kMaxScenarioRacks);
  for (const auto& tag : spec.tags) {
    const std::string& key = tag.first;  // not a structured binding: clang 14 (fuzz build) cannot capture one
    const auto& values = tag.second;
    if (key.empty()) throw InputError("tags: an empty tag key");
    check_range(("tags " + key).c_str(), values, 1, kMaxScenarioRacks);
    if (std::count_if(spec.tags.begin(), spec.tags.end(), [&](const auto& t) { return t.first == key; }) > 1)
      throw InputError("tags: key '" + key + "' given twice");
  }
  switch (spec.kind) {
    case ScenarioKind::fresh:
    case ScenarioKind::scale_out:
    case ScenarioKind::scale_in:
    case ScenarioKind::rolling_restart: break;
    default: throw InputError("scenario: unknown scenario kind");
  }
  if (spec.weights != WeightDistribution::uniform && spec.weights != WeightDistribution::zipf)
    throw InputError("scenario: unknown weight distribution");
  if (spec.kind == ScenarioKind::scale_out && spec.clients < 2)
    throw InputError("scenario: scale-out needs at least 2 clients (one old, one new), got 1");
  if (spec.changed_clients) {
    if (spec.kind == ScenarioKind::scale_out)
      check_range("new clients", *spec.changed_clients, 1, spec.clients - 1);
    else if (spec.kind == ScenarioKind::scale_in)
      check_range("leaving clients", *spec.changed_clients, 1, kMaxScenarioClients);
    else
      throw InputError("scenario: new or leaving clients need --scenario scale-out or scale-in");
  }
  if (spec.threads_max != 0)
    check_range("threads (the top of the range)", spec.threads_max, spec.threads, kMaxScenarioThreads);
  if (spec.min_end_offset < 0 || spec.max_end_offset < spec.min_end_offset ||
      spec.max_end_offset > (std::int64_t{1} << 50))
    throw InputError(fmt::format("scenario: changelog end offsets must be a range 0 <= MIN <= MAX <= 2^50, got {}-{}",
                                 spec.min_end_offset, spec.max_end_offset));
}

Cluster generate_cluster(const ScenarioSpec& spec) {
  validate(spec);
  const std::uint32_t n_sub = spec.subtopologies;
  const std::uint32_t n_part = spec.partitions;
  Cluster cluster;
  cluster.end_offsets_known = spec.end_offsets_known;

  // Topology: which sub-topologies keep state, which of those log it, and how many stores each has.
  const std::uint32_t n_stateful = rounded_share(n_sub, spec.stateful_fraction);
  const std::uint32_t n_nonlogged = rounded_share(n_stateful, spec.nonlogged_fraction);
  struct SubtopologyShape {
    std::uint32_t stores = 0;
    bool logged = false;
  };
  std::vector<SubtopologyShape> shape(n_sub);
  {
    SplitMix64 rng = SplitMix64::stream(spec.seed, kStoresPhase);
    std::uint32_t rank = 0;  // among stateful sub-topologies
    for (std::uint32_t s = 0; s < n_sub; ++s) {
      if (!spread_pick(s, n_stateful, n_sub)) continue;
      shape[s].logged = !spread_pick(rank++, n_nonlogged, n_stateful);
      shape[s].stores = 1 + static_cast<std::uint32_t>(rng.below(2));
    }
  }

  for (std::uint32_t r = 0; r < spec.racks; ++r) cluster.racks.push_back(fmt::format("rack-{}", r));

  // Tasks in task order; stores then partitions, each from its own stream.
  SplitMix64 offsets = SplitMix64::stream(spec.seed, kOffsetsPhase);
  SplitMix64 racks = SplitMix64::stream(spec.seed, kRacksPhase);
  cluster.tasks.reserve(std::size_t{n_sub} * n_part);
  for (std::uint32_t s = 0; s < n_sub; ++s) {
    const std::string topic = fmt::format("topic-{}", s);
    for (std::uint32_t p = 0; p < n_part; ++p) {
      Task task;
      task.id = TaskId{static_cast<std::int32_t>(s), static_cast<std::int32_t>(p)};
      task.stores.reserve(shape[s].stores);
      for (std::uint32_t k = 0; k < shape[s].stores; ++k) {
        Store store;
        store.name = fmt::format("store-{}-{}", s, k);
        store.logged = shape[s].logged;
        if (store.logged)
          store.changelog_end_offset = static_cast<std::int64_t>(offsets.between(
              static_cast<std::uint64_t>(spec.min_end_offset), static_cast<std::uint64_t>(spec.max_end_offset)));
        task.stores.push_back(std::move(store));
      }
      if (spec.racks > 0) {
        PartitionRef ref;
        ref.topic = topic;
        ref.partition = static_cast<std::int32_t>(p);
        if (spec.racks < 3) {
          for (RackIndex r = 0; r < spec.racks; ++r) ref.racks.push_back(r);
        } else {
          const auto first = static_cast<RackIndex>(racks.below(spec.racks));
          const auto second = static_cast<RackIndex>((first + 1 + racks.below(spec.racks - 1)) % spec.racks);
          ref.racks = {std::min(first, second), std::max(first, second)};
        }
        task.partitions.push_back(std::move(ref));
      }
      cluster.tasks.push_back(std::move(task));
    }
  }
  if (spec.weights == WeightDistribution::zipf) assign_zipf_weights(spec, cluster);

  // Clients: "client-0000" ... zero-padded to at least four digits so that name order is number order.
  int width = 4;
  for (std::uint32_t v = spec.clients - 1; v >= 10000; v /= 10) ++width;
  cluster.clients.resize(spec.clients);
  const bool thread_range = spec.threads_max > spec.threads;
  SplitMix64 threads = SplitMix64::stream(spec.seed, kThreadsPhase);
  for (std::uint32_t i = 0; i < spec.clients; ++i) {
    Client& client = cluster.clients[i];
    client.id = "client-" + padded(i, width);
    client.threads =
        thread_range ? static_cast<std::uint32_t>(threads.between(spec.threads, spec.threads_max)) : spec.threads;
    if (spec.racks > 0) client.rack = i % spec.racks;
    // The rack is the fastest digit, the tag keys the next ones: racks and tag values independent
    // (with racks 3 and zone=3, rack k is not zone k: every (rack, zone) pair before a repeat).
    std::uint64_t digit = spec.racks > 0 ? i / spec.racks : i;
    for (const auto& [key, values] : spec.tags) {
      client.tags[key] = fmt::format("{}-{}", key, digit % values);
      digit /= values;
    }
  }

  // finalize() derives end_offset_sum and the stateful flags the history needs; the vectors are
  // already in sorted order, so indices do not move and it may run again after the history.
  cluster.finalize();
  write_history(spec, cluster);
  cluster.finalize();
  return cluster;
}

}  // namespace assignor
