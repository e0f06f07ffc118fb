#!/usr/bin/env bash
# build-and-run.sh [PAIRS OPTIONS...]: the main job, from a fresh Debian 12
# machine to an answer.
#
#   1. installs what is missing (scripts/setup-deps.sh, apt-get);
#   2. configures and builds a Release build in build/ (library, CLI and,
#      where python3-dev and python3-numpy are installed, the Python module
#      in build/python: PYTHONPATH=build/python /usr/bin/python3);
#   3. generates 10^6 uniform spheres: build/uniform-1e6.npy (seed 1);
#   4. finds every intersecting pair and prints n, K, the checksum and the time
#      of each stage. Extra arguments go to `spherecollide pairs`, for example
#      --threads 1, --kernel scalar or --json.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup-deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
echo "== configure and build (Release, build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSC_BUILD_TOOLS=ON >/dev/null
targets=(spherecollide spherecollide_cli)
# the Python module, where CMake found Debian's python3-dev and NumPy
# (the whole list read first: grep -q would close the pipe early under pipefail)
if cmake --build build --target help | grep -c '\bsc_python\b' >/dev/null; then
  targets+=(sc_python)
fi
cmake --build build -j "$jobs" --target "${targets[@]}" >/dev/null

# The CLI target (spherecollide_cli) writes its binary, named spherecollide,
# to the tools/ folder of the build tree.
cli=build/tools/spherecollide
if [ ! -x "$cli" ]; then
  echo "build-and-run: $cli was not built" >&2
  exit 1
fi

echo "== $cli gen uniform 1000000 --seed 1 -o build/uniform-1e6.npy"
"$cli" gen uniform 1000000 --seed 1 -o build/uniform-1e6.npy
echo "== $cli pairs build/uniform-1e6.npy${*:+ $*}"
"$cli" pairs build/uniform-1e6.npy "$@"
if [ -d build/python/spherecollide ] && ls build/python/spherecollide/_core*.so >/dev/null 2>&1; then
  echo "== Python: PYTHONPATH=build/python /usr/bin/python3 -c 'import spherecollide' (docs/python.md)"
fi
