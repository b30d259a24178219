// A plugin from the future: its descriptor claims an API version this host does not speak.
#include "broken_plugin.hpp"

namespace {

assignor::Strategy* create(const assignor::StrategyParams&) { return new assignor_test_plugins::Unused(); }

const assignor::PluginDescriptor descriptor{assignor::kPluginApiVersion + 2,
                                            assignor::kBuildFingerprint,
                                            "test_wrong_api",
                                            "1.0.0",
                                            "descriptor with an unsupported API version",
                                            0,
                                            &create,
                                            &assignor_test_plugins::destroy_strategy};

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_wrong_api")
