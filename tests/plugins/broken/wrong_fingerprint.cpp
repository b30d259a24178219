// A plugin built (it claims) by another compiler against another SDK: the right API version, the
// wrong build fingerprint.
#include "broken_plugin.hpp"

namespace {

assignor::Strategy* create(const assignor::StrategyParams&) { return new assignor_test_plugins::Unused(); }

const assignor::PluginDescriptor descriptor{assignor::kPluginApiVersion,
                                            "gcc-1;nonsense;sdk-9.9",
                                            "test_wrong_fingerprint",
                                            "1.0.0",
                                            "descriptor with a foreign build fingerprint",
                                            0,
                                            &create,
                                            &assignor_test_plugins::destroy_strategy};

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_wrong_fingerprint")
