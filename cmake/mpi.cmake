# mpi.cmake: libspherecollide_mpi (include/spherecollide_mpi.h), the pair
# search over MPI ranks, built on the public API only; the core library
# keeps no MPI dependency. SC_MPI: AUTO builds it when MPI's C bindings are
# found (OpenMPI from Debian: openmpi-bin, libopenmpi-dev; scripts/setup-deps.sh
# installs them), ON requires them, OFF never builds it.
set(SC_MPI AUTO CACHE STRING "Build libspherecollide_mpi: AUTO, ON or OFF")
set_property(CACHE SC_MPI PROPERTY STRINGS AUTO ON OFF)
set(SC_MPI_BUILT OFF)
if(NOT SC_MPI STREQUAL "OFF")
  if(SC_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS C)
  else()
    find_package(MPI QUIET COMPONENTS C)
  endif()
  if(MPI_C_FOUND)
    set(SC_MPI_BUILT ON)
  else()
    message(STATUS "libspherecollide_mpi: not built (no MPI found; install libopenmpi-dev)")
  endif()
endif()
if(NOT SC_MPI_BUILT)
  return()
endif()

add_library(spherecollide_mpi SHARED src/mpi/mpi.c src/mpi/layout.c src/mpi/ghosts.c
            src/mpi/neighbors.c src/mpi/wait.c)
target_include_directories(spherecollide_mpi PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(spherecollide_mpi PUBLIC spherecollide MPI::MPI_C)
target_compile_options(spherecollide_mpi PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(spherecollide_mpi PRIVATE SC_BUILDING_LIBRARY _POSIX_C_SOURCE=200809L)
set_target_properties(spherecollide_mpi PROPERTIES VERSION ${SC_LIBRARY_VERSION} SOVERSION ${SC_SOVERSION}
  EXPORT_NAME spherecollide_mpi INSTALL_RPATH "$ORIGIN")
add_library(spherecollide::spherecollide_mpi ALIAS spherecollide_mpi)
sc_symbol_versions(spherecollide_mpi "${PROJECT_SOURCE_DIR}/src/mpi/spherecollide_mpi.map")
