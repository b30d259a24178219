// record_json.hpp: a record's JSON from its field list, in the list's order, and back with the
// defaults of NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT (a missing key keeps the default, a
// wrong type is nlohmann's type_error). Expected texts are written out by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "assignor/host/formats/record_json.hpp"

namespace assignor::host {
namespace {

struct Sample {
  std::string name = "default";
  std::uint64_t count = 7;
  std::optional<std::int64_t> when;
  bool flagged = false;
  std::vector<std::string> notes;
};

const auto kSampleFields = std::make_tuple(
    record_json::field("zeta_name", &Sample::name),  // not alphabetical: the list's order must be kept
    record_json::field("count", &Sample::count), record_json::field("when", &Sample::when),
    record_json::computed("flagged",
                          [](const Sample& s) {
                            return record_json::OmittedWhenEmpty<bool>{s.flagged ? std::optional(true) : std::nullopt};
                          }),
    record_json::adapted(
        "notes", [](const Sample& s) { return s.notes.size(); },  // written as a count, read back as that many
        [](Sample& s, const nlohmann::json& v) { s.notes.assign(v.get<std::size_t>(), "?"); }));

nlohmann::ordered_json write(const Sample& s) {
  nlohmann::ordered_json j;
  record_json::write(j, s, kSampleFields);
  return j;
}

Sample read(const std::string& text) {
  Sample s;
  record_json::read(nlohmann::json::parse(text), s, kSampleFields);
  return s;
}

TEST(RecordJson, WritesTheFieldsInTheListsOrderWithNullForAnEmptyOptional) {
  Sample s;
  s.name = "a";
  s.count = 3;
  s.notes = {"x", "y"};
  EXPECT_EQ(write(s).dump(), R"({"zeta_name":"a","count":3,"when":null,"notes":2})");
  s.when = -5;
  s.flagged = true;
  EXPECT_EQ(write(s).dump(), R"({"zeta_name":"a","count":3,"when":-5,"flagged":true,"notes":2})");
}

TEST(RecordJson, ReadsBackWhatItWroteAndKeepsTheDefaultOfAMissingKey) {
  const Sample s = read(R"({"count": 12, "when": 40, "notes": 3})");
  EXPECT_EQ(s.name, "default");
  EXPECT_EQ(s.count, 12u);
  EXPECT_EQ(s.when, 40);
  EXPECT_FALSE(s.flagged);  // computed: written only
  EXPECT_EQ(s.notes, (std::vector<std::string>{"?", "?", "?"}));
  EXPECT_EQ(read(R"({"when": null})").when, std::nullopt);
}

TEST(RecordJson, RefusesAWrongTypeAndANonObject) {
  EXPECT_THROW(read(R"({"count": "twelve"})"), nlohmann::json::type_error);
  EXPECT_THROW(read(R"({"zeta_name": null})"), nlohmann::json::type_error);  // null only empties an optional
  EXPECT_THROW(read(R"([1, 2])"), std::invalid_argument);
}

}  // namespace
}  // namespace assignor::host
