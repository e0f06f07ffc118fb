#!/usr/bin/env bash
# make-study-md.sh: refreshes the generated parts of docs/study.md from the
# study's CSVs: every block between
#     <!-- study:begin NAME -->   and   <!-- study:end NAME -->
# is replaced by the table (and figure links) NAME; the text around the
# blocks - questions and conclusions - is written by hand and left alone.
#
#   bench/study/make-study-md.sh [--quick] [--force] [--data DIR] [--doc FILE]
#
# --quick reads bench/results/<machine>/study-quick and links
# docs/figures/quick/; it refuses to overwrite a study.md made from a full
# run (one whose provenance block says "full") unless --force is given.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=0
force=0
data=""
doc=$root/docs/study.md
machine=${SC_STUDY_MACHINE_TAG:-}
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --force) force=1 ;;
    --data) data=$2; shift ;;
    --doc) doc=$2; shift ;;
    --machine) machine=$2; shift ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "make-study-md.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$machine" ]; then
  model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
  base=$(printf '%s' "${model:-unknown}" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
  machine="${base:-unknown}-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)c"
fi
if [ -z "$data" ]; then
  if [ "$quick" = 1 ]; then data=$root/bench/results/$machine/study-quick; else data=$root/bench/results/$machine/study; fi
fi
figrel=figures
[ "$quick" = 1 ] && figrel=figures/quick
[ -f "$doc" ] || { echo "make-study-md.sh: no $doc" >&2; exit 2; }
if [ "$quick" = 1 ] && [ "$force" = 0 ] && grep -q '^Run kind: \*\*full\*\*' "$doc"; then
  echo "make-study-md.sh: $doc holds a full run's tables; not replacing them with a quick run's (--force to do it)"
  exit 0
fi
datarel=${data#"$root"/}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tab() { awk -f "$root/bench/plots/csv.awk" -f "$root/bench/plots/table.awk" "$@"; }
csv() { [ -s "$data/$1.csv" ]; }

# md HEADER < rows: a Markdown table; HEADER and rows are '|'-separated.
md() {
  awk -F'|' -v h="$1" 'BEGIN { n = split(h, c, "|"); s = "|"; t = "|"
      for (i = 1; i <= n; i++) { s = s " " c[i] " |"; t = t (i == 1 ? "---|" : "---:|") } print s; print t }
    { s = "|"; for (i = 1; i <= NF; i++) s = s " " $i " |"; print s }'
}
fig() { # fig NAME ALT: a figure link (PNG, with the SVG beside it)
  if [ -f "$root/docs/$figrel/$1.png" ]; then
    printf '![%s](%s/%s.png)\n\n(SVG: [%s.svg](%s/%s.svg))\n\n' "$2" "$figrel" "$1" "$1" "$figrel" "$1"
  else
    printf '_(figure %s not made: no data)_\n\n' "$1"
  fi
}
missing() { printf '_No %s/%s.csv: this scenario did not run._\n' "$datarel" "$1"; }

# ---- the blocks ---------------------------------------------------------------------
block_provenance() {
  local kind=full
  [ "$quick" = 1 ] && kind=quick
  echo "Run kind: **$kind**$([ "$quick" = 1 ] && echo ' (small sizes, 3 repeats: a smoke test of the study machinery; its numbers are not the study'"'"'s result)')."
  echo
  if [ -s "$data/run-info.txt" ]; then
    sed 's/^/    /' "$data/run-info.txt"
    echo
  fi
  echo "CSV files: \`$datarel/\` (one per scenario; machine, ISA, compiler and binding on every row)."
  echo "Figures: \`docs/$figrel/\`."
}

