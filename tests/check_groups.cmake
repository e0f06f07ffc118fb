# cmake -DPROGRAM=P -DGROUPS=a,b,c -P check_groups.cmake: fails unless
# `P --list` names exactly the groups a, b, c (tests/groups.cmake).
execute_process(COMMAND ${PROGRAM} --list OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --list: exit ${rc}")
endif()
string(STRIP "${out}" out)
string(REPLACE "\n" ";" listed "${out}")
string(REPLACE "," ";" registered "${GROUPS}")
list(SORT listed)
list(SORT registered)
if(NOT listed STREQUAL registered)
  message(FATAL_ERROR "${PROGRAM}: the program's groups are [${listed}], "
                      "CMake registers [${registered}]")
endif()
message(STATUS "${PROGRAM}: groups [${listed}]")
