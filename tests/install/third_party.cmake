# See CMakeLists.txt. Each step stops the test with the step's output when it fails.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
step("configure the example" ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/example -G Ninja
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
step("build the example" ${CMAKE_COMMAND} --build ${WORK_DIR}/example)
step("the example's conformance test" ${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/example --output-on-failure)

# Another compiler family is refused by find_package(Assignor), at configure time.
if(OTHER_CXX)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/other-compiler -G Ninja
                          -DCMAKE_CXX_COMPILER=${OTHER_CXX} -DCMAKE_PREFIX_PATH=${prefix}
                          -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "Assignor was built with")
    message(FATAL_ERROR "configuring with ${OTHER_CXX} was not refused (${rc}):\n${out}\n${err}")
  endif()
endif()

# The installed command finds its bundled plugins relative to itself...
step("installed assignor plugins" ${prefix}/bin/assignor plugins)
foreach(name high_availability sticky fallback_prior)
  if(NOT step_output MATCHES "${name}")
    message(FATAL_ERROR "installed assignor does not list ${name}:\n${step_output}")
  endif()
endforeach()
# ... and the example through the config's plugins.paths.
file(WRITE ${WORK_DIR}/config.yaml "strategy: stateless_spread\nplugins:\n  paths: [example]\nassignment: {num_standby_replicas: 1}\n")
step("assign with the example" ${prefix}/bin/assignor assign --config ${WORK_DIR}/config.yaml --cluster ${CLUSTER})
if(NOT step_output MATCHES "\"strategy\": \"stateless_spread\"")
  message(FATAL_ERROR "unexpected output:\n${step_output}")
endif()
