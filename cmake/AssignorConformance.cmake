# assignor_add_conformance_test(<plugin target> [RUNNER <runner target or path>] [SEED <n>])
#
# Adds a ctest `conformance.<plugin target>` that runs the conformance suite (valid, deterministic,
# no restoring actives when the plugin declares high availability) against the plugin library.
function(assignor_add_conformance_test plugin)
  cmake_parse_arguments(ARG "" "RUNNER;SEED" "" ${ARGN})
  if(NOT ARG_RUNNER)
    set(ARG_RUNNER Assignor::conformance)
  endif()
  if(NOT ARG_SEED)
    set(ARG_SEED 1)
  endif()
  if(TARGET ${ARG_RUNNER})
    set(runner $<TARGET_FILE:${ARG_RUNNER}>)
  else()
    set(runner ${ARG_RUNNER})
  endif()
  add_test(NAME conformance.${plugin}
           COMMAND ${runner} --plugin $<TARGET_FILE:${plugin}> --seed ${ARG_SEED})
endfunction()
