// The presentation of a replay (`assignor replay`, and `--in-time`): table, JSON, CSV, the HTML report
// and the agreement lines.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
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
// "agreement computed under assumed settings: ..." when the import had no settings of the
// application's (no --streams-config, no StreamsConfig dump), else nothing.
std::optional<std::string> replay_assumed_settings(const Replay& replay);

// `replay --in-time`: the table, JSON (DESIGN 4.10), CSV and the HTML report with every path on one
// time axis.
std::string in_time_table(const InTimeReplay& replay);
nlohmann::ordered_json in_time_json(const InTimeReplay& replay);
std::string in_time_csv(const InTimeReplay& replay);
std::string in_time_html(const InTimeReplay& replay);
// The charts in_time_html() draws, in order (tests count them).
std::vector<std::string> in_time_chart_names();

}  // namespace assignor::host
