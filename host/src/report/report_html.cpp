#include "assignor/host/report/report_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "assignor/host/support/utf8.hpp"
#include "assignor/version.hpp"

namespace assignor::host {

namespace {

// Paul Tol's "muted" scheme and its grey: ten colours that stay apart for the common forms of
// colour blindness (deuteranopia, protanopia, tritanopia) and in print.
constexpr const char* kPalette[] = {"#332288", "#88ccee", "#44aa99", "#117733", "#999933",
                                    "#ddcc77", "#cc6677", "#882255", "#aa4499", "#888888"};
constexpr std::size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

const char* colour(std::size_t i) { return kPalette[i % kPaletteSize]; }

// Lines also differ by dash pattern, so that neighbours stay apart without colour (greyscale
// print, monochrome vision) and the eleventh line does not repeat the first.
constexpr const char* kDashes[] = {"", "7 3", "2 3", "9 3 2 3"};
std::string dash(std::size_t i) {
  const char* d = kDashes[i % (sizeof(kDashes) / sizeof(kDashes[0]))];
  return *d ? fmt::format(" stroke-dasharray=\"{}\"", d) : std::string();
}

// Rough width of text at the charts' 12px sans-serif: enough to lay out labels and legends.
double text_width(std::string_view text, double font_size = 12) {
  std::size_t chars = 0;
  for (unsigned char ch : text)
    if ((ch & 0xC0) != 0x80) ++chars;  // count code points, not bytes
  return static_cast<double>(chars) * font_size * 0.6;
}

// Long labels are cut with an ellipsis (the full text stays in the <title> tooltip).
std::string shorten(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars == max_chars) return std::string(text.substr(0, i)) + "\u2026";
    ++chars;
  }
  return std::string(text);
}

// Coordinates with one decimal: small files, no visible rounding.
std::string px(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s == "-0" ? "0" : s;
}

struct Axis {
  double top = 1;  // the axis runs from 0 (or below, for negative data) to top
  double bottom = 0;
  double step = 1;
};

// A "nice" step (1, 2 or 5 times a power of ten) cutting `range` into about `target` parts; at
// least 1 for integer data.
double nice_step(double range, double target, bool integer) {
  const double raw = range / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double residual = raw / magnitude;
  const double step = (residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10) * magnitude;
  return integer ? std::max(step, 1.0) : step;
}

// About five nice ticks covering [lo, hi] and 0.
Axis nice_axis(double lo, double hi, bool integer) {
  Axis axis;
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (!(hi > lo)) hi = lo + 1;
  const double step = nice_step(hi - lo, 5, integer);
  axis.step = step;
  axis.top = std::ceil(hi / step - 1e-9) * step;
  axis.bottom = std::floor(lo / step + 1e-9) * step;
  if (axis.top <= axis.bottom) axis.top = axis.bottom + step;
  return axis;
}

bool is_integer(double v) { return std::abs(v - std::round(v)) < 1e-9; }

struct Legend {
  std::string svg;
  double height = 0;
};

// Legend entries left to right from x, wrapping before `right`.
Legend legend(const std::vector<std::string>& names, double x, double right, bool lines) {
  Legend out;
  if (names.empty()) return out;
  double cx = x;
  double cy = 14;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string label = shorten(names[i], 40);
    const double w = 14 + 6 + text_width(label) + 18;
    if (cx > x && cx + w > right) {
      cx = x;
      cy += 18;
    }
    if (lines)
      out.svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.5\"{}/>",
                             px(cx), px(cy - 4), px(cx + 14), px(cy - 4), colour(i), dash(i));
    else
      out.svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>", px(cx), px(cy - 10),
                             colour(i));
    out.svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", px(cx + 20), px(cy), escape_xml(label));
    cx += w;
  }
  out.height = cy + 10;
  return out;
}

