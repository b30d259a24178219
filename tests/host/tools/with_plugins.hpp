// A test suite whose tests share one registry of the built-in plugins (ASSIGNOR_PLUGIN_DIR) and of
// the test plugins it names: loaded once for the suite (SetUpTestSuite calls load_plugins), freed
// after its last test.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>

#include "assignor/host/plugins/plugin_registry.hpp"

namespace assignor::host::test {

class WithPlugins : public ::testing::Test {
 protected:
  static void load_plugins(std::initializer_list<const char*> test_plugins = {}) {
    registry_ = new PluginRegistry();
    registry_->load_directory(ASSIGNOR_PLUGIN_DIR);
    for (const char* plugin : test_plugins) registry_->load(plugin);
  }
  static void TearDownTestSuite() {
    delete registry_;
    registry_ = nullptr;
  }

  static inline PluginRegistry* registry_ = nullptr;
};

}  // namespace assignor::host::test
