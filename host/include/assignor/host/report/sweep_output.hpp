// The presentation of a sweep (`assignor sweep`): table, CSV, the HTML report, the recommendation, and the
// JSON of a whole (unsharded) sweep, which opens with the recommendation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "assignor/host/tools/sweep.hpp"

namespace assignor::host {

std::string sweep_table(const Sweep& sweep);
std::string sweep_csv(const Sweep& sweep);
std::string sweep_html(const Sweep& sweep);
// The recommendation lines (per scenario, then over all), as the table and report open with them.
std::vector<std::string> sweep_recommendation(const Sweep& sweep);
// sweep_json() with the recommendation lines (what `assignor sweep --format json` prints for a
// whole sweep; a shard's JSON carries none).
nlohmann::ordered_json sweep_output_json(const Sweep& sweep);

}  // namespace assignor::host