// Horizontal grid lines and y tick labels for a plot area.
std::string y_grid(const Axis& axis, double left, double right, double top, double bottom) {
  std::string out;
  const double span = axis.top - axis.bottom;
  const auto ticks = static_cast<long>(std::llround(span / axis.step));
  for (long i = 0; i <= ticks; ++i) {
    const double v = axis.bottom + static_cast<double>(i) * axis.step;
    const double y = bottom - (v - axis.bottom) / span * (bottom - top);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", px(left), px(y), px(right),
                       px(y), std::abs(v) < 1e-12 ? "#888" : "#e3e3e3");
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(left - 6), px(y + 4),
                       escape_xml(format_number(v, true)));
  }
  return out;
}

std::string svg_open(double width, double height, const std::string& title, const std::string& description) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\" role=\"img\"><title>{2}</title>"
      "<desc>{3}</desc>",
      px(width), px(height), escape_xml(title), escape_xml(description));
}

// A chart whose every value is zero says so in one line instead of a flat plot: the reader learns
// the same at a glance and the report stays short. Still an <svg>, with the chart's title.
std::string zero_chart_svg(double width, double left, const std::string& title, const std::string& description,
                           const std::string& text) {
  std::string out = svg_open(width, 24, title, description);
  out += fmt::format("<text x=\"{}\" y=\"16\" fill=\"#555\">{}</text></svg>", px(left), escape_xml(shorten(text, 110)));
  return out;
}

}  // namespace

std::string escape_xml(std::string_view text) {
  constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      switch (b) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        case '\t':
        case '\n': out += static_cast<char>(b); break;
        default:
          if (b < 0x20)
            out += kReplacement;
          else
            out += static_cast<char>(b);
      }
      ++i;
      continue;
    }
    // A multi-byte character that XML allows (not a noncharacter U+FFFE/U+FFFF, not a C1 control).
    const auto c = utf8_char_at(text, i);
    const bool ok =
        c && c->code_point != 0xFFFE && c->code_point != 0xFFFF && !(c->code_point >= 0x80 && c->code_point <= 0x9F);
    const std::size_t len = ok ? c->length : 0;
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += kReplacement;
      ++i;
    }
  }
  return out;
}

std::string format_duration_ms(std::int64_t ms) {
  struct Unit {
    double ms;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{86400e3, "days"}, {3600e3, "h"}, {60e3, "min"}, {1e3, "s"}};
  const double value = static_cast<double>(ms);
  for (const Unit& unit : kUnits) {
    if (std::abs(value) < unit.ms) continue;
    std::string s = fmt::format("{:.1f}", value / unit.ms);
    if (s.size() > 2 && s.substr(s.size() - 2) == ".0") s.resize(s.size() - 2);
    return s + " " + unit.name;
  }
  return fmt::format("{} ms", ms);
}

