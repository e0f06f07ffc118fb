#!/usr/bin/env bash
# cachegrind.sh: deterministic, simulated cache misses of one spherecollide
# query for each locality variant of the study (docs/study.md, experiment 3).
#
#   bench/study/cachegrind.sh [--quick] [--bin PATH] [--out DIR] [--n N]
#
# For every variant it runs `sc_study --once` (one thread) under
#   valgrind --tool=cachegrind --cache-sim=yes
# twice, with 1 and with 2 queries on the same context, and keeps the
# difference: the misses of one warm query, without data generation,
# reordering or the first query's allocation and page faults. Each pair of
# runs is done for two simulated hierarchies that share a 32 KiB 8-way D1:
#   L2  last level 1 MiB 8-way    (Zen 4's per-core L2)
#   L3  last level 32 MiB 16-way  (one Zen 4 core complex's L3)
# so "D1 misses" stand for L1 misses and the LL misses of each for L2 and L3
# misses. Cachegrind simulates no prefetcher and one core; the numbers are
# deterministic for a given binary and input, not a measurement of the CPU.
#
# Variants: input order (generated, shuffled, Morton) on uniform, clustered
# and wide; layout (gathered copy with the scalar kernel vs indirect reads;
# rows in z-major vs Morton order, auto kernel)
# on uniform; cell factor 1..4 on uniform. Output: DIR/cachegrind.csv, one
# row per (variant, hierarchy).
#
# Defaults: n = 1e6 (--quick: 5e4), DIR = bench/results/<machine>/study
# (--quick: study-quick), PATH = build-study/bench/study/sc_study.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
quick=0
bin=${SC_STUDY_BIN:-$root/build-study/bench/study/sc_study}
out=""
n=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --bin) bin=$2; shift ;;
    --out) out=$2; shift ;;
    --n) n=$2; shift ;;
    -h|--help) sed -n '2,25p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "cachegrind.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$n" ]; then
  if [ "$quick" = 1 ]; then n=50000; else n=1000000; fi
fi
if ! command -v valgrind >/dev/null 2>&1; then
  echo "cachegrind.sh: valgrind is not installed (Debian: valgrind); no simulated misses" >&2
  exit 3
fi
if [ ! -x "$bin" ]; then
  echo "cachegrind.sh: no sc_study at $bin (build it, or pass --bin)" >&2
  exit 2
fi

# Machine tag as sc_bench and sc_study derive it: CPU model, lower case, dashes, -<cpus>c.
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
tag=$(printf '%s' "${model:-unknown}" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
tag="${SC_STUDY_MACHINE_TAG:-${tag:-unknown}-${cpus}c}"
if [ -z "$out" ]; then
  if [ "$quick" = 1 ]; then out=$root/bench/results/$tag/study-quick; else out=$root/bench/results/$tag/study; fi
fi
mkdir -p "$out"
csv=$out/cachegrind.csv
vg_version=$(valgrind --version)

csv_field() { # RFC 4180: quote when needed, double the quotes
  case $1 in
    *[,\"]*) printf '"%s"' "$(printf '%s' "$1" | sed 's/"/""/g')" ;;
    *) printf '%s' "$1" ;;
  esac
}

# run_vg LL QUERIES ARGS...: prints "drefs d1 lld pairs checksum isa compiler pin" of one run
run_vg() {
  local ll=$1 q=$2 log
  shift 2
  log=$(mktemp)
  if ! OMP_NUM_THREADS=1 nice -n "${SC_STUDY_NICE:-19}" valgrind --tool=cachegrind --cache-sim=yes \
      --cachegrind-out-file=/dev/null --I1=32768,8,64 --D1=32768,8,64 --LL="$ll" \
      "$bin" --once --threads 1 --queries "$q" "$@" >"$log" 2>&1; then
    echo "cachegrind.sh: valgrind failed on: sc_study --once $*" >&2
    tail -n 20 "$log" >&2
    rm -f "$log"
    return 1
  fi
  awk '
    function num(s) { gsub(/,/, "", s); return s }
    /D   refs:/   { d = num($4) }
    /D1  misses:/ { m1 = num($4) }
    /LLd misses:/ { ml = num($4) }
    /^once / {
      for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "pairs") p = kv[2]
        if (kv[1] == "checksum") c = kv[2]
        if (kv[1] == "isa") isa = kv[2]
        if (kv[1] == "compiler") cc = kv[2]
        if (kv[1] == "pin") pin = kv[2]
      }
    }
    END { print d, m1, ml, p, c, isa, cc, pin }' "$log"
  rm -f "$log"
}

