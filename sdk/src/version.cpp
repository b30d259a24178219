#include "assignor/version.hpp"

namespace assignor {

const char* sdk_version() noexcept {
  return ASSIGNOR_STRINGIFY(ASSIGNOR_SDK_VERSION_MAJOR) "." ASSIGNOR_STRINGIFY(
      ASSIGNOR_SDK_VERSION_MINOR) "." ASSIGNOR_STRINGIFY(ASSIGNOR_SDK_VERSION_PATCH);
}

}  // namespace assignor