block_machine() {
  local f
  f=$(find "$data" -maxdepth 1 -name '*.csv' ! -name cachegrind.csv | sort | head -n 1)
  [ -n "$f" ] || { echo "_No CSV in $datarel._"; return; }
  tab -v mode=select -v cols="machine,cpu,cores,isa,compiler,version" "$f" | head -n 1 |
    awk '{ for (i = 1; i <= NF; i++) gsub(/_/, " ", $i)
      printf "%s|%s|%s|%s|%s|%s\n", $1, $2, $3, $4, $5, $6 }' |
    md "tag|CPU model|logical CPUs|auto kernel (ISA)|compiler|spherecollide"
  echo
  if csv bandwidth; then
    echo "Memory bandwidth (STREAM-like, \`sc_study --scenario bandwidth\`; STREAM's byte counts: copy 16 B, triad 24 B per element, no write-allocate traffic):"
    echo
    tab -v mode=select -v cols="kernel,threads,array_bytes,l3_bytes,best_bytes_per_s,median_bytes_per_s" \
      -v where="status=ok" "$data/bandwidth.csv" |
      awk '{ printf "%s|%s|%.0f MiB (L3 %.0f MiB)|%.1f|%.1f\n", $1, $2, $3 / 1048576, $4 / 1048576, $5 / 1e9, $6 / 1e9 }' |
      md "kernel|threads|array each|best GB/s|median GB/s"
  fi
}

block_growth() {
  csv growth || { missing growth; return; }
  for d in $(tab -v mode=select -v cols=dist "$data/growth.csv" | awk '!s[$1]++'); do
    fig "growth-$d" "time vs n, $d"
  done
  fig growth-ns-per-item "ns per (sphere + pair) vs n"
  # Keyed by the thread count asked for: the library runs tiny sets on one
  # thread even when asked for all, and such a row still belongs to "all".
  tab -v mode=select -v cols="dist,n,threads_req,status,total_s,spheres_per_s,ns_per_item,pairs" "$data/growth.csv" |
    awk '{ k = $1 SUBSEP $2; if (!(k in s)) { s[k] = 1; o[++m] = k; dd[k] = $1; nn[k] = $2; pp[k] = $8 }
           if ($4 != "ok") { t[k, $3 == 1 ? 1 : 2] = $4; next }
           t[k, $3 == 1 ? 1 : 2] = sprintf("%.3f", $5 * 1e3); th[k] = $3
           if ($3 != 1) { sps[k] = sprintf("%.1f", $6 / 1e6); ni[k] = sprintf("%.1f", $7) } else ni1[k] = sprintf("%.1f", $7) }
      END { for (i = 1; i <= m; i++) { k = o[i]
              printf "%s|%s|%s|%s|%s|%s|%s|%s\n", dd[k], nn[k], pp[k], t[k, 1], t[k, 2], sps[k], ni1[k], ni[k] } }' |
    md "generator|n|pairs|ms, 1 thread|ms, all threads|M spheres/s (all)|ns/(sphere+pair), 1 thr|ns/(sphere+pair), all"
  echo
  echo "Per stage (ms, all threads), each generator at its largest n:"
  echo
  fig stages-by-dist "stacked stage times per generator"
  fig stages-uniform-by-n "stacked stage times vs n, uniform"
  tab -v mode=select -v cols="dist,n,s_bounds,s_keys,s_sort,s_gather,s_cells,s_search,s_merge,total_s" \
    -v where="threads_req=all;status=ok" "$data/growth.csv" |
    awk '{ if (!($1 in big) || $2 + 0 > big[$1] + 0) { big[$1] = $2; l[$1] = $0 } if (!($1 in s)) { s[$1] = 1; o[++m] = $1 } }
      END { for (i = 1; i <= m; i++) { split(l[o[i]], f, " "); r = f[1] "|" f[2]
              for (j = 3; j <= 10; j++) r = r "|" sprintf("%.2f", f[j] * 1e3)
              r = r "|" sprintf("%.0f%%", f[10] > 0 ? 100 * f[8] / f[10] : 0); print r } }' |
    md "generator|n|bounds|keys|sort|gather|cells|search|merge|total|search share"
}

