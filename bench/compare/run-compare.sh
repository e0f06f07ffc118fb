#!/usr/bin/env bash
# run-compare.sh [--quick]: study experiment 6 (issue 3), spherecollide side
# by side with what users pick instead, on the same files, in the same run.
#
#   bench/compare/run-compare.sh          uniform, shell, wide, powerlaw, clustered at n = 1e6
#   bench/compare/run-compare.sh --quick  the same at n = 1e4 and 1e5, plus the
#                                         touching-pairs file (make_touching.py)
#   bench/compare/run-compare.sh --peers  issue 14's pairings at n = 1e6 on uniform
#                                         and powerlaw, 1 thread: spherecollide's
#                                         segtree vs CGAL, bvh vs FCL, kdsplit vs
#                                         scipy (each ratio against its peer)
#
# Runners (README.md says more): spherecollide (CLI, `pairs FILE --json
# --count-only`, 1 thread and all threads), the plain hash grid
# (the hashgrid peer, 1 thread, via hashgrid_pairs), CGAL box_self_intersection_d
# sequential and Parallel_tag (cgal_pairs), FCL's dynamic AABB tree manager
# (fcl_pairs), scipy cKDTree.query_pairs + exact filter (scipy_pairs.py). Every runner must agree with spherecollide
# on the pair count and the checksum; a disagreement or a crash is printed
# and makes the exit status 1 (after the CSV is written). A runner whose
# package is missing is reported "skipped: <package> not installed"; one that
# runs past the timeout is recorded as "timeout"; the hash grid and scipy
# refuse ("refused: ...") inputs whose single search radius would make them
# quadratic (their --max-tests / --max-candidates).
#
# Output: bench/results/<machine>/compare.csv (quick: quick-compare.csv,
# peers: peers-compare.csv, where spherecollide's rows name the algorithm in
# `mode` and each other tool's ratio is against the peer of its family),
# columns machine,isa,compiler,dist,n,tool,mode,threads,median_s,peak_rss_mb,
# pairs,checksum,ratio_vs_spherecollide. ratio_vs_spherecollide = this row's
# median_s / spherecollide's median_s with the same thread count, measured in
# this run (the 1-thread spherecollide row for single-threaded tools).
# Rows that did not produce a time carry the reason in median_s.
#
# Environment (defaults in brackets):
#   SC_COMPARE_TIMEOUT    seconds per runner invocation, all its repeats [600]
#   SC_COMPARE_REPEAT     repeats inside each runner (median taken) [3]
#   SC_COMPARE_SC_REPEAT  spherecollide counts per file and thread count, one
#                         process (pairs --repeat R, median) [5]
#   SC_COMPARE_MACHINE    results folder name [from the CPU model and cores,
#                         as sc_bench names it]
#   SC_COMPARE_PYTHON     Debian's python3 with python3-scipy [/usr/bin/python3]
#   SC_COMPARE_SIZES      override the sizes, e.g. "1e5 1e6"
#   SC_COMPARE_DISTS      override the distributions
#   SC_COMPARE_HASHGRID_MAX_TESTS    hashgrid_pairs --max-tests [2e9]
#   SC_COMPARE_SCIPY_MAX_CANDIDATES  scipy_pairs.py --max-candidates [1e8]
#   SC_COMPARE_CMAKE_ARGS extra options for the runners' configure step, e.g.
#                         -DCMAKE_DISABLE_FIND_PACKAGE_TBB=ON to see the skip path
# Build folders: build-compare-sc (the library and CLI, installed into
# build-compare-sc/prefix), build-compare (the runners, a separate CMake
# project); inputs are regenerated into build-compare/data each run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$root/bench/compare
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  --peers) quick=2 ;;
  "") ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
  *) echo "run-compare: unknown argument '$1' (use --quick, --peers or nothing)" >&2; exit 2 ;;
esac

