include(${CMAKE_CURRENT_LIST_DIR}/VernierPch.cmake)

# vernier_library(NAME SOURCES ... DEPS ...): a module library with our warnings.
function(vernier_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_SOURCES)
    # A module whose sources are not written yet still configures.
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${ARG_DEPS})
    return()
  endif()
  add_library(${name} STATIC ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES UNITY_BUILD ${VERNIER_UNITY_LIBRARIES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${VERNIER_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  vernier_pch_candidate(${name})
endfunction()

# vernier_executable(NAME SOURCES ... DEPS ...)
function(vernier_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  foreach(source ${ARG_SOURCES})
    if(NOT IS_ABSOLUTE ${source})
      set(source ${CMAKE_CURRENT_SOURCE_DIR}/${source})
    endif()
    if(NOT EXISTS ${source})
      return()
    endif()
  endforeach()
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${VERNIER_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  vernier_pch_candidate(${name})
endfunction()

# vernier_test(NAME SOURCES ... DEPS ... [LABELS ...]): one googletest binary,
# each test case registered with ctest.
function(vernier_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  vernier_executable(${name} SOURCES ${ARG_SOURCES} DEPS ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  include(GoogleTest)
  # Tests on the one Slurm test cluster take turns: they count its GPUs.
  set(extra_properties "")
  if(name MATCHES "slurm")
    list(APPEND extra_properties RESOURCE_LOCK slurm_test_cluster)
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "${ARG_LABELS}"
               ENVIRONMENT "VERNIER_BUILD_DIR=${PROJECT_BINARY_DIR}\\;VERNIER_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
               ${extra_properties})
endfunction()

# Test code compiles without optimisation. The code under test is in the
# module libraries, built with the build type's flags (-O2 in RelWithDebInfo);
# what links googletest (the test binaries, their support libraries and the
# test precompiled header, whose flags must match) is assertions and set-up,
# which -O2 compiles 1.5 to 1.7 times slower for nothing a test needs (see
# docs/benchmarks.md, "Build: test code at -O0"). -DVERNIER_OPTIMIZE_TESTS=ON
# compiles it with the build type's flags too.
option(VERNIER_OPTIMIZE_TESTS "Compile the tests' own code with the build type's optimisation" OFF)

function(vernier_apply_test_code_options)
  if(VERNIER_OPTIMIZE_TESTS OR NOT TARGET GTest::gtest)
    return()
  endif()
  get_property(candidates GLOBAL PROPERTY VERNIER_PCH_CANDIDATES)
  if(TARGET vernier_test_pch)
    list(APPEND candidates vernier_test_pch)
  endif()
  foreach(target ${candidates})
    vernier_links_transitively(${target} GTest::gtest uses_gtest)
    if(uses_gtest)
      target_compile_options(${target} PRIVATE -O0)
    endif()
  endforeach()
endfunction()
