# Debian packages, made by CPack's DEB generator from the install components (the top
# CMakeLists.txt):
#   assignor             component runtime: /usr/bin/assignor, the bundled plugins in
#                        /usr/lib/<multiarch>/assignor/plugins, the SDK's shared library, the examples
#                        and configs in /usr/share/assignor
#   libassignor-sdk-dev  components sdk and conformance: the headers, the CMake package, the SDK's
#                        link-time name, the conformance kit and its runner
# scripts/package configures a tree with -DCMAKE_INSTALL_PREFIX=/usr (GNUInstallDirs then puts the
# libraries in lib/<multiarch>, as Debian does) and runs `cpack -G DEB` there. The shared-library
# dependencies come from dpkg-shlibdeps (dpkg-dev), so they name the Debian packages the build was
# linked against; the RUNPATHs stay $ORIGIN-relative, as in every install.

set(CPACK_PACKAGE_NAME assignor)
set(CPACK_PACKAGE_VENDOR "Assignor")
set(CPACK_PACKAGE_CONTACT "Assignor maintainers <maintainers@users.noreply.a-seed-d92e2728.example>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Empty: each package's description below has its own summary line (CPack would prepend this one).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL runtime sdk)
if(TARGET assignor_conformance_runner)
  list(APPEND CPACK_COMPONENTS_ALL conformance)
endif()
set(CPACK_COMPONENT_SDK_GROUP dev)
set(CPACK_COMPONENT_CONFORMANCE_GROUP dev)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>-<release>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The plugins and the command find the SDK's library through their RUNPATH ($ORIGIN-relative);
# dpkg-shlibdeps looks for it in the build tree, which is laid out like the install.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/${CMAKE_INSTALL_LIBDIR})
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME assignor)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "Kafka Streams-style task assignment: the assignor command and its strategies
Computes Kafka Streams task assignments (actives, standbys, warmups) with pluggable strategies,
validates them, and compares and simulates strategies over rebalances. Includes the bundled
strategies (Kafka's own assignors reproduced, and others) and the strategy SDK's shared library.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libassignor-sdk-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The SDK's library is in the assignor package; a plugin must be built by the compiler family and
# major version that built the host (the build fingerprint); the kit links fmt and GoogleTest.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(ASSIGNOR_DEB_COMPILER "g++-${ASSIGNOR_CXX_COMPILER_MAJOR}")
elseif(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(ASSIGNOR_DEB_COMPILER "clang-${ASSIGNOR_CXX_COMPILER_MAJOR}")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "assignor (= ${PROJECT_VERSION}-1), ${ASSIGNOR_DEB_COMPILER}, libfmt-dev, libgtest-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "cmake (>= 3.25)")
set(CPACK_DEBIAN_DEV_DESCRIPTION "Assignor's strategy SDK: headers, CMake package and conformance kit
Everything needed to build a strategy plugin for the assignor command out of tree
(find_package(Assignor ${ASSIGNOR_PLUGIN_API_VERSION})) and to test it with the conformance kit.
The SDK's headers need only the C++ standard library.")

# A package made in a tree configured for another prefix would put the libraries outside Debian's
# layout (lib/ instead of lib/<multiarch>): cpack refuses it and says what to do.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/AssignorCPackChecks.cmake)
file(WRITE ${CPACK_PROJECT_CONFIG_FILE}
"if(CPACK_GENERATOR STREQUAL \"DEB\" AND NOT \"${CMAKE_INSTALL_PREFIX}\" STREQUAL \"/usr\")
  message(FATAL_ERROR \"${PROJECT_BINARY_DIR} is configured for ${CMAKE_INSTALL_PREFIX}; a Debian package needs a tree configured with -DCMAKE_INSTALL_PREFIX=/usr: run scripts/package\")
endif()
")

include(CPack)
