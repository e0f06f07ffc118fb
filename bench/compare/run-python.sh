#!/usr/bin/env bash
# run-python.sh [N]: issue 17's Python targets, measured side by side in one
# run on this machine (python_vs_c.py says how):
#   - spherecollide.count() from Python against the C library's warm query
#     (the CLI's --repeat) on the same rows: target <= 1.05x;
#   - scipy's cKDTree.query_pairs + the exact filter against
#     spherecollide.pairs(): target >= 50x.
# N spheres of `gen uniform` (default 1000000, seed 1). The module is the one
# `cmake --install` puts into build-compare-sc/prefix (common.sh builds it).
# scipy comes from python3-scipy (scripts/setup-study-deps.sh).
# Output: bench/results/<machine>/python.csv. Environment: SC_PYTHON_ROUNDS [9],
# SC_PYTHON_REPS [11], SC_COMPARE_MACHINE (results folder name).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$root/bench/compare
n=${1:-1000000}
jobs=$(nproc 2>/dev/null || echo 2)
python=/usr/bin/python3
[ -x "$python" ] || python=python3

# shellcheck source=bench/compare/common.sh
. "$here/common.sh"
compare_build_sc run-python
compare_machine
pkg=$scb/prefix/lib/python3/dist-packages
[ -f "$pkg/spherecollide/__init__.py" ] ||
  { echo "run-python: the module was not installed into $pkg (python3-dev, python3-numpy?)" >&2; exit 1; }
results=$root/bench/results/$machine
data=$cb/data/python
mkdir -p "$results" "$data"
f=$data/uniform-$n.npy
[ -s "$f" ] || "$cli" gen uniform "$n" --seed 1 -o "$f" --quiet
echo "== machine $machine ($cpu), $jobs logical CPUs, kernel $isa; load average $(cut -d' ' -f1-3 /proc/loadavg)"
PYTHONPATH=$pkg PYTHONDONTWRITEBYTECODE=1 "$python" "$here/python_vs_c.py" "$f" --cli "$cli" \
  --csv "$results/python.csv" --machine "$machine" --isa "$isa" \
  --rounds "${SC_PYTHON_ROUNDS:-9}" --reps "${SC_PYTHON_REPS:-11}"
echo "== wrote $results/python.csv"
