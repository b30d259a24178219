// A shared library that is not an Assignor plugin: it exports a function, but not
// assignor_plugin_entry. load() refuses it; load_directory() skips it quietly.
#include <boost/config.hpp>

extern "C" BOOST_SYMBOL_EXPORT int assignor_test_not_a_plugin() { return 42; }
