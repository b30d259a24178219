// A descriptor without a factory: version and fingerprint match, but there is nothing to call.
#include "broken_plugin.hpp"

namespace {

const assignor::PluginDescriptor descriptor{assignor::kPluginApiVersion,
                                            assignor::kBuildFingerprint,
                                            "test_incomplete",
                                            "1.0.0",
                                            "descriptor with a null create",
                                            0,
                                            nullptr,
                                            &assignor_test_plugins::destroy_strategy};

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_incomplete")
