// Fuzz target: the whole assign path. The input is a cluster file; when it reads, every bundled
// strategy runs on it through run_assignment (lags, the strategy, validation, metrics, the
// per-thread split), with settings derived from the input's bytes, and the report is written as
// JSON and as a table. A bundled strategy must never fail or return an invalid assignment: either
// would reach users as exit 4, so the target treats it as a crash.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/validation.hpp"
#include "fuzz_support.hpp"

#ifndef ASSIGNOR_FUZZ_PLUGIN_DIR
#error "ASSIGNOR_FUZZ_PLUGIN_DIR must name the directory of the bundled plugins"
#endif

namespace {

const assignor::host::PluginRegistry& registry() {
  static const auto* loaded = [] {
    auto* r = new assignor::host::PluginRegistry();
    r->load_directory(ASSIGNOR_FUZZ_PLUGIN_DIR);
    return r;
  }();
  return *loaded;
}

// Settings from the input's bytes (FNV-1a), so that the fuzzer explores them along with the file.
assignor::AssignmentSettings settings_for(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  assignor::AssignmentSettings s;
  s.num_standby_replicas = static_cast<std::uint32_t>(h % 3);
  s.max_warmup_replicas = static_cast<std::uint32_t>(1 + (h >> 8) % 3);
  constexpr std::int64_t kLags[] = {0, 100, 10000, 1000000};
  s.acceptable_recovery_lag = kLags[(h >> 16) % 4];
  return s;
}

}  // namespace

// Loads the plugins before fuzzing starts, so that libFuzzer counts their coverage from the first
// input on (libFuzzer calls this; the replay driver loads them on first use instead).
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  assignor::fuzz::quiet_logs();
  (void)registry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  assignor::fuzz::quiet_logs();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  assignor::Cluster cluster;
  try {
    cluster = assignor::host::parse_cluster(text, "fuzz.yaml", assignor::fuzz::limits());
  } catch (const assignor::InputError&) {
    return 0;
  }
  assignor::host::Config config;
  config.settings = settings_for(data, size);
  for (const auto& plugin : registry().plugins()) {
    config.strategy = plugin.name;
    try {
      const assignor::host::RunOutcome out = assignor::host::run_assignment(registry(), config, cluster, plugin.name);
      const auto errors = assignor::validate(cluster, config.settings, out.report.assignment);
      if (!errors.empty())
        assignor::fuzz::fail("run_assignment returned an invalid assignment", plugin.name, errors[0].message);
      const std::string json = assignor::host::assignment_json(cluster, out.report);
      if (!nlohmann::json::accept(json)) assignor::fuzz::fail("the assignment JSON does not parse", plugin.name, json);
      (void)assignor::host::to_table(cluster, out.report);
    } catch (const assignor::host::AssignmentFailed& e) {
      assignor::fuzz::fail("a bundled strategy failed", plugin.name, e.what());
    } catch (const assignor::InputError& e) {
      // A strategy may refuse settings or input it cannot handle (exit 2 for users): allowed, but
      // only with a message.
      if (std::string_view(e.what()).empty()) assignor::fuzz::fail("an InputError without a message", plugin.name, "");
    }
  }
  return 0;
}
