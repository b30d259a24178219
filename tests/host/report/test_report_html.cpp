// The shared HTML/SVG report writer: escaping (including invalid UTF-8), numbers for people, and
// pages that parse as XML with one <svg> per chart whatever the data (empty, failed bars, huge
// values, hostile names).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "../xml_check.hpp"
#include "assignor/host/report/report_html.hpp"

namespace assignor::host {
namespace {

using test::check_xml;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(EscapeXml, EscapesMarkupCharacters) {
  EXPECT_EQ(escape_xml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape_xml("plain text, tab\tand\nnewline"), "plain text, tab\tand\nnewline");
}

TEST(EscapeXml, KeepsValidUtf8AndReplacesInvalidBytesAndControls) {
  EXPECT_EQ(escape_xml("caf\xC3\xA9 \xE2\x80\xA6 \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x80\xA6 \xF0\x9F\x98\x80");
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(escape_xml("a\x01"
                       "b"),
            "a" + replacement + "b");                                              // C0 control
  EXPECT_EQ(escape_xml("\xC3"), replacement);                                      // truncated sequence
  EXPECT_EQ(escape_xml("\xC0\xAF"), replacement + replacement);                    // overlong '/'
  EXPECT_EQ(escape_xml("\xED\xA0\x80"), replacement + replacement + replacement);  // surrogate
  EXPECT_EQ(escape_xml("\xFF"
                       "x"),
            replacement + "x");
  EXPECT_EQ(escape_xml("\xEF\xBF\xBE"), replacement + replacement + replacement);  // U+FFFE: not an XML char
}

TEST(FormatNumber, IntegersDecimalsAndCompactForms) {
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(12), "12");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(1.0 / 3), "0.333");
  EXPECT_EQ(format_number(-0.0001), "0");
  EXPECT_EQ(format_number(1234567), "1234567");
  EXPECT_EQ(format_number(1234567, true), "1.23M");
  EXPECT_EQ(format_number(9999, true), "9999");
  EXPECT_EQ(format_number(15000, true), "15k");
  EXPECT_EQ(format_number(2.5e9, true), "2.5G");
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

BarChart sample_bars() {
  BarChart chart;
  chart.title = "active_moves";
  chart.description = "moves <per> strategy & scenario";
  chart.unit = "tasks";
  chart.groups = {"scale-out", "a \"quoted\" <scenario> with a rather long name that will not fit under its bars"};
  chart.series = {"high_availability", "broken & <bad>", "sticky"};
  chart.bars = {{{12.0, {}, {}, ""}, {{}, {}, {}, "failed"}, {3.0, {}, {}, ""}},
                {{0.0, {}, {}, ""}, {{}, {}, {}, "invalid"}, {1e12, {}, {}, ""}}};
  return chart;
}

TEST(RenderHtml, PageParsesAsXmlWithOneSvgPerChart) {
  HtmlReport page;
  page.title = "Report <with> & markup";
  page.summary = {"line one", "line \"two\""};
  page.sections.emplace_back(sample_bars());
  BarChart timings = sample_bars();
  timings.title = "assign_ms";
  timings.bars[0][0].low = 10.0;
  timings.bars[0][0].high = 14.5;
  page.sections.emplace_back(timings);
  page.sections.emplace_back(LineChart{"moves",
                                       "per round",
                                       "round",
                                       "tasks",
                                       {1, 2, 3},
                                       {{"active_moves", {5.0, std::nullopt, 0.0}}, {"warmups", {2.0, 2.0, 0.0}}}});
  page.sections.emplace_back(HtmlTable{"rows", {"a", "b<"}, {{"1", "x & y"}, {"2", "\xFF"}}, {true}, {false, true}});
  page.sections.emplace_back(Paragraph{"the end </body>"});
  const std::string html = render_html(page);
  const auto check = check_xml(html);
  EXPECT_EQ(check.problem, "") << html;
  EXPECT_EQ(check.elements.at("svg"), 3);
  EXPECT_EQ(check.elements.at("html"), 1);
  EXPECT_EQ(check.elements.at("table"), 1);
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("Report &lt;with&gt; &amp; markup"));
  EXPECT_THAT(html, HasSubstr("broken &amp; &lt;bad&gt;"));
  // Self-contained: no scripts, no external resources.
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
}

TEST(RenderSvg, FailedBarsAreMarkedAndWhiskersDrawn) {
  BarChart chart = sample_bars();
  chart.bars[0][0].low = 10.0;
  chart.bars[0][0].high = 14.5;
  const std::string svg = render_svg(chart);
  EXPECT_EQ(check_xml(svg).problem, "");
  EXPECT_THAT(svg, HasSubstr("broken &amp; &lt;bad&gt; / scale-out: failed"));
  EXPECT_THAT(svg, HasSubstr("(min 10, max 14.5)"));
  EXPECT_THAT(svg, HasSubstr("<path d=\"M"));  // the whisker
}

TEST(RenderSvg, DegenerateChartsStayWellFormed) {
  EXPECT_EQ(check_xml(render_svg(BarChart{})).problem, "");
  EXPECT_EQ(check_xml(render_svg(LineChart{})).problem, "");
  LineChart one_point{"x", "", "round", "", {1}, {{"only", {std::nullopt}}}};
  EXPECT_EQ(check_xml(render_svg(one_point)).problem, "");
  BarChart zeros{"z", "", "", {"g", "h"}, {"s"}, {{{0.0, {}, {}, ""}}, {{0.0, {}, {}, ""}}}};
  EXPECT_EQ(check_xml(render_svg(zeros)).problem, "");
  EXPECT_THAT(render_svg(zeros), HasSubstr("z: 0 in every one of the 2 bars"));
  zeros.bars[1][0] = Bar{};  // a failed run is never hidden in the summary line
  EXPECT_THAT(render_svg(zeros), HasSubstr("<rect"));
  LineChart long_run{"long", "", "round", "", {}, {{"a", {}}}};
  for (int i = 1; i <= 500; ++i) {
    long_run.x.push_back(i);
    long_run.lines[0].values.emplace_back(i % 7);
  }
  const std::string svg = render_svg(long_run);
  EXPECT_EQ(check_xml(svg).problem, "");
  EXPECT_THAT(svg, Not(HasSubstr("<circle")));  // too many rounds for dots: the line alone
}

TEST(RenderSvg, AllZeroLineChartIsOneLineOfText) {
  LineChart zeros{"copies",    "warmups per round",
                  "hours",     "copies",
                  {0, 0.5, 1}, {{"warmups", {0.0, 0.0, std::nullopt}}, {"stale_standbys", {0.0, 0.0, 0.0}}}};
  const std::string svg = render_svg(zeros);
  EXPECT_EQ(check_xml(svg).problem, "");
  EXPECT_THAT(svg, HasSubstr("warmups, stale_standbys: 0 at every point (hours)"));
  EXPECT_THAT(svg, Not(HasSubstr("<polyline")));
  EXPECT_THAT(svg, HasSubstr("height=\"24\""));
  zeros.lines[1].values[2] = 1.0;  // one value above zero: a real plot again
  EXPECT_THAT(render_svg(zeros), HasSubstr("<polyline"));
}

TEST(RenderSvg, FractionalXGetsFractionalTicksWithoutDrift) {
  LineChart hours{"moves", "", "hours", "tasks", {0, 0.1, 0.2, 0.3}, {{"a", {1.0, 2.0, 3.0, 4.0}}}};
  const std::string svg = render_svg(hours);
  EXPECT_EQ(check_xml(svg).problem, "");
  for (const char* tick : {">0.05<", ">0.1<", ">0.15<", ">0.3<"}) EXPECT_THAT(svg, HasSubstr(tick)) << tick;
  EXPECT_THAT(svg, Not(HasSubstr("0.30000")));
  LineChart rounds{"moves", "", "round", "tasks", {1, 2, 3}, {{"a", {1.0, 2.0, 3.0}}}};
  EXPECT_THAT(render_svg(rounds), Not(HasSubstr(">1.5<")));  // rounds are whole numbers
}

TEST(RenderSvg, NeighbouringLinesDifferInColourAndDash) {
  LineChart many{"m", "", "round", "", {1, 2}, {}};
  for (int i = 0; i < 11; ++i) many.lines.push_back({"s" + std::to_string(i), {1.0 * i + 1, 2.0 * i + 1}});
  const std::string svg = render_svg(many);
  std::vector<std::string> styles;
  for (std::size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
    const std::size_t stroke = svg.find(" stroke=", at);
    styles.push_back(svg.substr(stroke, svg.find("/>", stroke) - stroke));
  }
  ASSERT_EQ(styles.size(), 11u);
  for (std::size_t i = 0; i < styles.size(); ++i)
    for (std::size_t j = i + 1; j < styles.size(); ++j) EXPECT_NE(styles[i], styles[j]) << i << " " << j;
}

TEST(XmlCheck, CatchesWhatTheWriterCouldGetWrong) {
  EXPECT_EQ(check_xml("<a><b/></a>").problem, "");
  EXPECT_NE(check_xml("<a><b></a>").problem, "");
  EXPECT_NE(check_xml("<a>x < y</a>").problem, "");
  EXPECT_NE(check_xml("<a>&nbsp;</a>").problem, "");
  EXPECT_NE(check_xml("<a x=1></a>").problem, "");
  EXPECT_NE(check_xml("<a></a><b></b>").problem, "");
}

}  // namespace
}  // namespace assignor::host
