#!/usr/bin/env bash
# toy-peer.sh [WORKDIR]
#
# Adding a peer touches its file, its registry line and its CMake line,
# nothing else. In a scratch copy of the tracked tree this script adds
# tests/toy_peer/toy.c as src/algo/toy.c with exactly those three edits,
# prints the diff, fails if anything else would have to change, builds
# the library, the tool and test_engine, and checks that the new peer
# (a) is listed by `spherecollide pairs --help` and taken by
# --algorithm toy, (b) gives brute's pairs and checksum on every
# generator, and (c) passes test_engine's differential peers group, which
# runs every registered peer. Exit 0 when all hold.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-$(mktemp -d)}
tree=$work/tree
rm -rf "$tree"
mkdir -p "$tree"
(cd "$root" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$tree"
cd "$tree"
git init -q && git add -A && git -c user.name=toy -c user.email=toy@localhost commit -qm base

# the three edits
cp tests/toy_peer/toy.c src/algo/toy.c
sed -i 's/^\(    X(segtree) *\\\)$/\1\n    X(toy) \\/' src/algo/registry.c
sed -i 's#src/algo/segtree.c#src/algo/segtree.c src/algo/toy.c#' CMakeLists.txt
git add -A
echo "toy-peer: the change (git diff --cached --stat):"
git diff --cached --stat | sed 's/^/  /'
changed=$(git diff --cached --name-only | sort | tr '\n' ' ')
if [ "$changed" != "CMakeLists.txt src/algo/registry.c src/algo/toy.c " ]; then
  echo "toy-peer: the change touched $changed" >&2
  exit 1
fi
lines=$(git diff --cached --numstat -- CMakeLists.txt src/algo/registry.c | awk '{ s += $1 } END { print s }')
if [ "$lines" != 2 ]; then
  echo "toy-peer: $lines lines added to CMakeLists.txt and registry.c, not one each" >&2
  exit 1
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSC_WARNINGS_AS_ERRORS=ON -DSC_PYTHON=OFF \
  -DSC_BUILD_BENCH=OFF >build.log 2>&1 || { cat build.log >&2; exit 1; }
cmake --build build -j "$jobs" --target spherecollide_cli test_engine >>build.log 2>&1 ||
  { tail -40 build.log >&2; exit 1; }
sc=build/tools/spherecollide

"$sc" pairs --help | tr -s ' \n' ' ' | grep -q 'segtree or toy' ||
  { echo "toy-peer: pairs --help does not list toy" >&2; exit 1; }
for g in uniform powerlaw clustered dense shell; do
  "$sc" gen "$g" 5000 --seed 3 -o "$work/$g.npy" >/dev/null
  want=$("$sc" pairs "$work/$g.npy" --algorithm brute --json | grep -o '"pairs":[0-9]*,"checksum":"[0-9a-fx]*"')
  got=$("$sc" pairs "$work/$g.npy" --algorithm toy --json | grep -o '"pairs":[0-9]*,"checksum":"[0-9a-fx]*"')
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "toy-peer: $g: toy $got, brute $want" >&2
    exit 1
  fi
done
build/tests/test_engine peers
echo "toy-peer: ok, 3 files changed (2 lines in existing files), toy = brute on 5 generators, test_engine peers passed"
