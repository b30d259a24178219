// A strategy that takes one parameter, `alpha`, and refuses any other (a typo such as `alpah`).
#include "broken_plugin.hpp"

namespace {

class BadParam final : public assignor::Strategy {
 public:
  explicit BadParam(const assignor::StrategyParams& params) { params.reject_unknown({"alpha"}); }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(BadParam, "test_factory_bad_param", "1.0.0", "strategy taking only 'alpha'", 0)
