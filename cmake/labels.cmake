# ctest labels: sc_label_tests(), called at the end of each folder that
# registers tests (tests/, python/, bench/), labels every test there:
#   the area, the name's first part (engine, io, cli, gen, sim, study, docs,
#     fuzz, python, bench): `ctest -L io`;
#   tsan: the set the ThreadSanitizer step runs (scripts/test.sh);
#   quick: the tier `scripts/test.sh quick` runs, every test but those
#     named in SC_SLOW_TESTS (the long differential and fuzz-corpus runs).
set(SC_TSAN_TESTS
  engine.api engine.host engine.host.limit engine.extremes engine.pathological engine.stages
  engine.options engine.neighbors.api engine.neighbors.windows engine.between.threads
  engine.between.filter engine.between.probe engine.periodic.api engine.periodic.threads
  engine.periodic.layouts io.pieces io.runs io.lammps_runs sim.model fuzz.corpus.engine)
set(SC_SLOW_TESTS
  engine.generators engine.periodic.generators engine.peers engine.pathological
  engine.periodic.extremes engine.neighbors.windows engine.neighbors.wide engine.knobs
  python.pytest bench.smoke)
function(sc_label_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    string(REGEX REPLACE "\\..*" "" area "${t}")
    set(labels ${area})
    if(t IN_LIST SC_TSAN_TESTS)
      list(APPEND labels tsan)
    endif()
    if(NOT t IN_LIST SC_SLOW_TESTS AND NOT area STREQUAL "fuzz")
      list(APPEND labels quick)
    endif()
    set_property(TEST ${t} APPEND PROPERTY LABELS ${labels})
  endforeach()
endfunction()