timeout_s=${SC_COMPARE_TIMEOUT:-600}
repeat=${SC_COMPARE_REPEAT:-3}
sc_repeat=${SC_COMPARE_SC_REPEAT:-5}
python=${SC_COMPARE_PYTHON:-/usr/bin/python3}
hg_max=${SC_COMPARE_HASHGRID_MAX_TESTS:-2e9}
sp_max=${SC_COMPARE_SCIPY_MAX_CANDIDATES:-1e8}
dists=${SC_COMPARE_DISTS:-uniform shell wide powerlaw clustered}
[ "$quick" = 2 ] && dists=${SC_COMPARE_DISTS:-uniform powerlaw}
if [ "$quick" = 1 ]; then
  sizes=${SC_COMPARE_SIZES:-1e4 1e5}
else
  sizes=${SC_COMPARE_SIZES:-1e6}
fi
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)

# ---- build ----------------------------------------------------------------------
# shellcheck source=bench/compare/common.sh
. "$here/common.sh"
compare_build_sc run-compare
compare_configure_runners
cmake --build "$cb" -j "$jobs" >/dev/null
sed 's/^/   /' "$cb/SC_COMPARE_BUILT.txt"

# ---- what this machine is --------------------------------------------------------
compare_machine
compiler_of() { # build folder, language (C or CXX) -> "GNU 12.2.0"
  local f="" g
  for g in "$1"/CMakeFiles/*/CMake"$2"Compiler.cmake; do
    [ -f "$g" ] && f=$g
  done
  [ -n "$f" ] || { echo unknown; return; }
  printf '%s %s' "$(sed -n "s/^set(CMAKE_$2_COMPILER_ID \"\(.*\)\")/\1/p" "$f")" \
    "$(sed -n "s/^set(CMAKE_$2_COMPILER_VERSION \"\(.*\)\")/\1/p" "$f")"
}
cc_sc=$(compiler_of "$scb" C)
cc_cxx=$(compiler_of "$cb" CXX)
have_scipy=0
py_desc="python3 not found"
if [ -x "$python" ] && "$python" -c 'import scipy.spatial' 2>/dev/null; then
  have_scipy=1
  py_desc=$("$python" -c 'import platform, numpy, scipy; print("CPython", platform.python_version(), "scipy", scipy.__version__, "numpy", numpy.__version__)')
fi
have_numpy=0
if [ -x "$python" ] && "$python" -c 'import numpy' 2>/dev/null; then
  have_numpy=1
fi

results=$root/bench/results/$machine
mkdir -p "$results" "$cb/data" "$cb/logs"
csv=$results/compare.csv
[ "$quick" = 1 ] && csv=$results/quick-compare.csv
[ "$quick" = 2 ] && csv=$results/peers-compare.csv
tmpcsv=$csv.tmp.$$
trap 'rm -f "$tmpcsv"' EXIT
echo "machine,isa,compiler,dist,n,tool,mode,threads,median_s,peak_rss_mb,pairs,checksum,ratio_vs_spherecollide" >"$tmpcsv"

echo "== machine $machine ($cpu), $jobs logical CPUs, kernel $isa; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "   C: $cc_sc | C++: $cc_cxx | $py_desc | timeout ${timeout_s}s per runner"

# ---- helpers ---------------------------------------------------------------------
problems=0
declare -A ref_s   # "threads" -> spherecollide median seconds for this file
ref_pairs=""
ref_sum=""

last_ratio=""
csv_row() { # dist n tool mode threads compiler median rss pairs checksum
  local ratio=""
  if [[ "$7" =~ ^[0-9.eE+-]+$ ]]; then
    local t=$5 ref
    ref=${ref_s[$t]:-${ref_s[$jobs]:-}}
    if [ -n "$ref" ]; then
      ratio=$(awk -v a="$7" -v b="$ref" 'BEGIN { if (b > 0) printf "%.4g", a / b }')
    fi
  fi
  last_ratio=$ratio
  echo "$machine,$isa,${6//,/;},$1,$2,$3,$4,$5,$7,$8,$9,${10},$ratio" >>"$tmpcsv"
}

median() { # numbers on stdin -> median
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.9g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

field() { # key line -> value of key=value
  printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# Runs one comparison runner under the timeout and records its row.
run_tool() { # dist n file tool mode threads compiler log cmd...
  local dist=$1 n=$2 tool=$4 mode=$5 threads=$6 comp=$7 log=$8
  shift 8
  local out rc=0 line
  out=$(timeout --kill-after=10 "$timeout_s" "$@" 2>"$log") || rc=$?
  line=$(printf '%s\n' "$out" | tail -n 1)
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    printf '   %-12s %-11s timeout after %ss\n' "$tool" "$mode" "$timeout_s"
    csv_row "$dist" "$n" "$tool" "$mode" "$threads" "$comp" "timeout" "" "" ""
    return
  fi
  case "$line" in
    skipped:*|refused:*)
      printf '   %-12s %-11s %s\n' "$tool" "$mode" "$line"
      csv_row "$dist" "$n" "$tool" "$mode" "$threads" "$comp" "${line//,/;}" "" "" ""
      return ;;
  esac
  if [ "$rc" != 0 ] || [ "${line#pairs=}" = "$line" ]; then
    printf '   %-12s %-11s FAILED (exit %s), see %s\n' "$tool" "$mode" "$rc" "$log"
    tail -n 3 "$log" | sed 's/^/      /'
    csv_row "$dist" "$n" "$tool" "$mode" "$threads" "$comp" "failed (exit $rc)" "" "" ""
    problems=$((problems + 1))
    return
  fi
  local pairs sum secs rss th
  pairs=$(field pairs "$line")
  sum=$(field checksum "$line")
  secs=$(field seconds "$line")
  rss=$(field peak_rss_mb "$line")
  th=$(field threads "$line")
  csv_row "$dist" "$n" "$tool" "$mode" "${th:-$threads}" "$comp" "$secs" "$rss" "$pairs" "$sum"
  local verdict="agrees"
  if [ "$pairs" != "$ref_pairs" ] || [ "${sum,,}" != "${ref_sum,,}" ]; then
    verdict="DISAGREES with spherecollide ($ref_pairs pairs, $ref_sum)"
    problems=$((problems + 1))
  fi
  printf '   %-12s %-11s %2s thr %11.6f s %8s MiB  %10s pairs %s  x%s  %s\n' "$tool" "$mode" \
    "${th:-$threads}" "$secs" "$rss" "$pairs" "$sum" "$last_ratio" "$verdict"
}

# spherecollide itself: one CLI process per file and thread count with
# --repeat R: the median of R counts on one context (the library call, reading
# excluded; the first, cold run allocates the scratch), as the other runners
# take the median of their in-process repeats. Peak RSS of the process.
declare -A peer_s  # algorithm -> spherecollide median seconds (1 thread) for this file
run_spherecollide() { # dist n file threads [algorithm] -> sets ref_* ; returns 1 on failure
  local dist=$1 n=$2 file=$3 threads=$4 algo=${5:-grid} k json secs=() rss=0 r pairs="" sum=""
  local log=$cb/logs/$dist-$n-spherecollide-$algo-$threads.log
  : >"$log"
  for ((k = 0; k < 1; k++)); do
    local rssf=$cb/logs/rss.$$
    if [ -x /usr/bin/time ]; then
      json=$(timeout "$timeout_s" /usr/bin/time -f %M -o "$rssf" \
        "$cli" pairs "$file" --json --count-only --quiet --threads "$threads" --repeat "$sc_repeat" \
        --algorithm "$algo" 2>>"$log") || {
        echo "   spherecollide FAILED or timed out on $file (see $log)"; return 1; }
      r=$(tail -n 1 "$rssf")
    else
      json=$(timeout "$timeout_s" "$cli" pairs "$file" --json --count-only --quiet \
        --threads "$threads" --repeat "$sc_repeat" --algorithm "$algo" 2>>"$log") || { echo "   spherecollide FAILED on $file"; return 1; }
      r=""
    fi
    rm -f "$rssf"
    local p s t
    p=$(printf '%s' "$json" | sed -n 's/.*"pairs":\([0-9]*\).*/\1/p')
    s=$(printf '%s' "$json" | sed -n 's/.*"checksum":"\(0x[0-9a-fA-F]*\)".*/\1/p')
    t=$(printf '%s' "$json" | sed -n 's/.*"total":\([0-9.eE+-]*\).*/\1/p')
    if [ -z "$p" ] || [ -z "$s" ] || [ -z "$t" ]; then
      echo "   spherecollide: cannot parse its --json output: $json"; return 1
    fi
    if [ -n "$pairs" ] && { [ "$p" != "$pairs" ] || [ "$s" != "$sum" ]; }; then
      echo "   spherecollide: run $k disagrees with run 0"; return 1
    fi
    pairs=$p; sum=$s; secs+=("$t")
    if [ -n "$r" ] && [ "$r" -gt "$rss" ]; then rss=$r; fi
  done
  local med rss_mb=""
  med=$(printf '%s\n' "${secs[@]}" | median)
  [ "$rss" -gt 0 ] && rss_mb=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
  local shown=$threads
  [ "$threads" = 0 ] && shown=$jobs
  if [ -n "$ref_pairs" ] && { [ "$pairs" != "$ref_pairs" ] || [ "$sum" != "$ref_sum" ]; }; then
    echo "   spherecollide $algo with $shown threads DISAGREES with the first spherecollide run"; return 1
  fi
  ref_pairs=$pairs; ref_sum=$sum
  [ "$algo" = grid ] && ref_s[$shown]=$med
  [ "$shown" = 1 ] && peer_s[$algo]=$med
  csv_row "$dist" "$n" spherecollide "$algo" "$shown" "$cc_sc" "$med" "$rss_mb" "$pairs" "$sum"
  printf '   %-12s %-11s %2s thr %11.6f s %8s MiB  %10s pairs %s  (reference)\n' spherecollide "$algo" \
    "$shown" "$med" "${rss_mb:-?}" "$pairs" "$sum"
}

