# One test per group of a C test program (tests/check.h's sc_test_main),
# and a check that the program's own table and this list name the same
# groups, so a group cannot be added, renamed or dropped on one side only.
#
#   sc_test_groups(PREFIX TARGET GROUPS g... [ARGS a...] [ENV VAR=VALUE]
#                  [APART g...])
#
# registers PREFIX.g running `TARGET g ARGS...` for each g; APART names
# groups the program has that are registered elsewhere (with other
# arguments, or only where their data is).
function(sc_test_groups prefix target)
  cmake_parse_arguments(T "" "ENV" "GROUPS;ARGS;APART" ${ARGN})
  foreach(g IN LISTS T_GROUPS)
    add_test(NAME ${prefix}.${g} COMMAND ${target} ${g} ${T_ARGS})
    if(T_ENV)
      set_tests_properties(${prefix}.${g} PROPERTIES ENVIRONMENT "${T_ENV}")
    endif()
  endforeach()
  set(all ${T_GROUPS} ${T_APART})
  string(REPLACE ";" "," all "${all}")
  add_test(NAME ${prefix}.groups
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${target}> -DGROUPS=${all}
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/check_groups.cmake)
endfunction()
