#!/usr/bin/env bash
# test.sh: the whole test suite; CI runs exactly this (see .ci/run).
#
#   bash scripts/test.sh          every step below
#   bash scripts/test.sh quick    deps, then build-quick/ (Release, -Werror)
#                                 and the tests labelled quick (cmake/
#                                 labels.cmake): a few minutes, for a change
#                                 in progress; CI still runs everything
#
# Steps, each in its own build folder at the top of the checkout:
#   deps     scripts/setup-deps.sh installs what is missing
#   debug    build-test/     Debug, -Werror, O(n) validation on; full ctest,
#                            the Python module's pytest suite among it
#   asan     build-asan/     RelWithDebInfo, AddressSanitizer + UBSan, -Werror;
#                            full ctest but the MPI layer on 2, 4 and 5 ranks
#                            (1, 3 and 8 stay: the MPI tests' CI time is kept
#                            under 5 minutes), leaks detected, any UB report
#                            fatal
#   release  build-release/  Release, -Werror; scripts/check-layers.py (no
#                            call or include loop among the library's files);
#                            scripts/toy-peer.sh (a peer added in three places);
#                            scripts/check-long-functions.py;
#                            installed into a temporary prefix; the Python
#                            module imported from there;
#                            examples/ built against that prefix with
#                            CMake (find_package) and with pkg-config, and run;
#                            scripts/check-symbols.sh on the installed .so
#   nohwloc  build-nohwloc/  -DSC_HWLOC=OFF, Release; ctest -L engine
#   noavx2   build-noavx2/   -DSC_ENABLE_AVX2=OFF, Release; ctest -L engine
#   tsan     build-tsan/     clang, ThreadSanitizer, libomp with its Archer
#                            tool (libgomp is not instrumented: TSan would
#                            report its barriers); the engine's API, host,
#                            extremes, pathological and stage tests, the
#                            two-set and periodic threads tests and the
#                            engine corpus, two contexts on two threads among
#                            them (engine.host); any report fails
#   mpich    build-mpich/    the MPI layer built on MPICH (mpicc.mpich), Release,
#                            -Werror; its tests on 2 and 3 ranks under
#                            mpiexec.mpich, the groups, and the MPI tool
#   fuzz     build-fuzz/     scripts/fuzz.sh ci: each libFuzzer harness for
#                            FUZZ_SECONDS (default 30; the engine twice that)
#                            under ASan + UBSan
#
# Every step runs even when an earlier one failed (except after deps), so one
# run reports everything. The last line is "N passed, N failed": the ctest
# tests of all runs plus this script's own checks (each build, the install, the
# example builds and runs, the symbol check). Exit status 0 only when nothing
# failed. Build logs are kept as <build folder>/build.log.
#
# Environment: JOBS (parallel compile jobs, default nproc), CTEST_JOBS
# (default 2), FUZZ_SECONDS (default 30).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2

jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# Debian's interpreter (python3-numpy is installed for it), as CMake picks it
python=/usr/bin/python3
[ -x "$python" ] || python=python3
ctest_jobs=${CTEST_JOBS:-2}
t_start=$SECONDS

ctest_passed=0 ctest_failed=0   # tests, over every ctest run
checks_passed=0 checks_failed=0 # this script's own checks
failures=()                     # names of what failed, for the summary
timings=()

