# Engine: stage unit tests and differential tests against a brute-force oracle.
add_executable(test_engine test_engine.c)
target_link_libraries(test_engine PRIVATE sc_tools m)
target_compile_options(test_engine PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_engine PRIVATE _POSIX_C_SOURCE=200809L)
sc_test_groups(engine test_engine GROUPS api pathological extremes generators peers options order
  abi)

# The same tests on the study's build, for its switches (group knobs) and
# the study-only API (group api: the switches' argument checks, the plan
# replay the study's byte floor is counted from).
add_executable(test_engine_study test_engine.c)
target_link_libraries(test_engine_study PRIVATE sc_gen spherecollide_study m)
target_compile_options(test_engine_study PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_engine_study PRIVATE _POSIX_C_SOURCE=200809L)
add_test(NAME engine.knobs COMMAND test_engine_study knobs)
add_test(NAME engine.study.api COMMAND test_engine_study api)

add_executable(test_stages test_stages.c)
target_link_libraries(test_stages PRIVATE spherecollide_static m)
target_include_directories(test_stages PRIVATE ${SC_PRIVATE_INCLUDES})
target_compile_options(test_stages PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_stages PRIVATE _POSIX_C_SOURCE=200809L
  $<$<BOOL:${SC_ENABLE_AVX2}>:SC_HAVE_AVX2_KERNEL=1>)
add_test(NAME engine.stages COMMAND test_stages all)
# Threads 3 and 4 run on 2 cores in CI: let idle OpenMP threads sleep rather than spin.
set_tests_properties(engine.api engine.abi engine.pathological engine.extremes engine.generators engine.peers engine.options engine.order engine.knobs engine.study.api engine.stages
  PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")

# The host program as the library found it: thread masks, OpenMP state,
# concurrent contexts, and the API's contracts at the edges.
find_package(Threads REQUIRED)
add_executable(test_host test_host.c)
target_link_libraries(test_host PRIVATE sc_tools Threads::Threads m)
if(SC_OPENMP AND OpenMP_C_FOUND)
  target_link_libraries(test_host PRIVATE OpenMP::OpenMP_C)
endif()
target_compile_options(test_host PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
add_test(NAME engine.host COMMAND test_host all)
set_tests_properties(engine.host PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
# A binding that cannot be applied to every thread is undone and reported as none.
add_test(NAME engine.host.limit COMMAND test_host all)
set_tests_properties(engine.host.limit PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE;OMP_THREAD_LIMIT=1")

# The team on a shared machine: a competing process leaves a default query
# fewer threads; a query on one thread starts none (each group a process).
add_executable(test_load test_load.c)
target_link_libraries(test_load PRIVATE sc_tools m)
target_compile_options(test_load PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
sc_test_groups(engine.load test_load GROUPS busy one_thread)

# Neighbour lists (CSR) against their own brute-force oracle.
add_executable(test_neighbors test_neighbors.c)
target_link_libraries(test_neighbors PRIVATE sc_tools m)
target_compile_options(test_neighbors PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_neighbors PRIVATE _POSIX_C_SOURCE=200809L)
sc_test_groups(engine.neighbors test_neighbors GROUPS generators threads extremes api windows
  ENV "OMP_WAIT_POLICY=PASSIVE")
# the same tests on the study library: 64-bit grouped words forced
add_executable(test_neighbors_study test_neighbors.c)
target_link_libraries(test_neighbors_study PRIVATE sc_gen spherecollide_study m)
target_compile_options(test_neighbors_study PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_neighbors_study PRIVATE _POSIX_C_SOURCE=200809L)
add_test(NAME engine.neighbors.wide COMMAND test_neighbors_study wide)
set_tests_properties(engine.neighbors.wide PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")

# Two-set queries against a double loop over A x B.
add_executable(test_between test_between.c)
target_link_libraries(test_between PRIVATE sc_tools m)
target_compile_options(test_between PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_between PRIVATE _POSIX_C_SOURCE=200809L)
sc_test_groups(engine.between test_between GROUPS generators threads extremes api filter probe
  ENV "OMP_WAIT_POLICY=PASSIVE")

# Periodic boxes against the box's documented expression and a brute force
# over each pair's 27 images.
add_executable(test_periodic test_periodic.c)
target_link_libraries(test_periodic PRIVATE sc_tools m)
target_compile_options(test_periodic PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_periodic PRIVATE _POSIX_C_SOURCE=200809L)
sc_test_groups(engine.periodic test_periodic GROUPS generators small extremes threads api lists
  layouts one_side ENV "OMP_WAIT_POLICY=PASSIVE")
