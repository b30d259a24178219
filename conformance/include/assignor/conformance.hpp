// The conformance kit: the suite every strategy must pass, built-in or third-party, and hooks for
// a strategy's own properties and cases.
//
// On generated clusters (fresh, scale-out, scale-in, rolling restart; with and without standbys,
// racks, client tags (with racks independent of them), stateless tasks, non-logged stores, unknown
// end offsets; derived from a seed), on the kit's settled groups (below) and on the cases you add,
// a strategy's output must be valid and deterministic (the same input gives the same output);
// warmups come with a probing rebalance; a strategy that declares kCapabilityHighAvailability
// never returns a restoring active. A failure names the task and client at fault and prints a
// full reproduction: the `assignor generate` line (or the cluster file itself, for a case built in
// code), the settings as a config file, and the `assignor assign` line.
//
// Stability (tests "Stability.<case>"): a strategy leaves a settled group alone. The group is
// played in the round model of DESIGN 4.6 (next_round(): every copy catches up fully between
// rounds, nothing else happens). A round *settles* the group when its assignment is converged
// (DESIGN 4.6: balanced, no probing rebalance, no stale standby) or changes nothing (the same
// actives and copies as the round before: a strategy that always asks for a probing rebalance, or
// stops short of "balanced", has nothing more to do either). On every case of up to
// StabilityOptions::max_tasks tasks, the strategy first runs until a round settles the group
// (within settle_limit rounds, or the case fails); then comes one more rebalance, and the rounds
// until one settles the group again: at most max_rounds rounds, moving at most max_active_moves
// actives in all. The kit's settled groups (settled_groups(): 22 tasks on 4 clients as Kafka's
// high-availability assignor left them) are taken as they are, without the strategy's own rounds
// first: a strategy must not reshuffle a group that another assignor left balanced either
// (StabilityOptions can leave either part out, with a reason printed with the skipped tests: for a
// strategy that reproduces an assignor which itself does not pass, e.g. one that ignores history).
//
// Two ways to run it:
//   - on a plugin library, with the installed runner (CMake: assignor_add_conformance_test(name)):
//       assignor_conformance --plugin build/my_strategy.so [--seed N] [--time-budget-ms MS]
//   - in-process, with your own properties and cases, from a test executable that links the
//     plugin's sources (CMake: assignor_add_conformance_test(name SOURCES my_conformance.cpp)):
//
//       #include <assignor/conformance.hpp>
//       int main(int argc, char** argv) {
//         assignor::conformance::Suite suite(assignor::this_plugin());
//         suite.property("every sub-topology spread within one task",
//                        [](const assignor::conformance::Run& run) {
//                          EXPECT_LE(run.metrics.max_subtopology_skew, 1u);   // GoogleTest assertions
//                        });
//         assignor::conformance::Case zones;                 // a generated case of your own
//         zones.name = "scale_out_racks_and_zones";
//         zones.spec.kind = assignor::ScenarioKind::scale_out;
//         zones.spec.clients = 9, zones.spec.subtopologies = 3, zones.spec.partitions = 8;
//         zones.spec.racks = 3, zones.spec.tags = {{"zone", 3}};
//         zones.settings.num_standby_replicas = 1, zones.settings.rack_aware.tags = {"zone"};
//         suite.add_case(zones);                             // or add_case(name, cluster, settings)
//         return suite.run(argc, argv);
//       }
#pragma once

#include <gtest/gtest.h>  // properties use its assertions

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/model.hpp"
#include "assignor/plugin.hpp"
#include "assignor/scenario.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"
#include "assignor/threads.hpp"