scratch=$(mktemp -d "${TMPDIR:-/tmp}/spherecollide-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

say() { printf '\n=== %s\n' "$*"; }

check() { # check NAME COMMAND...: runs a command as one of the script's checks
  local name=$1; shift
  echo "--- $name"
  if "$@"; then
    checks_passed=$((checks_passed + 1))
    return 0
  fi
  checks_failed=$((checks_failed + 1))
  failures+=("$name")
  echo "FAILED: $name" >&2
  return 1
}

build() { # build SOURCE DIR CMAKE_ARGS...: configure and build everything in DIR
  local src=$1 dir=$2; shift 2
  mkdir -p "$dir"
  echo "cmake -S $src -B $dir $*"
  if cmake -S "$src" -B "$dir" "$@" >"$dir/build.log" 2>&1 &&
     cmake --build "$dir" -j "$jobs" >>"$dir/build.log" 2>&1; then
    grep -E 'warning:' "$dir/build.log" | sort -u | head -20 || true
    return 0
  fi
  echo "--- last lines of $dir/build.log:" >&2
  tail -n 60 "$dir/build.log" >&2
  return 1
}

run_ctest() { # run_ctest DIR [CTEST_ARGS...]: runs ctest and adds its totals
  local dir=$1; shift
  local log="$dir/ctest.log" rc line total nfail
  (cd "$dir" && ctest --output-on-failure -j "$ctest_jobs" "$@") 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  # "100% tests passed, 0 tests failed out of 37"
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    # No tests ran (none registered, or none matched): that is a failure too.
    ctest_failed=$((ctest_failed + 1))
    failures+=("ctest in $dir: no test ran")
    return 1
  fi
  total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
  nfail=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
  ctest_passed=$((ctest_passed + total - nfail))
  ctest_failed=$((ctest_failed + nfail))
  if [ "$nfail" -ne 0 ] || [ "$rc" -ne 0 ]; then
    failures+=("ctest in $dir: $nfail of $total failed")
    return 1
  fi
  return 0
}

timed() { # timed LABEL FUNCTION...: runs a step and records its wall time
  local label=$1 t0=$SECONDS rc=0; shift
  say "$label"
  "$@" || rc=$?
  timings+=("$(printf '%-8s %4d s  %s' "$label" $((SECONDS - t0)) "$([ $rc -eq 0 ] && echo ok || echo FAILED)")")
  return $rc
}

# ---- the steps --------------------------------------------------------------
step_deps() {
  check "setup-deps" bash scripts/setup-deps.sh
}

# every C file as .clang-format lays it out (a formatting-only commit goes in
# .git-blame-ignore-revs)
formatted() {
  git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror
}

step_debug() {
  check "build build-test (Debug, -Werror)" \
    build . build-test -DCMAKE_BUILD_TYPE=Debug -DSC_WARNINGS_AS_ERRORS=ON -DSC_PYTHON=ON &&
  run_ctest build-test
}

step_asan() {
  check "build build-asan (ASan+UBSan, -Werror)" \
    build . build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSC_SANITIZE=ON \
      -DSC_WARNINGS_AS_ERRORS=ON -DSC_BUILD_BENCH=OFF || return 1
  local lsan=""
  if [ -f scripts/lsan.supp ]; then
    lsan="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
  fi
  ASAN_OPTIONS=detect_leaks=1 \
  LSAN_OPTIONS=$lsan \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_ctest build-asan -E '^mpi\.ranks[245]$'
}

# The MPI layer on MPICH, beside the OpenMPI of every other step: the
# layer's collectives are MPI's own, and the two implementations differ
# (MPICH 4.0.2 got MIN on unsigned types wrong: src/mpi/mpi.c, min_u64x2).
# mpi4py is Debian's OpenMPI build, so the Python module stays out.
step_mpich() {
  check "build build-mpich (MPICH, Release, -Werror)" \
    build . build-mpich -DCMAKE_BUILD_TYPE=Release -DSC_WARNINGS_AS_ERRORS=ON -DSC_MPI=ON \
      -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
      -DSC_PYTHON=OFF -DSC_BUILD_BENCH=OFF &&
  run_ctest build-mpich -L mpi -R '^mpi\.(ranks2|ranks3|groups|tool)$'
}

install_into() { # install_into PREFIX: cmake --install build-release, quietly
  if cmake --install build-release --prefix "$1" >"$scratch/install.log" 2>&1; then
    echo "installed into $1: $(grep -c 'Installing:' "$scratch/install.log") files"
    return 0
  fi
  cat "$scratch/install.log" >&2
  return 1
}

# installed_hdf5 PREFIX: the installed tool is not linked with libhdf5, and
# finds its HDF5 module when asked to read HDF5 (it then refuses a file that
# is not HDF5 as such), or says the build has none
installed_hdf5() {
  local tool="$1/bin/spherecollide" module out
  module=$(find "$1" -name spherecollide-hdf5.so -print -quit)
  if ldd "$tool" | grep -q hdf5; then
    echo "$tool is linked with libhdf5" >&2
    return 1
  fi
  printf 'not hdf5\n' > "$scratch/x.h5"
  out=$("$tool" pairs "$scratch/x.h5" --dataset /d 2>&1)
  case $out in
  *"cannot open as an HDF5 file"*) [ -n "$module" ] && return 0 ;;
  *libhdf5-dev*) [ -z "$module" ] && return 0 ;;
  esac
  echo "$out (module: ${module:-none})" >&2
  return 1
}

