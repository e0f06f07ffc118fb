# The distributed layer (include/spherecollide_mpi.h) against one process's
# answer, under mpiexec with 1, 2, 3, 4, 5 and 8 ranks (oversubscribed on
# a 2-core machine; one search thread a rank). Only where MPI was found
# (cmake/mpi.cmake).
if(NOT TARGET spherecollide_mpi)
  return()
endif()
add_executable(test_mpi test_mpi.c)
target_link_libraries(test_mpi PRIVATE spherecollide_mpi sc_gen m)
target_compile_options(test_mpi PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_mpi PRIVATE _POSIX_C_SOURCE=200809L)
# OpenMPI refuses root unless told (CI runs as root), and needs leave to
# start more ranks than cores; idle ranks yield their core. LeakSanitizer
# is off here (the ASan step): OpenMPI leaves allocations of components it
# loaded and unloaded, which no suppression by name reaches; the faults
# group checks the library's own frees with a counting allocator instead.
set(SC_MPI_TEST_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_WAIT_POLICY=PASSIVE
    ASAN_OPTIONS=detect_leaks=0)
foreach(np 1 2 3 4 5 8)
  add_test(NAME mpi.ranks${np}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
            $<TARGET_FILE:test_mpi> all ${MPIEXEC_POSTFLAGS})
  # RUN_SERIAL: 8 oversubscribed ranks beside another test took 155 s in
  # CI's debug step (30 s alone), close to the timeout
  set_tests_properties(mpi.ranks${np} PROPERTIES ENVIRONMENT "${SC_MPI_TEST_ENV}" TIMEOUT 240
                       PROCESSORS 2 RUN_SERIAL TRUE)
endforeach()
add_test(NAME mpi.groups
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:test_mpi>
          -DGROUPS=generators,ids,giants,small,between,periodic,faults,split,neighbors,hint
          -P ${CMAKE_CURRENT_SOURCE_DIR}/check_groups.cmake)

# spherecollide-mpi against the serial tool on the same files (tests/mpi/tool.sh)
if(TARGET spherecollide_mpi_cli AND TARGET spherecollide_cli)
  find_program(SC_MPI_TOOL_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  add_test(NAME mpi.tool
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/tool.sh $<TARGET_FILE:spherecollide_cli>
            $<TARGET_FILE:spherecollide_mpi_cli> ${MPIEXEC_EXECUTABLE} ${SC_MPI_TOOL_PYTHON}
            $<$<TARGET_EXISTS:cli_check>:$<TARGET_FILE:cli_check>>)
  set_tests_properties(mpi.tool PROPERTIES ENVIRONMENT "${SC_MPI_TEST_ENV}" TIMEOUT 240
                       PROCESSORS 2 RUN_SERIAL TRUE)
endif()
