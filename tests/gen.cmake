# Scenario generators (tools/gen/sc_gen.c): determinism, bounds, pair counts.
add_executable(test_gen test_gen.c)
target_link_libraries(test_gen PRIVATE sc_tools)
# The brute-force oracle must evaluate the predicate without FMA.
target_compile_options(test_gen PRIVATE ${SC_COMMON_FLAGS} ${SC_WARN_FLAGS})
add_test(NAME gen.generators COMMAND test_gen all)
