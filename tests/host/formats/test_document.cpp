// The JSON fast path (simdjson) must give the readers exactly what the YAML path (yaml-cpp's parser
// events) gives: the same tree, the same scalars, the same quoting, the same positions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "assignor/errors.hpp"
#include "assignor/host/formats/document.hpp"

namespace assignor::host::detail {
namespace {

using ::testing::HasSubstr;

void expect_same(const DocNode& a, const DocNode& b, const std::string& path) {
  ASSERT_EQ(a.Type(), b.Type()) << path;
  EXPECT_EQ(a.Mark().line, b.Mark().line) << path;
  EXPECT_EQ(a.Mark().column, b.Mark().column) << path;
  if (a.IsScalar()) {
    EXPECT_EQ(a.Scalar(), b.Scalar()) << path;
    EXPECT_EQ(a.IsQuoted(), b.IsQuoted()) << path << " (quoting)";
  }
  ASSERT_EQ(a.size(), b.size()) << path;
  auto ib = b.begin();
  std::size_t i = 0;
  for (auto ia = a.begin(); ia != a.end(); ++ia, ++ib, ++i) {
    if (a.IsMap()) {
      expect_same(ia->first, ib->first, path + "/key" + std::to_string(i));
      expect_same(ia->second, ib->second, path + "/" + std::string(ia->first.Scalar()));
    } else {
      expect_same(*ia, *ib, path + "[" + std::to_string(i) + "]");
    }
  }
}

void expect_same_both_ways(const std::string& text, const std::string& name) {
  auto json = parse_json_document(text, name);
  ASSERT_NE(json, nullptr) << name << " should take the JSON path";
  auto yaml = parse_yaml_document(text, name, "a document");
  expect_same(json->root(), yaml->root(), name);
}

TEST(Document, JsonAndYamlPathsAgreeOnEveryBundledJsonFile) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ASSIGNOR_SOURCE_DIR "/examples/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    expect_same_both_ways(ss.str(), entry.path().filename().string());
    ++files;
  }
  EXPECT_GE(files, 3);
}

TEST(Document, ScalarsQuotingEscapesAndPositions) {
  expect_same_both_ways(
      "{\"a\": 1, \"b\": \"1\", \"c\": true, \"d\": null, \"e\": [1.5, -2, \"x\\u00e9\\n\"],\n"
      "  \"f\": {\"g\": []}, \"h\": 1e3, \"dup\": 1, \"dup\": 2}",
      "inline.json");
}

TEST(Document, NotStrictJsonFallsBackToYaml) {
  EXPECT_EQ(parse_json_document("{version: 1}", "flow.yaml"), nullptr);          // a YAML flow map
  EXPECT_EQ(parse_json_document("{\"a\": 1} {\"b\": 2}", "two.json"), nullptr);  // trailing content
  EXPECT_EQ(parse_json_document("{\"a\": [1, 2}", "broken.json"), nullptr);      // syntax error
  EXPECT_EQ(parse_json_document("tasks: []", "plain.yaml"), nullptr);            // not a '{' document
  EXPECT_EQ(parse_json_document("{\"a\": nul}", "nul.json"), nullptr);           // `nul` is not null
}

TEST(Document, DeepNestingIsRefusedWithAPosition) {
  std::string text = "{\"a\": ";
  for (int i = 0; i < 600; ++i) text += "[";
  for (int i = 0; i < 600; ++i) text += "]";
  text += "}";
  try {
    auto doc = parse_json_document(text, "deep.json");
    // simdjson's own depth limit may refuse it first: then the YAML path explains.
    EXPECT_EQ(doc, nullptr);
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("deep.json:1:"));
    EXPECT_THAT(e.what(), HasSubstr("levels deep"));
  }
}

}  // namespace
}  // namespace assignor::host::detail
