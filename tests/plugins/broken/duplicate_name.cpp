// Built twice (duplicate_name_a, duplicate_name_b) into one directory: two libraries, one name.
#include "broken_plugin.hpp"

#ifndef ASSIGNOR_TEST_DUP_VERSION
#error "ASSIGNOR_TEST_DUP_VERSION must be defined"
#endif

namespace {

class Dup final : public assignor::Strategy {
 public:
  explicit Dup(const assignor::StrategyParams& params) { params.reject_unknown({}); }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    return assignor_test_plugins::all_on_first_client(in.cluster);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(Dup, "dup", ASSIGNOR_TEST_DUP_VERSION, "one of two plugins named dup", 0)
