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
# No Boost in the installed SDK (plugin API 3: plugin.hpp is a plain extern "C" entry point): the
# package neither finds Boost nor passes it on ...
file(GLOB package_files ${prefix}/lib/cmake/Assignor/*)
foreach(file IN LISTS package_files)
  file(READ ${file} text)
  if(text MATCHES "Boost|boost")
    message(FATAL_ERROR "the installed ${file} mentions Boost:\n${text}")
  endif()
endforeach()
# ... the example configures with Boost's package made unfindable ...
step("configure the example" ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/example -G Ninja
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
     -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON)
step("build the example" ${CMAKE_COMMAND} --build ${WORK_DIR}/example)
# ... and nothing the compiler read to build it, nor any installed public header, is a Boost header:
# the headers the build depended on (Ninja's record of the compiler's -MD output), and those of a
# file that includes every installed header (-M lists system headers too). The first list must
# name the installed plugin.hpp: an empty record would prove nothing.
step("the example's header dependencies" ${NINJA} -C ${WORK_DIR}/example -t deps)
if(NOT step_output MATCHES "${prefix}/include/assignor/plugin.hpp")
  message(FATAL_ERROR "the example's recorded dependencies do not name the installed plugin.hpp:\n${step_output}")
endif()
if(step_output MATCHES "[^\n]*boost/[^\n]*")
  message(FATAL_ERROR "building the example read a Boost header: ${CMAKE_MATCH_0}")
endif()
file(GLOB headers RELATIVE ${prefix}/include ${prefix}/include/assignor/*.hpp)
set(every_header "")
foreach(header IN LISTS headers)
  string(APPEND every_header "#include <${header}>\n")
endforeach()
file(WRITE ${WORK_DIR}/every_header.cpp "${every_header}")
step("preprocess every installed header" ${CXX} -std=c++20 -M -I${prefix}/include ${WORK_DIR}/every_header.cpp)
if(NOT step_output MATCHES "assignor/sdk.hpp" OR step_output MATCHES "[^ ]*boost/[^ ]*")
  message(FATAL_ERROR "the installed headers include Boost (${CMAKE_MATCH_0}) or were not read:\n${step_output}")
endif()
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
