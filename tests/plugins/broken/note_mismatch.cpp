// A library whose name note claims another plugin than its descriptor names: found under one name,
// it would run as another. The host refuses it when it opens it.
#include "broken_plugin.hpp"

namespace {

assignor::Strategy* create(const assignor::StrategyParams&) { return new assignor_test_plugins::Unused(); }

const assignor::PluginDescriptor descriptor{assignor::kPluginApiVersion,
                                            assignor::kBuildFingerprint,
                                            "test_note_mismatch",
                                            "1.0.0",
                                            "descriptor and name note disagree",
                                            0,
                                            &create,
                                            &assignor_test_plugins::destroy_strategy};

}  // namespace

ASSIGNOR_PLUGIN_DESCRIPTOR(descriptor, "test_note_claims_this")
