#include "assignor/host/tools/sweep.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "assignor/host/formats/text_file.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/process/parallel.hpp"

namespace assignor::host {

namespace {

// FNV-1a, 64 bits: the same on every machine that runs a shard (std::hash is not).
std::uint64_t fnv1a(std::string_view text, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string base_text(const SweepSpec& spec) {
  return detail::read_text_file(detail::source_name(spec.config_path), spec.config_path, "config file");
}

std::vector<std::vector<std::string>> combinations_of(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> out{{}};
  for (const auto& axis : axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : out)
      for (const auto& v : axis.values) {
        auto c = prefix;
        c.push_back(v);
        next.push_back(std::move(c));
      }
    out = std::move(next);
  }
  return out;
}

// A scenario with settings of its own (a rebalance of an import): those, except the assignment
// keys the sweep varies, which keep the combination's value.
void with_scenario_settings(Config& config, const AssignmentSettings& own, const std::vector<std::string>& keys) {
  const AssignmentSettings varied = config.settings;
  config.settings = own;
  for (const auto& key : keys) {
    if (key == "assignment.acceptable_recovery_lag") config.settings.acceptable_recovery_lag = varied.acceptable_recovery_lag;
    else if (key == "assignment.max_warmup_replicas") config.settings.max_warmup_replicas = varied.max_warmup_replicas;
    else if (key == "assignment.num_standby_replicas") config.settings.num_standby_replicas = varied.num_standby_replicas;
    else if (key == "assignment.probing_rebalance_interval_ms")
      config.settings.probing_rebalance_interval_ms = varied.probing_rebalance_interval_ms;
    else if (key.rfind("assignment.rack_aware", 0) == 0) config.settings.rack_aware = varied.rack_aware;
    else if (key == "assignment") config.settings = varied;
  }
}

std::string label(const std::vector<std::string>& keys, const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) out += fmt::format("{}{}={}", i ? ", " : "", keys[i], values[i]);
  return out.empty() ? "the config as it is" : out;
}

}  // namespace

Config sweep_config(const SweepSpec& spec, const std::vector<std::string>& keys, const std::vector<std::string>& values) {
  const std::string text = base_text(spec);
  const std::string what = label(keys, values);
  YAML::Node root;
  try {
    root = YAML::Load(text);  // the base was read and checked by read_config_file already
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}: {}", spec.config_path.string(), e.what()));
  }
  if (!root.IsMap()) throw InputError(fmt::format("{}: the config is not a map", spec.config_path.string()));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::vector<std::string> path;
    for (std::size_t start = 0; start <= keys[i].size();) {
      const std::size_t dot = std::min(keys[i].find('.', start), keys[i].size());
      path.push_back(keys[i].substr(start, dot - start));
      start = dot + 1;
    }
    if (std::any_of(path.begin(), path.end(), [](const std::string& p) { return p.empty(); }))
      throw InputError(fmt::format("--vary {}: not a dotted path from the config's root (e.g. "
                                   "assignment.max_warmup_replicas)",
                                   printable(keys[i])));
    // Walk down, creating maps; the last part gets the value (a YAML scalar, read as the config reads it).
    std::vector<YAML::Node> chain{root};
    for (std::size_t k = 0; k + 1 < path.size(); ++k) {
      YAML::Node child = chain.back()[path[k]];
      if (child.IsDefined() && !child.IsNull() && !child.IsMap())
        throw InputError(fmt::format("--vary {}: '{}' in the config is not a map", printable(keys[i]), path[k]));
      if (!child.IsDefined() || child.IsNull()) {
        chain.back()[path[k]] = YAML::Node(YAML::NodeType::Map);
        child = chain.back()[path[k]];
      }
      chain.push_back(child);
    }
    chain.back()[path.back()] = YAML::Load(values[i]);
  }
  YAML::Emitter out;
  out << root;
  std::error_code ec;
  std::filesystem::path base = std::filesystem::absolute(spec.config_path, ec).parent_path();
  try {
    Config config = parse_config(out.c_str(), fmt::format("{} (with {})", spec.config_path.string(), what), base);
    config.source = spec.config_path;
    return config;
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("--vary {}: {}", what, e.what()));
  } catch (const InputError& e) {
    throw InputError(fmt::format("--vary {}: {}", what, e.what()));
  }
}

