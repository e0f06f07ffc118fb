#!/bin/bash
# same-answers.sh BASE_TOOL HEAD_TOOL [WORKDIR]
#
# Two builds of the tool give the same pairs in the same order: every
# generator x peer x kernel (SC_KERNEL) x 1 and 2 threads, streamed to a
# binary file, and two-set, periodic, sorted and neighbour-list runs on four
# peers, compared byte for byte along with the exit codes. For a change that
# must not change behaviour (a refactoring): build the base revision's tool
# beside this one and run this. Exit 0 when every run agrees.
A=${1:?usage: same-answers.sh BASE_TOOL HEAD_TOOL [WORKDIR]}; B=${2:?usage: same-answers.sh BASE_TOOL HEAD_TOOL [WORKDIR]}
W=${3:-$(mktemp -d)}; mkdir -p "$W"; n=0; bad=0
for g in uniform shell wide powerlaw clustered farclusters dense sparse seed002 heavytail; do
  N=20000; [ $g = dense ] && N=1500
  $B gen $g $N --seed 5 -o $W/$g.npy --quiet
  for alg in grid brute partition1d sap hashgrid octree kdsplit bvh segtree; do
    for k in scalar avx2; do for t in 1 2; do
      SC_KERNEL=$k $A pairs $W/$g.npy --algorithm $alg --threads $t -o $W/a.bin -q 2>/dev/null; ra=$?
      SC_KERNEL=$k $B pairs $W/$g.npy --algorithm $alg --threads $t -o $W/b.bin -q 2>/dev/null; rb=$?
      n=$((n+1))
      if [ $ra != $rb ] || ! cmp -s $W/a.bin $W/b.bin; then bad=$((bad+1)); echo "DIFF $g $alg $k $t (exit $ra $rb)"; fi
    done; done
  done
done
# two sets, periodic, neighbour lists, sorted
$B gen uniform 8000 --seed 9 -o $W/b.npy --quiet
for alg in grid brute sap bvh; do for t in 1 2; do
  for args in "--against $W/b.npy" "--box -40:40,-40:40,-40:40" "--sorted" "--against $W/b.npy --box -40:40,-40:40,-40:40"; do
    $A pairs $W/uniform.npy --algorithm $alg --threads $t $args -o $W/a.bin -q 2>/dev/null; ra=$?
    $B pairs $W/uniform.npy --algorithm $alg --threads $t $args -o $W/b.bin -q 2>/dev/null; rb=$?
    n=$((n+1))
    if [ $ra != $rb ] || ! cmp -s $W/a.bin $W/b.bin; then bad=$((bad+1)); echo "DIFF uniform $alg $t $args (exit $ra $rb)"; fi
  done
  for args in "--skin 0.3" "--full --skin 0.2 --box -40:40,-40:40,-40:40" "--full"; do
    $A neighbors $W/uniform.npy --algorithm $alg --threads $t $args -o $W/a.bin -q 2>/dev/null; ra=$?
    $B neighbors $W/uniform.npy --algorithm $alg --threads $t $args -o $W/b.bin -q 2>/dev/null; rb=$?
    n=$((n+1))
    if [ $ra != $rb ] || ! cmp -s $W/a.bin $W/b.bin; then bad=$((bad+1)); echo "DIFF nbr $alg $t $args (exit $ra $rb)"; fi
  done
done; done
echo "compared $n runs, $bad differ"
[ "$bad" -eq 0 ]
