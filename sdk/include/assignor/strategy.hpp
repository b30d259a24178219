// The interface every strategy implements, and the read-only input it receives.
//
//   class MyStrategy : public assignor::Strategy {
//    public:
//     explicit MyStrategy(const assignor::StrategyParams& params) { params.reject_unknown({}); }
//     assignor::Assignment assign(const assignor::AssignmentInput& in) override { ... }
//   };
//   ASSIGNOR_PLUGIN(MyStrategy, "my_strategy", "1.0.0", "What it packs and why", 0)  // plugin.hpp
#pragma once

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"

namespace assignor {

// Everything a strategy may read. All references outlive the assign() call and nothing longer:
// a strategy must not keep pointers into the input after it returns.
struct AssignmentInput {
  const Cluster& cluster;
  const AssignmentSettings& settings;
  const LagModel& lags;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Returns the assignment (actives, standbys, warmups, probing flag). May throw; the host catches
  // at the boundary and reports the exception with the plugin's name. Must be deterministic: the
  // same input gives the same output.
  virtual Assignment assign(const AssignmentInput& input) = 0;
};

}  // namespace assignor