Sweep run_sweep(const PluginRegistry& registry, const SweepSpec& spec, const SweepOptions& options) {
  Sweep out;
  for (const auto& a : spec.axes) {
    if (a.values.empty()) throw InputError(fmt::format("--vary {}: no values", printable(a.key)));
    if (std::count_if(spec.axes.begin(), spec.axes.end(), [&](const SweepAxis& b) { return b.key == a.key; }) > 1)
      throw InputError(fmt::format("--vary {}: given twice", printable(a.key)));
    out.keys.push_back(a.key);
  }
  out.combinations = combinations_of(spec.axes);
  for (const auto& s : spec.scenarios) out.scenarios.push_back(s.name);
  if (out.scenarios.empty()) throw InputError("sweep: no scenario (--cluster FILE or --scenarios DIR)");

  // Every combination's config, checked before any work; its strategy loaded.
  std::vector<Config> configs;
  for (const auto& values : out.combinations) {
    configs.push_back(sweep_config(spec, out.keys, values));
    if (configs.back().strategy.empty())
      throw InputError(fmt::format("no strategy to sweep: give --strategies a,b,... or add 'strategy: NAME' to {}",
                                   spec.config_path.string()));
    (void)registry.require(configs.back().strategy);
    check_strategy_sections(registry, configs.back());
  }

  std::string identity = base_text(spec);
  for (const auto& a : spec.axes) {
    identity += "\n#axis " + a.key;
    for (const auto& v : a.values) identity += "\n#value " + v;
  }
  for (const auto& s : spec.scenarios) identity += "\n#scenario " + s.name + " " + s.source;
  identity += fmt::format("\n#events {}\n#max_rounds {}", spec.events_source, spec.max_rounds);
  out.fingerprint = fmt::format("{:016x}", fnv1a(identity));
  out.shard = options.shard;

  const std::size_t n_scenarios = spec.scenarios.size();
  const std::size_t total = out.combinations.size() * n_scenarios;
  std::vector<std::size_t> mine;  // the jobs of this shard
  for (std::size_t i = 0; i < total; ++i)
    if (!options.shard || i % options.shard->count == options.shard->index - 1) mine.push_back(i);

  std::optional<std::pair<std::size_t, Cluster>> cached;
  auto job = [&](std::size_t k) -> std::string {
    const std::size_t i = mine[k];
    const std::size_t c = i / n_scenarios, si = i % n_scenarios;
    if (!cached || cached->first != si) cached.emplace(si, spec.scenarios[si].load());
    const Config& config = configs[c];
    Config plain = config;
    plain.fallback.reset();
    if (spec.scenarios[si].settings) with_scenario_settings(plain, *spec.scenarios[si].settings, out.keys);
    SimulationOptions simulation = simulation_options(config);
    simulation.strategy = config.strategy;
    simulation.max_rounds = spec.max_rounds;
    simulation.events = spec.events;
    nlohmann::json j;
    j["combination"] = c;
    j["scenario"] = si;
    const QuietLog quiet;  // a thousand runs would repeat every warning (stalls are in the summaries)
    try {
      const SimulationResult r = simulate(registry, plain, cached->second, simulation);
      j["summary"] = summary_to_json(r.summary);
    } catch (const AssignmentFailed& e) {
      j["error"] = e.what();
    }
    return j.dump();
  };
  const auto results = process::run_jobs(mine.size(), process::worker_count(options.jobs), job, [&](std::size_t done) {
    if (options.progress) options.progress(done, mine.size());
  });
  for (const auto& text : results) {
    const auto j = nlohmann::json::parse(text);
    SweepRun run;
    run.combination = j["combination"].get<std::size_t>();
    run.scenario = j["scenario"].get<std::size_t>();
    if (j.contains("summary")) run.summary = summary_from_json(j["summary"]);
    if (j.contains("error")) run.error = j["error"].get<std::string>();
    out.runs.push_back(std::move(run));
  }
  return out;
}

