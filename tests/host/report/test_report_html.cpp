// The shared HTML/SVG report writer: escaping (including invalid UTF-8), numbers for people, and
// pages that parse as XML with one <svg> per chart whatever the data (empty, failed bars, huge
// values, hostile names).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "assignor/host/report/report_html.hpp"
#include "../xml_check.hpp"

namespace assignor::host {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using test::check_xml;

TEST(EscapeXml, EscapesMarkupCharacters) {
  EXPECT_EQ(escape_xml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape_xml("plain text, tab\tand\nnewline"), "plain text, tab\tand\nnewline");
}

TEST(EscapeXml, KeepsValidUtf8AndReplacesInvalidBytesAndControls) {
  EXPECT_EQ(escape_xml("caf\xC3\xA9 \xE2\x80\xA6 \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x80\xA6 \xF0\x9F\x98\x80");
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(escape_xml("a\x01" "b"), "a" + replacement + "b");                // C0 control
  EXPECT_EQ(escape_xml("\xC3"), replacement);                                 // truncated sequence
  EXPECT_EQ(escape_xml("\xC0\xAF"), replacement + replacement);               // overlong '/'
  EXPECT_EQ(escape_xml("\xED\xA0\x80"), replacement + replacement + replacement);  // surrogate
  EXPECT_EQ(escape_xml("\xFF" "x"), replacement + "x");
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
  page.sections.emplace_back(LineChart{"moves", "per round", "round", "tasks", {1, 2, 3},
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
  BarChart zeros{"z", "", "", {"g"}, {"s"}, {{{0.0, {}, {}, ""}}}};
  EXPECT_EQ(check_xml(render_svg(zeros)).problem, "");
  LineChart long_run{"long", "", "round", "", {}, {{"a", {}}}};
  for (int i = 1; i <= 500; ++i) {
    long_run.x.push_back(i);
    long_run.lines[0].values.emplace_back(i % 7);
  }
  const std::string svg = render_svg(long_run);
  EXPECT_EQ(check_xml(svg).problem, "");
  EXPECT_THAT(svg, Not(HasSubstr("<circle")));  // too many rounds for dots: the line alone
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
