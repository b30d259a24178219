// A factory that breaks its contract by returning null.
#include "broken_plugin.hpp"

namespace {

assignor::Strategy* create(const assignor::StrategyParams&) { return nullptr; }

const assignor::PluginDescriptor descriptor{assignor::kPluginApiVersion,
                                            assignor::kBuildFingerprint,
                                            "test_factory_null",
                                            "1.0.0",
                                            "factory that returns null",
                                            0,
                                            &create,
                                            &assignor_test_plugins::destroy_strategy};

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_factory_null")
