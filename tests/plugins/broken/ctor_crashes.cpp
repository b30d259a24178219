// A complete plugin whose static initialiser crashes (SIGSEGV): any process that opens it dies.
// The registry must only ever open it in a probe child, skip it with a warning, and keep every
// other strategy of the directory usable.
#include <csignal>

#include "broken_plugin.hpp"

namespace {

struct CrashOnLoad {
  CrashOnLoad() { std::raise(SIGSEGV); }
};
const CrashOnLoad crash_on_load;

}  // namespace

ASSIGNOR_PLUGIN(assignor_test_plugins::Unused, "test_ctor_crashes", "1.0.0", "plugin whose initialiser crashes", 0)