block_floor() {
  csv growth || { missing growth; return; }
  fig floor-ratio "measured / floor per stage, uniform"
  echo "Each generator at its largest n (dense excluded: its time is the n^2/2 pair tests, not memory):"
  echo
  tab -v mode=select -v cols="dist,n,threads,sort_passes,pack_bits,floor_b_total,bw_bytes_per_s,floor_s_total,total_s,ratio_bounds,ratio_keys,ratio_sort,ratio_gather,ratio_cells,ratio_search,ratio_total" \
    -v where="status=ok;dist!=dense" "$data/growth.csv" |
    awk '{ if (!($1 in big) || $2 + 0 > big[$1] + 0) big[$1] = $2; r[NR] = $0; if (!($1 in s)) { s[$1] = 1; o[++m] = $1 } }
      function f1(v) { return v == "NaN" ? "-" : sprintf("%.1f", v) }
      END { for (i = 1; i <= m; i++) for (k = 1; k <= NR; k++) { split(r[k], f, " ")
              if (f[1] != o[i] || f[2] != big[o[i]]) continue
              x = ""; for (j = 10; j <= 16; j++) x = x "|" f1(f[j])
              printf "%s|%s|%s|%s|%s|%.0f|%s|%s|%.3f%s\n", f[1], f[2], f[3], f[4], (f[5] + 0 > 0 ? "word" : "pair"), f[6] / f[2],
                f[7] == "NaN" ? "-" : sprintf("%.1f", f[7] / 1e9), f[8] == "NaN" ? "-" : sprintf("%.3f", f[8] * 1e3),
                f[9] * 1e3, x } }' |
    md "generator|n|threads|radix passes|sorts|floor B/sphere|GB/s used|floor ms|measured ms|bounds x|keys x|sort x|gather x|cells x|search x|total x"
}

block_order() {
  csv order || { missing order; return; }
  fig locality-order "input order: time and simulated misses"
  tab -v mode=select -v cols="dist,n,threads,order,total_s,s_gather,s_search,papi_l1_dcm,papi_l2_dcm,papi_l3_tcm" \
    -v where="status=ok" "$data/order.csv" |
    awk '{ printf "%s|%s|%s|%s|%.2f|%.2f|%.2f|%s|%s|%s\n", $1, $2, $3, $4, $5 * 1e3, $6 * 1e3, $7 * 1e3, $8, $9, $10 }' |
    md "generator|n|threads|input order|total ms|gather ms|search ms|PAPI L1 DCM|PAPI L2 DCM|PAPI L3 TCM"
  echo
  note=$(tab -v mode=select -v cols="counters_note" -v where="threads=1" "$data/order.csv" | head -n 1 | tr '_' ' ')
  [ -n "$note" ] && echo "Hardware counters on this machine: ${note}." && echo
  block_cachegrind order
}

block_cachegrind() { # GROUP
  if [ ! -s "$data/cachegrind.csv" ]; then
    echo "_No $datarel/cachegrind.csv: bench/study/cachegrind.sh did not run._"
    return
  fi
  echo "Simulated misses of one warm query (cachegrind, 1 thread, D1 32 KiB; LL 1 MiB for L2, 32 MiB for L3), per sphere:"
  echo
  tab -v mode=select -v cols="variant,n,hierarchy,d_refs,d1_misses,ll_misses" -v where="group=$1;status=ok" \
    "$data/cachegrind.csv" |
    awk '{ if (!($1 in s)) { s[$1] = 1; o[++m] = $1; n[$1] = $2 }
           if ($3 == "L2") { dr[$1] = $4; d1[$1] = $5; l2[$1] = $6 } else l3[$1] = $6 }
      END { for (i = 1; i <= m; i++) { v = o[i]
              printf "%s|%s|%.1f|%.3f|%.3f|%.4f\n", v, n[v], dr[v] / n[v], d1[v] / n[v], l2[v] / n[v], l3[v] / n[v] } }' |
    md "variant|n|data refs/sphere|L1 (D1) misses/sphere|L2 misses/sphere|L3 misses/sphere"
}

block_layout() {
  csv layout || { missing layout; return; }
  fig locality-layout "gathered vs indirect"
  tab -v mode=select -v cols="dist,n,threads,layout,kernel,total_s,s_gather,s_search" -v where="status=ok" \
    "$data/layout.csv" |
    awk '{ printf "%s|%s|%s|%s|%s|%.2f|%.2f|%.2f\n", $1, $2, $3, $4, $5, $6 * 1e3, $7 * 1e3, $8 * 1e3 }' |
    md "generator|n|threads|layout|kernel|total ms|gather ms|search ms"
  echo
  block_cachegrind layout
}

