// The pieces every text, CSV and JSON output of the tools shares (compare, simulate, replay): the
// metric columns as the SDK reports them, two-line column headers, aligned rows, CSV quoting.
// Not installed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace assignor::host::detail {

// The metrics as the SDK reports them (their JSON, assignment_io.hpp: DESIGN 4.5 plus any the SDK adds), so that
// a new metric shows up in every format without touching the tools.
std::vector<std::string> metric_names();

// One metric value as text: integers as they are, ratios with at most 3 decimals, null -> `none`.
std::string metric_text(const nlohmann::ordered_json& v, const char* none);

struct Column {
  std::string top;
  std::string bottom;
  bool right;  // right-aligned (numbers)
};

// Two-line headers keep a table narrow: "restoring" over "actives".
Column metric_column(const std::string& name);

// Rows of a text table, one line each: every column as wide as its widest cell, cells two spaces
// apart, right-aligned where `right[c]`, no trailing blanks. Header rows are rows like the others.
std::string aligned_rows(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right,
                         std::string_view indent = "");

// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text);

}  // namespace assignor::host::detail
