// The scenario generator (assignor/scenario.hpp): determinism, the shape of each scenario, the
// topology options, and cluster_to_json() files that the host's cluster reader reads back into the same
// cluster. The byte-level specification (docs/generation.md) is checked by the command-line tests
// against an independent implementation (tests/cli/generate_reference.py).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/scenario.hpp"

namespace assignor {
namespace {

using host::cluster_to_json;
using ::testing::HasSubstr;

ScenarioSpec spec_of(ScenarioKind kind, std::uint32_t clients = 20, std::uint64_t seed = 1) {
  ScenarioSpec spec;
  spec.clients = clients;
  spec.threads = 2;
  spec.subtopologies = 6;
  spec.partitions = 30;
  spec.kind = kind;
  spec.seed = seed;
  return spec;
}

std::string input_error(const ScenarioSpec& spec) {
  try {
    generate_cluster(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

// The offset sum a client reports for a task, if any.
std::optional<std::int64_t> reported(const Client& c, TaskIndex t) {
  for (const auto& e : c.offset_sums)
    if (e.task == t) return e.sum;
  return std::nullopt;
}

bool holds(const std::vector<TaskIndex>& list, TaskIndex t) { return std::binary_search(list.begin(), list.end(), t); }

bool has_history(const Client& c) {
  return !c.previous_active.empty() || !c.previous_standby.empty() || !c.offset_sums.empty();
}

std::size_t stateful_subtopologies(const Cluster& cluster) {
  std::set<std::int32_t> stateful;
  for (const auto& t : cluster.tasks)
    if (t.stateful) stateful.insert(t.id.subtopology);
  return stateful.size();
}

// ---- the PRNG --------------------------------------------------------------------------------

TEST(SplitMix64, MatchesTheReferenceSequence) {
  SplitMix64 zero(0);
  EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(zero.next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(zero.next(), 0x06C45D188009454FULL);
  SplitMix64 rng(1234567);
  EXPECT_EQ(rng.next(), 6457827717110365317ULL);
  EXPECT_EQ(rng.next(), 3203168211198807973ULL);
  EXPECT_EQ(rng.next(), 9817491932198370423ULL);
}

TEST(SplitMix64, BelowAndBetweenStayInRange) {
  SplitMix64 rng = SplitMix64::stream(7, 1);
  for (int i = 0; i < 10000; ++i) {
    EXPECT_LT(rng.below(3), 3u);
    const auto v = rng.between(10, 12);
    EXPECT_GE(v, 10u);
    EXPECT_LE(v, 12u);
  }
  EXPECT_EQ(rng.below(1), 0u);
}

// ---- the spec --------------------------------------------------------------------------------

TEST(ScenarioKind, ParsesAndFormats) {
  for (auto kind :
       {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in, ScenarioKind::rolling_restart})
    EXPECT_EQ(parse_scenario_kind(to_string(kind)), kind);
  EXPECT_EQ(to_string(ScenarioKind::rolling_restart), "rolling-restart");
  EXPECT_EQ(parse_scenario_kind("scale_out"), ScenarioKind::scale_out);
  EXPECT_EQ(parse_scenario_kind("scaleout"), std::nullopt);
  EXPECT_EQ(parse_scenario_kind(""), std::nullopt);
}

TEST(ScenarioSpec, NonsenseIsAnInputErrorNamingTheField) {
  // Each case spoils one field of a valid fresh spec; the message names the field and the limit.
  const std::pair<std::function<void(ScenarioSpec&)>, std::string> cases[] = {
      {[](ScenarioSpec& s) { s.clients = 0; }, "clients must be between 1 and 100000, got 0"},
      {[](ScenarioSpec& s) { s.threads = 0; }, "threads must be between 1"},
      {[](ScenarioSpec& s) { s.partitions = 0; }, "partitions must be between 1"},
      {[](ScenarioSpec& s) { s.stateful_fraction = 1.5; }, "stateful_fraction must be a fraction in [0, 1], got 1.5"},
      {[](ScenarioSpec& s) { s.nonlogged_fraction = std::numeric_limits<double>::quiet_NaN(); },
       "nonlogged_fraction must be a fraction in [0, 1]"},
      {[](ScenarioSpec& s) {
         s.subtopologies = 100'000;
         s.partitions = 101;
       },
       "10100000 tasks, more than the 10000000 allowed"},
      {[](ScenarioSpec& s) { s.racks = 1001; }, "racks must be between 0 and 1000"},
  };
  for (const auto& [spoil, message] : cases) {
    auto spec = spec_of(ScenarioKind::fresh);
    spoil(spec);
    EXPECT_THAT(input_error(spec), HasSubstr(message));
  }
  EXPECT_THAT(input_error(spec_of(ScenarioKind::scale_out, 1)), HasSubstr("scale-out needs at least 2 clients"));
}

// ---- determinism -----------------------------------------------------------------------------

TEST(GenerateCluster, SameSpecSameBytesOtherSeedOtherBytes) {
  for (auto kind :
       {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in, ScenarioKind::rolling_restart}) {
    auto spec = spec_of(kind);
    spec.racks = 3;
    const std::string first = cluster_to_json(generate_cluster(spec));
    EXPECT_EQ(first, cluster_to_json(generate_cluster(spec))) << to_string(kind);
    spec.seed = 2;
    EXPECT_NE(first, cluster_to_json(generate_cluster(spec))) << to_string(kind);
  }
}

TEST(GenerateCluster, TasksDoNotDependOnTheScenarioOrTheClients) {
  // Each phase has its own random stream: the topology and end offsets depend on the seed only.
  const Cluster a = generate_cluster(spec_of(ScenarioKind::fresh, 5));
  const Cluster b = generate_cluster(spec_of(ScenarioKind::scale_in, 40));
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (std::size_t t = 0; t < a.tasks.size(); ++t) {
    ASSERT_EQ(a.tasks[t].stores.size(), b.tasks[t].stores.size());
    EXPECT_EQ(a.tasks[t].end_offset_sum, b.tasks[t].end_offset_sum);
  }
}

// ---- topology --------------------------------------------------------------------------------

TEST(GenerateCluster, TasksAreEverySubtopologyAndPartition) {
  const Cluster c = generate_cluster(spec_of(ScenarioKind::fresh));
  ASSERT_EQ(c.tasks.size(), 6u * 30u);
  EXPECT_EQ(c.tasks.front().id, (TaskId{0, 0}));
  EXPECT_EQ(c.tasks.back().id, (TaskId{5, 29}));
  ASSERT_EQ(c.clients.size(), 20u);
  EXPECT_EQ(c.clients[0].id, "client-0000");
  EXPECT_EQ(c.clients[19].id, "client-0019");
  for (const auto& client : c.clients) EXPECT_EQ(client.threads, 2u);
  for (const auto& task : c.tasks) {
    for (const auto& store : task.stores) {
      if (!store.logged) continue;
      EXPECT_GE(store.changelog_end_offset, 10'000);
      EXPECT_LE(store.changelog_end_offset, 1'000'000);
    }
  }
}

TEST(GenerateCluster, StatefulFractionIsRespected) {
  for (const double fraction : {0.0, 0.1, 0.25, 0.5, 0.55, 0.9, 1.0}) {
    auto spec = spec_of(ScenarioKind::fresh);
    spec.subtopologies = 20;
    spec.partitions = 2;
    spec.stateful_fraction = fraction;
    const Cluster c = generate_cluster(spec);
    EXPECT_EQ(stateful_subtopologies(c), static_cast<std::size_t>(20 * fraction + 0.5)) << fraction;
    // Every partition of a sub-topology has the same stores.
    for (std::size_t t = 0; t + 1 < c.tasks.size(); t += 2)
      EXPECT_EQ(c.tasks[t].stores.size(), c.tasks[t + 1].stores.size());
  }
}

TEST(GenerateCluster, NonloggedFractionOfTheStatefulSubtopologies) {
  auto spec = spec_of(ScenarioKind::fresh);
  spec.subtopologies = 20;
  spec.partitions = 1;
  spec.stateful_fraction = 0.5;
  spec.nonlogged_fraction = 0.3;
  const Cluster c = generate_cluster(spec);
  std::size_t nonlogged = 0, logged = 0;
  for (const auto& t : c.tasks) {
    if (!t.stateful) continue;
    (t.has_logged_store ? logged : nonlogged) += 1;
    EXPECT_EQ(t.end_offset_sum == 0, !t.has_logged_store);
  }
  EXPECT_EQ(nonlogged, 3u);  // round(10 * 0.3)
  EXPECT_EQ(logged, 7u);
}

TEST(GenerateCluster, RacksForClientsAndPartitionReplicas) {
  auto spec = spec_of(ScenarioKind::fresh);
  spec.racks = 4;
  const Cluster c = generate_cluster(spec);
  ASSERT_EQ(c.racks.size(), 4u);
  EXPECT_TRUE(c.has_racks());
  for (std::size_t i = 0; i < c.clients.size(); ++i)
    EXPECT_EQ(c.racks[c.clients[i].rack], "rack-" + std::to_string(i % 4));
  std::set<std::vector<RackIndex>> pairs;
  for (const auto& task : c.tasks) {
    ASSERT_EQ(task.partitions.size(), 1u);
    const auto& p = task.partitions[0];
    EXPECT_EQ(p.topic, "topic-" + std::to_string(task.id.subtopology));
    EXPECT_EQ(p.partition, task.id.partition);
    ASSERT_EQ(p.racks.size(), 2u);
    EXPECT_NE(p.racks[0], p.racks[1]);
    pairs.insert(p.racks);
  }
  EXPECT_GT(pairs.size(), 3u);  // drawn, not all the same pair

  spec.racks = 2;  // fewer than three racks: every replica everywhere
  for (const auto& task : generate_cluster(spec).tasks) EXPECT_EQ(task.partitions[0].racks.size(), 2u);
  spec.racks = 0;
  const Cluster none = generate_cluster(spec);
  EXPECT_FALSE(none.has_racks());
  EXPECT_TRUE(none.tasks[0].partitions.empty());
  EXPECT_EQ(none.clients[0].rack, kNoRack);
}

// ---- scenarios -------------------------------------------------------------------------------

TEST(GenerateCluster, FreshHasNoHistory) {
  const Cluster c = generate_cluster(spec_of(ScenarioKind::fresh));
  for (const auto& client : c.clients) EXPECT_FALSE(has_history(client)) << client.id;
  for (ClientIndex owner : c.previous_active_owner()) EXPECT_EQ(owner, kNoClient);
}

TEST(GenerateCluster, ScaleOutAddsEmptyClientsToABalancedCaughtUpGroup) {
  const Cluster c = generate_cluster(spec_of(ScenarioKind::scale_out, 40));
  std::vector<ClientIndex> fresh, old;
  for (ClientIndex i = 0; i < c.clients.size(); ++i) (has_history(c.clients[i]) ? old : fresh).push_back(i);
  EXPECT_EQ(fresh.size(), 4u);  // 10% of 40
  // Every task has a previous owner among the old clients, spread evenly.
  for (ClientIndex owner : c.previous_active_owner()) EXPECT_NE(owner, kNoClient);
  std::size_t lo = SIZE_MAX, hi = 0;
  for (ClientIndex i : old) {
    lo = std::min(lo, c.clients[i].previous_active.size());
    hi = std::max(hi, c.clients[i].previous_active.size());
  }
  EXPECT_LE(hi - lo, 1u);
  // Running actives report -2; standby holders are a little behind (one copy in ten further).
  std::size_t near = 0, far = 0;
  for (ClientIndex i : old) {
    const Client& client = c.clients[i];
    for (TaskIndex t : client.previous_active)
      if (c.tasks[t].stateful) {
        EXPECT_EQ(reported(client, t), kRunningOffsetSum);
      }
    for (TaskIndex t : client.previous_standby) {
      EXPECT_TRUE(c.tasks[t].has_logged_store);
      const auto sum = reported(client, t);
      ASSERT_TRUE(sum.has_value());
      const std::int64_t lag = c.tasks[t].end_offset_sum - *sum;
      EXPECT_GE(lag, 0);
      if (lag <= 5000)
        ++near;
      else if (lag >= 10001 && *sum >= 0)
        ++far;
      else
        ADD_FAILURE() << "lag " << lag;
    }
  }
  EXPECT_GT(near, 0u);
  EXPECT_GT(far, 0u);
  EXPECT_GT(near, far * 4);
}

TEST(GenerateCluster, StandbysAreOnOtherClientsAndCappedByTheGroup) {
  auto spec = spec_of(ScenarioKind::scale_out, 4);  // 3 previous members, one new client
  spec.standbys = 5;                                // but only 2 other members
  const Cluster c = generate_cluster(spec);
  for (TaskIndex t = 0; t < c.tasks.size(); ++t) {
    std::size_t copies = 0;
    for (const auto& client : c.clients) {
      const bool standby = holds(client.previous_standby, t);
      EXPECT_FALSE(standby && holds(client.previous_active, t));
      copies += standby;
    }
    EXPECT_EQ(copies, c.tasks[t].has_logged_store ? 2u : 0u) << to_string(c.tasks[t].id);
  }
}

TEST(GenerateCluster, ScaleInLeavesTasksWithoutOwnerButWithCaughtUpStandbys) {
  const Cluster c = generate_cluster(spec_of(ScenarioKind::scale_in, 20));
  ASSERT_EQ(c.clients.size(), 20u);
  std::size_t orphans = 0, covered = 0;
  for (TaskIndex t = 0; t < c.tasks.size(); ++t) {
    if (c.previous_active_owner()[t] != kNoClient) continue;
    ++orphans;
    if (!c.tasks[t].has_logged_store) continue;
    for (const auto& client : c.clients) {
      if (!holds(client.previous_standby, t)) continue;
      const std::int64_t lag = c.tasks[t].end_offset_sum - reported(client, t).value_or(-1);
      EXPECT_GE(lag, 0);
      EXPECT_LE(lag, 5000) << client.id << " " << to_string(c.tasks[t].id);
      ++covered;
    }
  }
  // 2 of 22 previous members left: about 2/22 of the 180 tasks lost their owner.
  EXPECT_GE(orphans, 10u);
  EXPECT_LE(orphans, 24u);
  EXPECT_GT(covered, 0u);
  // Everyone remaining held something.
  for (const auto& client : c.clients) EXPECT_FALSE(client.previous_active.empty()) << client.id;
}

TEST(GenerateCluster, RollingRestartHasExactlyOneClientWithStateButNoTasks) {
  const Cluster c = generate_cluster(spec_of(ScenarioKind::rolling_restart, 10));
  std::vector<const Client*> restarted;
  for (const auto& client : c.clients) {
    if (client.previous_active.empty() && client.previous_standby.empty()) {
      EXPECT_FALSE(client.offset_sums.empty()) << client.id;
      restarted.push_back(&client);
    }
  }
  ASSERT_EQ(restarted.size(), 1u);
  for (const auto& e : restarted[0]->offset_sums) {
    const std::int64_t lag = c.tasks[e.task].end_offset_sum - e.sum;
    EXPECT_GE(e.sum, 0);
    EXPECT_GE(lag, 0);
    EXPECT_LE(lag, c.tasks[e.task].has_logged_store ? 50000 : 0);
  }
  // Its former actives have no previous owner now; every other task does.
  std::size_t orphans = 0;
  for (ClientIndex owner : c.previous_active_owner()) orphans += owner == kNoClient;
  EXPECT_EQ(orphans, c.tasks.size() / 10);
}

TEST(GenerateCluster, SingleClientRollingRestartAndEndOffsetsUnknown) {
  auto spec = spec_of(ScenarioKind::rolling_restart, 1);
  spec.end_offsets_known = false;
  const Cluster c = generate_cluster(spec);
  EXPECT_FALSE(c.end_offsets_known);
  ASSERT_EQ(c.clients.size(), 1u);
  EXPECT_TRUE(c.clients[0].previous_active.empty());
  EXPECT_FALSE(c.clients[0].offset_sums.empty());
  EXPECT_THAT(cluster_to_json(c), HasSubstr("\"end_offsets_known\": false"));
}

TEST(GenerateCluster, ClientNamesWidenPastTenThousand) {
  auto spec = spec_of(ScenarioKind::fresh, 12'345);
  spec.subtopologies = 1;
  spec.partitions = 1;
  const Cluster c = generate_cluster(spec);
  EXPECT_EQ(c.clients.front().id, "client-00000");
  EXPECT_EQ(c.clients.back().id, "client-12344");
}

// ---- weights ---------------------------------------------------------------------------------

// Weight in hundredths, exact for generated weights (h / 100 rounds back to h).
std::int64_t hundredths(double weight) { return static_cast<std::int64_t>(std::llround(weight * 100)); }

TEST(GenerateWeights, ParsesAndFormats) {
  EXPECT_EQ(parse_weight_distribution("uniform"), WeightDistribution::uniform);
  EXPECT_EQ(parse_weight_distribution("zipf"), WeightDistribution::zipf);
  EXPECT_EQ(parse_weight_distribution("pareto"), std::nullopt);
  EXPECT_EQ(to_string(WeightDistribution::zipf), "zipf");
  EXPECT_EQ(to_string(WeightDistribution::uniform), "uniform");
}

TEST(GenerateWeights, UniformIsTheDefaultAndWritesNoWeight) {
  auto spec = spec_of(ScenarioKind::scale_out);
  EXPECT_EQ(spec.weights, WeightDistribution::uniform);
  const Cluster c = generate_cluster(spec);
  for (const auto& t : c.tasks) EXPECT_EQ(t.weight, 1.0);
  EXPECT_THAT(cluster_to_json(c), ::testing::Not(HasSubstr("weight")));
}

TEST(GenerateWeights, ZipfRanksEachSubtopologysPartitionsByAShuffle) {
  auto spec = spec_of(ScenarioKind::fresh);
  spec.subtopologies = 3;
  spec.partitions = 2100;  // ranks beyond 2000 weigh the minimum, 0.01
  spec.weights = WeightDistribution::zipf;
  const Cluster c = generate_cluster(spec);
  std::vector<std::int64_t> expected;  // rank k weighs round(1000 / k) hundredths, at least 1
  for (std::int64_t k = 1; k <= 2100; ++k) expected.push_back(std::max<std::int64_t>(1, (2000 + k) / (2 * k)));
  EXPECT_THAT(std::vector<std::int64_t>(expected.begin(), expected.begin() + 10),
              ::testing::ElementsAre(1000, 500, 333, 250, 200, 167, 143, 125, 111, 100));
  std::vector<std::vector<std::int64_t>> by_subtopology(3);
  for (const auto& t : c.tasks) {
    EXPECT_EQ(t.weight, static_cast<double>(hundredths(t.weight)) / 100.0) << to_string(t.id);
    by_subtopology[static_cast<std::size_t>(t.id.subtopology)].push_back(hundredths(t.weight));
  }
  for (auto& weights : by_subtopology) {
    // A permutation of the ranks' weights, and not in rank order.
    EXPECT_NE(weights, expected);
    std::sort(weights.begin(), weights.end(), std::greater<>());
    EXPECT_EQ(weights, expected);
  }
  // Each sub-topology is shuffled on its own.
  std::vector<std::size_t> hottest;
  for (std::size_t s = 0; s < 3; ++s)
    for (std::size_t p = 0; p < 2100; ++p)
      if (c.tasks[s * 2100 + p].weight == 10.0) hottest.push_back(p);
  ASSERT_EQ(hottest.size(), 3u);
  EXPECT_FALSE(hottest[0] == hottest[1] && hottest[1] == hottest[2]);
}

TEST(GenerateWeights, ZipfIsDeterministicAndChangesOnlyTheWeights) {
  auto spec = spec_of(ScenarioKind::scale_in, 13, 5);
  spec.racks = 3;
  const Cluster uniform = generate_cluster(spec);
  spec.weights = WeightDistribution::zipf;
  const Cluster zipf = generate_cluster(spec);
  EXPECT_EQ(cluster_to_json(zipf), cluster_to_json(generate_cluster(spec)));
  spec.seed = 6;
  EXPECT_NE(cluster_to_json(zipf), cluster_to_json(generate_cluster(spec)));
  // Weights draw from their own stream: everything else is the uniform file's.
  Cluster reweighted = zipf;
  for (auto& t : reweighted.tasks) t.weight = 1.0;
  EXPECT_EQ(cluster_to_json(reweighted), cluster_to_json(uniform));
  std::size_t not_one = 0;
  for (const auto& t : zipf.tasks) not_one += t.weight != 1.0 ? 1 : 0;
  EXPECT_EQ(not_one, zipf.tasks.size() - 6);  // one partition of rank 10 per sub-topology weighs 1
}

TEST(GenerateWeights, ZipfFilesReadBackAndWriteWeightsShortest) {
  auto spec = spec_of(ScenarioKind::rolling_restart, 7, 3);
  spec.partitions = 12;
  spec.weights = WeightDistribution::zipf;
  const Cluster generated = generate_cluster(spec);
  const std::string text = cluster_to_json(generated);
  EXPECT_THAT(text, HasSubstr(", \"weight\": 10}"));
  EXPECT_THAT(text, HasSubstr(", \"weight\": 3.33}"));
  EXPECT_THAT(text, HasSubstr(", \"weight\": 2.5}"));
  EXPECT_THAT(text, HasSubstr(", \"weight\": 0.83}"));
  const Cluster read = host::parse_cluster(text, "zipf.json");
  for (std::size_t t = 0; t < read.tasks.size(); ++t) EXPECT_EQ(read.tasks[t].weight, generated.tasks[t].weight);
  EXPECT_EQ(cluster_to_json(read), text);
}

// ---- the file --------------------------------------------------------------------------------

// Field by field, with racks compared by name (the reader numbers them in the order it meets them).
void expect_same_cluster(const Cluster& a, const Cluster& b) {
  EXPECT_EQ(a.end_offsets_known, b.end_offsets_known);
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  const auto rack_names = [](const Cluster& c, const std::vector<RackIndex>& racks) {
    std::set<std::string> names;
    for (RackIndex r : racks) names.insert(c.racks[r]);
    return names;
  };
  for (std::size_t t = 0; t < a.tasks.size(); ++t) {
    const Task& x = a.tasks[t];
    const Task& y = b.tasks[t];
    ASSERT_EQ(x.id, y.id);
    ASSERT_EQ(x.stores.size(), y.stores.size()) << to_string(x.id);
    for (std::size_t k = 0; k < x.stores.size(); ++k) {
      EXPECT_EQ(x.stores[k].name, y.stores[k].name);
      EXPECT_EQ(x.stores[k].logged, y.stores[k].logged);
      EXPECT_EQ(x.stores[k].changelog_end_offset, y.stores[k].changelog_end_offset);
    }
    EXPECT_EQ(x.weight, y.weight);
    EXPECT_EQ(x.end_offset_sum, y.end_offset_sum);
    ASSERT_EQ(x.partitions.size(), y.partitions.size());
    for (std::size_t i = 0; i < x.partitions.size(); ++i) {
      EXPECT_EQ(x.partitions[i].topic, y.partitions[i].topic);
      EXPECT_EQ(x.partitions[i].partition, y.partitions[i].partition);
      EXPECT_EQ(rack_names(a, x.partitions[i].racks), rack_names(b, y.partitions[i].racks));
    }
  }
  ASSERT_EQ(a.clients.size(), b.clients.size());
  for (std::size_t i = 0; i < a.clients.size(); ++i) {
    const Client& x = a.clients[i];
    const Client& y = b.clients[i];
    ASSERT_EQ(x.id, y.id);
    EXPECT_EQ(x.threads, y.threads);
    EXPECT_EQ(x.rack == kNoRack, y.rack == kNoRack);
    if (x.rack != kNoRack && y.rack != kNoRack) {
      EXPECT_EQ(a.racks[x.rack], b.racks[y.rack]);
    }
    EXPECT_EQ(x.tags, y.tags);
    EXPECT_EQ(x.previous_active, y.previous_active) << x.id;
    EXPECT_EQ(x.previous_standby, y.previous_standby) << x.id;
    ASSERT_EQ(x.offset_sums.size(), y.offset_sums.size()) << x.id;
    for (std::size_t k = 0; k < x.offset_sums.size(); ++k) {
      EXPECT_EQ(x.offset_sums[k].task, y.offset_sums[k].task);
      EXPECT_EQ(x.offset_sums[k].sum, y.offset_sums[k].sum);
    }
    ASSERT_EQ(x.threads_history.size(), y.threads_history.size()) << x.id;
    for (std::size_t k = 0; k < x.threads_history.size(); ++k) {
      EXPECT_EQ(x.threads_history[k].name, y.threads_history[k].name);
      EXPECT_EQ(x.threads_history[k].previous_active, y.threads_history[k].previous_active);
      EXPECT_EQ(x.threads_history[k].previous_standby, y.threads_history[k].previous_standby);
    }
  }
  EXPECT_TRUE(std::equal(a.previous_active_owner().begin(), a.previous_active_owner().end(),
                         b.previous_active_owner().begin(), b.previous_active_owner().end()));
}

TEST(ToJson, GeneratedFilesReadBackIntoTheSameCluster) {
  for (auto kind :
       {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in, ScenarioKind::rolling_restart}) {
    for (std::uint32_t racks : {0u, 2u, 5u}) {
      SCOPED_TRACE(std::string(to_string(kind)) + " racks " + std::to_string(racks));
      auto spec = spec_of(kind, 13, 99);
      spec.racks = racks;
      spec.standbys = 2;
      spec.nonlogged_fraction = 0.4;
      const Cluster generated = generate_cluster(spec);
      const std::string text = cluster_to_json(generated);
      const Cluster read = host::parse_cluster(text, "generated.json");
      expect_same_cluster(generated, read);
      EXPECT_EQ(cluster_to_json(read), text);
    }
  }
}

TEST(ToJson, OneLinePerTaskAndPerClient) {
  const Cluster c = generate_cluster(spec_of(ScenarioKind::scale_out));
  const std::string text = cluster_to_json(c);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(c.tasks.size() + c.clients.size() + 5));
  EXPECT_EQ(text.substr(0, 44), "{\"version\": 1, \"end_offsets_known\": true,\n\"t");
  EXPECT_THAT(text, HasSubstr("\n{\"id\": \"0_0\""));
  EXPECT_EQ(text.substr(text.size() - 5), "}\n]}\n");
}

TEST(ToJson, WritesAnyClusterEscapingStrings) {
  Cluster c;
  c.racks = {"az \"1\"", "az\\2"};
  Task a;
  a.id = {0, 0};
  a.stores = {{"counts\n", true, 7}, {"scratch", false, 0}};
  a.weight = 2.5;
  a.partitions = {{"orders\t", 3, {1, 0}}};
  Task b;
  b.id = {0, 1};
  c.tasks = {a, b};
  Client x;
  x.id = "c\x01";
  x.threads = 3;
  x.rack = 0;
  x.tags = {{"zone", "z1"}, {"k\"", ""}};
  x.previous_active = {0};
  x.previous_standby = {1};
  x.offset_sums = {{0, -2}, {1, 5}};
  ThreadHistory thread;
  thread.name = "t0";
  thread.previous_active = {0};
  x.threads_history = {thread};
  Client y;
  y.id = "d";
  c.clients = {y, x};
  c.finalize();
  const std::string text = cluster_to_json(c);
  EXPECT_THAT(text, HasSubstr("\"counts\\n\""));
  EXPECT_THAT(text, HasSubstr("\"c\\u0001\""));
  EXPECT_THAT(text, HasSubstr("\"weight\": 2.5"));
  EXPECT_THAT(text, HasSubstr("{\"name\": \"scratch\", \"logged\": false}"));
  EXPECT_THAT(text, HasSubstr("\"racks\": [\"az \\\"1\\\"\", \"az\\\\2\"]"));
  // The readers refuse control characters in names (they could forge lines in messages and tables)...
  try {
    host::parse_cluster(text, "escaped.json");
    ADD_FAILURE() << "control characters accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("contains a control character (0x0a at offset 6)"));
  }
  // ...and read back everything else the writer escapes.
  c.tasks[0].stores[0].name = "counts \"x\" \\ y";
  c.tasks[0].partitions[0].topic = "orders \"o\"";
  for (Client& cl : c.clients)
    if (cl.id == "c\x01") cl.id = "c \\ \"quoted\"";
  c.finalize();
  const std::string printable_text = cluster_to_json(c);
  const Cluster read = host::parse_cluster(printable_text, "escaped.json");
  expect_same_cluster(c, read);
  EXPECT_EQ(cluster_to_json(read), printable_text);
}

}  // namespace
}  // namespace assignor
