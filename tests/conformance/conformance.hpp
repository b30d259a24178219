// The conformance suite every strategy must pass, built-in or third-party.
//
// On many generated clusters (fresh, scale-out, scale-in, rolling restart; with and without
// standbys, racks, stateless tasks, non-logged stores, unknown end offsets; seeded) a strategy's
// output must be valid and deterministic (the same input gives the same output); its time is
// reported for each size (never asserted); and a strategy that declares kCapabilityHighAvailability
// must never return a restoring active.
//
// The runner (`assignor_conformance --plugin path/to/libmine.so`) loads one plugin library and runs
// every case against the strategy it exports. Failures print the case's generator spec and seed,
// so `assignor generate` reproduces the cluster.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "assignor/scenario.hpp"
#include "assignor/settings.hpp"

namespace assignor::conformance {

struct Case {
  std::string name;  // a valid GoogleTest parameter name, e.g. "scale_out_standbys1_racks3_s2"
  ScenarioSpec spec;
  AssignmentSettings settings;
};

// The cases, derived deterministically from `seed` (different seeds vary sizes and draws).
std::vector<Case> cases(std::uint64_t seed);

// The `assignor generate` command line that reproduces a case's cluster file.
std::string generate_command(const ScenarioSpec& spec);

// Set by the runner's main() before the tests run.
struct Target {
  std::filesystem::path plugin;  // the library under test
  std::uint64_t seed = 1;
};
Target& target();

}  // namespace assignor::conformance
