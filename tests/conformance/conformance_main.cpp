// assignor_conformance: runs the conformance suite against one plugin library.
//
//   assignor_conformance --plugin build/plugins/sticky.so [--seed N] [gtest flags]
//
// Exit status 0 when every case passes; GoogleTest's output names each failing case with the
// `assignor generate` command that reproduces its cluster.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "assignor/log.hpp"
#include "conformance.hpp"

int main(int argc, char** argv) {
  // Our flags first: the cases are generated (from the seed) when GoogleTest initialises.
  auto& target = assignor::conformance::target();
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--plugin" && i + 1 < argc) target.plugin = argv[++i];
    else if (arg.rfind("--plugin=", 0) == 0) target.plugin = arg.substr(9);
    else if (arg == "--seed" && i + 1 < argc) target.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (arg.rfind("--seed=", 0) == 0) target.seed = std::strtoull(arg.c_str() + 7, nullptr, 10);
    else if (arg == "--help" || arg == "-h") {
      std::cout << "usage: assignor_conformance --plugin LIBRARY [--seed N] [gtest flags]\n";
      return 0;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  ::testing::InitGoogleTest(&rest_argc, rest.data());
  if (rest_argc > 1) {
    std::cerr << "assignor_conformance: unknown argument '" << rest[1] << "' (see --help)\n";
    return 2;
  }
  if (target.plugin.empty()) {
    std::cerr << "assignor_conformance: --plugin LIBRARY is required\n";
    return 2;
  }
  assignor::log().set_level(spdlog::level::err);  // suspect-state warnings are expected here
  std::cout << "conformance: plugin " << target.plugin.string() << ", seed " << target.seed << "\n";
  return RUN_ALL_TESTS();
}
