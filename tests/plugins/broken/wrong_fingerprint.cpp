// A plugin built (it claims) by another compiler against another SDK: the right API version, the
// wrong build fingerprint.
#include "broken_plugin.hpp"

namespace {

constexpr assignor::PluginDescriptor descriptor =
    assignor_test_plugins::unused_descriptor("test_wrong_fingerprint", "descriptor with a foreign build fingerprint",
                                             assignor::kPluginApiVersion, "gcc-1;nonsense;sdk-9.9");

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_wrong_fingerprint")
