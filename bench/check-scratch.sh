#!/bin/sh
# check-scratch.sh SC_BENCH RESULTS_DIR: a one-off sc_bench run (no --csv, no
# --record) must write its CSV to RESULTS_DIR/tmp/<machine>/, never over the
# committed RESULTS_DIR/<machine>/ results (issue 13, defect 10).
set -u
bench=$1
results=$2
tag=$("$bench" --print-machine-tag) || exit 1
name=scratch-check-$$
"$bench" --quick --dist uniform --n 500 --threads 1 --scenario "$name" >/dev/null || exit 1
rc=0
if [ ! -f "$results/tmp/$tag/$name.csv" ]; then
    echo "FAIL: no scratch CSV at $results/tmp/$tag/$name.csv" >&2
    rc=1
fi
if [ -e "$results/$tag/$name.csv" ]; then
    echo "FAIL: a one-off run wrote into the committed $results/$tag/" >&2
    rc=1
fi
rm -f "$results/tmp/$tag/$name.csv" "$results/tmp/$tag/$name-compare.csv" \
    "$results/$tag/$name.csv" "$results/$tag/$name-compare.csv"
[ $rc -eq 0 ] && echo "bench.scratch: a one-off run wrote only to $results/tmp/"
exit $rc