compare_file() { # dist n file
  local dist=$1 n=$2 file=$3 lg=$cb/logs/$1-$2
  echo "== $dist n=$n ($file)"
  ref_s=(); ref_pairs=""; ref_sum=""
  if ! run_spherecollide "$dist" "$n" "$file" 1 || ! run_spherecollide "$dist" "$n" "$file" 0; then
    problems=$((problems + 1))
    return
  fi
  run_tool "$dist" "$n" "$file" hashgrid seq 1 "$cc_sc" "$lg-hashgrid.log" \
    "$cb/hashgrid_pairs" "$file" --repeat "$repeat" --max-tests "$hg_max"
  if grep -q '^cgal_pairs built' "$cb/SC_COMPARE_BUILT.txt"; then
    run_tool "$dist" "$n" "$file" cgal seq 1 "$cc_cxx" "$lg-cgal-seq.log" \
      "$cb/cgal_pairs" "$file" --mode seq --repeat "$repeat"
    run_tool "$dist" "$n" "$file" cgal par "$jobs" "$cc_cxx" "$lg-cgal-par.log" \
      "$cb/cgal_pairs" "$file" --mode par --threads "$jobs" --repeat "$repeat"
  else
    local why
    why=$(sed -n 's/^cgal_pairs skipped: //p' "$cb/SC_COMPARE_BUILT.txt")
    for m in seq par; do
      printf '   %-12s %-11s skipped: %s\n' cgal "$m" "${why:-libcgal-dev not installed}"
      csv_row "$dist" "$n" cgal "$m" "$([ $m = seq ] && echo 1 || echo "$jobs")" "$cc_cxx" \
        "skipped: ${why:-libcgal-dev not installed}" "" "" ""
    done
  fi
  run_fcl "$dist" "$n" "$file"
  run_scipy "$dist" "$n" "$file"
}

