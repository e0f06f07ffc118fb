# The ball simulation (include/spherecollide_sim.h): analytic collisions,
# conservation, walls, the oracle per frame, determinism across threads and
# algorithms, bad parameters.
add_executable(test_sim test_sim.c)
target_link_libraries(test_sim PRIVATE spherecollide_sim_static m)
target_compile_options(test_sim PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
target_compile_definitions(test_sim PRIVATE _POSIX_C_SOURCE=200809L)
add_test(NAME sim.model COMMAND test_sim all)
# Threads 3 and 4 run on 2 cores in CI: let idle OpenMP threads sleep rather than spin.
set_tests_properties(sim.model PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
