# Docs: the examples in README.md and docs/ run and print what they show
# (tests/docs/check_docs.py: console blocks, JSON keys, links), wherever
# the command-line tool is built.
if(TARGET spherecollide_cli)
  find_program(SC_DOCS_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(NOT SC_DOCS_PYTHON)
    find_program(SC_DOCS_PYTHON NAMES python3 REQUIRED)
  endif()
  add_test(NAME docs.examples
           COMMAND ${SC_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_docs.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs.examples PROPERTIES
    ENVIRONMENT "SC_CLI=$<TARGET_FILE:spherecollide_cli>;OMP_WAIT_POLICY=PASSIVE" TIMEOUT 600)
endif()
