# SPDX-License-Identifier: GPL-2.0-only
#
# Stand-ins for ns-3's build system when ai-fabric is built against an installed ns-3.
# Finds ns-3, maps the ${libcore}-style variables that module CMakeLists use to the installed
# targets, applies the build profile, and defines build_lib() / build_lib_example() with the
# subset of ns-3's signature that contrib/ai-fabric uses.

set(AI_FABRIC_STANDALONE ON)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)

find_package(ns3 REQUIRED)
if(NOT ns3_VERSION)
  message(FATAL_ERROR "ai-fabric: the installed ns-3 does not report a version")
endif()
if(ns3_VERSION VERSION_LESS 3.37)
  message(FATAL_ERROR "ai-fabric needs ns-3 3.37 or newer; found ${ns3_VERSION}")
endif()
message(STATUS "ai-fabric: ns-3 ${ns3_VERSION} found")

# ns-3 3.37 exports ns3::libcore; later releases export ns3::core.
foreach(_m core network internet applications stats point-to-point)
  if(TARGET ns3::lib${_m})
    set(lib${_m} ns3::lib${_m})
  elseif(TARGET ns3::${_m})
    set(lib${_m} ns3::${_m})
  else()
    message(FATAL_ERROR "ai-fabric: ns-3 module '${_m}' is not installed")
  endif()
endforeach()

# The MPI variant (./ns3 configure --mpi): ai-fabric built against an ns-3 with its mpi module
# (Debian's ns-3 has none; ./ns3 builds one from Debian's source package). NS3_MPI is the
# definition ns-3 itself sets in a tree configured with --enable-mpi.
option(AI_FABRIC_MPI "Build against an ns-3 with its mpi module (./ns3 configure --mpi)" OFF)
set(libmpi "")
if(AI_FABRIC_MPI)
  if(TARGET ns3::libmpi)
    set(libmpi ns3::libmpi)
  elseif(TARGET ns3::mpi)
    set(libmpi ns3::mpi)
  else()
    message(FATAL_ERROR "ai-fabric: AI_FABRIC_MPI is on but the ns-3 found (${ns3_DIR}) has "
                        "no mpi module; ./ns3 configure --mpi builds one")
  endif()
  find_package(MPI REQUIRED COMPONENTS CXX)
  add_compile_definitions(NS3_MPI)
  message(STATUS "ai-fabric: MPI variant, ns-3 from ${ns3_DIR}")
endif()

# Build profiles with ns-3's names. Debian's libraries are built without asserts and logs;
# our own code gets them back in the debug and default profiles.
set(AI_FABRIC_BUILD_PROFILE "release" CACHE STRING "debug, default, release, optimized or asan")
set_property(CACHE AI_FABRIC_BUILD_PROFILE PROPERTY STRINGS debug default release optimized asan)
if(AI_FABRIC_BUILD_PROFILE STREQUAL "debug")
  set(CMAKE_BUILD_TYPE Debug CACHE STRING "set from AI_FABRIC_BUILD_PROFILE" FORCE)
  add_compile_definitions(NS3_ASSERT_ENABLE NS3_LOG_ENABLE)
elseif(AI_FABRIC_BUILD_PROFILE STREQUAL "default")
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "set from AI_FABRIC_BUILD_PROFILE" FORCE)
  add_compile_definitions(NS3_ASSERT_ENABLE NS3_LOG_ENABLE)
elseif(AI_FABRIC_BUILD_PROFILE STREQUAL "release")
  set(CMAKE_BUILD_TYPE Release CACHE STRING "set from AI_FABRIC_BUILD_PROFILE" FORCE)
elseif(AI_FABRIC_BUILD_PROFILE STREQUAL "asan")
  # AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer on ai-fabric's own
  # code, optimised (-O1) so the whole test suite fits CI's time; asserts and logs compiled in.
  # Debian's ns-3 libraries are not instrumented.
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "set from AI_FABRIC_BUILD_PROFILE" FORCE)
  add_compile_definitions(NS3_ASSERT_ENABLE NS3_LOG_ENABLE)
  set(AI_FABRIC_SANITIZE -fsanitize=address,undefined -fno-sanitize-recover=undefined
                         -fno-omit-frame-pointer)
  add_compile_options(-O1 ${AI_FABRIC_SANITIZE})
  add_link_options(${AI_FABRIC_SANITIZE})
