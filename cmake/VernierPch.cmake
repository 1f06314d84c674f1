# Precompiled headers. Most of a Vernier translation unit's compile time is
# spent parsing the same headers: the standard library, abseil, gRPC and the
# generated API messages and services (the .pb.h files alone are tens of
# thousands of lines). They are parsed once per build instead:
# cmake/pch/vernier_pch.h for the libraries and executables that link
# vernier_proto, and cmake/pch/vernier_test_pch.h (the same and googletest)
# for everything that links googletest. Each source still includes what it
# uses; -DVERNIER_PCH=OFF builds without them. The fuzz build (clang) uses them
# for its libraries too (fuzz/CMakeLists.txt: its targets, compiled with
# -fsanitize=fuzzer, which clang will not mix with a header built without
# it, do without).
#
# GCC uses a precompiled header only when the flags that shape it match
# (-O level, -pthread, sanitizers, macros it tests): the whole build compiles
# with -pthread for that reason, and -Winvalid-pch with -Werror makes a header
# that would be silently ignored a build error instead.
#
# With ccache, set CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
# (CONTRIBUTING.md), or ccache compiles every source that uses one.

option(VERNIER_PCH "Precompile the headers every module parses (standard library, abseil, gRPC, the API protos)" ON)

set_property(GLOBAL PROPERTY VERNIER_PCH_CANDIDATES "")

# vernier_pch_candidate(TARGET): called for every library and executable
# that vernier_library/vernier_executable make; vernier_apply_pch() decides
# at the end, when every target's dependencies are known.
function(vernier_pch_candidate target)
  set_property(GLOBAL APPEND PROPERTY VERNIER_PCH_CANDIDATES ${target})
endfunction()

# Sets OUT to TRUE when TARGET links LIBRARY, directly or through other
# targets.
function(vernier_links_transitively target library out)
  set(seen "")
  set(pending ${target})
  set(found FALSE)
  while(pending)
    list(POP_FRONT pending current)
    if(current IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${current})
    if(current STREQUAL library)
      set(found TRUE)
      break()
    endif()
    if(NOT TARGET ${current})
      continue()
    endif()
    get_target_property(type ${current} TYPE)
    set(links "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(direct ${current} LINK_LIBRARIES)
      if(direct)
        list(APPEND links ${direct})
      endif()
    endif()
    get_target_property(interface ${current} INTERFACE_LINK_LIBRARIES)
    if(interface)
      list(APPEND links ${interface})
    endif()
    foreach(link ${links})
      # $<LINK_ONLY:x> and other generator expressions: the target inside.
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
      if(NOT link MATCHES "^\\$<")
        list(APPEND pending ${link})
      endif()
    endforeach()
  endwhile()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(vernier_apply_pch)
  if(NOT VERNIER_PCH)
    return()
  endif()
  set(anchor ${PROJECT_SOURCE_DIR}/cmake/pch/pch_anchor.cc)
  add_library(vernier_pch STATIC ${anchor})
  target_link_libraries(vernier_pch PRIVATE vernier_proto Threads::Threads)
  target_compile_options(vernier_pch PRIVATE ${VERNIER_WARNINGS} -pthread -Winvalid-pch)
  target_precompile_headers(vernier_pch PRIVATE ${PROJECT_SOURCE_DIR}/cmake/pch/vernier_pch.h)
  set(have_tests FALSE)
  if(TARGET GTest::gtest)
    set(have_tests TRUE)
    add_library(vernier_test_pch STATIC ${anchor})
    target_include_directories(vernier_test_pch PRIVATE ${PROJECT_SOURCE_DIR})
    target_link_libraries(vernier_test_pch PRIVATE vernier_proto Threads::Threads GTest::gtest GTest::gmock)
    target_compile_options(vernier_test_pch PRIVATE ${VERNIER_WARNINGS} -pthread -Winvalid-pch)
    target_precompile_headers(vernier_test_pch PRIVATE ${PROJECT_SOURCE_DIR}/cmake/pch/vernier_test_pch.h)
  endif()
  get_property(candidates GLOBAL PROPERTY VERNIER_PCH_CANDIDATES)
  foreach(target ${candidates})
    set(donor "")
    if(have_tests)
      vernier_links_transitively(${target} GTest::gtest uses_gtest)
      if(uses_gtest)
        set(donor vernier_test_pch)
      endif()
    endif()
    if(NOT donor)
      vernier_links_transitively(${target} vernier_proto uses_proto)
      if(uses_proto)
        set(donor vernier_pch)
      endif()
    endif()
    if(donor)
      target_precompile_headers(${target} REUSE_FROM ${donor})
      target_compile_options(${target} PRIVATE -pthread -Winvalid-pch)
    endif()
  endforeach()
endfunction()
