// The simulation's records as JSON (DESIGN 4.6), each a list of its fields: a round and the summary
// out (simulate --json, the report), the summary back in (compare and sweep read their workers').
#include <cmath>
#include <tuple>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/record_json.hpp"
#include "assignor/host/tools/simulation.hpp"

namespace assignor::host {

namespace {

using record_json::computed;
using record_json::field;
using R = SimulationRound;
using S = SimulationSummary;

const auto kRoundFields = std::make_tuple(
    field("round", &R::round), field("strategy", &R::strategy),
    computed("used_fallback",  // only on the rounds that used it
             [](const R& r) {
               return record_json::OmittedWhenEmpty<bool>{r.used_fallback ? std::optional(true) : std::nullopt};
             }),
    field("clients", &R::clients), field("metrics", &R::metrics),
    computed("probing_rebalance", [](const R& r) { return probing_json(r.probing_rebalance, r.probing_after_ms); }),
    field("balanced", &R::balanced),
    computed("assign_ms", [](const R& r) { return std::round(r.assign_ms * 1000) / 1000; }),  // to the microsecond
    field("events", &R::events), field("at_ms", &R::at_ms), field("cause", &R::cause), field("revoked", &R::revoked),
    field("restoring_task_ms", &R::restoring_task_ms), field("replayed_offsets", &R::replayed_offsets),
    field("restoring_copies", &R::restoring_copies), field("under_replicated_task_ms", &R::under_replicated_task_ms),
    field("standby_moves", &R::standby_moves), field("slowest_restore_ms", &R::slowest_restore_ms));

const auto kSummaryFields = std::make_tuple(
    field("converged", &S::converged), field("stalled", &S::stalled), field("rounds", &S::rounds),
    field("active_moves", &S::active_moves), field("restore_offsets", &S::restore_offsets),
    field("first_balanced_round", &S::first_balanced_round), field("warmups", &S::warmups),
    field("probing_rounds", &S::probing_rounds), field("strategy", &S::strategy),
    field("time_to_balanced_ms", &S::time_to_balanced_ms), field("time_to_converged_ms", &S::time_to_converged_ms),
    field("restoring_task_ms", &S::restoring_task_ms), field("under_replicated_task_ms", &S::under_replicated_task_ms),
    field("replayed_offsets", &S::replayed_offsets), field("peak_restoring_copies", &S::peak_restoring_copies),
    field("max_rounds_reached", &S::max_rounds_reached), field("followup_rounds", &S::followup_rounds));

}  // namespace

void to_json(nlohmann::ordered_json& j, const SimulationRound& round) { record_json::write(j, round, kRoundFields); }
void to_json(nlohmann::ordered_json& j, const SimulationSummary& summary) {
  record_json::write(j, summary, kSummaryFields);
}
void from_json(const nlohmann::json& j, SimulationSummary& summary) { record_json::read(j, summary, kSummaryFields); }

}  // namespace assignor::host
