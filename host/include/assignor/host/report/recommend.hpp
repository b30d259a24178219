// "Which one": the recommendation block `compare` and `sweep` reports open with (DESIGN 4.8).
// A candidate (a strategy, or a combination of settings) is recommended when no other beats it on
// every cost at once (the Pareto front); a cost that is unknown (a run that never converged) counts
// as infinitely high.
//
//   std::vector<Candidate> c = {{"high_availability", {3600e3, 0, 120e3}}, ...};
//   for (std::size_t i : undominated(c)) ...
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace assignor::host {

struct Candidate {
  std::string label;
  std::vector<double> costs;  // lower is better; +infinity for "never"
};

// Indices of the candidates no other beats (<= on every cost, < on one), in the order given, then
// sorted by the first cost; candidates whose first cost is infinite are left out unless every
// candidate's is.
std::vector<std::size_t> undominated(const std::vector<Candidate>& candidates);

// "WHERE: a / b (their costs); also undominated: c (its costs)": the undominated candidates, those
// with the same costs said once (tied sweep labels "k=v, ..." that form every combination of their
// values as "k=v1|v2, ..."), each group's costs described by `describe`; "WHERE: none
// qualifies" when the first cost of every candidate is infinite.
std::string recommendation_line(const std::string& where, const std::vector<Candidate>& candidates,
                                const std::function<std::string(const std::vector<double>&)>& describe);

// The simulation costs the sweep and `compare --simulate` weigh, and their description:
// time to converged (infinite when it did not), restoring task-time, under-replicated task-time.
std::string describe_simulation_costs(const std::vector<double>& costs);

}  // namespace assignor::host
