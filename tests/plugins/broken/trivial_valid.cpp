// The good one: every task active on client 0, no standbys, no warmups. Valid for any cluster with
// at least one client; the fallback target of the runner tests.
#include "broken_plugin.hpp"

namespace {

class TrivialValid final : public assignor::Strategy {
 public:
  explicit TrivialValid(const assignor::StrategyParams& params) { params.reject_unknown({}); }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(TrivialValid, "test_trivial_valid", "1.0.0", "every task active on the first client", 0)
