# Fuzz harnesses (tests/fuzz). With SC_FUZZ=ON (clang), each is a libFuzzer
# target fuzz_NAME, run by scripts/fuzz.sh. In every other build each
# harness links tests/fuzz/driver.c instead and replays its committed corpus
# (tests/fuzz/corpus/NAME) as the ctest fuzz.corpus.NAME: every input any
# campaign kept, checked again by gcc, ASan/UBSan and the Release build.
set(SC_FUZZ_HARNESSES engine text npy raw pairs particles)
foreach(h ${SC_FUZZ_HARNESSES})
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_${h}.c)
  if(SC_FUZZ)
    add_executable(fuzz_${h} ${src})
    target_link_options(fuzz_${h} PRIVATE -fsanitize=fuzzer)
    target_compile_options(fuzz_${h} PRIVATE -fsanitize=fuzzer)
  else()
    add_executable(fuzz_${h} ${src} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/driver.c)
    add_test(NAME fuzz.corpus.${h}
      COMMAND fuzz_${h} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${h})
    set_tests_properties(fuzz.corpus.${h} PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
  endif()
  target_compile_options(fuzz_${h} PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
  target_compile_definitions(fuzz_${h} PRIVATE _POSIX_C_SOURCE=200809L)
  if(h STREQUAL "engine")
    target_link_libraries(fuzz_${h} PRIVATE spherecollide_study m) # the Morton rows config
  elseif(h STREQUAL "pairs")
    target_link_libraries(fuzz_${h} PRIVATE sc_io)
    target_compile_definitions(fuzz_${h} PRIVATE _GNU_SOURCE) # memmem
  elseif(h STREQUAL "particles")
    target_link_libraries(fuzz_${h} PRIVATE sc_io m)
    target_include_directories(fuzz_${h} PRIVATE ${PROJECT_SOURCE_DIR}/tools/io)
    target_compile_definitions(fuzz_${h} PRIVATE _GNU_SOURCE) # memmem
  else()
    target_link_libraries(fuzz_${h} PRIVATE sc_io m)
    target_include_directories(fuzz_${h} PRIVATE ${PROJECT_SOURCE_DIR}/tools/io)
  endif()
endforeach()