std::string format_number(double value, bool compact) {
  if (!std::isfinite(value)) return std::isnan(value) ? "n/a" : (value > 0 ? "inf" : "-inf");
  const double magnitude = std::abs(value);
  if (compact && magnitude >= 10000) {
    const char* suffix = "k";
    double scaled = value / 1e3;
    if (magnitude >= 1e9)
      suffix = "G", scaled = value / 1e9;
    else if (magnitude >= 1e6)
      suffix = "M", scaled = value / 1e6;
    std::string s = fmt::format("{:.2f}", scaled);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s + suffix;
  }
  if (is_integer(value) && magnitude < 1e15) return fmt::format("{}", static_cast<std::int64_t>(std::llround(value)));
  std::string s = fmt::format("{:.3f}", value);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string render_svg(const BarChart& chart) {
  constexpr double kLeft = 64, kRight = 16, kPlotHeight = 220, kGroupGap = 18;
  const std::size_t n_groups = std::max<std::size_t>(chart.groups.size(), 1);
  const std::size_t n_series = std::max<std::size_t>(chart.series.size(), 1);
  const double bars = static_cast<double>(n_groups * n_series);
  const double plot_width = std::max(560.0, bars * 10 + static_cast<double>(n_groups) * kGroupGap);
  const double width = kLeft + plot_width + kRight;

  // Every bar present and zero (no failed run to show): one line of text.
  bool all_zero = !chart.bars.empty();
  for (const auto& group : chart.bars)
    for (const Bar& bar : group)
      if (!bar.value || *bar.value != 0 || (bar.high && *bar.high != 0)) all_zero = false;
  if (all_zero)
    return zero_chart_svg(
        width, kLeft, chart.title, chart.description,
        fmt::format("{}: 0 in every one of the {} bars", chart.title, chart.groups.size() * chart.series.size()));

  // Data range and whether every value is a whole number (counts get integer ticks). Whisker tops
  // count too, unless one slow outlier run would flatten every bar: then the axis fits the bars
  // and the whiskers beyond it are cut at the top with an arrow (the tooltip keeps the value).
  double lo = 0, hi = 0, whisker_hi = 0;
  bool integer = true;
  for (const auto& group : chart.bars)
    for (const Bar& bar : group) {
      for (const auto& v : {bar.value, bar.low})
        if (v && std::isfinite(*v)) {
          lo = std::min(lo, *v);
          hi = std::max(hi, *v);
          integer = integer && is_integer(*v);
        }
      if (bar.high && std::isfinite(*bar.high)) {
        whisker_hi = std::max(whisker_hi, *bar.high);
        integer = integer && is_integer(*bar.high);
      }
    }
  constexpr double kOutlierFactor = 3;
  if (!(hi > 0 && whisker_hi > kOutlierFactor * hi))
    hi = std::max(hi, whisker_hi);
  else
    hi *= 1.2;
  const Axis axis = nice_axis(lo, hi, integer);

  const Legend key = legend(chart.series, kLeft, width - kRight, false);
  const double top = key.height + 12;
  const double bottom = top + kPlotHeight;
  const double group_width = plot_width / static_cast<double>(n_groups);
  constexpr double kMaxBarWidth = 56;
  const double bar_width = std::clamp((group_width - kGroupGap) / static_cast<double>(n_series), 2.0, kMaxBarWidth);
  // Bars narrower than their share are centred in their group.
  const double group_inset = (group_width - kGroupGap - bar_width * static_cast<double>(n_series)) / 2;

  // Group labels: horizontal when they fit, else slanted (and the chart grows downwards for them).
  double longest = 0;
  for (const auto& g : chart.groups) longest = std::max(longest, text_width(shorten(g, 40)));
  const bool slanted = longest > group_width - 4;
  const double label_room = slanted ? std::min(longest, 240.0) * 0.5 + 24 : 24;
  const double height = bottom + label_room + 8;

  auto y_of = [&](double v) { return bottom - (v - axis.bottom) / (axis.top - axis.bottom) * kPlotHeight; };
  const double zero_y = y_of(0);

  std::string out = svg_open(width, height, chart.title, chart.description);
  out += key.svg;
  out += y_grid(axis, kLeft, kLeft + plot_width, top, bottom);
  if (!chart.unit.empty())
    out += fmt::format("<text x=\"12\" y=\"{}\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>",
                       px((top + bottom) / 2), px((top + bottom) / 2), escape_xml(chart.unit));

  for (std::size_t g = 0; g < chart.groups.size(); ++g) {
    const double gx = kLeft + static_cast<double>(g) * group_width + kGroupGap / 2 + std::max(group_inset, 0.0);
    const std::string group_label = shorten(chart.groups[g], 40);
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const Bar bar = g < chart.bars.size() && s < chart.bars[g].size() ? chart.bars[g][s] : Bar{};
      const double x = gx + static_cast<double>(s) * bar_width;
      const double cx = x + bar_width / 2;
      const std::string who = fmt::format("{} / {}", chart.series[s], chart.groups[g]);
      if (!bar.value || !std::isfinite(*bar.value)) {
        out += fmt::format(
            "<g><title>{}: {}</title><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#c0392b\" "
            "font-weight=\"bold\">\u00d7</text></g>",
            escape_xml(who), escape_xml(bar.missing), px(cx), px(zero_y - 4));
        continue;
      }
      const double y = y_of(*bar.value);
      std::string tip = fmt::format("{}: {}", who, format_number(*bar.value));
      if (bar.low && bar.high)
        tip += fmt::format(" (min {}, max {})", format_number(*bar.low), format_number(*bar.high));
      out += fmt::format("<g><title>{}</title>", escape_xml(tip));
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", px(x + 0.5),
                         px(std::min(y, zero_y)), px(std::max(bar_width - 1, 1.0)),
                         px(std::max(std::abs(zero_y - y), 0.5)), colour(s));
      if (bar.low && bar.high) {
        const bool cut = *bar.high > axis.top;
        const double y_low = y_of(*bar.low), y_high = cut ? top : y_of(*bar.high);
        const double cap = std::max(bar_width / 4, 2.0);
        out += fmt::format("<path d=\"M{0} {1}V{2}M{3} {1}H{4}", px(cx), px(y_low), px(y_high), px(cx - cap),
                           px(cx + cap));
        if (cut)  // an arrow head: the slowest run is off the chart
          out += fmt::format("M{} {}L{} {}L{} {}", px(cx - cap), px(top + cap), px(cx), px(top), px(cx + cap),
                             px(top + cap));
        else
          out += fmt::format("M{} {}H{}", px(cx - cap), px(y_high), px(cx + cap));
        out += "\" stroke=\"#222\" stroke-width=\"1.2\" fill=\"none\"/>";
      }
      const std::string value_label = format_number(*bar.value, true);
      if (text_width(value_label, 10) <= bar_width + 4) {
        const double label_y = std::min(y, bar.high ? std::max(y_of(*bar.high), top + 10) : y) - 4;
        out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text>", px(cx),
                           px(label_y), escape_xml(value_label));
      }
      out += "</g>";
    }
    const double label_x = kLeft + (static_cast<double>(g) + 0.5) * group_width;
    if (slanted)
      out += fmt::format(
          "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate(-30 {0} "
          "{1})\"><title>{2}</title>{3}</text>",
          px(label_x), px(bottom + 16), escape_xml(chart.groups[g]), escape_xml(group_label));
    else
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\"><title>{}</title>{}</text>", px(label_x),
                         px(bottom + 16), escape_xml(chart.groups[g]), escape_xml(group_label));
  }
  out += "</svg>";
  return out;
}