block_cellsize() {
  csv cellsize || { missing cellsize; return; }
  fig cellsize-sweep "cell-size factor sweep"
  fig locality-cellsize "cell-size factor: time and simulated misses"
  tab -v mode=select -v cols="dist,n,levels_req,cell_factor,total_s,candidate_tests,cells,levels,plan_levels" \
    -v where="status=ok" "$data/cellsize.csv" |
    awk '{ r[NR] = $0; k = $1 SUBSEP $3; if (!(k in b) || $5 + 0 < b[k]) b[k] = $5 + 0 }
      END { for (L = 0; L <= 1; L++) for (k = 1; k <= NR; k++) { split(r[k], f, " "); if ((f[3] == "auto") != (L == 0)) continue
              q = f[1] SUBSEP f[3]
              printf "%s|%s|%s|%s%s|%.2f|%.2f|%.1f|%s|%s (%s)\n", f[1], f[2], f[3], f[4], f[5] + 0 == b[q] ? " **(optimum)**" : "",
                f[5] * 1e3, f[5] / b[q], f[6] / f[2], f[7], f[8], f[9] } }' |
    md "generator|n|levels asked|cell factor|ms|x optimum|candidate tests/sphere|rows|non-empty (planned) levels"
  echo
  block_cachegrind cellsize
}

block_levels() {
  csv levels || { missing levels; return; }
  fig levels "levels forced"
  tab -v mode=select -v cols="dist,n,levels_req,plan_levels,levels,status,total_s,candidate_tests" "$data/levels.csv" |
    awk '{ r[NR] = $0; if ($6 == "ok" && (!($1 in b) || $7 + 0 < b[$1])) b[$1] = $7 + 0 }
      END { for (k = 1; k <= NR; k++) { split(r[k], f, " ")
              if (f[6] != "ok") { printf "%s|%s|%s|%s|-|%s|-|-\n", f[1], f[2], f[3] == "auto" ? "auto (cost model)" : f[3], f[4], f[6]; continue }
              printf "%s|%s|%s|%s|%s|%.2f%s|%.2f|%.1f\n", f[1], f[2], f[3] == "auto" ? "**auto (cost model)**" : f[3], f[4], f[5],
                f[7] * 1e3, f[7] + 0 == b[f[1]] ? " **(fastest)**" : "", f[7] / b[f[1]], f[8] / f[2] } }' |
    md "generator|n|levels asked|levels planned|non-empty levels|ms|x fastest|candidate tests/sphere"
}

block_threads() {
  csv threads || { missing threads; return; }
  fig threads-speedup "speedup vs threads per pinning policy"
  fig threads-stages "per-stage speedup"
  tab -v mode=select -v cols="pin_req,pin,threads,total_s,s_bounds,s_keys,s_sort,s_gather,s_cells,s_search,n" \
    -v where="status=ok" "$data/threads.csv" |
    awk '{ if ($3 == 1) for (j = 4; j <= 10; j++) one[$1, j] = $j; r[NR] = $0 }
      function sp(p, j, v) { return v > 0 && (p, j) in one ? sprintf("%.2f", one[p, j] / v) : "-" }
      END { for (k = 1; k <= NR; k++) { split(r[k], f, " "); p = f[1]
              s = p "|" f[2] "|" f[11] "|" f[3] "|" sprintf("%.2f", f[4] * 1e3)
              for (j = 4; j <= 10; j++) s = s "|" sp(p, j, f[j]); print s } }' |
    md "pin asked|pin applied|n|threads|total ms|speedup total|bounds|keys|sort|gather|cells|search"
}

