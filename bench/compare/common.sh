# common.sh: what run-compare.sh and run-oneshot.sh share, sourced by both
# (they set root, here and jobs first).
#
#   compare_build_sc NAME       Release build of the library and CLI in
#                               build-compare-sc, installed into its prefix/;
#                               sets scb, cb and cli
#   compare_configure_runners   configures bench/compare in build-compare
#                               against that prefix (SC_COMPARE_CMAKE_ARGS added)
#   compare_machine             sets cpu, machine (SC_COMPARE_MACHINE, or the
#                               CPU model and the core count, as sc_bench names
#                               it) and isa (the kernel the CLI picks)

compare_build_sc() {
  scb=$root/build-compare-sc
  cb=$root/build-compare
  echo "== spherecollide: Release build in $scb (library + CLI), installed into $scb/prefix"
  cmake -S "$root" -B "$scb" -DCMAKE_BUILD_TYPE=Release -DSC_BUILD_TESTS=OFF -DSC_BUILD_BENCH=OFF >/dev/null
  cmake --build "$scb" -j "$jobs" >/dev/null
  cmake --install "$scb" --prefix "$scb/prefix" >/dev/null
  cli=$scb/tools/spherecollide
  [ -x "$cli" ] || { echo "$1: $cli was not built" >&2; exit 1; }
}

compare_configure_runners() {
  echo "== runners: standalone CMake project bench/compare in $cb"
  # shellcheck disable=SC2086  # SC_COMPARE_CMAKE_ARGS is a list of options
  # (-U: a CMAKE_DISABLE_FIND_PACKAGE_* left in the cache by an earlier run's
  # SC_COMPARE_CMAKE_ARGS does not stick.)
  cmake -S "$here" -B "$cb" -U 'CMAKE_DISABLE_FIND_PACKAGE_*' -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$scb/prefix" ${SC_COMPARE_CMAKE_ARGS:-} >/dev/null
}

compare_machine() {
  cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
  cpu=${cpu:-unknown}
  if [ -n "${SC_COMPARE_MACHINE:-}" ]; then
    machine=$SC_COMPARE_MACHINE
  else
    local base
    base=$(printf '%s' "$cpu" | LC_ALL=C tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')
    machine="${base:-unknown}-${jobs}c"
  fi
  isa=$("$cli" info 2>/dev/null | sed -n 's/^kernel: *//p' | head -n 1)
  isa=${isa:-unknown}
}
