#!/usr/bin/env bash
# setup-study-deps.sh: installs, with apt-get, the Debian 12 packages the
# performance study (issue 3) uses and this machine lacks. Not run by CI.
#
#   libcgal-dev     bench/compare/cgal_pairs (CGAL::box_self_intersection_d)
#   libtbb-dev      CGAL's parallel mode (CGAL::Parallel_tag) in that runner
#   libfcl-dev      bench/compare/fcl_pairs (FCL's dynamic AABB tree manager)
#   python3-scipy   bench/compare/scipy_pairs.py (cKDTree.query_pairs)
#   python3-numpy   the same runner's exact filter
#   gnuplot-nox     the study's figures (PNG and SVG)
#   libpapi-dev     hardware cache-miss counters
#   valgrind        cachegrind's simulated cache misses
#
# Idempotent: when everything is installed it prints one line and exits 0
# without touching the network. Otherwise it runs `apt-get update` once, then
# installs only the missing packages, non-interactively. Works as root, or
# through sudo when that is available.
set -euo pipefail

packages=(
  libcgal-dev
  libtbb-dev
  libfcl-dev
  python3-scipy
  python3-numpy
  gnuplot-nox
  libpapi-dev
  valgrind
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup-study-deps: no dpkg here; install these (or their equivalents) by hand: ${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup-study-deps: all present (${packages[*]})"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup-study-deps: not root and no sudo; as root, run: apt-get update && apt-get install ${missing[*]}" >&2
  exit 1
fi

echo "setup-study-deps: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-study-deps: done"
