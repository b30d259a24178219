// A valid strategy (everything on the first client) that prints to stdout while it works: under
// `isolation: process` its text must go to stderr, never into the assignment JSON.
#include <cstdio>
#include <iostream>

#include "broken_plugin.hpp"

namespace {

assignor::Assignment prints(const assignor::AssignmentInput& in) {
  std::cout << "chatty strategy: hello from std::cout" << std::endl;
  std::printf("chatty strategy: hello from printf\n");
  std::fflush(stdout);
  return assignor_test_plugins::all_on_first_client(in.cluster);
}

}  // namespace

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<prints>, "test_strategy_prints", "1.0.0",
                "valid strategy that prints to stdout", 0)
