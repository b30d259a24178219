# Building strategy plugins the way the host expects them: a MODULE library without the "lib"
# prefix, hidden visibility, and only the entry point `assignor_plugin_entry` exported.
#
#   assignor_add_plugin(<name> SOURCES a.cpp b.cpp)   # in a project that did find_package(Assignor)
#
# It also defines <name>_objects, the compiled sources, for the plugin's own unit tests: link it
# into a test executable and make the strategy in-process with
# assignor::make_strategy(assignor::this_plugin()) (plugin.hpp):
#
#   add_executable(my_strategy_test my_strategy_test.cpp)
#   target_link_libraries(my_strategy_test PRIVATE my_strategy_objects GTest::gtest_main)
#
# The plugin links Assignor::sdk, so it compiles with the SDK's headers and the build fingerprint
# they carry (compiler family and major version, standard library ABI, SDK major.minor).

function(assignor_configure_plugin target version_script)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${version_script}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${version_script})
endfunction()

function(assignor_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "assignor_add_plugin(${name}): SOURCES is required")
  endif()
  add_library(${name}_objects OBJECT ${ARG_SOURCES})
  target_link_libraries(${name}_objects PUBLIC Assignor::sdk)
  target_compile_features(${name}_objects PUBLIC cxx_std_20)
  set_target_properties(${name}_objects PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  add_library(${name} MODULE)
  target_link_libraries(${name} PRIVATE ${name}_objects)
  assignor_configure_plugin(${name} ${ASSIGNOR_PLUGIN_VERSION_SCRIPT})
endfunction()
