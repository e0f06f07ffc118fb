#!/usr/bin/env bash
# run-seeds.sh: the seeds' own set-ups, timed beside each other on one
# thread (spherecollide pairs --repeat R --json: the median of R warm runs):
#   seed 000: its data file (../shared/data/spheres.dat, 100,000 spheres) with
#             brute force and the 1-D partition (both segment widths), and
#             the grid;
#   seed 003: 10,000 circles of diameter 4 on a 6-pixel lattice in a
#             600 x 600 room (the first frame of its simulation) with brute
#             force and the median split (median and mean), and the grid.
# and issue 14's sweep-and-prune set-up (the box-pruning benchmarks' shape):
#   sap-box:  10,000 spheres, centres uniform in a 4096^3 cube, radii uniform
#             in [0, 127], with sap, the grid and brute force.
#   bash bench/run-seeds.sh [OUT.csv] [REPEAT]
# OUT defaults to bench/results/tmp/<machine>/seeds.csv; give
# bench/results/<machine>/seeds.csv to record.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
machine=$("$root/build/bench/sc_bench" --print-machine-tag 2>/dev/null || echo "$(uname -m)-$(nproc)c")
out=${1:-$root/bench/results/tmp/$machine/seeds.csv}
repeat=${2:-5}
sc=${SC_CLI:-$root/build/tools/spherecollide}
data=${SC_SEED_DATA:-$root/../shared/data/spheres.dat}
[ -x "$sc" ] || { echo "run-seeds.sh: build the tool first ($sc)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"
# seed 003's room: circle k at the centre of lattice cell (k % 100, k / 100)
awk 'BEGIN { for (k = 0; k < 10000; k++) printf "%d %d 2\n", 3 + 6 * (k % 100), 3 + 6 * int(k / 100) }' \
  >"$work/seed003.txt"
echo "machine,seed,input,n,algorithm,options,threads,pairs,checksum,total_ms,tests_per_sphere" >"$out"
run() { # run SEED INPUT LABEL ARGS...
  local seed=$1 input=$2 label=$3
  shift 3
  local j
  j=$("$sc" pairs "$input" --threads 1 --repeat "$repeat" --json --quiet "$@") || return
  printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%s,%s,%s,%d,%s,%s,1,%d,%s,%.4f,%.2f" % (sys.argv[1], sys.argv[2], sys.argv[3], d["n"], d["algorithm"],
      sys.argv[4], d["pairs"], d["checksum"], d["seconds"]["total"] * 1e3, d["candidate_tests"] / max(d["n"], 1)))' \
    "$machine" "$seed" "$(basename "$input")" "$label" >>"$out"
}
if [ -r "$data" ]; then
  for a in brute grid; do run 000 "$data" default --algorithm $a; done
  run 000 "$data" "width=1.1*mean diameter" --algorithm partition1d
  run 000 "$data" "width=max diameter" --algorithm partition1d --segment-width max
else
  echo "run-seeds.sh: $data not found: seed 000 skipped" >&2
fi
for a in brute grid; do run 003 "$work/seed003.txt" default --algorithm $a --2d; done
# sap-box: a fixed 64-bit LCG, so every run reads the same file
awk 'BEGIN { s = 12345; m = 2 ^ 31
  for (k = 0; k < 10000; k++) {
    for (a = 0; a < 4; a++) { s = (s * 1103515245 + 12345) % m; u[a] = s / m }
    printf "%.17g %.17g %.17g %.17g\n", 4096 * u[0], 4096 * u[1], 4096 * u[2], 127 * u[3] } }' \
  >"$work/sapbox.txt"
for a in sap grid brute; do run sap-box "$work/sapbox.txt" default --algorithm $a; done
run 003 "$work/seed003.txt" "median split" --algorithm kdsplit --2d
run 003 "$work/seed003.txt" "mean split" --algorithm kdsplit --split mean --2d
echo "wrote $out"