namespace assignor::conformance {

struct Case {
  std::string name;  // readable and a valid test name, e.g. "scale_out_standbys1_racks3_mixed_n9"
  ScenarioSpec spec;
  AssignmentSettings settings;
  // Set: the case runs on this cluster instead of generate_cluster(spec) (a case built in code,
  // or the kit's settled group); its reproduction lines write the cluster file out.
  std::shared_ptr<const Cluster> cluster;
  // The group is settled already (by another assignor): the stability property starts from it as
  // it is, without running the strategy to convergence first.
  bool settled = false;
};

// The cases, derived deterministically from `seed` (different seeds vary sizes and draws), then
// settled_groups().
std::vector<Case> cases(std::uint64_t seed);

// A real application's group as Kafka Streams' HighAvailabilityTaskAssignor left it once its
// rebalances settled (scaled out from 2 to 4 instances, one restarted with its state wiped): 22
// tasks (18 with a changelog in three sub-topologies of 6 partitions, and a stateless one of 4) on
// 4 clients of one thread (Kafka Streams' default), with UUID process ids so that Kafka's client
// order is not their string order; every active running, no racks. Two cases: Kafka's default of
// no standby ("settled_kafka_ha_standbys0"), and one standby, each caught up
// ("settled_kafka_ha_standbys1"). Kafka's assignor moves nothing on either.
std::vector<Case> settled_groups();

// The cluster a case runs on: its own, or the generated one.
Cluster cluster_of(const Case& c);

// The round model the stability property plays (DESIGN 4.6 with full catch-up, no new data, no
// events): what the group reports at the next rebalance after `assignment` (valid for `state`) ran
// with its per-thread split `threads`. Per client: previous_active and previous_standby become its
// actives and its standby and warmup copies; offset sums become -2 for a stateful active, the
// end-offset sum for a copy (caught up), the end-offset sum for a task it ran and no longer holds,
// and stay as they were for the other tasks it reported; previous_by_thread becomes the split.
// End offsets become known (a probing rebalance found them).
Cluster next_round(const Cluster& state, const Assignment& assignment, const ThreadDistribution& threads);
// DESIGN 4.6: balanced when stateful_load_spread, active_load_spread and the per-thread load are
// each within one task and no active restores; converged when balanced, no probing rebalance is
// wanted and no standby is stale.
bool balanced(const Metrics& metrics) noexcept;
bool converged(const Metrics& metrics, bool probing_rebalance) noexcept;

// The JSON cluster file (docs/formats.md) of a cluster, as `assignor` reads it.
std::string cluster_json(const Cluster& cluster);

// The `assignor generate` command line that reproduces a case's cluster file.
std::string generate_command(const ScenarioSpec& spec);
// The case's settings as a config file for `strategy`.
std::string config_yaml(const Case& c, const std::string& strategy);
// Shell lines that rebuild the case's cluster and config and run `strategy` from `library` on it,
// runnable as printed: `assignor` is the command to call ("" = assignor on PATH), best an
// absolute path (the kit's runner and assignor_add_conformance_test give the installed one).
std::string reproduction(const Case& c, const std::string& strategy, const std::string& library,
                         const std::string& assignor = "");

// What a property sees: one case, the strategy's output on it and its metrics.
struct Run {
  const Case& test_case;
  const Cluster& cluster;
  const LagModel& lags;
  const Assignment& assignment;
  const Metrics& metrics;
  double assign_ms;
};
// A property checks a Run with GoogleTest assertions (EXPECT_*, ADD_FAILURE); it runs after the
// built-in checks passed, on every case.
using Property = std::function<void(const Run&)>;

// The stability property (see the top of this file).
struct StabilityOptions {
  bool enabled = true;
  // A reason leaves one part out (the tests are skipped with it): a strategy whose answer must stay
  // that of an assignor it reproduces (a Kafka assignor, tie for tie) cannot be made to pass where
  // that assignor does not. Runner and run(): --stability-off-generated REASON,
  // --stability-off-settled REASON.
  std::string generated_off_because;       // the generated cases (and the ones you add)
  std::string settled_groups_off_because;  // the kit's settled groups
  std::uint32_t max_active_moves = 2;      // over the extra rebalance and the rounds until converged again
  std::uint32_t max_rounds = 3;            // rounds until converged again, the extra rebalance included
  std::uint32_t settle_limit = 1000;       // rounds allowed to converge before the extra rebalance
  std::size_t max_tasks = 400;             // larger cases are left out of it (settling them takes long)
};

struct Options {
  std::uint64_t seed = 1;
  StabilityOptions stability;
  // 0: none. Else every assign() call must return within this many milliseconds. Wall-clock time
  // depends on the machine and what else runs on it: use a budget far above what you measure, or
  // only on a quiet machine (this project's own suite sets none).
  double time_budget_ms = 0;
  std::string library;   // the plugin library, for the reproduction lines (--library; "" = path/to/<name>.so)
  std::string assignor;  // the assignor command, for the reproduction lines (--assignor; "" = on PATH)
};

class Suite {
 public:
  using Factory = std::function<std::shared_ptr<Strategy>()>;

  // A strategy compiled into this binary: made with make_strategy(plugin) for each run.
  explicit Suite(const PluginDescriptor& plugin, Options options = {});
  // Any strategy: `name` and `capabilities` as its descriptor declares them.
  Suite(std::string name, std::uint32_t capabilities, Factory factory, Options options = {});

  Suite& property(std::string name, Property check);
  // A case of your own, run with the generated ones (its name must be unique among them: it names
  // the tests "Conformance.<name>" and "Stability.<name>"). Generated: fill spec (and settings);
  // built in code: the cluster (finalized), and the settings.
  Suite& add_case(Case c);
  Suite& add_case(std::string name, Cluster cluster, AssignmentSettings settings);
  // Every case the suite runs: cases(seed) and the added ones.
  std::vector<Case> all_cases() const;
  Options& options() noexcept { return options_; }

  // Registers the GoogleTest tests of every case ("Conformance.<case name>", and
  // "Stability.<case name>" for the cases the stability property covers); call after
  // ::testing::InitGoogleTest and before RUN_ALL_TESTS. The suite must outlive the tests.
  void register_tests();
  // The whole main(): reads --seed N, --time-budget-ms MS, --library, --assignor and the
  // --stability-off-* REASON flags (then GoogleTest's flags), registers
  // the tests and runs them. Returns the exit status (0 when every case passed; 2 on a bad flag).
  int run(int argc, char** argv);

 private:
  void check(const Case& c) const;
  void check_stability(const Case& c) const;

  std::string name_;
  std::uint32_t capabilities_ = 0;
  Factory factory_;
  Options options_;
  std::vector<std::pair<std::string, Property>> properties_;
  std::vector<Case> added_;
};

}  // namespace assignor::conformance
