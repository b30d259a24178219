// A library whose name note claims another plugin than its descriptor names: found under one name,
// it would run as another. The host refuses it when it opens it.
#include "broken_plugin.hpp"

namespace {

constexpr assignor::PluginDescriptor descriptor =
    assignor_test_plugins::unused_descriptor("test_note_mismatch", "descriptor and name note disagree");

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_note_claims_this")