block_kernels() {
  csv kernels || { missing kernels; return; }
  fig kernels "kernel throughput"
  tab -v mode=select -v cols="dist,n,threads,kernel,tests_per_s,hit_rate,s_search,total_s" -v where="status=ok" \
    "$data/kernels.csv" |
    awk '{ k = $1 SUBSEP $2 SUBSEP $3; r[NR] = $0; tp[k, $4] = $5 }
      END { for (i = 1; i <= NR; i++) { split(r[i], f, " "); k = f[1] SUBSEP f[2] SUBSEP f[3]
              x = f[4] == "avx2" && tp[k, "scalar"] > 0 ? sprintf("%.2f", f[5] / tp[k, "scalar"]) : "-"
              printf "%s|%s|%s|%s|%.3f|%s|%.1f%%|%.2f|%.2f\n", f[1], f[2], f[3], f[4], f[5] / 1e9, x, 100 * f[6], f[7] * 1e3, f[8] * 1e3 } }' |
    md "generator|n|threads|kernel|10^9 tests/s|avx2 / scalar|pairs / tests|search ms|total ms"
}

block_floatcopy() {
  csv kernel-f32 || { missing kernel-f32; return; }
  fig locality-floatcopy "float32 prototype vs double kernels"
  tab -v mode=select -v cols="kernel,coord_range,bytes_per_sphere,gtests_per_s,recheck_share,pair_share" \
    -v where="workload=synthetic" "$data/kernel-f32.csv" |
    awk '{ r[NR] = $0; if ($1 == "avx2") a = $4 }
      END { for (i = 1; i <= NR; i++) { split(r[i], f, " ")
              printf "%s|%s|%s|%.3f|%s|%.4f%%|%.1f%%\n", f[1], f[2], f[3], f[4],
                (a > 0 ? sprintf("%.2f", f[4] / a) : "-"), 100 * f[5], 100 * f[6] } }' |
    md "kernel|coordinate range L|bytes per sphere|10^9 tests/s (1 thread)|x avx2 (double)|tests decided again in double|pairs / tests"
}

block_kernelreplay() {
  csv kernel-f32 || { missing kernel-f32; return; }
  tab -v mode=select -v cols="workload,kernel,gtests_per_s,ratio_vs_scalar,lanes_per_block,pair_share" \
    -v where="workload~^replay" "$data/kernel-f32.csv" |
    awk '{ printf "%s|%s|%.3f|%.2f|%.2f|%.1f%%\n", $1, $2, $3, $4, $5, 100 * $6 }' |
    md "workload|kernel|10^9 tests/s (1 thread)|x scalar|home spheres per block (of 4 lanes)|pairs / tests"
}

block_compare() {
  local f=$data/../compare.csv
  [ "$quick" = 1 ] && f=$data/../quick-compare.csv
  [ -s "$f" ] || { printf '_No %s: bench/compare/run-compare.sh did not run._\n' "${f#"$root"/}"; return; }
  printf 'From `%s` (written by `bench/compare/run-compare.sh` in the same study run).\n\n' "$(cd "$(dirname "$f")" && pwd | sed "s|^$root/||")/$(basename "$f")"
  tab -v mode=select -v cols="dist,n,tool,mode,threads,median_s,peak_rss_mb,pairs,ratio_vs_spherecollide" "$f" |
    awk '{ t = ($6 + 0 > 0) ? sprintf("%.4f", $6) : $6; gsub(/_/, " ", t)
           r = ($9 + 0 > 0) ? sprintf("%.1fx", $9) : "-"
           printf "%s|%s|%s|%s|%s|%s|%s|%s|%s\n", $1, $2, $3, $4, $5, t, $7, $8, r }' |
    md "generator|n|tool|mode|threads|median s|peak MiB|pairs|x spherecollide (same threads)"
}

