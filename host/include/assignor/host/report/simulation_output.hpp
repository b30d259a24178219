// The presentation of a simulation (`assignor simulate`): the HTML report and the progress line.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "assignor/host/tools/simulation.hpp"

namespace assignor::host {

// The HTML report: convergence curves (active moves, warmups, load spread per round) as SVG line
// charts and a table of the rounds. `context` lines go under the title (cluster, options).
std::string simulation_html(const SimulationResult& result, const std::vector<std::string>& context);
// The charts of simulation_html(), in order (tests count them).
std::vector<std::string> simulation_chart_names();

// The progress line after a round (stderr of `assignor simulate`): the round, the simulated clock,
// the copies still restoring, and what remains: at least the slowest copy's restore (with a restore
// rate), at most the rounds left to the limit, as wall-clock time at the pace so far.
std::string simulation_progress(const SimulationRound& round, std::uint32_t max_rounds,
                                std::chrono::nanoseconds wall_elapsed);

}  // namespace assignor::host
