// A plugin from the future: its descriptor claims an API version this host does not speak.
#include "broken_plugin.hpp"

namespace {

constexpr assignor::PluginDescriptor descriptor = assignor_test_plugins::unused_descriptor(
    "test_wrong_api", "descriptor with an unsupported API version", assignor::kPluginApiVersion + 2);

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_wrong_api")
