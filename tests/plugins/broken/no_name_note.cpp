// A complete, valid API-3 descriptor behind a hand-written entry point, without the name note that
// ASSIGNOR_PLUGIN writes: the host cannot tell which strategy the file holds without running it, so
// it refuses the library and says to rebuild it with the macro.
#include "broken_plugin.hpp"

namespace {

constexpr assignor::PluginDescriptor descriptor =
    assignor_test_plugins::unused_descriptor("test_no_name_note", "descriptor exported without a name note");

}  // namespace

extern "C" const assignor::PluginDescriptor* assignor_plugin_entry() { return &descriptor; }
