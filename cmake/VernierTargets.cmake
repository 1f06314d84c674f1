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