run_cgal_seq() { # dist n file
  if grep -q '^cgal_pairs built' "$cb/SC_COMPARE_BUILT.txt"; then
    run_tool "$1" "$2" "$3" cgal seq 1 "$cc_cxx" "$cb/logs/$1-$2-cgal-seq.log" \
      "$cb/cgal_pairs" "$3" --mode seq --repeat "$repeat"
  else
    printf '   %-12s %-11s skipped: libcgal-dev not installed\n' cgal seq
    csv_row "$1" "$2" cgal seq 1 "$cc_cxx" "skipped: libcgal-dev not installed" "" "" ""
  fi
}

run_fcl() { # dist n file
  if grep -q '^fcl_pairs built' "$cb/SC_COMPARE_BUILT.txt"; then
    run_tool "$1" "$2" "$3" fcl dynamic_aabb 1 "$cc_cxx" "$cb/logs/$1-$2-fcl.log" \
      "$cb/fcl_pairs" "$3" --repeat "$repeat"
  else
    printf '   %-12s %-11s skipped: libfcl-dev not installed\n' fcl dynamic_aabb
    csv_row "$1" "$2" fcl dynamic_aabb 1 "$cc_cxx" "skipped: libfcl-dev not installed" "" "" ""
  fi
}

run_scipy() { # dist n file
  if [ "$have_scipy" = 1 ]; then
    run_tool "$1" "$2" "$3" scipy query_pairs 1 "$py_desc" "$cb/logs/$1-$2-scipy.log" \
      "$python" "$here/scipy_pairs.py" "$3" --repeat "$repeat" --max-candidates "$sp_max"
  else
    printf '   %-12s %-11s skipped: python3-scipy not installed\n' scipy query_pairs
    csv_row "$1" "$2" scipy query_pairs 1 "$py_desc" "skipped: python3-scipy not installed" "" "" ""
  fi
}