nlohmann::ordered_json sweep_json(const Sweep& s) {
  nlohmann::ordered_json out;
  out["sweep"] = {{"fingerprint", s.fingerprint}, {"keys", s.keys}, {"combinations", s.combinations},
                  {"scenarios", s.scenarios}};
  if (s.shard) out["shard"] = fmt::format("{}/{}", s.shard->index, s.shard->count);
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const auto& r : s.runs) {
    nlohmann::ordered_json j;
    j["scenario"] = s.scenarios[r.scenario];
    for (std::size_t k = 0; k < s.keys.size(); ++k) j[s.keys[k]] = s.combinations[r.combination][k];
    j["combination"] = r.combination;
    j["summary"] = r.summary ? summary_to_json(*r.summary) : nlohmann::ordered_json(nullptr);
    j["error"] = r.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.error);
    runs.push_back(std::move(j));
  }
  out["runs"] = std::move(runs);
  return out;
}

Sweep sweep_from_json(const nlohmann::json& j, const std::string& source) {
  try {
    Sweep s;
    const auto& head = j.at("sweep");
    s.fingerprint = head.at("fingerprint").get<std::string>();
    s.keys = head.at("keys").get<std::vector<std::string>>();
    s.combinations = head.at("combinations").get<std::vector<std::vector<std::string>>>();
    s.scenarios = head.at("scenarios").get<std::vector<std::string>>();
    if (j.contains("shard")) {
      const std::string text = j["shard"].get<std::string>();
      SweepShard shard;
      if (std::sscanf(text.c_str(), "%zu/%zu", &shard.index, &shard.count) != 2)
        throw InputError(fmt::format("{}: shard '{}' is not K/N", source, printable(text)));
      s.shard = shard;
    }
    for (const auto& r : j.at("runs")) {
      SweepRun run;
      run.combination = r.at("combination").get<std::size_t>();
      const std::string scenario = r.at("scenario").get<std::string>();
      const auto at = std::find(s.scenarios.begin(), s.scenarios.end(), scenario);
      if (at == s.scenarios.end() || run.combination >= s.combinations.size())
        throw InputError(fmt::format("{}: a run of an unknown scenario or combination", source));
      run.scenario = static_cast<std::size_t>(at - s.scenarios.begin());
      if (r.at("summary").is_object()) run.summary = summary_from_json(r["summary"]);
      if (r.at("error").is_string()) run.error = r["error"].get<std::string>();
      s.runs.push_back(std::move(run));
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a sweep's JSON: {}", source, e.what()));
  }
}

Sweep merge_sweeps(const std::vector<Sweep>& parts) {
  if (parts.empty()) throw InputError("--merge: no shard files (*.json written by sweep --shard K/N --format json)");
  Sweep out = parts.front();
  out.shard.reset();
  out.runs.clear();
  const std::size_t total = out.combinations.size() * out.scenarios.size();
  std::vector<std::optional<SweepRun>> slots(total);
  for (const auto& p : parts) {
    if (p.fingerprint != out.fingerprint)
      throw InputError(fmt::format("--merge: shards of two different sweeps (fingerprints {} and {})", out.fingerprint,
                                   p.fingerprint));
    for (const auto& r : p.runs) {
      const std::size_t i = r.combination * out.scenarios.size() + r.scenario;
      if (slots[i]) throw InputError(fmt::format("--merge: the run of {} on {} is in two shards", label(out.keys, out.combinations[r.combination]),
                                                 out.scenarios[r.scenario]));
      slots[i] = r;
    }
  }
  for (std::size_t i = 0; i < total; ++i) {
    if (!slots[i])
      throw InputError(fmt::format("--merge: no shard has the run of {} on {} (a shard is missing)",
                                   label(out.keys, out.combinations[i / out.scenarios.size()]),
                                   out.scenarios[i % out.scenarios.size()]));
    out.runs.push_back(std::move(*slots[i]));
  }
  return out;
}

}  // namespace assignor::host
