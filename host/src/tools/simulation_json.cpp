// The simulation's records as JSON: a round and the summary out (simulate --json, the report),
// the summary back in (compare reads a run's summary).
#include "assignor/host/tools/simulation.hpp"

#include "assignor/host/formats/assignment_io.hpp"

namespace assignor::host {

namespace {

template <typename T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json round_to_json(const SimulationRound& round) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["round"] = round.round;
  out["strategy"] = round.strategy;
  if (round.used_fallback) out["used_fallback"] = true;
  out["clients"] = round.clients;
  out["metrics"] = metrics_to_json(round.metrics);
  out["probing_rebalance"] = {{"needed", round.probing_rebalance}, {"after_ms", round.probing_after_ms}};
  out["balanced"] = round.balanced;
  out["assign_ms"] = std::round(round.assign_ms * 1000) / 1000;
  out["events"] = round.events;
  out["at_ms"] = round.at_ms;
  out["cause"] = round.cause;
  out["revoked"] = round.revoked;
  out["restoring_task_ms"] = optional_json(round.restoring_task_ms);
  out["replayed_offsets"] = round.replayed_offsets;
  out["restoring_copies"] = round.restoring_copies;
  out["under_replicated_task_ms"] = round.under_replicated_task_ms;
  out["standby_moves"] = round.standby_moves;
  out["slowest_restore_ms"] = optional_json(round.slowest_restore_ms);
  return out;
}

nlohmann::ordered_json summary_to_json(const SimulationSummary& summary) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["converged"] = summary.converged;
  out["stalled"] = summary.stalled;
  out["rounds"] = summary.rounds;
  out["active_moves"] = summary.active_moves;
  out["restore_offsets"] = summary.restore_offsets;
  out["first_balanced_round"] = optional_json(summary.first_balanced_round);
  out["warmups"] = summary.warmups;
  out["probing_rounds"] = summary.probing_rounds;
  out["strategy"] = summary.strategy;
  out["time_to_balanced_ms"] = optional_json(summary.time_to_balanced_ms);
  out["time_to_converged_ms"] = optional_json(summary.time_to_converged_ms);
  out["restoring_task_ms"] = optional_json(summary.restoring_task_ms);
  out["under_replicated_task_ms"] = summary.under_replicated_task_ms;
  out["replayed_offsets"] = summary.replayed_offsets;
  out["peak_restoring_copies"] = summary.peak_restoring_copies;
  out["max_rounds_reached"] = summary.max_rounds_reached;
  out["followup_rounds"] = summary.followup_rounds;
  return out;
}

SimulationSummary summary_from_json(const nlohmann::json& j) {
  SimulationSummary s;
  auto opt64 = [&](const char* key) -> std::optional<std::int64_t> {
    if (j.contains(key) && j[key].is_number()) return j[key].get<std::int64_t>();
    return std::nullopt;
  };
  s.converged = j.value("converged", false);
  s.stalled = j.value("stalled", false);
  s.rounds = j.value("rounds", 0u);
  s.active_moves = j.value("active_moves", std::uint64_t{0});
  s.restore_offsets = j.value("restore_offsets", std::uint64_t{0});
  if (j.contains("first_balanced_round") && j["first_balanced_round"].is_number())
    s.first_balanced_round = j["first_balanced_round"].get<std::uint32_t>();
  s.warmups = j.value("warmups", std::uint64_t{0});
  s.probing_rounds = j.value("probing_rounds", 0u);
  s.strategy = j.value("strategy", "");
  s.time_to_balanced_ms = opt64("time_to_balanced_ms");
  s.time_to_converged_ms = opt64("time_to_converged_ms");
  s.restoring_task_ms = opt64("restoring_task_ms");
  s.under_replicated_task_ms = j.value("under_replicated_task_ms", std::int64_t{0});
  s.replayed_offsets = j.value("replayed_offsets", std::uint64_t{0});
  s.peak_restoring_copies = j.value("peak_restoring_copies", std::uint64_t{0});
  s.max_rounds_reached = j.value("max_rounds_reached", false);
  s.followup_rounds = j.value("followup_rounds", 0u);
  return s;
}

}  // namespace assignor::host
