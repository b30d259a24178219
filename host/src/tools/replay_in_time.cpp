// `assignor replay --in-time` (DESIGN 4.10): the real timeline of an import played forward in the
// simulator with the strategy Kafka ran (calibration) and with every other one (counterfactual).
#include <fmt/format.h>

#include <algorithm>

#include "assignor/errors.hpp"
#include "assignor/host/formats/record_json.hpp"
#include "assignor/host/process/parallel.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/tools/replay.hpp"

namespace assignor::host {

namespace fs = std::filesystem;

namespace {

// The timeline's events as the simulator's: each at the time of the rebalance that showed it.
std::vector<SimulationEvent> simulation_events(const RealTimeline& t) {
  std::vector<SimulationEvent> out;
  for (const TimelineEvent& e : t.events) {
    SimulationEvent s;
    s.round = 0;
    s.at_ms = e.at_ms;
    s.client = e.client;
    s.where = fmt::format("{} ({})", e.rebalance, describe(e));
    switch (e.kind) {
      case TimelineEvent::Kind::join:
        s.kind = EventKind::join;
        s.threads = e.threads;
        break;
      case TimelineEvent::Kind::leave: s.kind = EventKind::leave; break;
      case TimelineEvent::Kind::back:
        // Gone at gone_ms, back now with its state: one restart that was down in between.
        s.kind = EventKind::restart;
        s.at_ms = e.gone_ms;
        s.down_ms = e.at_ms - e.gone_ms;
        s.keep_state = true;
        break;
      case TimelineEvent::Kind::restart:
        s.kind = EventKind::restart;
        s.keep_state = true;
        break;
    }
    // A leave whose process comes back later is that restart's first half: it is not a leave.
    if (e.kind == TimelineEvent::Kind::leave &&
        std::any_of(t.events.begin(), t.events.end(), [&](const TimelineEvent& b) {
          return b.kind == TimelineEvent::Kind::back && b.client == e.client && b.gone_ms == e.at_ms;
        }))
      continue;
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SimulationEvent& a, const SimulationEvent& b) { return *a.at_ms < *b.at_ms; });
  return out;
}

}  // namespace

namespace {

using record_json::field;
using S = InTimeStep;

const auto kStepFields = std::make_tuple(field("at_ms", &S::at_ms), field("cause", &S::cause),
                                         field("probing", &S::probing), field("revoked", &S::revoked),
                                         field("clients", &S::clients), field("active_moves", &S::active_moves),
                                         field("warmups", &S::warmups), field("events", &S::events));

}  // namespace

void to_json(nlohmann::ordered_json& j, const InTimeStep& step) { record_json::write(j, step, kStepFields); }
void from_json(const nlohmann::json& j, InTimeStep& step) { record_json::read(j, step, kStepFields); }

std::string kafka_named_strategy(const std::string& kafka_assignor) {
  if (kafka_assignor == "HighAvailabilityTaskAssignor") return "high_availability";
  if (kafka_assignor == "StickyTaskAssignor") return "streams_sticky";
  if (kafka_assignor == "LegacyStickyTaskAssignor") return "sticky";
  return "high_availability";
}

InTimeReplay replay_in_time(const PluginRegistry& registry, const fs::path& dir,
                            const std::vector<ImportedRebalance>& index, const InTimeOptions& options) {
  InTimeReplay out;
  const std::string calibration = kafka_named_strategy(out.kafka_assignor);
  std::vector<std::string> strategies{calibration};
  if (options.strategies.empty()) {
    for (const auto& p : registry.plugins()) strategies.push_back(p.name);
  } else {
    for (const auto& s : options.strategies) strategies.push_back(s);
  }
  std::vector<std::string> unique;
  for (const auto& s : strategies)
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
  strategies = std::move(unique);
  for (const auto& s : strategies) (void)registry.require(s);

  TimelineOptions timeline_options;
  timeline_options.from = options.from;
  timeline_options.config = options.config;
  out.timeline = read_timeline(dir, index, timeline_options);
  const RealTimeline& t = out.timeline;
  for (const auto& r : t.rebalances)
    out.real_path.push_back({r.at_ms, r.cause, r.probing, r.revoked, r.clients, r.active_moves, r.warmups, r.events});

  // What every run shares: the start, the events, the time model.
  Config config = t.settings.config;
  config.fallback.reset();  // a failure is the strategy's, never hidden by another's answer
  SimulationOptions base = simulation_options(config);
  base.protocol = Protocol::kafka;
  base.max_rounds = options.max_rounds.value_or(
      static_cast<std::uint32_t>(std::clamp<std::size_t>(10 * t.rebalances.size(), 1000, 1000000)));
  base.rebalance_ms = t.settings.rebalance_ms;
  base.catch_up.reset();
  base.restore_rate.reset();
  if (t.settings.restore_rate > 0) {
    base.restore_rate = t.settings.restore_rate;
    base.client_restore_rates = t.settings.client_rates;
  }
  base.events = simulation_events(t);
  // The names of the logged rebalances from `from` on: round k is compared with the k-th.
  std::vector<std::string> logged;
  for (const auto& r : t.rebalances) logged.push_back(r.name);

  auto job = [&](std::size_t i) -> std::string {
    const std::string& strategy = strategies[i];
    SimulationOptions run = base;
    run.strategy = strategy;
    nlohmann::json j;
    j["strategy"] = strategy;
    std::size_t equal = 0, compared = 0;
    if (i == 0)
      run.on_decision = [&](std::uint32_t round, const Cluster& state, const Assignment& decided) {
        if (round > logged.size()) return;
        ++compared;
        if (same_decision(decision_by_client(state, decided), read_logged_decision(dir, logged[round - 1]))) ++equal;
      };
    nlohmann::ordered_json path = nlohmann::ordered_json::array();
    run.on_round = [&](const SimulationRound& r) {
      InTimeStep s{
          r.at_ms - base.rebalance_ms, r.cause, r.probing_rebalance, r.revoked, r.clients, r.metrics.active_moves,
          r.metrics.warmups,           r.events};
      path.push_back(s);
    };
    const QuietLog quiet;  // stalls and round limits are in the summaries
    try {
      const SimulationResult r = simulate(registry, config, t.start, run);
      j["summary"] = nlohmann::ordered_json(r.summary);
    } catch (const AssignmentFailed& e) {
      j["error"] = e.what();
    }
    j["path"] = std::move(path);
    j["decisions_equal"] = equal;
    j["decisions_compared"] = compared;
    return j.dump();
  };
  const std::vector<std::string> results =
      process::run_jobs(strategies.size(), process::worker_count(options.jobs), job, [&](std::size_t done) {
        if (options.progress) options.progress(done, strategies.size());
      });
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    const nlohmann::json j = nlohmann::json::parse(results[i]);
    InTimeRun run;
    run.strategy = strategies[i];
    run.calibration = i == 0;
    if (j.contains("error")) run.error = j["error"].get<std::string>();
    if (j.contains("summary")) run.summary = j["summary"].get<SimulationSummary>();
    run.path = j["path"].get<std::vector<InTimeStep>>();
    if (!run.path.empty() && run.summary.time_to_converged_ms)
      run.time_to_converged_ms = run.path.back().at_ms - run.path.front().at_ms;
    if (!j.contains("summary")) run.summary.rounds = static_cast<std::uint32_t>(run.path.size());
    run.decisions_equal = j["decisions_equal"].get<std::size_t>();
    run.decisions_compared = j["decisions_compared"].get<std::size_t>();
    out.runs.push_back(std::move(run));
  }
  return out;
}

}  // namespace assignor::host
