#!/usr/bin/env bash
# tool.sh SERIAL MPI_TOOL MPIEXEC PYTHON: spherecollide-mpi against the
# serial tool on the same files (ctest mpi.tool). For 1, 3 and 4 ranks:
# the count and checksum equal `spherecollide pairs`', and the pairs
# written as one .npy, one .bin and one file per rank (%r) are the serial
# tool's pair set (the .npy header byte for byte); float32 raw input;
# --json's per-rank rows sum to the total. Failures: a NaN in a .npy
# (exit 5, the serial tool's message, no output left), a missing output
# directory (exit 6, checked before the search), a missing input (exit 3), a bad option or standard input
# (exit 2: mpiexec gives it to rank 0 only). With CLI_CHECK (a build with
# HDF5): an HDF5 file read by slices, each rank its own rows (--json's
# rows_read sum to n), with the serial tool's count and checksum, and a
# NaN in another rank's slice named by its row as the serial tool names it.
set -uo pipefail
serial=$1 tool=$2 mpiexec=$3 python=$4 cli_check=${5:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0 checks=0
check() { # check WHAT COMMAND...
  local what=$1; shift
  checks=$((checks + 1))
  if ! "$@"; then
    echo "FAIL: $what"
    fails=$((fails + 1))
  fi
}
field() { grep -E "^$1 " | awk '{print $2}'; }
same_pairs() { # same_pairs A B [B2...]: A's pair set equals the union of the rest
  "$python" - "$@" <<'PY'
import sys, numpy as np
def load(p):
    if p.endswith(".npy"):
        return np.load(p)
    return np.fromfile(p, dtype="<u4").reshape(-1, 2)
a = load(sys.argv[1])
b = np.concatenate([load(p) for p in sys.argv[2:]])
key = lambda x: np.unique(x[:, 0].astype(np.uint64) << 32 | x[:, 1].astype(np.uint64))
ok = a.dtype == b.dtype == np.uint32 and len(a) == len(b) and np.array_equal(key(a), key(b))
sys.exit(0 if ok else 1)
PY
}
"$serial" gen clustered 30000 --seed 5 -o "$dir/c.npy" >/dev/null
"$serial" gen uniform 20000 --seed 6 -o "$dir/u.f32" >/dev/null
"$serial" pairs "$dir/c.npy" -o "$dir/ref.npy" >"$dir/ref.txt"
"$serial" pairs "$dir/u.f32" -o "$dir/ref32.npy" >"$dir/ref32.txt"
for np in 1 3 4; do
  run() { "$mpiexec" -n "$np" "$tool" "$@"; }
  run pairs "$dir/c.npy" -o "$dir/m.npy" >"$dir/m.txt" 2>"$dir/err.txt"
  check "$np ranks: exit 0" test $? -eq 0
  for f in pairs checksum; do
    check "$np ranks: $f" test "$(field $f <"$dir/m.txt")" = "$(field $f <"$dir/ref.txt")"
  done
  check "$np ranks: the .npy holds the serial pair set" same_pairs "$dir/ref.npy" "$dir/m.npy"
  check "$np ranks: the .npy header is the serial tool's" cmp -s -n 128 "$dir/ref.npy" "$dir/m.npy"
  run pairs "$dir/c.npy" -o "$dir/m.bin" --layout caller --threads 1 >/dev/null
  check "$np ranks: the .bin holds the serial pair set" same_pairs "$dir/ref.npy" "$dir/m.bin"
  run pairs "$dir/c.npy" -o "$dir/part-%r.npy" >/dev/null
  parts=()
  for ((r = 0; r < np; r++)); do parts+=("$dir/part-$r.npy"); done
  check "$np ranks: one file per rank, together the serial pair set" \
    same_pairs "$dir/ref.npy" "${parts[@]}"
  rm -f "$dir"/part-*.npy
  run pairs "$dir/u.f32" -o "$dir/m32.npy" >"$dir/m32.txt"
  check "$np ranks: float32 raw input" test "$(field checksum <"$dir/m32.txt")" = \
    "$(field checksum <"$dir/ref32.txt")"
  check "$np ranks: float32 pairs" same_pairs "$dir/ref32.npy" "$dir/m32.npy"
  run pairs "$dir/c.npy" --json >"$dir/m.json"
  check "$np ranks: --json" "$python" - "$dir/m.json" "$np" "$(field pairs <"$dir/ref.txt")" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["per_rank"]
ok = j["ranks"] == int(sys.argv[2]) == len(rows) and j["pairs"] == int(sys.argv[3])
ok = ok and sum(r["pairs"] for r in rows) == j["pairs"] and all(r["owned"] >= 0 for r in rows)
sys.exit(0 if ok else 1)
PY
done
# a NaN in row 777 of a .npy: exit 5, the serial tool's message, no output
"$python" - "$dir/c.npy" "$dir/nan.npy" <<'PY'
import sys, numpy as np
a = np.load(sys.argv[1]); a[777, 1] = np.nan; np.save(sys.argv[2], a)
PY
"$serial" pairs "$dir/nan.npy" 2>"$dir/serr.txt" >/dev/null
"$mpiexec" -n 3 "$tool" pairs "$dir/nan.npy" -o "$dir/nan-out.npy" 2>"$dir/merr.txt" >/dev/null
rc=$?
check "a NaN: exit 5 (got $rc)" test "$rc" -eq 5
check "a NaN: the serial tool's message" test "$(sed -n 's/^spherecollide: //p' "$dir/serr.txt")" = \
  "$(sed -n 's/^spherecollide-mpi: //p' "$dir/merr.txt")"
check "a NaN: no output left" test -z "$(ls "$dir" | grep nan-out)"
"$mpiexec" -n 3 "$tool" pairs "$dir/c.npy" -o "$dir/no/such/dir/x.npy" 2>/dev/null >/dev/null
check "a missing output directory: exit 6" test $? -eq 6
"$mpiexec" -n 2 "$tool" pairs "$dir/none.npy" 2>/dev/null >/dev/null
check "a missing input: exit 3" test $? -eq 3
"$mpiexec" -n 2 "$tool" pairs "$dir/c.npy" --frobnicate 2>/dev/null >/dev/null
check "an unknown option: exit 2" test $? -eq 2
# a small file on standard input: MPICH's mpiexec (hydra) itself fails on
# a large one that rank 0 does not read at once ("process reading stdin
# too slowly"), exit 141, before the tool can say anything
head -c 4096 "$dir/c.npy" >"$dir/head.npy"
"$mpiexec" -n 2 "$tool" pairs - <"$dir/head.npy" 2>"$dir/pipe.txt" >/dev/null
check "standard input: exit 2 with a message" test $? -eq 2 -a -s "$dir/pipe.txt"
# HDF5: each rank reads its own slice (a hyperslab), rows are global ids
if [ -n "$cli_check" ] && "$cli_check" mkh5 "$dir/c.h5" "$dir/c.npy"; then
  for np in 1 3 4; do
    "$mpiexec" -n "$np" "$tool" pairs "$dir/c.h5" --dataset /particles/spheres --json \
      >"$dir/h.json"
    check "$np ranks: HDF5 exit 0" test $? -eq 0
    check "$np ranks: HDF5 by slices" "$python" - "$dir/h.json" "$np" "$(field pairs <"$dir/ref.txt")" \
      "$(field checksum <"$dir/ref.txt")" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = [r["rows_read"] for r in j["per_rank"]]
n, ranks = j["n"], int(sys.argv[2])
ok = j["pairs"] == int(sys.argv[3]) and j["checksum"] == sys.argv[4] and j["input_format"] == "hdf5"
ok = ok and len(rows) == ranks and sum(rows) == n == 30000 and max(rows) <= n // ranks + 1
sys.exit(0 if ok else 1)
PY
  done
  "$cli_check" mkh5 "$dir/nan.h5" "$dir/c.npy" 25000 1 nan
  "$serial" pairs "$dir/nan.h5" --dataset /particles/spheres 2>"$dir/serr.txt" >/dev/null
  "$mpiexec" -n 3 "$tool" pairs "$dir/nan.h5" --dataset /particles/spheres -o "$dir/h5-out.npy" \
    2>"$dir/merr.txt" >/dev/null
  rc=$?
  check "HDF5, a NaN in rank 2's slice: exit 5 (got $rc)" test "$rc" -eq 5
  check "HDF5, a NaN: the serial tool's message, its row" test \
    "$(sed -n 's/^spherecollide: //p' "$dir/serr.txt")" = \
    "$(sed -n 's/^spherecollide-mpi: //p' "$dir/merr.txt")"
  check "HDF5, a NaN: no output left" test -z "$(ls "$dir" | grep h5-out)"
fi
echo "mpi tool: $checks checks, $fails failures"
[ "$fails" -eq 0 ]
