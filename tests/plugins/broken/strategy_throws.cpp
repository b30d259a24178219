// A strategy whose assign() throws: std::runtime_error by default, an int with `throw: int`.
#include <stdexcept>
#include <string>

#include "broken_plugin.hpp"

namespace {

class Throws final : public assignor::Strategy {
 public:
  explicit Throws(const assignor::StrategyParams& params) : kind_(params.get_string("throw", "std")) {
    params.reject_unknown({"throw"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput&) override {
    if (kind_ == "int") throw 42;
    throw std::runtime_error("boom: the strategy gave up");
  }

 private:
  std::string kind_;
};

}  // namespace

ASSIGNOR_PLUGIN(Throws, "test_strategy_throws", "1.0.0", "strategy whose assign throws", 0)
