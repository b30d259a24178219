// `assignor sweep` (DESIGN 4.8): every combination of --vary values (and strategies), simulated on
// every scenario, in parallel; the summary figures per combination and scenario, and the
// combinations no other beats on time to converged, restoring task-time and under-replicated
// task-time at once (a run that never converged counts as infinitely slow).
//
//   SweepSpec spec = ...;                      // a base config, axes, scenarios, simulation options
//   Sweep s = run_sweep(registry, spec, {});   // all of it, on every core
//   std::cout << sweep_table(s);
//
// A sweep splits into deterministic shards (--shard K/N: job i belongs to shard i mod N + 1), each
// written as JSON, and merge_sweeps() puts them back into what one unsharded run gives.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/tools/compare.hpp"
#include "assignor/host/tools/simulation.hpp"

namespace assignor::host {

struct SweepAxis {
  std::string key;                  // a dotted path from the config's root: assignment.max_warmup_replicas
  std::vector<std::string> values;  // as written: YAML scalars
};

struct SweepSpec {
  std::filesystem::path config_path;  // the base config (read again per combination)
  std::vector<SweepAxis> axes;        // --vary in order; --strategies adds the axis `strategy`
  std::vector<CompareScenario> scenarios;
  std::vector<SimulationEvent> events;
  std::string events_source;  // for the fingerprint ("" without)
  std::uint32_t max_rounds = 1000;
};

struct SweepShard {
  std::size_t index = 1;  // K of K/N, from 1
  std::size_t count = 1;  // N
};

struct SweepRun {
  std::size_t combination = 0;
  std::size_t scenario = 0;
  std::optional<SimulationSummary> summary;
  std::string error;  // the strategy failed during the simulation
};

struct Sweep {
  std::vector<std::string> keys;                       // the axes' keys
  std::vector<std::vector<std::string>> combinations;  // per combination, a value per key
  std::vector<std::string> scenarios;                  // names
  std::vector<SweepRun> runs;                          // combination-major; a shard holds its share
  std::string fingerprint;                             // what the sweep is: shards of one sweep share it
  std::optional<SweepShard> shard;
};

// The config of one combination: the base config with each key set (InputError, ConfigError with
// the key and value named, for a value the config does not accept).
Config sweep_config(const SweepSpec& spec, const std::vector<std::string>& keys,
                    const std::vector<std::string>& values);

struct SweepOptions {
  unsigned jobs = 0;                // worker processes: 0 = every core
  std::optional<SweepShard> shard;  // only this shard's jobs
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// What a sweep is, without running it: its keys, combinations, scenarios and fingerprint (runs
// empty). InputError for an axis without values or given twice.
Sweep sweep_plan(const SweepSpec& spec);

// Checks every combination's config before running anything (InputError / ConfigError), then runs.
Sweep run_sweep(const PluginRegistry& registry, const SweepSpec& spec, const SweepOptions& options);

nlohmann::ordered_json sweep_json(const Sweep& sweep);
// A sweep's JSON as `--shard K/N --format json` writes it (or a whole sweep's), read as strictly as
// every other file: InputError "SOURCE:LINE:COLUMN: runs[3].summary.rounds: ..." for a value of the
// wrong type or out of its range (negative rounds, a first balanced round past the last), a shard
// label that is not K/N, a run whose labels contradict its combination, a run that is not its
// shard's.
Sweep read_sweep_json(std::string_view text, const std::string& source);
// Shards (or whole sweeps) of one sweep into the whole: InputError when they are of different
// sweeps (or, with `expected`, of another sweep than the one given: its fingerprint, keys,
// combinations and scenarios), disagree on N, overlap or leave a job out.
Sweep merge_sweeps(const std::vector<Sweep>& parts, const std::optional<Sweep>& expected = std::nullopt);

}  // namespace assignor::host
