// The presentation of a replay (`assignor replay`): table, JSON, CSV, the HTML report and the agreement lines.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "assignor/host/tools/replay.hpp"

namespace assignor::host {

std::string replay_table(const Replay& replay);
nlohmann::ordered_json replay_json(const Replay& replay);
std::string replay_csv(const Replay& replay);
std::string replay_html(const Replay& replay);
// "high_availability gave Kafka's decision at 41/41 of your rebalances" lines, one per strategy.
std::vector<std::string> replay_agreement(const Replay& replay);

}  // namespace assignor::host
