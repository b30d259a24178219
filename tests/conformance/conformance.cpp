#include "conformance.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "assignor/host/plugin_registry.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/validation.hpp"

namespace assignor::conformance {

Target& target() {
  static Target t;
  return t;
}

std::string generate_command(const ScenarioSpec& s) {
  return fmt::format(
      "assignor generate --clients {} --threads {} --subtopologies {} --partitions {} "
      "--stateful-fraction {} --nonlogged-fraction {} --standbys {} --racks {} --scenario {} --seed {}{}",
      s.clients, s.threads, s.subtopologies, s.partitions, s.stateful_fraction, s.nonlogged_fraction,
      s.standbys, s.racks, to_string(s.kind), s.seed, s.end_offsets_known ? "" : " --end-offsets-unknown");
}

std::vector<Case> cases(std::uint64_t seed) {
  std::vector<Case> out;
  SplitMix64 rng(seed);
  auto draw = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng.next() % (hi - lo + 1); };
  const ScenarioKind kinds[] = {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in,
                                ScenarioKind::rolling_restart};
  std::uint32_t n = 0;
  for (ScenarioKind kind : kinds) {
    for (std::uint32_t standbys : {0u, 1u, 2u}) {
      for (std::uint32_t racks : {0u, 3u}) {
        for (int variant = 0; variant < 2; ++variant) {
          Case c;
          ScenarioSpec& s = c.spec;
          s.kind = kind;
          s.clients = static_cast<std::uint32_t>(draw(2, 24));
          s.threads = static_cast<std::uint32_t>(draw(1, 4));
          s.subtopologies = static_cast<std::uint32_t>(draw(1, 6));
          s.partitions = static_cast<std::uint32_t>(draw(1, 24));
          s.stateful_fraction = variant == 0 ? 0.5 : 1.0;  // with and without stateless tasks
          s.nonlogged_fraction = variant == 0 ? 0.0 : 0.34;
          s.standbys = standbys;
          s.racks = racks;
          s.seed = rng.next() % 1'000'000;
          c.settings.num_standby_replicas = standbys;
          c.settings.max_warmup_replicas = static_cast<std::uint32_t>(draw(1, 4));
          c.settings.acceptable_recovery_lag = variant == 0 ? 10000 : 100;
          c.name = fmt::format("{}_standbys{}_racks{}_{}_n{}", to_string(kind), standbys, racks,
                               variant == 0 ? "mixed" : "stateful", n++);
          for (auto& ch : c.name)
            if (ch == '-') ch = '_';
          out.push_back(c);
        }
      }
    }
    // Unknown end offsets, once per kind.
    Case c;
    c.spec.kind = kind;
    c.spec.clients = 6;
    c.spec.threads = 2;
    c.spec.subtopologies = 3;
    c.spec.partitions = 8;
    c.spec.standbys = 1;
    c.spec.seed = rng.next() % 1'000'000;
    c.spec.end_offsets_known = false;
    c.settings.num_standby_replicas = 1;
    c.name = fmt::format("{}_unknown_end_offsets_n{}", to_string(kind), n++);
    for (auto& ch : c.name)
      if (ch == '-') ch = '_';
    out.push_back(c);
  }
  // Sizes for the timing report: 1k and 10k tasks.
  for (auto [clients, subs, parts] : {std::tuple{30u, 10u, 100u}, std::tuple{100u, 20u, 500u}}) {
    Case c;
    c.spec.kind = ScenarioKind::scale_out;
    c.spec.clients = clients;
    c.spec.threads = 4;
    c.spec.subtopologies = subs;
    c.spec.partitions = parts;
    c.spec.standbys = 1;
    c.spec.seed = seed;
    c.settings.num_standby_replicas = 1;
    c.name = fmt::format("size_{}_tasks_{}_clients", subs * parts, clients);
    out.push_back(c);
  }
  return out;
}

namespace {

// The plugin under test, loaded once.
struct Loaded {
  std::unique_ptr<host::PluginRegistry> registry = std::make_unique<host::PluginRegistry>();
  host::PluginInfo info;
};

const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded x;
    x.info = x.registry->load(target().plugin);
    return x;
  }();
  return l;
}

class Conformance : public ::testing::TestWithParam<Case> {};

std::string describe_failure(const Case& c) {
  return fmt::format("case {} (reproduce the cluster: {})", c.name, generate_command(c.spec));
}

TEST_P(Conformance, ValidDeterministicAndHighlyAvailableWhenDeclared) {
  const Case& c = GetParam();
  SCOPED_TRACE(describe_failure(c));
  const Loaded& plugin = loaded();
  const Cluster cluster = generate_cluster(c.spec);
  const LagModel lags(cluster, c.settings);
  auto strategy = plugin.registry->create(plugin.info.name, {});

  const auto start = std::chrono::steady_clock::now();
  Assignment first = strategy->assign(AssignmentInput{cluster, c.settings, lags});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("assign_ms", fmt::format("{:.3f}", ms));
  RecordProperty("tasks", std::to_string(cluster.task_count()));

  const auto errors = validate(cluster, c.settings, first);
  for (std::size_t i = 0; i < errors.size() && i < 10; ++i)
    ADD_FAILURE() << to_string(errors[i].kind) << ": " << errors[i].message;
  ASSERT_TRUE(errors.empty()) << errors.size() << " validation errors";

  // Deterministic: a fresh strategy object on the same input gives the same assignment.
  auto again = plugin.registry->create(plugin.info.name, {});
  Assignment second = again->assign(AssignmentInput{cluster, c.settings, lags});
  first.normalize();
  second.normalize();
  EXPECT_TRUE(first == second) << "the same input gave two different assignments";

  const Metrics m = compute_metrics(cluster, c.settings, lags, first);
  if ((plugin.info.capabilities & kCapabilityHighAvailability) && cluster.end_offsets_known) {
    EXPECT_EQ(m.restoring_actives, 0u) << "a strategy declaring high availability returned restoring actives";
  }
  if (!first.warmups.empty()) {
    EXPECT_TRUE(first.probing_rebalance) << "warmups without a probing rebalance";
  }

  if (cluster.task_count() >= 1000)
    std::printf("[ timing   ] %s: %zu tasks x %zu clients in %.3f ms\n", plugin.info.name.c_str(),
                cluster.task_count(), cluster.client_count(), ms);
}

INSTANTIATE_TEST_SUITE_P(Generated, Conformance, ::testing::ValuesIn(cases(target().seed)),
                         [](const ::testing::TestParamInfo<Case>& param) { return param.param.name; });

}  // namespace

}  // namespace assignor::conformance
