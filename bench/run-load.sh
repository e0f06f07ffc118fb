#!/usr/bin/env bash
# run-load.sh: the library's default thread count on a shared machine. For
# each machine state (quiet, then k cores kept busy by competitors that this
# script starts and stops: one shell busy loop per core, each under a
# timeout), every case runs with --threads 1, the default and --threads
# <cores>, and the table gives the default's median against the best fixed
# count's (the target: default / best <= 1.15 under load).
#
#   bench/run-load.sh [OUTDIR]
#
# Cases: pairs on the grid at uniform 10^4, 10^5, 10^6 and 10^7; pairs on
# every other peer at 10^4, 10^5 and 10^6 (brute at 10^4 and 10^5: 10^6
# would take minutes a query); two-set (--against, B a tenth of A),
# periodic (--box L) and neighbour lists (--skin 0.1) at 10^4 to 10^7; the
# simulation's step (3-D balls, volume fraction 0.25) at 10^4, 10^5 and
# 10^6; and Python's sc.pairs at 10^4, 10^5 and 10^6
# with 20 ms of the caller's own work between calls (python-gap: the
# library's idle threads fall asleep between calls, as in most programs,
# where back-to-back queries find them still spinning). Queries are `pairs
# --repeat R --json` (median_s: the warm median, first_s: the first query);
# neighbour lists are one process each, R of them (count + fill); the
# simulation is one run of 12 steps, median_s its median step after the
# first; python-gap is R + 1 calls on one Context, median_s after the first.
#
# Environment: SC_LOAD_BUSY (the k values, default "1"; "1 4 8" on 16 cores),
# SC_LOAD_REPEAT (9), SC_LOAD_SIZES (the grid's and the query types' n,
# default 10^4..10^7), SC_LOAD_PEER_SIZES (the other peers', the simulation's
# and Python's n, default 10^4..10^6), SC_LOAD_CASES (all; or a grep -E
# pattern over the case names, e.g. grid),
# SC_LOAD_CLI (a built spherecollide; else build-bench/ is built).
# OUTDIR defaults to bench/results/<machine>/load; load.csv has the columns
#   machine,state,busy,case,n,config,threads,median_s,first_s,pairs,mean_s
# (mean_s: the mean of the same runs as median_s; a team whose barriers now
# and then wait out a time slice shows it there, not in the median)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repeat=${SC_LOAD_REPEAT:-9}
busy_list=${SC_LOAD_BUSY:-1}
sizes=${SC_LOAD_SIZES:-"10000 100000 1000000 10000000"}
peer_sizes=${SC_LOAD_PEER_SIZES:-"10000 100000 1000000"}
cases_re=${SC_LOAD_CASES:-.}
if [ -n "${SC_LOAD_CLI:-}" ]; then
  cli=$SC_LOAD_CLI
else
  cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DSC_BUILD_TOOLS=ON >/dev/null
  targets=(spherecollide_cli sc_bench)
  if cmake --build "$root/build-bench" --target help | grep -c '\bsc_python\b' >/dev/null; then
    targets+=(sc_python)
  fi
  cmake --build "$root/build-bench" -j "$(nproc)" --target "${targets[@]}" >/dev/null
  cli=$root/build-bench/tools/spherecollide
fi
[ -x "$cli" ] || { echo "run-load.sh: no program $cli" >&2; exit 2; }
bench=$(dirname "$cli")/../bench/sc_bench
pymod=$(cd "$(dirname "$cli")/.." && pwd)/python # the build's Python package, if built
tag=$([ -x "$bench" ] && "$bench" --print-machine-tag || echo "$(uname -m)-$(nproc)c")
out=${1:-$root/bench/results/$tag/load}
mkdir -p "$out"
cores=$(nproc)
tmp=$(mktemp -d)
pids=()
stop_busy() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'stop_busy; rm -rf "$tmp"' EXIT
start_busy() { # k busy loops, each stopped after 30 minutes at the latest
  for ((i = 0; i < $1; i++)); do
    timeout 1800 sh -c 'while :; do :; done' &
    pids+=($!)
  done
  sleep 0.5 # let the scheduler spread them
}

echo "== inputs ($tmp)"
gen() { [ -f "$tmp/$1.npy" ] || "$cli" gen "$2" "$3" --seed "${4:-3}" -o "$tmp/$1.npy" --quiet; }
for n in $sizes $peer_sizes; do
  gen "u$n" uniform "$n"
  gen "b$n" uniform $((n / 10)) 4 # the two-set query's B
done
# the periodic box: about the uniform cube's side (volume fraction 0.25,
# E[r^3] = 2.03125 for radii U[1,1.5]); any box is a valid query
side() { awk -v n="$1" 'BEGIN {printf "%d", (n * 4 / 3 * 3.14159265 * 2.03125 / 0.25) ^ (1 / 3) + 1}'; }

# case name, n, and the command after the binary (the config's --threads is appended)
cases=()
for n in $sizes; do cases+=("grid|$n|pairs $tmp/u$n.npy"); done
for a in brute partition1d sap hashgrid octree kdsplit bvh segtree; do
  for n in $peer_sizes; do
    [ "$a" = brute ] && [ "$n" -gt 100000 ] && continue
    cases+=("$a|$n|pairs $tmp/u$n.npy --algorithm $a")
  done
done
for n in $sizes; do
  cases+=("two-set|$n|pairs $tmp/u$n.npy --against $tmp/b$n.npy")
  cases+=("periodic|$n|pairs $tmp/u$n.npy --box $(side "$n")")
  cases+=("neighbors|$n|neighbors $tmp/u$n.npy --skin 0.1")
