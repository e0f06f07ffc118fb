#!/usr/bin/env bash
# make-figures.sh: every figure of the study (docs/study.md) from the CSVs of
# bench/run-study.sh, with gnuplot (Debian gnuplot-nox), as PNG (pngcairo, or
# png without cairo) and SVG.
#
#   bench/plots/make-figures.sh [--quick] [--data DIR] [--figures DIR] [--machine TAG]
#
# Defaults: DIR = bench/results/<machine>/study (quick: study-quick), figures
# into docs/figures (quick: docs/figures/quick). Figures of a --quick run say
# so in their subtitle. A figure whose CSV is missing is skipped with a note.
# Tables for gnuplot are made with table.awk in a temporary folder.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=0
data=""
figs=""
machine=${SC_STUDY_MACHINE_TAG:-}
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --data) data=$2; shift ;;
    --figures) figs=$2; shift ;;
    --machine) machine=$2; shift ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "make-figures.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "make-figures.sh: gnuplot is not installed (Debian: gnuplot-nox); no figures" >&2
  exit 3
fi
if [ -z "$machine" ]; then
  model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
  base=$(printf '%s' "${model:-unknown}" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
  machine="${base:-unknown}-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)c"
fi
results=$root/bench/results/$machine
if [ -z "$data" ]; then
  if [ "$quick" = 1 ]; then data=$results/study-quick; else data=$results/study; fi
fi
if [ -z "$figs" ]; then
  if [ "$quick" = 1 ]; then figs=$root/docs/figures/quick; else figs=$root/docs/figures; fi
fi
mkdir -p "$figs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pngterm=png
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then pngterm=pngcairo; fi

tab() { awk -f "$here/csv.awk" -f "$here/table.awk" "$@"; }
ncols() { head -n 1 "$1" | awk '{ print NF - 1 }'; }
have() { [ -s "$data/$1" ] || { echo "  (skipped: no $data/$1)"; return 1; }; }
nonempty() { [ "$(wc -l <"$1")" -gt 1 ]; } # a pivot table with at least one row

first_csv=$(find "$data" -maxdepth 1 -name '*.csv' ! -name bandwidth.csv ! -name cachegrind.csv 2>/dev/null |
  sort | head -n 1)
if [ -z "$first_csv" ]; then
  echo "make-figures.sh: no CSV in $data (run bench/run-study.sh first)" >&2
  exit 2
fi
desc=$(tab -v mode=select -v cols="machine,cpu,cores,compiler,isa" "$first_csv" | head -n 1 |
  awk '{ for (i = 1; i <= NF; i++) gsub(/_/, " ", $i); printf "%s (%s, %s CPUs), %s, kernel %s", $1, $2, $3, $4, $5 }')
# threads the library used with "all"
pmax=$(tab -v mode=select -v cols="threads" -v where="threads_req=all;status=ok" "$first_csv" | head -n 1)
pmax=${pmax:-2}
if [ "$quick" = 1 ]; then
  note="$desc | QUICK RUN: small n, 3 repeats - a smoke test, not the study's result"
else
  note="$desc | median of the timed repeats"
fi

made=0
plot() { # plot SCRIPT NAME VAR=VALUE...: PNG and SVG; numeric values go unquoted
  local script=$1 name=$2 fmt kv v
  shift 2
  local args=()
  for kv in "$@"; do
    v=${kv#*=}
    if [[ "$v" =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then
      args+=(-e "${kv%%=*}=$v")
    else
      args+=(-e "${kv%%=*}=\"$v\"")
    fi
  done
  for fmt in png svg; do
    if ! (cd "$here" && gnuplot -e "fmt=\"$fmt\"; pngterm=\"$pngterm\"; out=\"$figs/$name\"; note=\"$note\"" \
        "${args[@]}" "$script" 2>"$tmp/gnuplot.err"); then
      echo "make-figures.sh: gnuplot failed on $name ($script):" >&2
      cat "$tmp/gnuplot.err" >&2
      return 1
    fi
  done
  if [ -s "$tmp/gnuplot.err" ]; then sed "s/^/  gnuplot ($name): /" "$tmp/gnuplot.err" | head -n 3 >&2; fi
  made=$((made + 1))
  echo "  $name.png, $name.svg"
}

echo "make-figures.sh: $data -> $figs ($pngterm and svg)"
stage_names="bounds keys sort gather cells search merge"

# ---- experiment 1: growth -------------------------------------------------------------
if have growth.csv; then
  anchors_csv=""
  if [ -s "$results/compare.csv" ]; then anchors_csv=$results/compare.csv
  elif [ "$quick" = 1 ] && [ -s "$results/quick-compare.csv" ]; then anchors_csv=$results/quick-compare.csv
  fi
  bench_csvs=()
  for f in "$results/sweep.csv" "$results/baseline.csv"; do [ -s "$f" ] && bench_csvs+=("$f"); done
  dists=$(tab -v mode=select -v cols=dist -v where="status=ok" "$data/growth.csv" | awk '!s[$1]++')
  for d in $dists; do
    tab -v mode=pivot -v row=n -v col=threads -v val=total_s -v where="dist=$d;status=ok" "$data/growth.csv" |
      awk 'NR == 1 { for (i = 2; i <= NF; i++) $i = "spherecollide_" $i "_thr" } { print }' >"$tmp/g-$d.dat"
    {
      if [ -n "$anchors_csv" ]; then # bench/compare: every other tool, numeric times only
        tab -v mode=select -v cols="n,tool,mode,threads,median_s" \
          -v where="dist=$d;tool!=spherecollide;median_s~^[0-9]" "$anchors_csv" |
          awk '{ printf "%s %s_%s_%sthr %s\n", $1 + 0, $2, $3, $4, $5 }'
      fi
      if [ "${#bench_csvs[@]}" -gt 0 ]; then # sc_bench's plain hash grid
        tab -v mode=select -v cols="n,total_s" -v where="dist=$d;algo=hashgrid;status=ok" "${bench_csvs[@]}" |
          awk '{ printf "%s hashgrid(sc_bench) %s\n", $1, $2 }'
      fi
    } | awk '{ if (!($1 in ns)) { ns[$1] = 1; nl[++nn] = $1 } if (!($2 in ts)) { ts[$2] = 1; tl[++nt] = $2 } v[$1, $2] = $3 }
        END { if (!nt) exit; s = "key"; for (j = 1; j <= nt; j++) s = s " " tl[j]; print s
              for (i = 1; i <= nn; i++) { s = nl[i]; for (j = 1; j <= nt; j++) s = s " " ((nl[i], tl[j]) in v ? v[nl[i], tl[j]] : "NaN"); print s } }' \
      >"$tmp/a-$d.dat"
    nanc=0
    anc=""
    if [ -s "$tmp/a-$d.dat" ]; then nanc=$(ncols "$tmp/a-$d.dat"); anc=$tmp/a-$d.dat; fi
    plot growth.gp "growth-$d" dat="$tmp/g-$d.dat" ncol="$(ncols "$tmp/g-$d.dat")" anchors="$anc" \
      nanc="$nanc" dist="$d"
  done
  # ns per (sphere + pair), all threads, every generator
  tab -v mode=pivot -v row=n -v col=dist -v val=ns_per_item -v where="threads_req=all;status=ok" \
    "$data/growth.csv" | awk 'NR == 1 { print; next } { print | "sort -g" }' >"$tmp/items.dat"
  plot lines.gp growth-ns-per-item dat="$tmp/items.dat" ncol="$(ncols "$tmp/items.dat")" logx=1 logy=1 \
    title="ns per (sphere + pair) vs n, all threads ($pmax)" xlabel="spheres n" ylabel="ns per (sphere + pair)"

  # stacked stages: each generator at its largest n, all threads, ns per (sphere + pair)
  tab -v mode=select -v cols="dist,n,s_bounds,s_keys,s_sort,s_gather,s_cells,s_search,s_merge,pairs" \
    -v where="threads_req=all;status=ok" "$data/growth.csv" |
    awk -v names="$stage_names" '
      { if (!($1 in big) || $2 + 0 > big[$1] + 0) { big[$1] = $2; line[$1] = $0 } if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
      END { print "key " names
            for (i = 1; i <= k; i++) { split(line[order[i]], f, " ")
              s = f[1] "(" f[2] ")"; for (j = 3; j <= 9; j++) s = s " " f[j] * 1e9 / (f[2] + f[10]); print s } }' \
    >"$tmp/stages-dist.dat"
  plot bars.gp stages-by-dist dat="$tmp/stages-dist.dat" ncol=7 stacked=1 xrot=30 \
    title="Time per stage, each generator at its largest n, all threads" ylabel="ns per (sphere + pair)"
  tab -v mode=select -v cols="n,s_bounds,s_keys,s_sort,s_gather,s_cells,s_search,s_merge" \
    -v where="dist=uniform;threads_req=all;status=ok" "$data/growth.csv" |
    awk -v names="$stage_names" 'BEGIN { print "key " names }
      { s = $1; for (j = 2; j <= 8; j++) s = s " " $j * 1e9 / $1; print s }' >"$tmp/stages-n.dat"
  if nonempty "$tmp/stages-n.dat"; then
    plot bars.gp stages-uniform-by-n dat="$tmp/stages-n.dat" ncol=7 stacked=1 \
      title="Time per stage vs n, uniform, all threads" ylabel="ns per sphere" xlabel="spheres n"
  fi

  # ---- experiment 2: distance to the byte floor ------------------------------------------
  tab -v mode=select -v cols="dist,n,threads,ratio_bounds,ratio_keys,ratio_sort,ratio_gather,ratio_cells,ratio_search,ratio_total" \
    -v where="status=ok;dist!=dense" "$data/growth.csv" |
    awk '{ if (!($1 in big) || $2 + 0 > big[$1] + 0) big[$1] = $2; r[NR] = $0 }
      END { for (i = 1; i <= NR; i++) { split(r[i], f, " "); if (f[2] == big[f[1]] && f[1] == "uniform") print r[i] } }' \
    >"$tmp/floor-uniform.raw"
  if [ -s "$tmp/floor-uniform.raw" ]; then
    awk 'BEGIN { split("bounds keys sort gather cells search total", st, " ") }
      { nt[++k] = $3; for (j = 1; j <= 7; j++) v[k, j] = $(j + 3); n = $2 }
      END { s = "stage"; for (i = 1; i <= k; i++) s = s " " nt[i] "_thr"; print s
            for (j = 1; j <= 7; j++) { s = st[j]; for (i = 1; i <= k; i++) s = s " " v[i, j]; print s } }' \
      "$tmp/floor-uniform.raw" >"$tmp/floor.dat"
    nfl=$(awk 'NR == 1 { print $2 }' "$tmp/floor-uniform.raw")
    plot bars.gp floor-ratio dat="$tmp/floor.dat" ncol="$(ncols "$tmp/floor.dat")" logy=1 \
      title="Measured time / byte-floor time per stage, uniform n = $nfl" ylabel="x the floor (1 = at the memory bound)"
  fi
  tab -v mode=pivot -v row=dist -v col=threads -v val=ratio_total -v where="status=ok;dist!=dense" \
    "$data/growth.csv" >/dev/null # (all sizes: see the tables in docs/study.md)
fi

# ---- experiment 3: locality ----------------------------------------------------------------
cg=""
[ -s "$data/cachegrind.csv" ] && cg=$data/cachegrind.csv
misses() { # misses GROUP -> table "variant D1 L2 L3" (per sphere, one warm query)
  [ -n "$cg" ] || return 0
  tab -v mode=select -v cols="variant,hierarchy,d1_misses_per_sphere,ll_misses_per_sphere" \
    -v where="group=$1;status=ok" "$cg" |
    awk '{ if (!($1 in s)) { s[$1] = 1; o[++k] = $1 } if ($2 == "L2") { d1[$1] = $3; l2[$1] = $4 } else l3[$1] = $4 }
      END { print "key L1(D1) L2 L3"; for (i = 1; i <= k; i++) print o[i], d1[o[i]], l2[o[i]], l3[o[i]] }'
}
if have order.csv; then
  tab -v mode=pivot -v row=dist -v col=order -v val=total_s -v where="threads=1;status=ok" "$data/order.csv" |
    awk 'NR == 1 { print; next } { s = $1; for (i = 2; i <= NF; i++) s = s " " $i * 1e3; print s }' \
    >"$tmp/order-time.dat"
  misses order >"$tmp/order-miss.dat"
  right=""; [ -s "$tmp/order-miss.dat" ] && right=$tmp/order-miss.dat
  plot pair.gp locality-order left="$tmp/order-time.dat" lncol=3 ltitle="median time, 1 thread" \
    lylabel="ms per query" right="$right" rncol=3 rtitle="cachegrind: misses per sphere, one warm query" \
    rylabel="misses per sphere" title="Input order: as generated, shuffled, Morton-sorted"
fi
if have layout.csv; then
  tab -v mode=select -v cols="dist,layout,kernel,threads,total_s" -v where="status=ok" "$data/layout.csv" |
    awk '{ k = $2 "/" $3 "/" $4 "thr"; if (!(k in s)) { s[k] = 1; c[++nc] = k } if (!($1 in d)) { d[$1] = 1; r[++nr] = $1 } v[$1, k] = $5 * 1e3 }
      END { h = "key"; for (j = 1; j <= nc; j++) h = h " " c[j]; print h
            for (i = 1; i <= nr; i++) { s2 = r[i]; for (j = 1; j <= nc; j++) s2 = s2 " " ((r[i], c[j]) in v ? v[r[i], c[j]] : "NaN"); print s2 } }' \
    >"$tmp/layout-time.dat"
  misses layout >"$tmp/layout-miss.dat"
  right=""; [ -s "$tmp/layout-miss.dat" ] && right=$tmp/layout-miss.dat
  plot pair.gp locality-layout left="$tmp/layout-time.dat" lncol="$(ncols "$tmp/layout-time.dat")" \
    ltitle="median time" lylabel="ms per query" right="$right" rncol=3 \
    rtitle="cachegrind: misses per sphere (uniform, 1 thread)" rylabel="misses per sphere" \
    title="Layout: gathered working copy (rows z-major or Morton) vs indirect reads" xrot=15
fi
if have cellsize.csv; then
  # relative time vs cell factor per generator (and levels asked), each curve's optimum marked
  tab -v mode=select -v cols="cell_factor,dist,levels_req,total_s" -v where="status=ok" "$data/cellsize.csv" |
    awk '{ k = $2 ($3 == "auto" ? "" : "_levels=" $3); if (!($1 in rs)) { rs[$1] = 1; r[++nr] = $1 }
           if (!(k in cs)) { cs[k] = 1; c[++nc] = k } v[$1, k] = $4 }
      END { h = "key"; for (j = 1; j <= nc; j++) h = h " " c[j]; print h
            for (i = 1; i <= nr; i++) { s = r[i]; for (j = 1; j <= nc; j++) s = s " " ((r[i], c[j]) in v ? v[r[i], c[j]] : "NaN"); print s } }' \
    >"$tmp/cf.raw"
  awk 'NR == 1 { print; next } { for (i = 2; i <= NF; i++) if ($i != "NaN" && (!(i in m) || $i + 0 < m[i])) m[i] = $i + 0; r[NR] = $0 }
    END { for (k = 2; k <= NR; k++) { split(r[k], f, " "); s = f[1]; for (i = 2; i in f; i++) s = s " " (f[i] == "NaN" ? "NaN" : f[i] / m[i]); print s } }' \
    "$tmp/cf.raw" >"$tmp/cf.dat"
  awk 'NR == 1 { next } { for (i = 2; i <= NF; i++) if ($i != "NaN" && (!(i in m) || $i + 0 < m[i])) { m[i] = $i + 0; x[i] = $1 } }
    END { print "cell_factor relative"; for (i in m) print x[i], 1 }' "$tmp/cf.raw" >"$tmp/cf-opt.dat"
  nn=$(tab -v mode=select -v cols=n "$data/cellsize.csv" | head -n 1)
  plot lines.gp cellsize-sweep dat="$tmp/cf.dat" ncol="$(ncols "$tmp/cf.dat")" marks="$tmp/cf-opt.dat" \
    title="Cell-size factor sweep, n = $nn, all threads (1 = each generator's fastest)" \
    xlabel="options.cell_factor (cell edge / twice the largest radius of its level)" ylabel="time / fastest time"
  tab -v mode=select -v cols="cell_factor,total_s" -v where="dist=uniform;levels_req=auto;status=ok" "$data/cellsize.csv" |
    awk 'BEGIN { print "key uniform_time_ms" } { print "cf" $1, $2 * 1e3 }' >"$tmp/cf-time.dat"
  misses cellsize >"$tmp/cf-miss.dat"
  right=""; [ -s "$tmp/cf-miss.dat" ] && right=$tmp/cf-miss.dat
  plot pair.gp locality-cellsize left="$tmp/cf-time.dat" lncol=1 ltitle="median time, uniform, all threads" \
    lylabel="ms per query" right="$right" rncol=3 rtitle="cachegrind: misses per sphere (uniform, 1 thread)" \
    rylabel="misses per sphere" title="Cell-size factor: time and cache misses" xrot=0
fi
if have levels.csv; then
  tab -v mode=pivot -v row=levels_req -v col=dist -v val=total_s -v where="status=ok;levels_req!=auto" \
    "$data/levels.csv" >"$tmp/lev.dat"
  # the cost model's pick: drawn at the level count its plan used
  { echo "levels seconds"
    tab -v mode=select -v cols="plan_levels,total_s" -v where="status=ok;levels_req=auto" "$data/levels.csv"
  } >"$tmp/lev-auto.dat"
  nn=$(tab -v mode=select -v cols=n "$data/levels.csv" | head -n 1)
  plot lines.gp levels dat="$tmp/lev.dat" ncol="$(ncols "$tmp/lev.dat")" marks="$tmp/lev-auto.dat" logy=1 \
    markslabel="cost model's choice (levels = 0)" title="Grid levels forced 1..max, n = $nn, all threads" \
    xlabel="options.levels" ylabel="seconds (median)"
fi

# ---- experiment 4: threads and pinning ----------------------------------------------------
if have threads.csv; then
  tab -v mode=select -v cols="pin_req,threads,total_s" -v where="status=ok" "$data/threads.csv" |
    awk '{ if ($2 == 1) one[$1] = $3; t[NR] = $0 }
      END { for (i = 1; i <= NR; i++) { split(t[i], f, " "); if (f[1] in one) print f[2], f[1], one[f[1]] / f[3] } }' |
    awk '{ if (!($1 in rs)) { rs[$1] = 1; r[++nr] = $1 } if (!($2 in cs)) { cs[$2] = 1; c[++nc] = $2 } v[$1, $2] = $3 }
      END { h = "threads"; for (j = 1; j <= nc; j++) h = h " " c[j]; print h
            for (i = 1; i <= nr; i++) { s = r[i]; for (j = 1; j <= nc; j++) s = s " " ((r[i], c[j]) in v ? v[r[i], c[j]] : "NaN"); print s } }' \
    >"$tmp/speedup.dat"
  nn=$(tab -v mode=select -v cols=n "$data/threads.csv" | head -n 1)
  plot lines.gp threads-speedup dat="$tmp/speedup.dat" ncol="$(ncols "$tmp/speedup.dat")" ideal=1 \
    title="Speedup vs threads per pinning policy, uniform n = $nn (vs 1 thread, same policy)" \
    xlabel="threads" ylabel="speedup"
  # per stage at the largest thread count, per policy
  tab -v mode=select -v cols="pin_req,threads,s_bounds,s_keys,s_sort,s_gather,s_cells,s_search,total_s" \
    -v where="status=ok" "$data/threads.csv" |
    awk 'BEGIN { split("bounds keys sort gather cells search total", st, " ") }
      { p = $1; th = $2 + 0; if (th == 1) for (j = 1; j <= 7; j++) one[p, j] = $(j + 2)
        if (!(p in mx) || th > mx[p]) { mx[p] = th; for (j = 1; j <= 7; j++) top[p, j] = $(j + 2) }
        if (!(p in ps)) { ps[p] = 1; pl[++np] = p } }
      END { h = "stage"; for (i = 1; i <= np; i++) h = h " " pl[i] "_" mx[pl[i]] "thr"; print h
            for (j = 1; j <= 7; j++) { s = st[j]; for (i = 1; i <= np; i++) { p = pl[i]
              s = s " " (top[p, j] > 0 && (p, j) in one ? one[p, j] / top[p, j] : "NaN") } print s } }' \
    >"$tmp/speedup-stages.dat"
  plot bars.gp threads-stages dat="$tmp/speedup-stages.dat" ncol="$(ncols "$tmp/speedup-stages.dat")" \
    title="Speedup per stage at the most threads, per pinning policy, uniform n = $nn" ylabel="speedup vs 1 thread"
fi

# ---- experiment 3d: the float32 prototype (kernel_bench) ---------------------------------
if have kernel-f32.csv; then
  tab -v mode=select -v cols="kernel,gtests_per_s" -v where="workload=synthetic" "$data/kernel-f32.csv" |
    awk 'BEGIN { print "key 10^9_tests/s" } { print $1, $2 }' >"$tmp/f32-rate.dat"
  tab -v mode=select -v cols="kernel,recheck_share" -v where="workload=synthetic;kernel~^f32" "$data/kernel-f32.csv" |
    awk 'BEGIN { print "key decided_again_in_double_%" } { print $1, 100 * $2 }' >"$tmp/f32-recheck.dat"
  if nonempty "$tmp/f32-rate.dat"; then
    right=""; nonempty "$tmp/f32-recheck.dat" && right=$tmp/f32-recheck.dat
    plot pair.gp locality-floatcopy left="$tmp/f32-rate.dat" lncol=1 ltitle="kernels alone, 1 thread" \
      lylabel="10^9 candidate tests / s" right="$right" rncol=1 \
      rtitle="float32 prototype: tests decided again in double" rylabel="% of candidate tests" \
      title="float32 (16 B/sphere, coordinate range L) vs float64 working copy (32 B/sphere)" xrot=15
  fi
fi

# ---- experiment 5: kernels ---------------------------------------------------------------
if have kernels.csv; then
  tab -v mode=select -v cols="dist,n,threads,kernel,tests_per_s" -v where="status=ok" "$data/kernels.csv" |
    awk '{ k = $1 "(" $2 ")," $3 "thr"; if (!(k in rs)) { rs[k] = 1; r[++nr] = k } v[k, $4] = $5 / 1e9 }
      END { print "key scalar avx2"; for (i = 1; i <= nr; i++) print r[i], ((r[i], "scalar") in v ? v[r[i], "scalar"] : "NaN"), ((r[i], "avx2") in v ? v[r[i], "avx2"] : "NaN") }' \
    >"$tmp/kernels.dat"
  plot bars.gp kernels dat="$tmp/kernels.dat" ncol=2 xrot=30 \
    title="Narrowphase throughput: candidate tests per second of the search stage" ylabel="10^9 candidate tests / s"
fi

echo "make-figures.sh: $made figures (PNG + SVG) in $figs"
