#!/bin/sh
# run-bench.sh: builds sc_bench in Release and runs the standard sweep, writing
# CSVs under bench/results/<machine-tag>/, then regenerates docs/performance.md.
#
#   bench/run-bench.sh            the full sweep (about 10-15 minutes on 2 cores)
#   bench/run-bench.sh --quick    a smoke test: small sizes, files named quick-*.csv,
#                                 docs/performance.md left alone
#
# Environment: SC_BENCH_BUILD (build folder, default build-bench),
# SC_BENCH_ARGS (extra sc_bench options for every scenario, e.g. --machine-tag X),
# SC_BENCH_WAIT_IDLE (seconds each configuration may wait for other work on
# the machine to drop under 10% of the CPUs; default 15, --quick 0 = never wait),
# SC_BENCH_RETRY_BUSY (reruns of a configuration during which other work used
# more than 10% of the CPUs, the quietest run kept; default 2, --quick 0).
# Scenarios (each one sc_bench run, one CSV plus a -compare.csv of ratios):
#   sweep      every generator, n = 1e4..1e7 (dense 1e4, 2e4; farclusters <= 1e6),
#              1 and all threads, 5 repeats, count + checksum
#   baseline   the plain hash grid against the engine, same run, n = 1e5 and 1e6
#   threads    uniform 4e6, 1 and 2 threads, 3 interleaved rounds of 3 repeats
#   kernels    scalar vs avx2 on uniform 1e6 and dense 2e4 (candidate tests/s),
#              3 interleaved rounds of 3 repeats
# (--rounds: each configuration runs once per round, in turn, and the row is
# the median of the rounds' medians, so the host's slow phases fall on both
# sides of a ratio instead of on whichever configuration ran during them.)
#   stream     pairs streamed to a discarding callback: uniform 1e6, dense 2e4
#   dense-npy  dense 2e4: all 2e8 pairs written to a .npy file, peak memory
# and, where it builds, bench/kernel_bench (the narrowphase kernels alone, scalar and avx2 in 3 interleaved rounds,
# candidate tests per second) into kernel-alone.csv.
# sc_bench exits non-zero if any two algorithms disagree on a count or checksum;
# this script then stops with that status.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${SC_BENCH_BUILD:-$root/build-bench}
extra=${SC_BENCH_ARGS:-}
quick=0
wait=${SC_BENCH_WAIT_IDLE:-15}
retry=${SC_BENCH_RETRY_BUSY:-2}
if [ "${1:-}" = "--quick" ]; then
    quick=1
    wait=${SC_BENCH_WAIT_IDLE:-0}
    retry=${SC_BENCH_RETRY_BUSY:-0}
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target sc_bench
bench="$build/bench/sc_bench"
# shellcheck disable=SC2086  # $extra is a list of options
tag=$("$bench" --print-machine-tag $extra)
# A full run records the results the docs are built from; --quick writes to
# the scratch folder bench/results/tmp/ (ignored by git).
results="$root/bench/results/$tag"
record=--record
if [ "$quick" = 1 ]; then
    results="$root/bench/results/tmp/$tag"
    record=
fi
mkdir -p "$results"

run() {
    name=$1
    shift
    if [ "$quick" = 1 ]; then
        name="quick-$name"
    fi
    echo
    echo "=== scenario $name: sc_bench $* $extra"
    # shellcheck disable=SC2086  # $extra is a list of options
    # shellcheck disable=SC2086  # $record is empty or one option
    "$bench" $record --scenario "$name" --label "$rev" --wait-idle "$wait" --retry-busy "$retry" "$@" $extra
}

# The source revision measured, "-dirty" when the engine differs from it.
rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git -C "$root" diff --quiet HEAD -- src kernels include CMakeLists.txt 2>/dev/null; then
    rev="$rev-dirty"
fi

start=$(date +%s)
if [ "$quick" = 1 ]; then
    run sweep --quick
    run baseline --n 1e4 --dist uniform,shell,wide,clustered,farclusters,powerlaw \
        --baseline --repeat 3
    run threads --dist uniform --n 1e5 --threads 1,2 --repeat 3 --rounds 2
    run kernels --dist uniform,dense --n 1e5,2e3 --kernel scalar,avx2 --threads 1,all --repeat 3 --rounds 2
    run stream --dist uniform,dense --n 1e5,2e3 --mode stream --threads all --repeat 3
    run dense-npy --dist dense --n 2e3 --mode npy --threads all --repeat 3
else
    run sweep
    run baseline --n 1e5,1e6 --dist uniform,shell,wide,clustered,farclusters,powerlaw \
        --threads 1,all --baseline --repeat 5 --baseline-repeat 3
    run threads --dist uniform --n 4e6 --threads 1,2 --repeat 3 --rounds 3
    run kernels --dist uniform,dense --n 1e6,2e4 --kernel scalar,avx2 --threads 1,all --repeat 3 --rounds 3
    run stream --dist uniform,dense --n 1e6,2e4 --mode stream --threads all --repeat 5
    run dense-npy --dist dense --n 2e4 --mode npy --threads all --repeat 3
fi
# The kernels alone, without the search around them (the lead's kernel_bench).
if cmake --build "$build" --target kernel_bench >/dev/null 2>&1 && [ -x "$build/bench/kernel_bench" ]; then
    kcsv="$results/kernel-alone.csv"
    [ "$quick" = 1 ] && kcsv="$results/quick-kernel-alone.csv"
    echo
    echo "=== kernel_bench --csv $kcsv"
    "$build/bench/kernel_bench" --csv "$kcsv"
fi
echo
echo "run-bench.sh: all scenarios done in $(( $(date +%s) - start )) s"

if [ "$quick" = 0 ]; then
    "$root/bench/make-performance-md.sh"
fi
