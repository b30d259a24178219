# assignor_add_conformance_test(<plugin target> [RUNNER <runner target or path>] [SEED <n>]
#                               [SOURCES <files>...] [ARGS <kit flags>...])
#
# Adds a ctest `conformance.<plugin target>` that runs the conformance kit (assignor/conformance.hpp:
# valid, deterministic, no restoring actives when the plugin declares high availability, readable
# failures with reproduction lines) on the plugin.
#
# Without SOURCES the installed runner loads the plugin library. The kit and the runner are optional
# parts of an install (components conformance_kit and conformance_runner): a missing one is a
# configure error saying how to install it. With SOURCES, the files are a
# main() of your own (a conformance::Suite on this_plugin() with your properties): they are built
# into an executable `<plugin>_conformance` with the plugin's sources (<plugin>_objects) and the kit,
# which needs GoogleTest (libgtest-dev on Debian). ARGS go to the kit as they are (e.g.
# --stability-off-settled "reason").
function(assignor_add_conformance_test plugin)
  cmake_parse_arguments(ARG "" "RUNNER;SEED" "SOURCES;ARGS" ${ARGN})
  if(NOT ARG_SEED)
    set(ARG_SEED 1)
  endif()
  if(ARG_SOURCES)
    if(NOT TARGET Assignor::conformance_kit)
      message(FATAL_ERROR "assignor_add_conformance_test(${plugin} SOURCES ...): the conformance kit is not installed "
        "in this Assignor package (${CMAKE_CURRENT_FUNCTION_LIST_DIR}): in Assignor's build directory, "
        "'cmake --build build --target assignor_conformance_kit assignor_conformance_runner' (scripts/demo and "
        "scripts/test build them), then install again")
    endif()
    if(NOT TARGET GTest::gtest)
      find_package(GTest REQUIRED)
    endif()
    add_executable(${plugin}_conformance ${ARG_SOURCES})
    target_link_libraries(${plugin}_conformance PRIVATE ${plugin}_objects Assignor::conformance_kit)
    # The reproduction lines of a failure then name this plugin's library and the assignor command
    # of the package (the installed one), so they run as printed.
    set(command_args --library $<TARGET_FILE:${plugin}>)
    if(TARGET assignor)
      list(APPEND command_args --assignor $<TARGET_FILE:assignor>)
    elseif(ASSIGNOR_COMMAND)
      list(APPEND command_args --assignor ${ASSIGNOR_COMMAND})
    endif()
    add_test(NAME conformance.${plugin} COMMAND ${plugin}_conformance --seed ${ARG_SEED} ${command_args} ${ARG_ARGS})
    return()
  endif()
  if(NOT ARG_RUNNER)
    if(NOT TARGET Assignor::conformance)
      message(FATAL_ERROR "assignor_add_conformance_test(${plugin}): the conformance runner is not installed in this "
        "Assignor package (${CMAKE_CURRENT_FUNCTION_LIST_DIR}): in Assignor's build directory, "
        "'cmake --build build --target assignor_conformance_kit assignor_conformance_runner' (scripts/demo and "
        "scripts/test build them), then install again; or pass SOURCES (a main() of your own on the kit)")
    endif()
    set(ARG_RUNNER Assignor::conformance)
  endif()
  if(TARGET ${ARG_RUNNER})
    set(runner $<TARGET_FILE:${ARG_RUNNER}>)
  else()
    set(runner ${ARG_RUNNER})
  endif()
  set(command_args)
  if(TARGET assignor)
    list(APPEND command_args --assignor $<TARGET_FILE:assignor>)
  elseif(ASSIGNOR_COMMAND)
    list(APPEND command_args --assignor ${ASSIGNOR_COMMAND})
  endif()
  add_test(NAME conformance.${plugin}
           COMMAND ${runner} --plugin $<TARGET_FILE:${plugin}> --seed ${ARG_SEED} ${command_args} ${ARG_ARGS})
endfunction()
