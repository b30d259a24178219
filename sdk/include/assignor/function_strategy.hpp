// A strategy without parameters of its own is one function: FunctionStrategy<f> is the Strategy
// class ASSIGNOR_PLUGIN makes from it, refusing every parameter.
//
//   assignor::Assignment pack(const assignor::AssignmentInput& in) { ... }
//   ASSIGNOR_PLUGIN(assignor::FunctionStrategy<pack>, "my_strategy", "1.0.0", "What it packs and why", 0)
#pragma once

#include "assignor/assignment.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"

namespace assignor {

template <Assignment (*Assign)(const AssignmentInput&)>
class FunctionStrategy final : public Strategy {
 public:
  explicit FunctionStrategy(const StrategyParams& params) { params.reject_unknown({}); }
  Assignment assign(const AssignmentInput& input) override { return Assign(input); }
};

}  // namespace assignor