printf 'machine,cpu,cores,isa,compiler,pin,valgrind,run,group,variant,dist,n,order,layout,kernel,cell_factor,threads,hierarchy,d1,ll,queries_diffed,d_refs,d1_misses,ll_misses,d1_misses_per_sphere,ll_misses_per_sphere,pairs,checksum,status\n' >"$csv"

variant() { # variant GROUP NAME DIST ORDER LAYOUT KERNEL CELL_FACTOR
  local group=$1 name=$2 dist=$3 order=$4 layout=$5 kernel=$6 cf=$7 h ll a b
  for h in L2 L3; do
    if [ "$h" = L2 ]; then ll=1048576,8,64; else ll=33554432,16,64; fi
    local args=(--dist "$dist" --n "$n" --order "$order" --layout "$layout" --kernel "$kernel" --cell-factor "$cf")
    local status=ok
    a=$(run_vg "$ll" 1 "${args[@]}") || status=failed
    b=$(run_vg "$ll" 2 "${args[@]}") || status=failed
    # shellcheck disable=SC2086  # split the five numbers
    set -- $a
    local r1=${1:-0} m1=${2:-0} l1=${3:-0} p1=${4:-} c1=${5:-}
    # shellcheck disable=SC2086
    set -- $b
    local r2=${1:-0} m2=${2:-0} l2=${3:-0} p2=${4:-} c2=${5:-} isa=${6:-} cc=${7:-} pin=${8:-}
    if [ "$status" = ok ] && { [ "$p1" != "$p2" ] || [ "$c1" != "$c2" ]; }; then
      status=disagree
    fi
    local dr=$((r2 - r1)) dm=$((m2 - m1)) dl=$((l2 - l1))
    {
      printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,1,%s,%s,%s,2-1,' \
        "$(csv_field "$tag")" "$(csv_field "${model:-unknown}")" "$cpus" "$isa" "${cc//_/ }" "$pin" "$vg_version" \
        "$([ "$quick" = 1 ] && echo quick || echo full)" "$group" "$name" "$dist" "$n" "$order" \
        "$layout" "$kernel" "$cf" "$h" "32768/8/64" "${ll//,//}"
      printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "$dr" "$dm" "$dl" \
        "$(awk -v a="$dm" -v n="$n" 'BEGIN { printf "%.4f", a / n }')" \
        "$(awk -v a="$dl" -v n="$n" 'BEGIN { printf "%.4f", a / n }')" "$p2" "$c2" "$status"
    } >>"$csv"
    printf '  %-9s %-22s %-3s D refs %12s  D1 misses %11s  LL misses %11s  (%s)\n' \
      "$group" "$name" "$h" "$dr" "$dm" "$dl" "$status"
  done
}

echo "cachegrind.sh: n = $n, one thread, simulated D1 32 KiB; LL 1 MiB (L2) and 32 MiB (L3); $vg_version"
t0=$SECONDS
for dist in uniform clustered wide; do
  for order in generated shuffled morton; do
    variant order "$dist/$order" "$dist" "$order" gathered auto 1
  done
done
variant layout "uniform/gathered-scalar" uniform generated gathered scalar 1
variant layout "uniform/indirect" uniform generated indirect scalar 1
variant layout "uniform/gathered-rows" uniform generated gathered auto 1
variant layout "uniform/gathered-morton" uniform generated morton auto 1
for cf in 1 1.5 2 3 4; do
  variant cellsize "uniform/cf$cf" uniform generated gathered auto "$cf"
done
echo "cachegrind.sh: done in $((SECONDS - t0)) s; CSV: $csv"
if grep -q ',failed$\|,disagree$' "$csv"; then
  echo "cachegrind.sh: some variants failed or disagreed (see $csv)" >&2
  exit 1
fi
