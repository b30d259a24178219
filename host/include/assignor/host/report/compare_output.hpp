// The presentation of a comparison (`assignor compare`): table, JSON, CSV and the HTML report.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "assignor/host/tools/compare.hpp"

namespace assignor::host {

// Outputs. The table is for people (one block per scenario); JSON and CSV carry every figure with
// the metric names of DESIGN 4.5 (docs/compare-and-simulate.md lists the columns); the HTML page
// has one SVG bar chart per main metric and for assign_ms, one per metric of `extra_charts` that is
// not among them (names from compare_metric_names(); check them with check_chart_names()), and the
// full table.
std::string compare_table(const Comparison& comparison);
nlohmann::ordered_json compare_json(const Comparison& comparison);
std::string compare_csv(const Comparison& comparison);
std::string compare_html(const Comparison& comparison, const std::vector<std::string>& extra_charts = {});

// The charts compare_html() always draws, in order (tests count them); with simulations also
// compare_simulation_chart_names().
std::vector<std::string> compare_chart_names();
std::vector<std::string> compare_simulation_chart_names();
// Every metric a row carries (the table's metric columns), in order.
std::vector<std::string> compare_metric_names();
// Expands "all" to compare_metric_names(); throws InputError naming an unknown metric and the
// nearest known one.
std::vector<std::string> check_chart_names(const std::vector<std::string>& names);

}  // namespace assignor::host
