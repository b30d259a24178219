# Warning and sanitizer flags live on INTERFACE targets so that every project target opts in the
# same way and nothing leaks into consumers of the installed package.
add_library(assignor_warnings INTERFACE)
target_compile_options(assignor_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
  -Wno-sign-conversion)
# GCC 12 reports false -Wrestrict positives inside libstdc++'s string concatenation at -O2/-O3
# (GCC bug 105329); the warning says nothing about our code there.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(assignor_warnings INTERFACE -Wno-restrict)
endif()
if(ASSIGNOR_WERROR)
  target_compile_options(assignor_warnings INTERFACE -Werror)
endif()

add_library(assignor_sanitizers INTERFACE)
if(ASSIGNOR_FUZZ)
  # Every target (SDK, host, plugins) gets libFuzzer's coverage instrumentation and ASan + UBSan;
  # the fuzz executables add -fsanitize=fuzzer (libFuzzer's main) themselves.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ASSIGNOR_FUZZ needs clang (libFuzzer); configure with -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  target_compile_options(assignor_sanitizers INTERFACE -fsanitize=fuzzer-no-link,address,undefined
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(assignor_sanitizers INTERFACE -fsanitize=address,undefined)
elseif(ASSIGNOR_SANITIZE)
  target_compile_options(assignor_sanitizers INTERFACE -fsanitize=address,undefined
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(assignor_sanitizers INTERFACE -fsanitize=address,undefined)
endif()

# Plugins are MODULE libraries with hidden visibility and a version script: only the extern "C" entry
# point is exported. The same settings are installed for third parties (cmake/AssignorPlugin.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/AssignorPlugin.cmake)
function(assignor_plugin_properties target)
  assignor_configure_plugin(${target} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/assignor-plugin.map)
  set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ASSIGNOR_PLUGIN_OUTPUT_DIRECTORY})
endfunction()