# Thread scaling on machines with more cores (bench/run-scaling.sh): every
# bench/results/<machine>/scaling/ folder, whichever machine made this page.
block_scaling() {
  local found=0 dir m
  for dir in "$root"/bench/results/*/scaling; do
    [ -s "$dir/threads.csv" ] || continue
    found=1
    m=$(basename "$(dirname "$dir")")
    printf '**%s** (`%s/`; %s)\n\n' "$m" "${dir#"$root"/}" \
      "$(sed -n 's/^topology: //p' "$dir/info.txt" 2>/dev/null | head -n 1)"
    echo "Uniform 10^7 by threads and pinning (sc_study \`threads\`); ms per stage; x floor = measured / the bytes each stage must move at that thread count's triad bandwidth:"
    echo
    tab -v mode=select -v cols="pin_req,threads,total_s,s_bounds,s_keys,s_sort,s_gather,s_cells,s_search,bw_bytes_per_s,ratio_sort,ratio_gather,ratio_search,ratio_total" \
      -v where="status=ok" "$dir/threads.csv" |
      awk '{ if ($2 == 1) one[$1] = $3
             printf "%s|%s|%.1f|%s|%.1f|%.1f|%.1f|%.1f|%.1f|%.1f|%.1f|%.2f|%.2f|%.2f|%.2f\n", $1, $2, $3 * 1e3,
               ($1 in one) ? sprintf("%.2f", one[$1] / $3) : "-", $4 * 1e3, $5 * 1e3, $6 * 1e3, $7 * 1e3,
               $8 * 1e3, $9 * 1e3, $10 / 1e9, $11, $12, $13, $14 }' |
      md "pin|threads|total ms|speedup|bounds|keys|sort|gather|cells|search|triad GB/s|sort x floor|gather x floor|search x floor|total x floor"
    echo
    if [ -s "$dir/gens.csv" ]; then
      echo "Other generators at 10^7 (sc_bench, compact pinning); ms:"
      echo
      tab -v mode=select -v cols="dist,threads,total_s,s_sort,s_gather,s_cells,s_search" -v where="status=ok" "$dir/gens.csv" |
        awk '{ if ($2 == 1) one[$1] = $3
               printf "%s|%s|%.1f|%s|%.1f|%.1f|%.1f|%.1f\n", $1, $2, $3 * 1e3,
                 ($1 in one) ? sprintf("%.2f", one[$1] / $3) : "-", $4 * 1e3, $5 * 1e3, $6 * 1e3, $7 * 1e3 }' |
        md "generator|threads|total ms|speedup|sort|gather|cells|search"
      echo
    fi
    if [ -s "$dir/versus.csv" ]; then
      echo "All threads against the hand-written cell list (bench/compare/celllist_pairs.c), uniform; warm: median query in one process; process: median wall time of a whole process on the .npy file:"
      echo
      tab -v mode=select -v cols="what,n,tool,threads,median_s,first_s" "$dir/versus.csv" |
        awk '{ k = $1 SUBSEP $2; if ($3 == "spherecollide") { sc[k] = $5; fs[k] = $6; th[k] = $4 } else cl[k] = $5; order[NR] = k; w[k] = $1; n[k] = $2 }
          END { for (i = 1; i <= NR; i++) { k = order[i]; if (seen[k]++) continue
                  printf "%s|%s|%s|%.1f|%.1f|%.2f|%s\n", w[k], n[k], th[k], sc[k] * 1e3, cl[k] * 1e3, cl[k] / sc[k],
                    (w[k] == "warm" && fs[k] != "NaN") ? sprintf("%.2f", fs[k] / sc[k]) : "-" } }' |
        md "what|n|threads|spherecollide ms|cell list ms|cell list / spherecollide|first / warm"
      echo
    fi
  done
  [ "$found" = 1 ] || echo "_No bench/results/*/scaling/threads.csv: bench/run-scaling.sh has not run on a machine with more cores._"
}

# ---- splice the blocks into the document -----------------------------------------------
names=$(sed -n 's/^<!-- study:begin \([a-z_]*\) -->$/\1/p' "$doc")
for b in $names; do
  if declare -F "block_$b" >/dev/null; then
    "block_$b" >"$tmp/$b.md"
  else
    echo "_(make-study-md.sh has no block named $b)_" >"$tmp/$b.md"
  fi
done
awk -v dir="$tmp" '
  /^<!-- study:begin [a-z_]* -->$/ { print; name = $3; f = dir "/" name ".md"
      while ((getline line < f) > 0) print line; close(f); skip = 1; next }
  /^<!-- study:end [a-z_]* -->$/ { skip = 0; print; next }
  !skip { print }' "$doc" >"$tmp/study.md"
cp "$tmp/study.md" "$doc"
echo "make-study-md.sh: refreshed $(echo "$names" | wc -w) blocks of $doc from $datarel"
