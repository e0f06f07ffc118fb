#!/usr/bin/env bash
# run-sim.sh: the simulation's measurements (bench/sim_bench.c) into
# bench/results/<machine>/sim.csv (one row per case and variant) and
# sim-frames.csv (every frame), then the figures of docs/simulation.md.
#   bash bench/run-sim.sh [MACHINE] [THREADS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
machine=${1:-amd-epyc-2c}
threads=${2:-0}
build=$root/build-bench
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSC_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target sim_bench >/dev/null
out=$root/bench/results/$machine
mkdir -p "$out"
"$build/bench/sim_bench" --threads "$threads" --csv "$out/sim.csv.tmp" --frames-csv "$out/sim-frames.csv.tmp"
mv "$out/sim.csv.tmp" "$out/sim.csv"
mv "$out/sim-frames.csv.tmp" "$out/sim-frames.csv"
bash "$root/bench/make-sim-figures.sh" "$machine"