std::string render_svg(const LineChart& chart) {
  constexpr double kLeft = 64, kRight = 20, kPlotWidth = 640, kPlotHeight = 220;
  const double width = kLeft + kPlotWidth + kRight;

  bool all_zero = true;
  for (const auto& line : chart.lines)
    for (const auto& v : line.values)
      if (v && *v != 0) all_zero = false;
  if (all_zero && !chart.x.empty()) {
    std::vector<std::string> names;
    for (const auto& line : chart.lines) names.push_back(line.name);
    std::string joined;
    for (std::size_t i = 0; i < names.size(); ++i) joined += (i ? ", " : "") + names[i];
    return zero_chart_svg(width, kLeft, chart.title, chart.description,
                          fmt::format("{}: 0 at every point{}", joined.empty() ? chart.title : joined,
                                      chart.x_label.empty() ? "" : " (" + chart.x_label + ")"));
  }

  std::vector<std::string> names;
  for (const auto& line : chart.lines) names.push_back(line.name);
  const Legend key = legend(names, kLeft, width - kRight, true);
  const double top = key.height + 12;
  const double bottom = top + kPlotHeight;
  const double height = bottom + 44;

  double lo = 0, hi = 0;
  bool integer = true;
  for (const auto& line : chart.lines)
    for (const auto& v : line.values)
      if (v && std::isfinite(*v)) {
        lo = std::min(lo, *v);
        hi = std::max(hi, *v);
        integer = integer && is_integer(*v);
      }
  const Axis axis = nice_axis(lo, hi, integer);

  double x_min = chart.x.empty() ? 0 : chart.x.front(), x_max = x_min;
  for (double x : chart.x) x_min = std::min(x_min, x), x_max = std::max(x_max, x);
  if (!(x_max > x_min)) x_min -= 1, x_max += 1;
  auto x_of = [&](double x) { return kLeft + (x - x_min) / (x_max - x_min) * kPlotWidth; };
  auto y_of = [&](double v) { return bottom - (v - axis.bottom) / (axis.top - axis.bottom) * kPlotHeight; };

  std::string out = svg_open(width, height, chart.title, chart.description);
  out += key.svg;
  out += y_grid(axis, kLeft, kLeft + kPlotWidth, top, bottom);

  // x ticks: about ten nice values; whole numbers when every x is one (rounds), else fractions
  // too (hours of simulated time).
  bool x_integer = true;
  for (double x : chart.x) x_integer = x_integer && is_integer(x);
  const double x_step = nice_step(x_max - x_min, 10, x_integer);
  const double first_tick = std::ceil(x_min / x_step - 1e-9) * x_step;
  for (int k = 0;; ++k) {
    const double x = first_tick + k * x_step;  // by index: no drift from adding steps
    if (x > x_max + x_step * 1e-6) break;
    const double sx = x_of(x);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>", px(sx), px(bottom),
                       px(bottom + 4));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(sx), px(bottom + 16),
                       escape_xml(format_number(x)));
  }
  if (!chart.x_label.empty())
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(kLeft + kPlotWidth / 2),
                       px(bottom + 36), escape_xml(chart.x_label));
  if (!chart.y_label.empty())
    out += fmt::format("<text x=\"12\" y=\"{}\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>",
                       px((top + bottom) / 2), px((top + bottom) / 2), escape_xml(chart.y_label));

  const bool dots = chart.x.size() <= 120;
  for (std::size_t l = 0; l < chart.lines.size(); ++l) {
    const LineSeries& line = chart.lines[l];
    // One polyline per run of present values, so that gaps stay gaps.
    std::string points;
    auto flush = [&] {
      if (!points.empty())
        out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>", points,
                           colour(l), dash(l));
      points.clear();
    };
    const std::size_t n = std::min(line.values.size(), chart.x.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (!line.values[i] || !std::isfinite(*line.values[i])) {
        flush();
        continue;
      }
      if (!points.empty()) points += ' ';
      points += px(x_of(chart.x[i])) + "," + px(y_of(*line.values[i]));
    }
    flush();
    if (!dots) continue;
    for (std::size_t i = 0; i < n; ++i) {
      if (!line.values[i] || !std::isfinite(*line.values[i])) continue;
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}</title></circle>",
                         px(x_of(chart.x[i])), px(y_of(*line.values[i])), colour(l),
                         escape_xml(fmt::format("{} at {} {}: {}", line.name, chart.x_label, format_number(chart.x[i]),
                                                format_number(*line.values[i]))));
    }
  }
  out += "</svg>";
  return out;
}

