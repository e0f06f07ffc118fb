#!/usr/bin/env bash
# fuzz.sh: the libFuzzer harnesses of tests/fuzz (clang from Debian).
#
#   bash scripts/fuzz.sh ci [SECONDS]   every harness for SECONDS (default 30;
#                                       the engine twice as long) in build-fuzz/
#                                       (ASan + UBSan); CI runs this
#   bash scripts/fuzz.sh campaign [OUT] the long campaign: each reader 10^7
#                                       executions (ASan + UBSan), the engine
#                                       10^6 in a build without sanitizers
#                                       (build-fuzz-fast/) and 10 minutes with
#                                       them, the pair writers 10 minutes;
#                                       writes OUT (default
#                                       bench/results/<machine>/fuzz-campaign.csv)
#
# Each run starts from the committed corpus (tests/fuzz/corpus/NAME) and works
# in a scratch copy, so the committed corpus changes only by hand: copy an
# input worth keeping (a fixed crash, new coverage) into it. A finding stops
# the run, saves the input as build-fuzz/findings/NAME-*, and fails the script.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
mode=${1:-ci}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
archer=/usr/lib/llvm-14/lib/libarcher.so

command -v clang >/dev/null || { echo "fuzz.sh: clang is missing (scripts/setup-deps.sh installs it)" >&2; exit 2; }

build() { # build DIR CMAKE_ARGS...
  local dir=$1; shift
  mkdir -p "$dir"
  CC=clang CXX=clang++ cmake -S . -B "$dir" -DSC_FUZZ=ON -DSC_BUILD_BENCH=OFF -DSC_BUILD_TOOLS=OFF "$@" \
    >"$dir/build.log" 2>&1 &&
  cmake --build "$dir" -j "$jobs" --target fuzz_engine fuzz_text fuzz_npy fuzz_raw fuzz_pairs fuzz_particles \
    >>"$dir/build.log" 2>&1 || { tail -n 40 "$dir/build.log" >&2; return 1; }
}

mkdir -p build-fuzz/findings
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Threads 3 on 2 cores: idle OpenMP threads sleep rather than spin.
export OMP_WAIT_POLICY=PASSIVE

# run HARNESS BUILD LIMIT...: one libFuzzer run; prints "NAME EXECS SECONDS"
run() {
  local h=$1 dir=$2; shift 2
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/sc-fuzz-$h.XXXXXX")
  cp tests/fuzz/corpus/"$h"/* "$work"/ 2>/dev/null
  local t0=$SECONDS log="build-fuzz/fuzz-$h.log"
  "$dir/tests/fuzz_$h" "$work" -artifact_prefix="build-fuzz/findings/$h-" -print_final_stats=1 \
    -max_len=4096 "$@" >"$log" 2>&1
  local rc=$?
  rm -rf "$work"
  local execs
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  echo "$h ${execs:-0} $((SECONDS - t0)) $rc"
  if [ $rc -ne 0 ]; then
    echo "--- fuzz_$h found something (input in build-fuzz/findings/):" >&2
    grep -E 'ERROR|SUMMARY|fuzz_|runtime error|abort' "$log" | head -n 20 >&2
  fi
  return $rc
}

case "$mode" in
ci)
  secs=${2:-30}
  build build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSC_SANITIZE=ON || exit 1
  failed=0
  echo "harness executions seconds exit"
  for h in text npy raw pairs particles; do
    run "$h" build-fuzz -max_total_time="$secs" || failed=1
  done
  run engine build-fuzz -max_total_time=$((2 * secs)) || failed=1
  exit $failed
  ;;
campaign)
  machine=${SC_MACHINE:-}
  if [ -z "$machine" ] && [ -x build/bench/sc_bench ]; then
    machine=$(build/bench/sc_bench --print-machine-tag 2>/dev/null)
  fi
  machine=${machine:-unknown-$(nproc)c}
  out=${2:-bench/results/$machine/fuzz-campaign.csv}
  build build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSC_SANITIZE=ON || exit 1
  build build-fuzz-fast -DCMAKE_BUILD_TYPE=Release || exit 1
  mkdir -p "$(dirname "$out")"
  tmp=$(mktemp)
  echo "harness,build,executions,seconds,exit,date,commit" >"$tmp"
  failed=0
  stamp=$(date -u +%Y-%m-%dT%H:%MZ)
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  record() { # record BUILD-LABEL "NAME EXECS SECONDS RC"
    set -- "$1" $2
    echo "$2,$1,$3,$4,$5,$stamp,$commit" >>"$tmp"
    echo "  $2 ($1): $3 executions in $4 s, exit $5"
  }
  for h in text npy raw particles; do
    line=$(run "$h" build-fuzz -runs=10000000) || failed=1
    record asan+ubsan "$line"
  done
  line=$(run pairs build-fuzz -max_total_time=600) || failed=1
  record asan+ubsan "$line"
  line=$(run engine build-fuzz-fast -runs=1000000) || failed=1
  record release "$line"
  line=$(run engine build-fuzz -max_total_time=600) || failed=1
  record asan+ubsan "$line"
  mv "$tmp" "$out"
  echo "wrote $out"
  exit $failed
  ;;
*)
  echo "usage: fuzz.sh ci [SECONDS] | campaign [OUT]" >&2
  exit 2
  ;;
esac
