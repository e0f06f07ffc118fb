#!/usr/bin/env bash
# run-oneshot.sh [--quick]: issue 16's targets, measured side by side in one
# run on this machine: spherecollide as users meet it (a whole process on a
# file, a fresh context's first query, a warm one) against celllist_pairs, a
# cell list written by hand as an HPC programmer would (celllist_pairs.c).
#
#   bench/compare/run-oneshot.sh          sizes 1e6, 4e6 and 1e7
#   bench/compare/run-oneshot.sh --quick  sizes 1e5 and 4e5 (a smoke run; its
#                                         figures are not the issue's)
#
# What it measures (all medians; both tools on all threads; every celllist
# answer must match spherecollide's pair count and checksum):
#   process   wall time of a whole process on uniform 1e6 (.npy), the two
#             tools alternating, SC_ONESHOT_PROCESS_REPEAT runs each:
#             `spherecollide pairs FILE --count-only --quiet` and
#             `celllist_pairs FILE --repeat 1` (target: celllist / sc >= 10);
#             then SC_ONESHOT_PAUSED_REPEAT runs each with SC_ONESHOT_PAUSE_S
#             seconds of pause before every process (row process-paused)
#   small     wall time of `spherecollide pairs FILE --count-only --quiet` on a
#             1,000-sphere text file (target <= 3 ms), beside /bin/true's
#   warm      one process each, the median of the repeats after the first:
#             `pairs FILE --count-only --repeat 5 --json` (seconds.total) and
#             `celllist_pairs FILE --repeat 4` (targets: celllist / sc >= 20 at
#             1e6, >= 25 at 4e6; sc <= 0.15 s at 1e7)
#   first     spherecollide's first query on a fresh context (seconds.first)
#             over its warm median (target <= 1.3 at 1e6 and 1e7)
#   read      .npy at 1e6 in GB/s (target >= 5): seconds.read + seconds.bounds
#             of a one-shot run (the CLI maps the file and the library's
#             bounds stage checks the values, the first touch of each page);
#             the seed's text file ../shared/data/spheres.dat in MB/s
#             (target >= 400): the median seconds.read of one-shot runs; the
#             same for its values as CSV with a header, a LAMMPS dump and XYZ
#             (no target: figures beside it)
#   perpair   every generator but dense at 1e6: warm seconds per
#             (sphere + pair) over uniform's (target <= 2), in
#             SC_ONESHOT_PERPAIR_ROUNDS rounds that each time every generator
#             once, each between two uniform runs; the median of the rounds'
#             ratios to the mean of those two
#
# Output: bench/results/<machine>/oneshot.csv (quick: quick-oneshot.csv), columns
# machine,isa,what,dist,n,tool,threads,median_s,first_s,pairs,checksum,value,target,met
# where value is the figure the target is about (a ratio, ms, GB/s or MB/s).
# Environment: SC_ONESHOT_PROCESS_REPEAT [21], SC_ONESHOT_PAUSED_REPEAT [5],
# SC_ONESHOT_PAUSE_S [3], SC_ONESHOT_SMALL_REPEAT [41],
# SC_ONESHOT_READ_REPEAT [11], SC_ONESHOT_PERPAIR_ROUNDS [5], SC_COMPARE_MACHINE (results folder name), SC_ONESHOT_SEED_FILE [the seed's
# file]. Build folders as run-compare.sh: build-compare-sc, build-compare.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$root/bench/compare
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
  *) echo "run-oneshot: unknown argument '$1' (use --quick or nothing)" >&2; exit 2 ;;
esac
prep=${SC_ONESHOT_PROCESS_REPEAT:-21}
pauserep=${SC_ONESHOT_PAUSED_REPEAT:-5} pause=${SC_ONESHOT_PAUSE_S:-3}
srep=${SC_ONESHOT_SMALL_REPEAT:-41}
seedfile=${SC_ONESHOT_SEED_FILE:-$root/../shared/data/spheres.dat}
jobs=$(nproc 2>/dev/null || echo 2)
if [ "$quick" = 1 ]; then n1=100000 n4=400000 n10=""; else n1=1000000 n4=4000000 n10=10000000; fi