std::string render_svg(const TimelineChart& chart) {
  constexpr double kLabel = 230, kRight = 24, kPlotWidth = 640, kLane = 30;
  const double left = kLabel + 8;
  const double width = left + kPlotWidth + kRight;
  // The kinds of rebalance, in legend order: a shape and a colour each.
  struct Kind {
    const char* name;
    const char* legend;
    std::size_t colour;
  };
  static constexpr Kind kKinds[] = {{"start", "first rebalance", 9},
                                    {"events", "a client joined, left or restarted", 0},
                                    {"follow-up", "follow-up (tasks revoked)", 6},
                                    {"probing", "probing rebalance", 2},
                                    {"interval", "next round (no probing)", 4},
                                    {"other", "other", 9}};
  auto kind_of = [](const std::string& name) -> std::size_t {
    for (std::size_t i = 0; i < std::size(kKinds); ++i)
      if (name == kKinds[i].name) return i;
    return std::size(kKinds) - 1;
  };
  auto mark = [&](std::size_t kind, double cx, double cy) {
    const char* fill = kPalette[kKinds[kind].colour % kPaletteSize];
    switch (kind) {
      case 0:
        return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"3\" height=\"16\" fill=\"{}\"/>", px(cx - 1.5), px(cy - 8),
                           fill);
      case 1:
        return fmt::format("<path d=\"M{} {}L{} {}L{} {}Z\" fill=\"{}\"/>", px(cx), px(cy - 7), px(cx + 6), px(cy + 5),
                           px(cx - 6), px(cy + 5), fill);
      case 2: return fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>", px(cx), px(cy), fill);
      case 3:
        return fmt::format("<path d=\"M{} {}L{} {}L{} {}L{} {}Z\" fill=\"{}\"/>", px(cx), px(cy - 6), px(cx + 6),
                           px(cy), px(cx), px(cy + 6), px(cx - 6), px(cy), fill);
      case 4:
        return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" fill=\"{}\"/>", px(cx - 4), px(cy - 4),
                           fill);
      default:
        return fmt::format("<path d=\"M{} {}L{} {}M{} {}L{} {}\" stroke=\"{}\" stroke-width=\"2\"/>", px(cx - 4),
                           px(cy - 4), px(cx + 4), px(cy + 4), px(cx - 4), px(cy + 4), px(cx + 4), px(cy - 4), fill);
    }
  };
  // Legend: the kinds that appear.
  std::vector<bool> used(std::size(kKinds), false);
  double x_max = 0;
  for (const auto& lane : chart.lanes) {
    for (const auto& m : lane.marks) {
      used[kind_of(m.kind)] = true;
      x_max = std::max(x_max, m.x);
    }
    if (lane.converged) x_max = std::max(x_max, *lane.converged);
  }
  if (!(x_max > 0)) x_max = 1;
  std::string legend_svg;
  double lx = left, ly = 14;
  for (std::size_t k = 0; k < std::size(kKinds); ++k) {
    if (!used[k]) continue;
    const double w = 14 + 6 + text_width(kKinds[k].legend) + 18;
    if (lx > left && lx + w > width - kRight) {
      lx = left;
      ly += 18;
    }
    legend_svg += mark(k, lx + 6, ly - 4);
    legend_svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", px(lx + 16), px(ly), escape_xml(kKinds[k].legend));
    lx += w;
  }
  const double top = ly + 16;
  const double bottom = top + kLane * static_cast<double>(std::max<std::size_t>(chart.lanes.size(), 1));
  const double height = bottom + 44;
  auto x_of = [&](double x) { return left + x / x_max * kPlotWidth; };

  std::string out = svg_open(width, height, chart.title, chart.description);
  out += legend_svg;
  const double step = nice_step(x_max, 10, false);
  for (int k = 0;; ++k) {
    const double x = k * step;
    if (x > x_max + step * 1e-6) break;
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e3e3e3\"/>", px(x_of(x)), px(top),
                       px(bottom));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(x_of(x)), px(bottom + 16),
                       escape_xml(format_number(x)));
  }
  if (!chart.x_label.empty())
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(left + kPlotWidth / 2),
                       px(bottom + 36), escape_xml(chart.x_label));
  for (std::size_t l = 0; l < chart.lanes.size(); ++l) {
    const TimelineLane& lane = chart.lanes[l];
    const double cy = top + kLane * (static_cast<double>(l) + 0.5);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#bbb\"/>", px(left), px(cy),
                       px(left + kPlotWidth), px(cy));
    const std::string name = shorten(lane.name, 30);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-weight=\"bold\"><title>{}</title>{}</text>",
                       px(kLabel), px(cy - 2), escape_xml(lane.name), escape_xml(name));
    if (!lane.note.empty())
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\">{}</text>",
                         px(kLabel), px(cy + 10), escape_xml(shorten(lane.note, 40)));
    if (lane.converged)
      out += fmt::format(
          "<g><title>{} converged at {}</title><rect x=\"{}\" y=\"{}\" width=\"4\" height=\"{}\" "
          "fill=\"#117733\"/></g>",
          escape_xml(lane.name), escape_xml(format_number(*lane.converged)), px(x_of(*lane.converged) - 2), px(cy - 12),
          px(24));
    for (const auto& m : lane.marks)
      out += "<g><title>" + escape_xml(m.label) + "</title>" + mark(kind_of(m.kind), x_of(m.x), cy) + "</g>";
  }
  out += "</svg>";
  return out;
}