# pip_install VENV: `pip install .` as docs/python.md gives it, into a new
# virtual environment that sees Debian's NumPy, offline; then the same smoke
# test as the CMake install
pip_install() {
  rm -rf "$1"
  "$python" -m venv --system-site-packages "$1" &&
  "$1/bin/pip" install --quiet --no-build-isolation --no-index . >"$scratch/pip.log" 2>&1 ||
    { cat "$scratch/pip.log" >&2; return 1; }
  PYTHONDONTWRITEBYTECODE=1 "$1/bin/python" python/tests/smoke_installed.py "$1"
}

step_release() {
  local prefix="$scratch/prefix" ex=build-release/example
  check "build build-release (Release, -Werror)" \
    build . build-release -DCMAKE_BUILD_TYPE=Release -DSC_WARNINGS_AS_ERRORS=ON \
      -DSC_BUILD_TESTS=OFF -DSC_PYTHON=ON || return 1
  check "no call or include loop among the library's files (check-layers.py)" \
    "$python" scripts/check-layers.py build-release/CMakeFiles/spherecollide_objects.dir
  check "functions over 150 lines say why (check-long-functions.py)" \
    "$python" scripts/check-long-functions.py
  check "a toy peer is its file, a registry line and a CMake line (toy-peer.sh)" \
    bash scripts/toy-peer.sh "$scratch/toy"
  check "install into a temporary prefix" install_into "$prefix" || return 1
  check "installed tool loads its HDF5 module only to read HDF5" installed_hdf5 "$prefix"
  check "Python module imported from the prefix" \
    env PYTHONPATH="$prefix/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 \
      "$python" python/tests/smoke_installed.py "$prefix"
  check "pip install . (a venv, offline, no build isolation)" pip_install "$scratch/venv"
  rm -rf "$ex"
  check "examples/ with find_package(spherecollide)" \
    build examples "$ex" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release &&
  check "run example (shared)" "$ex/example" &&
  check "run example_static" "$ex/example_static"
  check "run sim_example (libspherecollide_sim)" "$ex/sim_example"
  check "examples/ with pkg-config, shared and static" \
    bash examples/build-with-pkg-config.sh "$prefix" build-release/example-pkgconfig
  local so sim
  so=$(find "$prefix" -name 'libspherecollide.so' -print -quit)
  sim=$(find "$prefix" -name 'libspherecollide_sim.so' -print -quit)
  check "exported symbols (check-symbols.sh)" \
    bash scripts/check-symbols.sh "${so:-$prefix/lib/libspherecollide.so}" "$prefix/include/spherecollide.h"
  check "the simulation's exported symbols (check-symbols.sh)" \
    bash scripts/check-symbols.sh "${sim:-$prefix/lib/libspherecollide_sim.so}" \
      "$prefix/include/spherecollide_sim.h"
  local mpi
  mpi=$(find "$prefix" -name 'libspherecollide_mpi.so' -print -quit)
  check "libspherecollide_mpi installed (setup-deps installs OpenMPI)" test -n "$mpi" || return 1
  check "the MPI layer's exported symbols (check-symbols.sh)" \
    bash scripts/check-symbols.sh "$mpi" "$prefix/include/spherecollide_mpi.h"
  check "examples/mpi_example.c with mpicc and pkg-config, on 3 ranks" \
    mpi_example "$prefix" build-release/example-mpi
}

