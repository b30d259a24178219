// A complete, valid API-3 descriptor behind a hand-written entry point, without the name note that
// ASSIGNOR_PLUGIN writes: the host cannot tell which strategy the file holds without running it, so
// it refuses the library and says to rebuild it with the macro.
#include "broken_plugin.hpp"

namespace {

assignor::Strategy* create(const assignor::StrategyParams&) { return new assignor_test_plugins::Unused(); }

const assignor::PluginDescriptor descriptor{assignor::kPluginApiVersion,
                                            assignor::kBuildFingerprint,
                                            "test_no_name_note",
                                            "1.0.0",
                                            "descriptor exported without a name note",
                                            0,
                                            &create,
                                            &assignor_test_plugins::destroy_strategy};

}  // namespace

extern "C" const assignor::PluginDescriptor* assignor_plugin_entry() { return &descriptor; }
