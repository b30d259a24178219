// The conformance kit: the suite every strategy must pass, built-in or third-party, and a hook for
// a strategy's own properties.
//
// On generated clusters (fresh, scale-out, scale-in, rolling restart; with and without standbys,
// racks, stateless tasks, non-logged stores, unknown end offsets; derived from a seed) a strategy's
// output must be valid and deterministic (the same input gives the same output); warmups come with
// a probing rebalance; a strategy that declares kCapabilityHighAvailability never returns a
// restoring active. A failure names the task and client at fault and prints a full reproduction:
// the `assignor generate` line, the settings as a config file, and the `assignor assign` line.
//
// Two ways to run it:
//   - on a plugin library, with the installed runner (CMake: assignor_add_conformance_test(name)):
//       assignor_conformance --plugin build/my_strategy.so [--seed N] [--time-budget-ms MS]
//   - in-process, with your own properties, from a test executable that links the plugin's
//     sources (CMake: assignor_add_conformance_test(name SOURCES my_conformance.cpp)):
//
//       #include <assignor/conformance.hpp>
//       int main(int argc, char** argv) {
//         assignor::conformance::Suite suite(assignor::this_plugin());
//         suite.property("every sub-topology spread within one task",
//                        [](const assignor::conformance::Run& run) {
//                          EXPECT_LE(run.metrics.max_subtopology_skew, 1u);   // GoogleTest assertions
//                        });
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

namespace assignor::conformance {

struct Case {
  std::string name;  // readable and a valid test name, e.g. "scale_out_standbys1_racks3_mixed_n9"
  ScenarioSpec spec;
  AssignmentSettings settings;
};

// The cases, derived deterministically from `seed` (different seeds vary sizes and draws).
std::vector<Case> cases(std::uint64_t seed);

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

struct Options {
  std::uint64_t seed = 1;
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
  Options& options() noexcept { return options_; }

  // Registers one GoogleTest test per case ("Conformance.<case name>"); call after
  // ::testing::InitGoogleTest and before RUN_ALL_TESTS. The suite must outlive the tests.
  void register_tests();
  // The whole main(): reads --seed N and --time-budget-ms MS (then GoogleTest's flags), registers
  // the tests and runs them. Returns the exit status (0 when every case passed; 2 on a bad flag).
  int run(int argc, char** argv);

 private:
  void check(const Case& c) const;

  std::string name_;
  std::uint32_t capabilities_ = 0;
  Factory factory_;
  Options options_;
  std::vector<std::pair<std::string, Property>> properties_;
};

}  // namespace assignor::conformance