# mpi_example PREFIX OUTDIR: the MPI example as its comment builds it
mpi_example() {
  local pcdir
  pcdir=$(dirname "$(find "$1" -name spherecollide_mpi.pc -print -quit)")
  mkdir -p "$2" &&
  PKG_CONFIG_PATH=$pcdir mpicc -o "$2/mpi_example" examples/mpi_example.c \
    $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs spherecollide_mpi) \
    -Wl,-rpath,"$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir spherecollide_mpi)" &&
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    timeout 120 mpiexec -n 3 "$2/mpi_example"
}

step_option() { # step_option DIR OPTION
  local dir=$1 opt=$2
  check "build $dir ($opt)" \
    build . "$dir" -DCMAKE_BUILD_TYPE=Release -DSC_WARNINGS_AS_ERRORS=ON "$opt" \
      -DSC_BUILD_BENCH=OFF &&
  run_ctest "$dir" -L engine
}

step_quick() {
  check "build build-quick (Release, -Werror)" \
    build . build-quick -DCMAKE_BUILD_TYPE=Release -DSC_WARNINGS_AS_ERRORS=ON -DSC_PYTHON=ON &&
  run_ctest build-quick -L quick
}

step_tsan() {
  local archer=/usr/lib/llvm-14/lib/libarcher.so
  # CC and CXX for this configure only (assignments before a function call)
  CC=clang CXX=clang++ check "build build-tsan (clang, ThreadSanitizer)" \
    build . build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSC_TSAN=ON \
      -DSC_WARNINGS_AS_ERRORS=ON -DSC_BUILD_BENCH=OFF -DSC_BUILD_TOOLS=OFF || return 1
  check "libarcher (TSan's view of OpenMP) present" test -f "$archer" || return 1
  OMP_TOOL_LIBRARIES=$archer \
  TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1" \
    run_ctest build-tsan -L tsan
}

step_fuzz() {
  check "libFuzzer harnesses (scripts/fuzz.sh ci ${FUZZ_SECONDS:-30})" \
    bash scripts/fuzz.sh ci "${FUZZ_SECONDS:-30}"
}

say "spherecollide test suite: $(git rev-parse --short HEAD 2>/dev/null || echo 'no git'), $jobs build jobs, ctest -j $ctest_jobs"
timed deps step_deps || {
  echo "0 passed, 1 failed"
  exit 1
}
check "C files formatted (clang-format --dry-run)" formatted
if [ "${1:-}" = quick ]; then
  timed quick step_quick
else
timed debug step_debug
timed asan step_asan
timed release step_release
timed nohwloc step_option build-nohwloc -DSC_HWLOC=OFF
timed noavx2 step_option build-noavx2 -DSC_ENABLE_AVX2=OFF
timed tsan step_tsan
timed mpich step_mpich
timed fuzz step_fuzz
fi

say "summary ($((SECONDS - t_start)) s)"
printf '  %s\n' "${timings[@]}"
echo "ctest: $ctest_passed passed, $ctest_failed failed; script checks: $checks_passed passed, $checks_failed failed"
if [ "${#failures[@]}" -gt 0 ]; then
  echo "failed:"
  printf '  %s\n' "${failures[@]}"
fi
echo "$((ctest_passed + checks_passed)) passed, $((ctest_failed + checks_failed)) failed"
[ $((ctest_failed + checks_failed)) -eq 0 ]