namespace {

constexpr const char* kStyle =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;"
    "margin:24px auto;padding:0 16px;max-width:1200px;color:#222;background:#fff;line-height:1.4}"
    "h1{font-size:1.5em;margin-bottom:0.2em}h2{font-size:1.15em;margin:1.6em 0 0.2em}"
    "p.summary{margin:0.15em 0;color:#444}p.desc{margin:0 0 0.5em;color:#555;font-size:0.92em}"
    "section{margin-bottom:1.2em}svg{max-width:100%;height:auto;display:block}"
    "table{border-collapse:collapse;font-size:0.88em;margin-top:0.4em}"
    "caption{text-align:left;font-weight:bold;padding:0.3em 0}"
    "th,td{border:1px solid #ddd;padding:3px 7px;vertical-align:top}"
    "th{background:#f4f4f4;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "tr.flagged td{background:#fdecea}footer{margin-top:2em;color:#888;font-size:0.8em}"
    ".scroll{overflow-x:auto}";

std::string render_table(const HtmlTable& table) {
  std::string out = "<div class=\"scroll\"><table>";
  if (!table.caption.empty()) out += "<caption>" + escape_xml(table.caption) + "</caption>";
  out += "<thead><tr>";
  for (const auto& h : table.header) out += "<th>" + escape_xml(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const bool flagged = r < table.flagged.size() && table.flagged[r];
    out += flagged ? "<tr class=\"flagged\">" : "<tr>";
    for (std::size_t c = 0; c < table.rows[r].size(); ++c) {
      const bool numeric = c < table.numeric.size() && table.numeric[c];
      out += numeric ? "<td class=\"num\">" : "<td>";
      out += escape_xml(table.rows[r][c]);
      out += "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table></div>\n";
  return out;
}

}  // namespace

std::string render_html(const HtmlReport& report) {
  std::string out =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  out += "<title>" + escape_xml(report.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>" + escape_xml(report.title) + "</h1>\n";
  for (const auto& line : report.summary) out += "<p class=\"summary\">" + escape_xml(line) + "</p>\n";
  for (const auto& section : report.sections) {
    if (const auto* bar = std::get_if<BarChart>(&section)) {
      out += "<section class=\"chart\"><h2>" + escape_xml(bar->title) + "</h2>";
      if (!bar->description.empty()) out += "<p class=\"desc\">" + escape_xml(bar->description) + "</p>";
      out += render_svg(*bar) + "</section>\n";
    } else if (const auto* line = std::get_if<LineChart>(&section)) {
      out += "<section class=\"chart\"><h2>" + escape_xml(line->title) + "</h2>";
      if (!line->description.empty()) out += "<p class=\"desc\">" + escape_xml(line->description) + "</p>";
      out += render_svg(*line) + "</section>\n";
    } else if (const auto* lanes = std::get_if<TimelineChart>(&section)) {
      out += "<section class=\"chart\"><h2>" + escape_xml(lanes->title) + "</h2>";
      if (!lanes->description.empty()) out += "<p class=\"desc\">" + escape_xml(lanes->description) + "</p>";
      out += render_svg(*lanes) + "</section>\n";
    } else if (const auto* table = std::get_if<HtmlTable>(&section)) {
      out += "<section class=\"table\">" + render_table(*table) + "</section>\n";
    } else if (const auto* para = std::get_if<Paragraph>(&section)) {
      out += "<p>" + escape_xml(para->text) + "</p>\n";
    }
  }
  out += "<footer>Generated by assignor " + escape_xml(sdk_version()) +
         ". Self-contained: no scripts, no network.</footer>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace assignor::host
