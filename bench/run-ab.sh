#!/usr/bin/env bash
# run-ab.sh A B [ROUNDS [REPEAT]] -- PAIRS ARGS...: two builds of the tool
# alternated on one machine state, for a change that must not slow a quiet
# machine. Each round runs `A pairs ARGS --repeat REPEAT --json`, then B's
# (their order swapped every other round, so a drift of the host falls on
# both), and the table gives each one's median of the rounds' warm medians
# and B / A with the range of the rounds' ratios.
#
#   bench/run-ab.sh /tmp/base/build/tools/spherecollide build/tools/spherecollide 7 21 -- FILE.npy
#
# ROUNDS defaults to 7, REPEAT to 21; every other argument after -- goes to
# `pairs` (an input file first). Count and checksum must agree.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
a=$1 b=$2
shift 2
rounds=7 repeat=21
if [ "$1" != -- ]; then rounds=$1; shift; fi
if [ "$1" != -- ]; then repeat=$1; shift; fi
[ "$1" = -- ] || { echo "run-ab.sh: -- before the pairs arguments" >&2; exit 2; }
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pargs=("$@")
one() { # one BIN: appends "seconds pairs checksum" of a --repeat run to $tmp/BIN's list
  "$1" pairs "${pargs[@]}" --repeat "$repeat" --json --count-only >"$tmp/r.json"
  python3 -c "import json; d=json.load(open('$tmp/r.json')); print(d['seconds']['total'], d['pairs'], d['checksum'])" >>"$tmp/$2.txt"
}
: >"$tmp/a.txt"
: >"$tmp/b.txt"
for ((r = 0; r < rounds; r++)); do
  if ((r % 2 == 0)); then
    one "$a" a
    one "$b" b
  else
    one "$b" b
    one "$a" a
  fi
done
python3 - "$tmp/a.txt" "$tmp/b.txt" "$*" <<'PY'
import statistics, sys
a = [l.split() for l in open(sys.argv[1])]
b = [l.split() for l in open(sys.argv[2])]
assert {(x[1], x[2]) for x in a + b} == {(a[0][1], a[0][2])}, "the two builds disagree"
ta, tb = [float(x[0]) for x in a], [float(x[0]) for x in b]
ratios = [y / x for x, y in zip(ta, tb)]
print("%s: A %.4f ms, B %.4f ms, B/A %.3f (rounds %.3f-%.3f)" % (
    sys.argv[3], statistics.median(ta) * 1e3, statistics.median(tb) * 1e3,
    statistics.median(ratios), min(ratios), max(ratios)))
PY
