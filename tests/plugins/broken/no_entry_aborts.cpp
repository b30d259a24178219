// A shared library without the entry point whose static initialiser aborts the process: the proof
// that the registry never dlopen()s a file before its symbol table shows the entry point. If any
// test ever opened it, that test process would die here.
#include <boost/config.hpp>

#include <cstdlib>

namespace {

struct AbortOnLoad {
  AbortOnLoad() { std::abort(); }
};
const AbortOnLoad abort_on_load;

}  // namespace

extern "C" BOOST_SYMBOL_EXPORT int assignor_test_not_a_plugin_either() { return 7; }
