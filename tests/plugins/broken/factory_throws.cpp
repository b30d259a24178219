// A factory that throws: std::runtime_error("boom"), or, with the parameter `non_std`, an int (the
// host must catch that too).
#include <stdexcept>

#include "broken_plugin.hpp"

namespace {

assignor::Strategy* create(const assignor::StrategyParams& params) {
  if (params.contains("non_std")) throw 7;
  throw std::runtime_error("boom");
}

const assignor::PluginDescriptor descriptor{assignor::kPluginApiVersion,
                                            assignor::kBuildFingerprint,
                                            "test_factory_throws",
                                            "1.0.0",
                                            "factory that throws",
                                            0,
                                            &create,
                                            &assignor_test_plugins::destroy_strategy};

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_factory_throws")
