// Built twice (duplicate_name_a, duplicate_name_b) into one directory: two libraries, one name.
#include "broken_plugin.hpp"

#ifndef ASSIGNOR_TEST_DUP_VERSION
#error "ASSIGNOR_TEST_DUP_VERSION must be defined"
#endif

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<assignor_test_plugins::all_on_first_client_strategy>, "dup",
                ASSIGNOR_TEST_DUP_VERSION, "one of two plugins named dup", 0)
