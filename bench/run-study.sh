#!/usr/bin/env bash
# run-study.sh: the whole performance study (issue 3, docs/study.md) in one
# command: builds Release, runs every scenario, the simulated cache misses,
# the comparison with the tools users pick instead (bench/compare, when
# present), then regenerates every figure and the tables of docs/study.md.
#
#   bench/run-study.sh            the full study (about 20 minutes on 2 cores,
#                                 most of it n = 1e7 growth, cachegrind at n = 1e6
#                                 and bench/compare's CGAL/scipy runs)
#   bench/run-study.sh --quick    small sizes and 3 repeats: checks the machinery
#                                 end to end in about 3 minutes; figures say "QUICK RUN"
#
# Outputs: bench/results/<machine>/study/*.csv (quick: study-quick/), figures
# in docs/figures/ (quick: docs/figures/quick/), the generated blocks of
# docs/study.md (a quick run does not overwrite a full run's tables).
#
# First it installs what is missing with scripts/setup-deps.sh and
# scripts/setup-study-deps.sh (CGAL, TBB, scipy, gnuplot, PAPI, valgrind).
#
# Environment: SC_STUDY_NO_DEPS=1 (skip that), SC_STUDY_BUILD (build folder, default build-study),
# SC_STUDY_NICE (e.g. 19: run everything under nice), SC_STUDY_SKIP (space-
# separated steps to leave out: bandwidth growth order layout cellsize levels
# threads kernels floatcopy cachegrind compare figures doc; run-info.txt then
# keeps the earlier run's lines and gains a `rerun:` line naming the steps run), SC_STUDY_ARGS (extra
# sc_study options for every scenario, e.g. --machine-tag X).
# Run it on a quiet machine: every row records the load average it saw.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SC_STUDY_BUILD:-$root/build-study}
skip=" ${SC_STUDY_SKIP:-} "
extra=${SC_STUDY_ARGS:-}
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
  *) echo "run-study.sh: unknown argument '$1' (--quick or nothing)" >&2; exit 2 ;;
esac
qflag=()
[ "$quick" = 1 ] && qflag=(--quick)
nicecmd=()
[ -n "${SC_STUDY_NICE:-}" ] && nicecmd=(nice -n "$SC_STUDY_NICE")

start=$(date +%s)
failed=()
# The Debian packages the build and the study use (idempotent: one line and
# no network when everything is there). SC_STUDY_NO_DEPS=1 skips this.
if [ -z "${SC_STUDY_NO_DEPS:-}" ]; then
  bash "$root/scripts/setup-deps.sh" && bash "$root/scripts/setup-study-deps.sh" || {
    echo "run-study.sh: installing the packages failed (scripts/setup-deps.sh, scripts/setup-study-deps.sh);" \
      "set SC_STUDY_NO_DEPS=1 to run with what is here" >&2
    exit 1
  }
fi
step() { # step NAME COMMAND...: runs unless skipped, records failures, goes on
  local name=$1 t0 rc=0
  shift
  case "$skip" in *" $name "*) echo; echo "=== $name: skipped (SC_STUDY_SKIP)"; return 0 ;; esac
  echo
  echo "=== $name: $*"
  t0=$(date +%s)
  "$@" || rc=$?
  echo "=== $name: $([ $rc = 0 ] && echo "done" || echo "FAILED (exit $rc)") in $(($(date +%s) - t0)) s"
  [ $rc = 0 ] || failed+=("$name")
  return 0
}

echo "=== build: Release in $build"
jobs=$(nproc 2>/dev/null || echo 2)
"${nicecmd[@]}" cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSC_BUILD_TESTS=OFF >/dev/null || exit 1
"${nicecmd[@]}" cmake --build "$build" -j "$jobs" --target sc_study kernel_bench >/dev/null || exit 1
study="$build/bench/study/sc_study"

# the machine folder, named as sc_bench, sc_study and cachegrind.sh name it
tag=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1 |
  tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
tag="${tag:-unknown}-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)c"
case " $extra " in *" --machine-tag "*) tag=$(printf '%s\n' "$extra" | sed -n 's/.*--machine-tag \([^ ]*\).*/\1/p') ;; esac
export SC_STUDY_MACHINE_TAG=$tag
out=$root/bench/results/$tag/study
[ "$quick" = 1 ] && out=$root/bench/results/$tag/study-quick
mkdir -p "$out"
loads=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

scenario() { # scenario NAME: one sc_study scenario
  # shellcheck disable=SC2086  # $extra is a list of options
  "${nicecmd[@]}" "$study" --scenario "$1" "${qflag[@]}" --out "$out" $extra
}
step bandwidth scenario bandwidth # first: the other scenarios' byte-floor ratios read it
for s in growth order layout cellsize levels threads kernels; do
  step "$s" scenario "$s"
done
# 3(d) and 5: the float32 prototype against the double kernels, the kernels
# alone (bench/kernel_f32.c); exits non-zero if its pairs differ.
kb_args=()
[ "$quick" = 1 ] && kb_args=(--tests 2e7 --repeat 3)
step floatcopy "${nicecmd[@]}" "$build/bench/kernel_bench" "${kb_args[@]}" --csv "$out/kernel-f32.csv"
step cachegrind env SC_STUDY_NICE="${SC_STUDY_NICE:-0}" \
  bash "$root/bench/study/cachegrind.sh" "${qflag[@]}" --bin "$study" --out "$out"
if [ -x "$root/bench/compare/run-compare.sh" ]; then
  step compare "${nicecmd[@]}" bash "$root/bench/compare/run-compare.sh" "${qflag[@]}"
else
  echo; echo "=== compare: bench/compare/run-compare.sh not present; the anchors are left out"
fi

end=$(date +%s)
# A run that leaves measuring steps out keeps the provenance of the run whose
# other CSV files it leaves in place and adds one line naming what it redid.
ran=()
for name in bandwidth growth order layout cellsize levels threads kernels floatcopy cachegrind compare; do
  case "$skip" in *" $name "*) ;; *) ran+=("$name") ;; esac
done
if [ "${#ran[@]}" -lt 11 ] && [ -s "$out/run-info.txt" ]; then
  echo "rerun:      ${ran[*]:-nothing} only, $(date -u -d "@$start" '+%Y-%m-%d %H:%M UTC') ($((end - start)) s), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), load $loads; failed: ${failed[*]:-none}" >>"$out/run-info.txt"
else
{
  echo "run:        $([ "$quick" = 1 ] && echo quick || echo full) (bench/run-study.sh ${1:-})"
  echo "date:       $(date -u -d "@$start" '+%Y-%m-%d %H:%M UTC') .. $(date -u -d "@$end" '+%H:%M UTC') ($((end - start)) s)"
  echo "commit:     $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet -- src kernels include 2>/dev/null || echo ' (engine sources modified)')"
  echo "machine:    $tag, $(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1), $(getconf _NPROCESSORS_ONLN) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "load:       $loads at the start; $(cut -d' ' -f1-3 /proc/loadavg) at the end (1, 5, 15 min)"
  echo "failed:     ${failed[*]:-none}"
} >"$out/run-info.txt"
fi

step figures bash "$root/bench/plots/make-figures.sh" "${qflag[@]}" --data "$out"
step doc bash "$root/bench/study/make-study-md.sh" "${qflag[@]}" --data "$out"

echo
echo "run-study.sh: $([ "$quick" = 1 ] && echo quick || echo full) study done in $(($(date +%s) - start)) s; CSV in $out"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "run-study.sh: FAILED steps: ${failed[*]}" >&2
  exit 1
fi
