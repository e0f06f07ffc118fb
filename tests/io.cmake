# I/O: unit tests of tools/sc_io (readers, writers) and of the test oracle.
# test_io links sc_io only, not the engine.
add_executable(test_io test_io.c)
target_link_libraries(test_io PRIVATE sc_io m)
target_include_directories(test_io PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cli)
target_compile_options(test_io PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_io PRIVATE _POSIX_C_SOURCE=200809L)
if(SC_HDF5_FOUND) # the hdf5 group writes its files with the library
  target_link_libraries(test_io PRIVATE PkgConfig::SC_HDF5)
  target_compile_definitions(test_io PRIVATE SC_HAVE_HDF5=1)
endif()
set(SC_IO_WORK "${CMAKE_CURRENT_BINARY_DIR}/io_work")
sc_test_groups(io test_io GROUPS numbers fastlines decimals csv runs pieces text npy raw writers
  spheres oracle seedlike lammps lammps_rows lammps_runs xyz xyz_rows xyz_runs hdf5
  ARGS ${SC_IO_WORK} APART spheres_dat)
# The seed's file sits beside the checkout on development machines and in CI;
# it is never copied into the repository. Missing, the test fails.
add_test(NAME io.spheres_dat COMMAND test_io spheres_dat ${SC_IO_WORK} ${SC_TEST_DATA_DIR})
if(NOT EXISTS "${SC_TEST_DATA_DIR}/spheres.dat")
  message(WARNING "spheres.dat not found in ${SC_TEST_DATA_DIR}: io.spheres_dat and "
                  "cli.spheres_dat will fail (-DSC_TEST_DATA_DIR=FOLDER names it)")
endif()
