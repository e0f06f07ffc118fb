#!/usr/bin/env bash
# run-scaling.sh: issue 16's thread scaling on a machine with more cores than
# the 2-core CI machines, in one short run (a few minutes on 16 cores):
#   bandwidth  sc_study's STREAM-like copy and triad at each thread count, so
#              the next step can state every stage's byte-floor ratio
#   threads    sc_study: uniform 10^7 at 1, 2, 4, 8, 16 threads (capped at the
#              CPUs online, which are always added) under each pinning policy
#              (none, compact, scatter), per stage, with those ratios
#   gens       sc_bench: powerlaw, sparse and clustered 10^7 at 1, 4 and all
#              threads (compact), per stage
#   versus     on all threads, uniform 10^6 and 10^7 .npy files: the warm
#              query and the first one (`spherecollide pairs --count-only
#              --repeat 5 --json`) against bench/compare/celllist_pairs (the
#              cell list an HPC programmer writes, --repeat 4), and the whole
#              process of each, alternating, SC_SCALING_PROCESS_REPEAT (7)
#              times; every answer must match spherecollide's count and checksum
#
#   bench/run-scaling.sh [OUTDIR]
#
# OUTDIR defaults to bench/results/<machine>/scaling (the machine tag as
# sc_bench prints it). Binaries come from SC_SCALING_BIN, a folder holding
# sc_study, sc_bench, spherecollide and celllist_pairs (copies built
# elsewhere, for a machine with no compiler or Debian packages), else they are
# built here: build-bench (Release) and bench/compare's build-compare.
# Files: info.txt (the machine as the library sees it), bandwidth.csv,
# threads.csv, gens.csv (+ -compare.csv), versus.csv with the columns
#   machine,what,n,tool,threads,median_s,first_s,pairs,checksum
# where what is warm (median_s the warm median, first_s the first query) or
# process (median_s the median wall time of a whole process).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prep=${SC_SCALING_PROCESS_REPEAT:-7}
if [ -n "${SC_SCALING_BIN:-}" ]; then
  bin=$(cd "$SC_SCALING_BIN" && pwd)
  study=$bin/sc_study bench=$bin/sc_bench cli=$bin/spherecollide cell=$bin/celllist_pairs
else
  build=$root/build-bench
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSC_BUILD_TOOLS=ON >/dev/null
  cmake --build "$build" -j "$(nproc)" --target sc_study sc_bench spherecollide_cli >/dev/null
  study=$build/bench/study/sc_study bench=$build/bench/sc_bench cli=$build/tools/spherecollide
  cmake -S "$root/bench/compare" -B "$root/build-compare" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$root/build-compare" -j "$(nproc)" --target celllist_pairs >/dev/null
  cell=$root/build-compare/celllist_pairs
fi
for b in "$study" "$bench" "$cli" "$cell"; do
  [ -x "$b" ] || { echo "run-scaling.sh: no program $b" >&2; exit 2; }
done
tag=$("$bench" --print-machine-tag)
out=${1:-$root/bench/results/$tag/scaling}
mkdir -p "$out"
cpus=$(nproc)
list=""
for t in 1 2 4 8 16 32 64; do
  [ "$t" -lt "$cpus" ] && list="$list${list:+,}$t"
done
list="$list,$cpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
  echo "machine tag: $tag; CPUs online: $cpus; thread counts: $list"
  "$cli" info --threads "$cpus" --pin compact
  "$cli" info --threads "$cpus" --pin scatter | sed -n '/^binding/p'
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
  grep -m1 MemTotal /proc/meminfo || true
} | tee "$out/info.txt"

echo "=== bandwidth"
"$study" --scenario bandwidth --threads "$list" --out "$out" --machine-tag "$tag"
echo "=== threads (uniform 1e7, each pinning policy)"
"$study" --scenario threads --n 1e7 --threads "$list" --out "$out" --machine-tag "$tag"
echo "=== gens (powerlaw, sparse, clustered 1e7)"
"$bench" --dist powerlaw,sparse,clustered --n 1e7 --threads "1,4,$cpus" --repeat 3 \
  --scenario gens --machine-tag "$tag" --csv "$out/gens.csv"

echo "=== versus (all threads: the CLI against celllist_pairs)"
json() { printf '%s\n' "$2" | sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p" | head -n 1; }
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "machine,what,n,tool,threads,median_s,first_s,pairs,checksum" > "$out/versus.csv"
for n in 1000000 10000000; do
  f=$tmp/uniform-$n.npy
  "$cli" gen uniform "$n" -o "$f" >/dev/null
  j=$("$cli" pairs "$f" --count-only --repeat 5 --json --threads "$cpus")
  pairs=$(json pairs "$j") sum=$(json checksum "$j")
  echo "$tag,warm,$n,spherecollide,$cpus,$(json total "$j"),$(json first "$j"),$pairs,$sum" >> "$out/versus.csv"
  line=$(OMP_NUM_THREADS=$cpus "$cell" "$f" --repeat 4)
  if [ "$(field pairs "$line")" != "$pairs" ] || [ "$(field checksum "$line")" != "$sum" ]; then
    echo "run-scaling.sh: celllist_pairs disagrees on $f: $line (spherecollide $pairs $sum)" >&2
    exit 1
  fi
  echo "$tag,warm,$n,celllist,$cpus,$(field seconds "$line"),,$pairs,$sum" >> "$out/versus.csv"
  ts=() tc=()
  for _ in $(seq "$prep"); do
    t0=$EPOCHREALTIME; "$cli" pairs "$f" --count-only --quiet --threads "$cpus" > /dev/null; t1=$EPOCHREALTIME
    OMP_NUM_THREADS=$cpus "$cell" "$f" --repeat 1 > /dev/null; t2=$EPOCHREALTIME
    ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
    tc+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.6f", b - a }')")
  done
  echo "$tag,process,$n,spherecollide,$cpus,$(median "${ts[@]}"),,$pairs,$sum" >> "$out/versus.csv"
  echo "$tag,process,$n,celllist,$cpus,$(median "${tc[@]}"),,$pairs,$sum" >> "$out/versus.csv"
  rm -f "$f"
done
cat "$out/versus.csv"
echo "run-scaling.sh: results in $out"
