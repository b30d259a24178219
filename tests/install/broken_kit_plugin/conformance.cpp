#include <assignor/conformance.hpp>

int main(int argc, char** argv) {
  assignor::conformance::Suite suite(assignor::this_plugin());
  return suite.run(argc, argv);
}
