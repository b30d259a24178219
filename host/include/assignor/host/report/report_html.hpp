// Self-contained HTML reports with SVG charts, shared by `assignor compare` and `assignor simulate`.
//
// The page opens in any browser with no network: CSS inline, no scripts, no external fonts or
// images, one inline <svg> per chart. The markup is XHTML-compatible (it parses as XML, which is how
// the tests check it), and every piece of text is escaped, with invalid UTF-8 and control characters
// replaced, so names and error messages from files cannot break the page.
//
//   HtmlReport page{"Strategy comparison", {"3 strategies, 2 scenarios"}, {}};
//   BarChart moves{"active_moves", "tasks whose active client changed", "tasks",
//                  {"scale-out"}, {"high_availability", "sticky"}, {{{.value = 12}, {.value = 3}}}};
//   page.sections.push_back(std::move(moves));
//   std::string html = render_html(page);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace assignor::host {

// One bar: a value, optionally with a min..max whisker (timings). Without a value the bar is drawn
// as a marker carrying `missing` (e.g. "failed") so that a failed strategy stays visible.
struct Bar {
  std::optional<double> value;
  std::optional<double> low, high;
  std::string missing = "n/a";
};

// Grouped bars: along the x axis one group per entry of `groups` (scenarios), in each group one bar
// per entry of `series` (strategies), one colour per series.
struct BarChart {
  std::string title;
  std::string description;
  std::string unit;
  std::vector<std::string> groups;
  std::vector<std::string> series;
  std::vector<std::vector<Bar>> bars;  // [group][series]
};

struct LineSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per x value; nullopt leaves a gap
};

struct LineChart {
  std::string title;
  std::string description;
  std::string x_label;
  std::string y_label;
  std::vector<double> x;
  std::vector<LineSeries> lines;
};

// Paths side by side on one time axis (replay --in-time): one lane per path, a mark per rebalance
// whose shape and colour say why it happened (kind: "start", "events", "follow-up", "probing",
// "interval", anything else drawn as "other"), and a bar where the path converged.
struct TimelineMark {
  double x = 0;
  std::string kind;
  std::string label;  // the tooltip
};

struct TimelineLane {
  std::string name;
  std::vector<TimelineMark> marks;
  std::optional<double> converged;  // x where it converged
  std::string note;                 // after the name ("24 rebalances, 479 s")
};

struct TimelineChart {
  std::string title;
  std::string description;
  std::string x_label;
  std::vector<TimelineLane> lanes;
};

struct HtmlTable {
  std::string caption;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // per column: right-aligned; missing entries mean false
  std::vector<bool> flagged;  // per row: highlighted (a failed strategy); missing entries mean false
};

struct Paragraph {
  std::string text;
};

using ReportSection = std::variant<BarChart, LineChart, TimelineChart, HtmlTable, Paragraph>;

struct HtmlReport {
  std::string title;
  std::vector<std::string> summary;  // short lines under the title
  std::vector<ReportSection> sections;
};

std::string render_html(const HtmlReport& report);
std::string render_svg(const BarChart& chart);
std::string render_svg(const LineChart& chart);
std::string render_svg(const TimelineChart& chart);

// Text for XML/HTML content and attribute values: & < > " ' escaped, invalid UTF-8 sequences and
// control characters other than tab and newline replaced by U+FFFD.
std::string escape_xml(std::string_view text);

// A number for people: integers as integers, others with at most 3 decimals; with `compact`, large
// values are shortened with k, M, G (1.5M).
std::string format_number(double value, bool compact = false);

// A duration for people, from milliseconds: "850 ms", "12.5 s", "40 min", "68.3 h", "4.2 days"
// (at most one decimal; the unit is the largest that keeps the value >= 1).
std::string format_duration_ms(std::int64_t ms);

}  // namespace assignor::host
