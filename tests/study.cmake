# The performance study's own computations (bench/study/): median, CSV
# writer, byte-floor model, counter fallback, input orders. Values only,
# never times. Built from the study's sources without PAPI, so it runs the
# same with or without libpapi-dev and without the bench (SC_BUILD_BENCH).
set(SC_STUDY_DIR ${PROJECT_SOURCE_DIR}/bench/study)
add_executable(test_study test_study.c
  ${SC_STUDY_DIR}/study_csv.c ${SC_STUDY_DIR}/study_floor.c
  ${SC_STUDY_DIR}/study_counters.c ${SC_STUDY_DIR}/study_util.c)
target_include_directories(test_study PRIVATE ${SC_STUDY_DIR})
target_link_libraries(test_study PRIVATE m)
target_compile_options(test_study PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_study PRIVATE _POSIX_C_SOURCE=200809L)
sc_test_groups(study test_study GROUPS median csv floor counters perm)
