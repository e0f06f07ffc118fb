#!/usr/bin/env bash
# make-sim-figures.sh: the figures of docs/simulation.md from
# bench/results/<machine>/sim-frames.csv (bench/run-sim.sh), with gnuplot
# (Debian gnuplot-nox, scripts/setup-study-deps.sh), as PNG and SVG in
# docs/figures:
#   sim-ms          ms per frame (move + search + response) of seed 002's two
#                   runs, frame by frame
#   sim-collisions  collisions and reactions per frame of the same runs
#   bash bench/make-sim-figures.sh [MACHINE]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
machine=${1:-amd-epyc-2c}
csv=$root/bench/results/$machine/sim-frames.csv
figs=$root/docs/figures
[ -s "$csv" ] || { echo "make-sim-figures.sh: no $csv (bash bench/run-sim.sh)" >&2; exit 2; }
command -v gnuplot >/dev/null 2>&1 || { echo "make-sim-figures.sh: gnuplot is not installed (Debian: gnuplot-nox)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$figs"
pngterm=png
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then pngterm=pngcairo; fi
# one data file per seed 002 run: step, ms_total, collisions, reactions
for c in seed002-8k seed002-100k; do
    awk -F, -v c="$c" 'NR > 1 && $2 == c { print $6, $10, $13, $14 }' "$csv" >"$tmp/$c.dat"
    [ -s "$tmp/$c.dat" ] || { echo "make-sim-figures.sh: no $c rows in $csv" >&2; exit 2; }
done
for term in svg "$pngterm"; do
    ext=${term%cairo}
    gnuplot <<GP
set terminal $term size 800,420
set datafile separator " "
set key top right
set grid
set xlabel "frame"
set logscale y
set output "$figs/sim-ms.$ext"
set title "ms per frame (move + search + response), seed 002's runs, $machine"
plot "$tmp/seed002-8k.dat" using 1:2 with linespoints title "8,000 balls", \
     "$tmp/seed002-100k.dat" using 1:2 with linespoints title "100,000 balls"
set output "$figs/sim-collisions.$ext"
set title "collisions and reactions per frame, seed 002's runs, $machine"
set ylabel "pairs"
plot "$tmp/seed002-8k.dat" using 1:3 with lines title "8,000: collisions", \
     "$tmp/seed002-8k.dat" using 1:4 with lines title "8,000: reactions", \
     "$tmp/seed002-100k.dat" using 1:3 with lines title "100,000: collisions", \
     "$tmp/seed002-100k.dat" using 1:4 with lines title "100,000: reactions"
GP
done
echo "make-sim-figures.sh: wrote $figs/sim-ms.{svg,png} and $figs/sim-collisions.{svg,png}"
