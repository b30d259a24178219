// The recommendation line compare and sweep open with: the Pareto front, ties said once.
#include "assignor/host/report/recommend.hpp"

#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace assignor::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string costs_of(const std::vector<double>& c) { return std::to_string(static_cast<int>(c[0])); }

TEST(Recommend, DominatedCandidatesAreLeftOutAndTheFrontSortedByTheFirstCost) {
  const std::vector<Candidate> c = {{"slow", {30, 0}}, {"worse", {40, 5}}, {"fast", {10, 9}}};
  EXPECT_THAT(undominated(c), ElementsAre(2, 0));
  EXPECT_EQ(recommendation_line("s", c, costs_of), "s: fast (10); also undominated: slow (30)");
}

TEST(Recommend, NeverConvergingCandidatesDoNotQualifyWhileOneDoes) {
  const double never = std::numeric_limits<double>::infinity();
  EXPECT_EQ(recommendation_line("s", {{"a", {never, 0}}, {"b", {50, 50}}}, costs_of), "s: b (50)");
  EXPECT_EQ(recommendation_line("s", {{"a", {never, 0}}}, costs_of), "s: none qualifies (no run converged)");
}

TEST(Recommend, TiesThatAreEveryCombinationAreNamedByTheirValues) {
  std::vector<Candidate> c;
  for (const char* w : {"1", "2", "4"})
    for (const char* r : {"100", "200"}) c.push_back({std::string("w=") + w + ", r=" + r + ", strategy=s", {10, 0}});
  EXPECT_EQ(recommendation_line("x", c, costs_of), "x: w=1|2|4, r=100|200, strategy=s (10)");
}

TEST(Recommend, TiesThatAreNotEveryCombinationAreListed) {
  // w=1,r=100 and w=2,r=200 tie, but w=1,r=200 is not among them: "w=1|2, r=100|200" would claim it.
  const std::vector<Candidate> c = {{"w=1, r=100", {10}}, {"w=2, r=200", {10}}, {"w=1, r=200", {20}}};
  const std::string line = recommendation_line("x", c, costs_of);
  EXPECT_THAT(line, HasSubstr("x: w=1, r=100 / w=2, r=200 (10)"));
  EXPECT_THAT(line, Not(HasSubstr("|")));
  // Labels that are not key=value (compare's strategy names) are listed as they are.
  EXPECT_EQ(recommendation_line("y", {{"a", {1}}, {"b", {1}}}, costs_of), "y: a / b (1)");
}

}  // namespace
}  // namespace assignor::host