# ---- build (the same folders and steps as run-compare.sh) -------------------------
# shellcheck source=bench/compare/common.sh
. "$here/common.sh"
compare_build_sc run-oneshot
compare_configure_runners
cmake --build "$cb" -j "$jobs" --target celllist_pairs >/dev/null
cell=$cb/celllist_pairs
[ -x "$cell" ] || { echo "run-oneshot: $cell was not built" >&2; exit 1; }
compare_machine
results=$root/bench/results/$machine
data=$cb/data/oneshot
mkdir -p "$results" "$data"
csv=$results/oneshot.csv
[ "$quick" = 1 ] && csv=$results/quick-oneshot.csv
tmpcsv=$csv.tmp.$$
trap 'rm -f "$tmpcsv"' EXIT
echo "machine,isa,what,dist,n,tool,threads,median_s,first_s,pairs,checksum,value,target,met" >"$tmpcsv"
echo "== machine $machine ($cpu), $jobs logical CPUs, kernel $isa; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- helpers ------------------------------------------------------------------------
problems=0
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.9g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
json() { printf '%s\n' "$2" | sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p" | head -n 1; }
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
calc() { awk "BEGIN { printf \"%.4g\", $1 }"; }
met() { awk -v v="$1" -v t="$3" "BEGIN { print (v $2 t) ? \"yes\" : \"no\" }"; }
row() { # what dist n tool median first pairs checksum value target(op num) met
  echo "$machine,$isa,$1,$2,$3,$4,$jobs,$5,$6,$7,$8,$9,${10},${11}" >>"$tmpcsv"
}
gen() { # dist n file
  [ -s "$3" ] || "$cli" gen "$1" "$2" --seed 1 -o "$3" --quiet
}
sc_warm() { # file -> the JSON line of pairs --repeat 5
  "$cli" pairs "$1" --count-only --repeat 5 --json
}
agree() { # what pairs sum pairs2 sum2
  if [ "$2" != "$4" ] || [ "$3" != "$5" ]; then
    echo "   DISAGREE on $1: spherecollide $2 $3, celllist $4 $5" >&2
    problems=$((problems + 1))
  fi
}
# Wall clock for whole processes: bash's own EPOCHREALTIME, read without
# starting a process or a subshell (a $(date) costs milliseconds here).

# ---- warm and first: uniform at each size ---------------------------------------------
for n in $n1 $n4 $n10; do
  f=$data/uniform-$n.npy
  gen uniform "$n" "$f"
  j=$(sc_warm "$f")
  tot=$(json total "$j") first=$(json first "$j")
  pairs=$(json pairs "$j") sum=$(json checksum "$j")
  out=$("$cell" "$f" --repeat 4)
  line=$(printf '%s\n' "$out" | tail -n 1)
  cfirst=$(printf '%s\n' "$out" | sed -n 's/^first=//p')
  csec=$(field seconds "$line")
  agree "uniform $n" "$pairs" "$sum" "$(field pairs "$line")" "$(field checksum "$line")"
  ratio=$(calc "$csec / $tot")
  fw=$(calc "$first / $tot")
  printf '   uniform %-9s warm: spherecollide %.4f s, celllist %.4f s (%sx); first/warm %s\n' "$n" "$tot" "$csec" "$ratio" "$fw"
  row warm uniform "$n" celllist "$csec" "$cfirst" "$pairs" "$sum" "" "" ""
  target=""
  [ "$n" = 1000000 ] && target=">= 20"
  [ "$n" = 4000000 ] && target=">= 25"
  row warm uniform "$n" spherecollide "$tot" "$first" "$pairs" "$sum" "$ratio" "$target" \
    "$([ -n "$target" ] && met "$ratio" ${target% *} ${target#* })"
  row first uniform "$n" spherecollide "$tot" "$first" "$pairs" "$sum" "$fw" "<= 1.3" "$(met "$fw" "<=" 1.3)"
  if [ "$n" = 10000000 ]; then
    row warm-1e7 uniform "$n" spherecollide "$tot" "$first" "$pairs" "$sum" "$tot" "<= 0.15" "$(met "$tot" "<=" 0.15)"
  fi
  if [ "$n" = "$n1" ]; then
    # The CLI maps the file and leaves the values' check to the library's
    # first stage (bounds), which is then the first touch of every page: a
    # one-shot run's read + bounds is what reading costs.
    j1=$("$cli" pairs "$f" --count-only --json)
    rd=$(calc "$(json read "$j1") + $(json bounds "$j1")")
    bytes=$(stat -c %s "$f")
    gbs=$(calc "$bytes / $rd / 1e9")
    echo "   read .npy $n: $rd s, read + bounds of a one-shot run ($gbs GB/s)"
    row read-npy uniform "$n" spherecollide "$rd" "" "$pairs" "$sum" "$gbs" ">= 5" "$(met "$gbs" ">=" 5)"
  fi
done

# ---- whole process on uniform n1 ---------------------------------------------------------
f=$data/uniform-$n1.npy
ts=() tc=()
for ((k = 0; k < prep; k++)); do
  a=$EPOCHREALTIME; "$cli" pairs "$f" --count-only --quiet >/dev/null; b=$EPOCHREALTIME
  "$cell" "$f" --repeat 1 >/dev/null; c=$EPOCHREALTIME
  ts+=("$(calc "${b/,/.} - ${a/,/.}")") tc+=("$(calc "${c/,/.} - ${b/,/.}")")
done
ps=$(printf '%s\n' "${ts[@]}" | median) pc=$(printf '%s\n' "${tc[@]}" | median)
pr=$(calc "$pc / $ps")
printf '   whole process, uniform %s: spherecollide %.4f s, celllist %.4f s (%sx)\n' "$n1" "$ps" "$pc" "$pr"
row process uniform "$n1" celllist "$pc" "" "" "" "" "" ""
row process uniform "$n1" spherecollide "$ps" "" "" "" "$pr" ">= 10" "$(met "$pr" ">=" 10)"
# The same after a pause before each process, as a user meets a command: on
# a virtual machine whose balloon reports free pages, memory freed seconds
# ago has gone back to the host by then, and back-to-back processes reuse
# what the one before just freed (docs/one-shot.md, "First touch").
ts=() tc=()
for ((k = 0; k < pauserep; k++)); do
  sleep "$pause"; a=$EPOCHREALTIME; "$cli" pairs "$f" --count-only --quiet >/dev/null; b=$EPOCHREALTIME
  sleep "$pause"; c=$EPOCHREALTIME; "$cell" "$f" --repeat 1 >/dev/null; d=$EPOCHREALTIME
  ts+=("$(calc "${b/,/.} - ${a/,/.}")") tc+=("$(calc "${d/,/.} - ${c/,/.}")")
done
ps=$(printf '%s\n' "${ts[@]}" | median) pc=$(printf '%s\n' "${tc[@]}" | median)
pr=$(calc "$pc / $ps")
printf '   whole process after %s s, uniform %s: spherecollide %.4f s, celllist %.4f s (%sx)\n' "$pause" "$n1" "$ps" "$pc" "$pr"
row process-paused uniform "$n1" celllist "$pc" "" "" "" "" "" ""
row process-paused uniform "$n1" spherecollide "$ps" "" "" "" "$pr" ">= 10" "$(met "$pr" ">=" 10)"

# ---- a 1,000-sphere text file ------------------------------------------------------------
f=$data/uniform-1000.txt
gen uniform 1000 "$f"
tt=() te=()
for ((k = 0; k < srep; k++)); do
  a=$EPOCHREALTIME; "$cli" pairs "$f" --count-only --quiet >/dev/null; b=$EPOCHREALTIME
  /bin/true; c=$EPOCHREALTIME
  tt+=("$(calc "(${b/,/.} - ${a/,/.}) * 1e3")") te+=("$(calc "(${c/,/.} - ${b/,/.}) * 1e3")")
done
sm=$(printf '%s\n' "${tt[@]}" | median) em=$(printf '%s\n' "${te[@]}" | median)
echo "   1,000-sphere text file, whole process: $sm ms (/bin/true: $em ms)"
row small uniform 1000 /bin/true "$(calc "$em / 1e3")" "" "" "" "$em" "" ""
row small uniform 1000 spherecollide "$(calc "$sm / 1e3")" "" "" "" "$sm" "<= 3" "$(met "$sm" "<=" 3)"

# ---- the seed's text file, and its values as CSV, a LAMMPS dump and XYZ ------------------
# seconds.read of one-shot runs, the median of SC_ONESHOT_READ_REPEAT; the
# other formats are written from the seed's own tokens (awk copies them as
# text), so every file holds the same numbers.
rrep=${SC_ONESHOT_READ_REPEAT:-11}
read_row() { # what file target [pairs options...]: one row, MB/s of the median read
  local what=$1 file=$2 target=$3 j rd mbs k
  shift 3
  local rs=()
  for ((k = 0; k < rrep; k++)); do
    j=$("$cli" pairs "$file" --count-only --json "$@")
    rs+=("$(json read "$j")")
  done
  rd=$(printf '%s\n' "${rs[@]}" | median)
  mbs=$(calc "$(stat -c %s "$file") / $rd / 1e6")
  echo "   $what: $rd s, median of $rrep one-shot runs ($mbs MB/s)"
  row "$what" spheres.dat "$(json n "$j")" spherecollide "$rd" "" "$(json pairs "$j")" \
    "$(json checksum "$j")" "$mbs" "$target" "$([ -n "$target" ] && met "$mbs" ">=" 400)"
}
if [ -s "$seedfile" ]; then
  read_row read-text "$seedfile" ">= 400"
  awk 'BEGIN { print "id,el,x,y,z,radius,vx" } { sub(/\r/, ""); if (NF) v[n++] = $1 }
       END { for (i = 0; i + 3 < n; i += 4) printf "%d,C,%s,%s,%s,%s,0.0\n", i / 4 + 1, v[i], v[i + 1], v[i + 2], v[i + 3] }' \
    "$seedfile" >"$data/seed.csv"
  awk '{ sub(/\r/, ""); if (NF) v[n++] = $1 }
       END { printf "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n%d\nITEM: BOX BOUNDS ff ff ff\n0 1e4\n0 1e4\n0 1e4\nITEM: ATOMS id type x y z radius\n", int(n / 4)
             for (i = 0; i + 3 < n; i += 4) printf "%d 1 %s %s %s %s\n", i / 4 + 1, v[i], v[i + 1], v[i + 2], v[i + 3] }' \
    "$seedfile" >"$data/seed.dump"
  awk '{ sub(/\r/, ""); if (NF) v[n++] = $1 }
       END { printf "%d\nthe seed spheres\n", int(n / 4)
             for (i = 0; i + 3 < n; i += 4) printf "%s %s %s %s\n", (i / 4) % 3 ? "C" : "He", v[i], v[i + 1], v[i + 2] }' \
    "$seedfile" >"$data/seed.xyz"
  read_row read-csv "$data/seed.csv" ""
  read_row read-lammps "$data/seed.dump" ""
  read_row read-xyz "$data/seed.xyz" "" --radius C=1.5,He=0.5
else
  echo "   the seed's file $seedfile is missing: read-text not measured"
fi

# ---- per (sphere + pair), every generator at n1, in alternating rounds -----------------
# The host's speed drifts by up to 2x within minutes and the ratios follow
# uniform's own time, so each generator is bracketed by uniform: a round runs
# uniform, G1, uniform, G2, ..., uniform, and G's ratio in that round is its
# seconds per (sphere + pair) over the mean of the two uniform runs beside it
# (a drift that is linear over the bracket cancels). A generator's figure is
# the median of its rounds' ratios; its seconds, the median of its rounds.
prounds=${SC_ONESHOT_PERPAIR_ROUNDS:-5}
others=$("$cli" gen --help | awk '/^Distributions:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' |
  grep -v -x -e uniform -e dense | tr '\n' ' ')
dists="uniform $others"
declare -A ptot prel pfirst ppairs psum
for dist in $dists; do
  gen "$dist" "$n1" "$data/$dist-$n1.npy"
done
measure() { # dist -> sets per (seconds per sphere + pair); records seconds, first, pairs
  local dist=$1 j tot pairs
  j=$(sc_warm "$data/$dist-$n1.npy")
  tot=$(json total "$j") pairs=$(json pairs "$j")
  per=$(calc "$tot / ($n1 + $pairs)")
  ptot[$dist]+="$tot "
  if [ -z "${ppairs[$dist]:-}" ]; then
    pfirst[$dist]=$(json first "$j") ppairs[$dist]=$pairs psum[$dist]=$(json checksum "$j")
  elif [ "$pairs" != "${ppairs[$dist]}" ]; then
    echo "   DISAGREE on $dist: $pairs pairs now, ${ppairs[$dist]} before" >&2
    problems=$((problems + 1))
  fi
}
for ((round = 1; round <= prounds; round++)); do
  measure uniform
  ubefore=$per
  for dist in $others; do
    measure "$dist"
    gper=$per
    measure uniform
    prel[$dist]+="$(calc "2 * $gper / ($ubefore + $per)") "
    ubefore=$per
  done
  prel[uniform]+="1 "
done
for dist in $dists; do
  tot=$(printf '%s\n' ${ptot[$dist]} | median) rel=$(printf '%s\n' ${prel[$dist]} | median)
  printf '   %-12s %s: %.4f s, %s pairs, %s x uniform per (sphere + pair) (rounds: %s)\n' "$dist" "$n1" \
    "$tot" "${ppairs[$dist]}" "$rel" "${prel[$dist]% }"
  row perpair "$dist" "$n1" spherecollide "$tot" "${pfirst[$dist]}" "${ppairs[$dist]}" "${psum[$dist]}" \
    "$rel" "<= 2" "$(met "$rel" "<=" 2)"
  [ "$dist" = uniform ] || rm -f "$data/$dist-$n1.npy"
done

mv "$tmpcsv" "$csv"
trap - EXIT
echo "== wrote $csv"
[ "$problems" = 0 ] || { echo "run-oneshot: $problems disagreement(s)" >&2; exit 1; }