# --peers: each classic peer against the best-known code of its family, on
# one thread (issue 14): segtree vs CGAL's segment tree, bvh vs FCL's dynamic
# AABB tree, kdsplit vs scipy's k-d tree. Each tool's ratio is against its
# peer's median from the same run (ref_s[1] is set to it just before).
compare_peers() { # dist n file
  local dist=$1 n=$2 file=$3 a
  echo "== $dist n=$n ($file), peers against their families, 1 thread"
  ref_s=(); peer_s=(); ref_pairs=""; ref_sum=""
  for a in grid segtree bvh kdsplit; do
    run_spherecollide "$dist" "$n" "$file" 1 "$a" || { problems=$((problems + 1)); return; }
  done
  ref_s[1]=${peer_s[segtree]}; run_cgal_seq "$dist" "$n" "$file"
  ref_s[1]=${peer_s[bvh]}; run_fcl "$dist" "$n" "$file"
  ref_s[1]=${peer_s[kdsplit]}; run_scipy "$dist" "$n" "$file"
}

# ---- the runs --------------------------------------------------------------------
for n in $sizes; do
  ni=$(awk -v v="$n" 'BEGIN { printf "%d", v }')
  for dist in $dists; do
    f=$cb/data/$dist-$n.npy
    "$cli" gen "$dist" "$ni" --seed 1 -o "$f" >/dev/null
    if [ "$quick" = 2 ]; then
      compare_peers "$dist" "$ni" "$f"
    else
      compare_file "$dist" "$ni" "$f"
    fi
  done
done
if [ "$quick" = 1 ]; then
  if [ "$have_numpy" = 1 ]; then
    f=$cb/data/touching-2e4.npy
    "$python" "$here/make_touching.py" 20000 "$f" --seed 1 2>/dev/null
    compare_file touching 40000 "$f"
    # What rounding to nearest would lose: CGAL with boxes [x - r, x + r] as
    # rounded to nearest. Informational (a loss here is expected, not a failure).
    if grep -q '^cgal_pairs built' "$cb/SC_COMPARE_BUILT.txt" && [ -n "$ref_pairs" ]; then
      out=$(timeout "$timeout_s" "$cb/cgal_pairs" "$f" --mode seq --rounding nearest --repeat 1 \
        2>/dev/null | tail -n 1) || true
      p=$(field pairs "$out")
      if [ -n "$p" ]; then
        csv_row touching 40000 cgal seq-nearest-boxes 1 "$cc_cxx" "$(field seconds "$out")" \
          "$(field peak_rss_mb "$out")" "$p" "$(field checksum "$out")"
        printf '   %-12s %-11s boxes rounded to nearest find %s of %s pairs (informational: outward rounding is why the others find all)\n' \
          cgal seq "$p" "$ref_pairs"
      fi
    fi
  else
    echo "== touching: skipped: python3-numpy not installed"
  fi
fi

mv "$tmpcsv" "$csv"
trap - EXIT
echo
echo "run-compare: wrote $csv in $(( $(date +%s) - start )) s"
if [ "$problems" -gt 0 ]; then
  echo "run-compare: $problems runner(s) failed or disagreed with spherecollide (see above)" >&2
  exit 1
fi
echo "run-compare: every runner that ran agrees with spherecollide on count and checksum"
