# Runs `assignor assign` and checks its JSON with shared/tools/check-assignment, a checker written
# from the contract alone. Exit 77 (skipped) when the checkout has no shared/ beside it.
if(NOT EXISTS ${CHECKER})
  message(STATUS "independent checker not found at ${CHECKER}: skipped")
  cmake_language(EXIT 77)
endif()
execute_process(COMMAND ${CLI} assign --config ${CONFIG} --cluster ${CLUSTER} --output ${OUT}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "assignor assign exited ${rc}")
endif()
execute_process(COMMAND ${PYTHON} ${CHECKER} ${CLUSTER} ${OUT} --kind ha --standbys 1 --warmups 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check-assignment found problems:\n${out}${err}")
endif()
