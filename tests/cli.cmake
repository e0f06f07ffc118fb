# CLI: runs the built spherecollide binary (tests/cli/cli_tests.sh, POSIX sh)
# and checks its exit codes, messages and output files with cli_check, which
# reads results independently of the engine (sc_io and the test oracle only).
add_executable(cli_check cli/cli_check.c ${PROJECT_SOURCE_DIR}/tools/cli/options.c)
target_link_libraries(cli_check PRIVATE sc_io m)
target_include_directories(cli_check PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cli ${PROJECT_SOURCE_DIR}/tools/cli)
target_compile_options(cli_check PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(cli_check PRIVATE _POSIX_C_SOURCE=200809L)
if(SC_HDF5_FOUND) # cli_check mkh5 writes an HDF5 input
  target_link_libraries(cli_check PRIVATE PkgConfig::SC_HDF5)
  target_compile_definitions(cli_check PRIVATE SC_HAVE_HDF5=1)
endif()

if(TARGET spherecollide_cli)
  set(SC_CLI_WORK "${CMAKE_CURRENT_BINARY_DIR}/cli_work")
  set(SC_CLI_CASES usage help bad_input unwritable write_failure outputs threads sorted algorithms json
      formats gen seedlike spheres_dat special_outputs signals details simulate neighbors against box
      lammps ids options)
  foreach(case ${SC_CLI_CASES})
    add_test(NAME cli.${case}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_tests.sh ${case}
              $<TARGET_FILE:spherecollide_cli> $<TARGET_FILE:cli_check> ${SC_CLI_WORK}
              ${SC_TEST_DATA_DIR})
  endforeach()
endif()
