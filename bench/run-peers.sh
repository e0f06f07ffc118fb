#!/usr/bin/env bash
# run-peers.sh: every algorithm (peer) on every generator, n growing by 10x,
# 1 thread and all threads, through the command line's warm repeats
# (spherecollide pairs FILE --algorithm A --repeat R --json: the median of R
# count-only runs on one context). Writes one CSV row per point:
#
#   bash bench/run-peers.sh [OUT.csv] [MAX_N] [REPEAT]
#
# OUT defaults to bench/results/tmp/<machine>/peers.csv (scratch); give
# bench/results/<machine>/peers.csv to record. Each point gets about a
# minute: its run time is predicted from the previous n grown by the square
# of the step (the worst case, the quadratic peers); the repeats shrink to
# fit (at least 1), and a peer stops growing on a generator once one run
# would pass 30 s, a point times out, or the peer refuses the input as too
# costly (status "skipped", "timeout" or "refused": hashgrid's max_tests).
# SC_PEERS_ALGOS (default: all nine) and SC_PEERS_DISTS (default: all seven)
# narrow the sweep, e.g. to re-measure peers that changed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
machine=$("$root/build/bench/sc_bench" --print-machine-tag 2>/dev/null || echo "$(uname -m)-$(nproc)c")
out=${1:-$root/bench/results/tmp/$machine/peers.csv}
max_n=${2:-1000000}
repeat=${3:-5}
sc=${SC_CLI:-$root/build/tools/spherecollide}
[ -x "$sc" ] || { echo "run-peers.sh: build the tool first ($sc)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"
threads_all=$(nproc)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//;s/,/;/g')
isa=$("$sc" info 2>/dev/null | sed -n 's/^kernel: //p' | head -1)
echo "machine,cpu,kernel,dist,n,algorithm,threads,status,pairs,checksum,total_ms,search_ms,build_ms,tests_per_sphere,ns_per_sphere_pair,repeats" >"$out"
for dist in ${SC_PEERS_DISTS:-uniform shell wide powerlaw clustered farclusters dense}; do
  declare -A last_s=()
  n=1000
  while [ "$n" -le "$max_n" ]; do
    [ "$dist" = dense ] && [ "$n" -gt 10000 ] && break # n^2 / 2 pairs
    f="$work/$dist-$n.f64"
    "$sc" gen "$dist" "$n" --seed 1 -o "$f" --quiet || exit 1
    for algo in ${SC_PEERS_ALGOS:-grid brute partition1d sap hashgrid octree kdsplit bvh segtree}; do
      for t in 1 "$threads_all"; do
        key="$algo-$t"
        prev=${last_s[$key]:-0}
        if [ "$prev" = dead ] || awk -v p="$prev" 'BEGIN { exit !(p * 100 > 30) }'; then
          echo "$machine,$cpu,$isa,$dist,$n,$algo,$t,skipped,,,,,,,," >>"$out"
          last_s[$key]=dead
          continue
        fi
        # the first, cold run comes on top of the repeats
        r=$(awk -v p="$prev" -v r="$repeat" 'BEGIN { q = p * 100; k = q > 0 ? int(60 / q) - 1 : r;
                                                  print (k < 1 ? 1 : (k > r ? r : k)) }')
        j=$(timeout 150 "$sc" pairs "$f" --algorithm "$algo" --threads "$t" --repeat "$r" --json --quiet 2>/dev/null)
        rc=$?
        if [ "$rc" -eq 8 ]; then # the peer refused the input as too costly (hashgrid)
          echo "$machine,$cpu,$isa,$dist,$n,$algo,$t,refused,,,,,,,," >>"$out"
          last_s[$key]=dead
          continue
        fi
        if [ -z "$j" ]; then
          echo "$machine,$cpu,$isa,$dist,$n,$algo,$t,timeout,,,,,,,," >>"$out"
          last_s[$key]=dead
          continue
        fi
        row=$(printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin); s = d["seconds"]
build = sum(s[k] for k in ("bounds", "keys", "sort", "gather", "cells"))
n = d["n"]; p = d["pairs"]
print("%s,%s,%.4f,%.4f,%.4f,%.2f,%.3f,%.6f" % (p, d["checksum"], s["total"] * 1e3, s["search"] * 1e3,
      build * 1e3, d["candidate_tests"] / max(n, 1), s["total"] * 1e9 / max(n + p, 1), s["total"]))')
        last_s[$key]=${row##*,}
        echo "$machine,$cpu,$isa,$dist,$n,$algo,$t,ok,${row%,*},$r" >>"$out"
      done
    done
    rm -f "$f"
    n=$((n * 10))
  done
  unset last_s
done
echo "wrote $out"
