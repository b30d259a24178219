#include "text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/report/report_html.hpp"
#include "assignor/metrics.hpp"

namespace assignor::host::detail {

using ordered_json = nlohmann::ordered_json;

// The metrics as the SDK reports them (their JSON, assignment_io.hpp: DESIGN 4.5 plus any the SDK adds), so that a
// new metric shows up in every format without touching this file. Figures only: a detail object
// (subtopology_skews) stays in the JSON outputs, not in table columns.
std::vector<std::string> metric_names() {
  std::vector<std::string> names;
  const ordered_json metrics = Metrics{};  // named: items() must not outlive it
  for (const auto& item : metrics.items())
    if (!item.value().is_structured()) names.push_back(item.key());
  return names;
}

// One metric value as text: integers as they are, ratios with at most 3 decimals, null -> `none`.
std::string metric_text(const ordered_json& v, const char* none) {
  if (v.is_null()) return none;
  if (v.is_number_float()) return format_number(v.get<double>());
  return v.dump();
}

// Two-line headers keep the table narrow: "restoring" over "actives".
Column metric_column(const std::string& name) {
  static const std::vector<std::pair<std::string, std::pair<const char*, const char*>>> kShort = {
      {"active_load_spread", {"active", "spread"}},          {"total_load_spread", {"total", "spread"}},
      {"max_subtopology_skew", {"subtopo", "skew"}},         {"cross_rack_traffic", {"cross", "rack"}},
      {"thread_load_spread", {"thread", "spread"}},          {"tag_spread_shortfall", {"tag", "shortfall"}},
      {"weighted_load_spread", {"weighted", "spread"}},      {"stateful_load_spread", {"stateful", "spread"}},
      {"copy_restore_offsets", {"copy restore", "offsets"}}, {"colocated_standbys", {"colocated", "standbys"}},
  };
  for (const auto& [metric, label] : kShort)
    if (metric == name) return {label.first, label.second, true};
  const auto cut = name.rfind('_');
  if (cut == std::string::npos) return {"", name, true};
  std::string top = name.substr(0, cut);
  std::replace(top.begin(), top.end(), '_', ' ');
  return {top, name.substr(cut + 1), true};
}

// Rows of a text table, one line each: every column as wide as its widest cell, cells two spaces
// apart, right-aligned where `right[c]`, no trailing blanks. Header rows are rows like the others.
std::string aligned_rows(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right,
                         std::string_view indent) {
  std::vector<std::size_t> width(right.size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line(indent);
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) {
      if (c) line += "  ";
      line += right[c] ? fmt::format("{:>{}}", r[c], width[c]) : fmt::format("{:<{}}", r[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  return out;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace assignor::host::detail
