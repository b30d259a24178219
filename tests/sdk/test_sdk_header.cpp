// <assignor/sdk.hpp> promises every public header of the SDK: a header added under
// sdk/include/assignor/ and forgotten there fails this test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "assignor/sdk.hpp"

namespace {

TEST(SdkHeader, IncludesEveryPublicHeader) {
  const std::filesystem::path dir = ASSIGNOR_SDK_INCLUDE_DIR;
  std::ifstream in(dir / "sdk.hpp");
  ASSERT_TRUE(in) << dir / "sdk.hpp";
  std::stringstream text;
  text << in.rdbuf();
  int headers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".hpp" || name == "sdk.hpp") continue;
    ++headers;
    EXPECT_NE(text.str().find("#include \"assignor/" + name + "\""), std::string::npos)
        << name << " is not included by sdk.hpp";
  }
  EXPECT_GT(headers, 10);  // the directory was found and read
}

}  // namespace
