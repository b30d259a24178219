// Versions of the SDK and of the plugin API, and the build fingerprint that a plugin must share with
// the host before the host makes any C++ call into it.
//
// The API version protects the layout of PluginDescriptor and the meaning of the types that cross the
// plugin boundary (Strategy, AssignmentInput, Assignment). The fingerprint protects what the API
// version cannot see: the compiler family and major version, the C++ standard library and its ABI
// flavour, and the SDK's major.minor version (the inline code plugins compile in).
#pragma once

#include <cstdint>

#define ASSIGNOR_SDK_VERSION_MAJOR 0
#define ASSIGNOR_SDK_VERSION_MINOR 1
#define ASSIGNOR_SDK_VERSION_PATCH 0
#define ASSIGNOR_PLUGIN_API_VERSION 1

#define ASSIGNOR_STRINGIFY_(x) #x
#define ASSIGNOR_STRINGIFY(x) ASSIGNOR_STRINGIFY_(x)

#if defined(__clang__)
#define ASSIGNOR_COMPILER_ID "clang-" ASSIGNOR_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define ASSIGNOR_COMPILER_ID "gcc-" ASSIGNOR_STRINGIFY(__GNUC__)
#else
#define ASSIGNOR_COMPILER_ID "unknown-compiler"
#endif

#if defined(_GLIBCXX_USE_CXX11_ABI)
#define ASSIGNOR_STDLIB_ID "libstdc++-cxx11abi" ASSIGNOR_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define ASSIGNOR_STDLIB_ID "libc++-abi" ASSIGNOR_STRINGIFY(_LIBCPP_ABI_VERSION)
#else
#include <version>
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define ASSIGNOR_STDLIB_ID "libstdc++-cxx11abi" ASSIGNOR_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define ASSIGNOR_STDLIB_ID "libc++-abi" ASSIGNOR_STRINGIFY(_LIBCPP_ABI_VERSION)
#else
#define ASSIGNOR_STDLIB_ID "unknown-stdlib"
#endif
#endif

// e.g. "gcc-12;libstdc++-cxx11abi1;sdk-0.1"
#define ASSIGNOR_BUILD_FINGERPRINT                                            \
  ASSIGNOR_COMPILER_ID ";" ASSIGNOR_STDLIB_ID ";sdk-" ASSIGNOR_STRINGIFY(   \
      ASSIGNOR_SDK_VERSION_MAJOR) "." ASSIGNOR_STRINGIFY(ASSIGNOR_SDK_VERSION_MINOR)

namespace assignor {

inline constexpr std::uint32_t kPluginApiVersion = ASSIGNOR_PLUGIN_API_VERSION;
inline constexpr const char* kBuildFingerprint = ASSIGNOR_BUILD_FINGERPRINT;

// The SDK version the shared library was built as (may differ from the headers a plugin saw).
const char* sdk_version() noexcept;

}  // namespace assignor