done
for n in $peer_sizes; do
  s=$(side "$n")
  cases+=("sim-step|$n|simulate --dims 3 --n $n --box $s,$s,$s --radii uniform:1,1.5 --steps 12 --quiet --csv $tmp/sim.csv")
done
if ls "$pymod"/spherecollide/_core*.so >/dev/null 2>&1 && [ -x /usr/bin/python3 ]; then
  for n in $peer_sizes; do cases+=("python-gap|$n|python $tmp/u$n.npy"); done
else
  echo "(no Python module in $pymod: the python-gap cases are skipped)"
fi

# median of numbers on stdin
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# one case in one config: prints "threads median_s first_s pairs"
measure() {
  local cmd=$1 threads=$2
  case "$cmd" in
  pairs*)
    # shellcheck disable=SC2086
    "$cli" $cmd --count-only --repeat "$repeat" --json $threads >"$tmp/r.json"
    python3 -c "import json; d=json.load(open('$tmp/r.json')); s=d['seconds']; print(d['threads'], s['total'], s['first'], d['pairs'], s['mean'])"
    ;;
  neighbors*)
    : >"$tmp/n.txt"
    for ((r = 0; r < repeat; r++)); do
      # shellcheck disable=SC2086
      "$cli" $cmd --json $threads >"$tmp/r.json"
      python3 -c "import json; d=json.load(open('$tmp/r.json')); s=d['seconds']; print(d['threads'], s['count'] + s['fill'], d['pairs'])" >>"$tmp/n.txt"
    done
    local med first
    med=$(awk '{print $2}' "$tmp/n.txt" | median)
    first=$(awk 'NR == 1 {print $2}' "$tmp/n.txt")
    awk -v m="$med" -v f="$first" '{s += $2} END {print $1, m, f, $3, s / NR}' "$tmp/n.txt"
    ;;
  python*)
    PYTHONPATH=$pymod /usr/bin/python3 - ${cmd#python } "${threads#--threads }" "$repeat" <<'PY'
import statistics, sys, time
import numpy as np, spherecollide as sc
rows = np.load(sys.argv[1])
c, r = rows[:, :3], rows[:, 3]
threads = None if sys.argv[2] == "" else int(sys.argv[2])
ctx = sc.Context(threads=threads)
ts = []
for k in range(int(sys.argv[3]) + 1):
    t = time.perf_counter()
    p = ctx.pairs(c, r)
    ts.append(time.perf_counter() - t)
    time.sleep(0.02)  # the caller's own work between calls
print(ctx.stats()["threads"], statistics.median(ts[1:]), ts[0], len(p), statistics.mean(ts[1:]))
PY
    ;;
  simulate*)
    # shellcheck disable=SC2086
    "$cli" $cmd $threads >/dev/null
    python3 - "$tmp/sim.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ms = [float(r['ms_move']) + float(r['ms_search']) + float(r['ms_response']) for r in rows]
print('-', statistics.median(ms[1:]) / 1e3, ms[0] / 1e3, rows[-1]['collisions'], statistics.mean(ms[1:]) / 1e3)
PY
    ;;
  esac
}

csv=$out/load.csv
echo "machine,state,busy,case,n,config,threads,median_s,first_s,pairs,mean_s" >"$csv"
run_state() {
  local state=$1 k=$2
  for c in "${cases[@]}"; do
    IFS='|' read -r name n cmd <<<"$c"
    echo "$name" | grep -Eq "$cases_re" || continue
    for config in 1 default "$cores"; do
      local arg=""
      [ "$config" = default ] || arg="--threads $config"
      # through a file: the measuring processes have all exited before the
      # next case starts (a Python still exiting is load too)
      measure "$cmd" "$arg" >"$tmp/m.txt"
      read -r thr med first pairs mean <"$tmp/m.txt"
      echo "$tag,$state,$k,$name,$n,$config,$thr,$med,$first,$pairs,$mean" >>"$csv"
    done
  done
}

echo "== quiet"
run_state quiet 0
for k in $busy_list; do
  [ "$k" -lt "$cores" ] || continue
  echo "== $k of $cores cores busy"
  start_busy "$k"
  run_state "busy$k" "$k"
  stop_busy
done

# the table: per state and case, the medians in ms and default / best fixed
python3 - "$csv" <<'PY'
import csv, collections, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = collections.OrderedDict()
for r in rows:
    by.setdefault((r['state'], r['case'], r['n']), {})[r['config']] = r
print("| state | case | n | --threads 1 | default (threads used) | --threads all | default / best fixed | means: 1 / default / all | default / best fixed, means | first: 1 / default / all |")
print("|---|---|---:|---:|---:|---:|---:|---|---:|---|")
for (state, case, n), c in by.items():
    fixed = [k for k in c if k != 'default']
    ratio = lambda col: float(c['default'][col]) / min(float(c[k][col]) for k in fixed)
    d = c['default']
    ms = lambda k, col='median_s': "%.3f" % (float(c[k][col]) * 1e3)
    means = " / ".join(ms(k, 'mean_s') for k in ['1', 'default', fixed[-1]])
    first = " / ".join("%.1f" % (float(c[k]['first_s']) * 1e3) for k in ['1', 'default', fixed[-1]])
    print("| %s | %s | %s | %s | %s (%s) | %s | %.2f | %s | %.2f | %s |" % (
        state, case, n, ms('1'), ms('default'), d['threads'], ms(fixed[-1]),
        ratio('median_s'), means, ratio('mean_s'), first))
PY
echo "written: $csv"