elseif(AI_FABRIC_BUILD_PROFILE STREQUAL "optimized")
  set(CMAKE_BUILD_TYPE Release CACHE STRING "set from AI_FABRIC_BUILD_PROFILE" FORCE)
  add_compile_options(-march=native)
else()
  message(FATAL_ERROR "unknown build profile '${AI_FABRIC_BUILD_PROFILE}': "
                      "use debug, default, release, optimized or asan")
endif()
add_compile_options(-Wall -Wextra)

# Headers are reachable as "ns3/<name>.h", as inside an ns-3 tree.
set(AI_FABRIC_INCLUDE_DIR ${CMAKE_BINARY_DIR}/include)
file(MAKE_DIRECTORY ${AI_FABRIC_INCLUDE_DIR}/ns3)
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
set_property(GLOBAL PROPERTY AI_FABRIC_PROGRAMS "")

# ai_fabric_add_program(name SOURCES files... LIBRARIES libs...): a runnable target, listed by
# `./ns3 show targets`.
function(ai_fabric_add_program name)
  cmake_parse_arguments(PROG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${PROG_SOURCES})
  target_link_libraries(${name} PRIVATE ${PROG_LIBRARIES})
  set_property(GLOBAL APPEND PROPERTY AI_FABRIC_PROGRAMS ${name})
endfunction()

# Writes build/ai-fabric-targets.txt: one "name<TAB>path" line per runnable program.
function(ai_fabric_write_target_list)
  get_property(_programs GLOBAL PROPERTY AI_FABRIC_PROGRAMS)
  set(_text "")
  foreach(_p ${_programs})
    string(APPEND _text "${_p}\t${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${_p}\n")
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/ai-fabric-targets.txt "${_text}")
endfunction()

# build_lib(LIBNAME name SOURCE_FILES ... HEADER_FILES ... LIBRARIES_TO_LINK ...)
function(build_lib)
  cmake_parse_arguments(BLIB "" "LIBNAME"
                        "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK;TEST_SOURCES" ${ARGN})
  set(_target lib${BLIB_LIBNAME})
  add_library(${_target} SHARED ${BLIB_SOURCE_FILES})
  set_target_properties(${_target} PROPERTIES OUTPUT_NAME ns${ns3_VERSION}-${BLIB_LIBNAME})
  set(_module_header ${AI_FABRIC_INCLUDE_DIR}/ns3/${BLIB_LIBNAME}-module.h)
  set(_text "// Generated by the ai-fabric build: includes every public header of the module.\n")
  foreach(_h ${BLIB_HEADER_FILES})
    get_filename_component(_name ${_h} NAME)
    configure_file(${CMAKE_CURRENT_SOURCE_DIR}/${_h} ${AI_FABRIC_INCLUDE_DIR}/ns3/${_name} COPYONLY)
    string(APPEND _text "#include \"ns3/${_name}\"\n")
  endforeach()
  file(WRITE ${_module_header}.tmp "${_text}")
  configure_file(${_module_header}.tmp ${_module_header} COPYONLY)
  target_include_directories(${_target} PUBLIC ${AI_FABRIC_INCLUDE_DIR})
  target_link_libraries(${_target} PUBLIC ${BLIB_LIBRARIES_TO_LINK})
  set(lib${BLIB_LIBNAME} ${_target} PARENT_SCOPE)
  set(${_target} ${_target} PARENT_SCOPE)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/examples/CMakeLists.txt)
    set(lib${BLIB_LIBNAME} ${_target})
    add_subdirectory(examples)
  endif()
endfunction()

# build_lib_example(NAME name SOURCE_FILES ... LIBRARIES_TO_LINK ...)
function(build_lib_example)
  cmake_parse_arguments(BLIB_EXAMPLE "" "NAME" "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK"
                        ${ARGN})
  ai_fabric_add_program(${BLIB_EXAMPLE_NAME} SOURCES ${BLIB_EXAMPLE_SOURCE_FILES}
                        LIBRARIES ${BLIB_EXAMPLE_LIBRARIES_TO_LINK})
endfunction()
