#!/usr/bin/env bash
# make-algorithms-figures.sh: the figures of docs/algorithms.md from
# bench/results/<machine>/peers.csv (bench/run-peers.sh), with gnuplot
# (Debian gnuplot-nox, scripts/setup-study-deps.sh), as PNG and SVG in
# docs/figures:
#   peers-<generator>   log-log median seconds per warm call vs n, every
#                       peer on one thread, one figure per generator;
#   peers-winners       the fastest peer for each generator and n, 1 thread;
#   peers-winners-classic  the same without the grid: which classic peer wins.
#   bash bench/make-algorithms-figures.sh [MACHINE]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
machine=${1:-amd-epyc-2c}
csv=$root/bench/results/$machine/peers.csv
figs=$root/docs/figures
[ -s "$csv" ] || { echo "make-algorithms-figures.sh: no $csv (bash bench/run-peers.sh)" >&2; exit 2; }
command -v gnuplot >/dev/null 2>&1 || { echo "make-algorithms-figures.sh: gnuplot is not installed (Debian: gnuplot-nox)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$figs"
pngterm=png
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then pngterm=pngcairo; fi
python3 - "$csv" "$tmp" <<'PY'
import csv, math, sys, os
src, tmp = sys.argv[1], sys.argv[2]
algos = ["grid", "brute", "partition1d", "sap", "hashgrid", "octree", "kdsplit", "bvh", "segtree"]
rows = list(csv.DictReader(open(src)))
dists = []
for r in rows:
    if r["dist"] not in dists: dists.append(r["dist"])
win, win2 = [], []
for yi, d in enumerate(dists):
    ns = sorted({int(r["n"]) for r in rows if r["dist"] == d})
    with open(os.path.join(tmp, "peers-%s.dat" % d), "w") as f:
        f.write("n " + " ".join(algos) + "\n")
        for n in ns:
            vals = []
            best = best2 = None
            for a in algos:
                m = [r for r in rows if r["dist"] == d and int(r["n"]) == n and r["algorithm"] == a
                     and r["threads"] == "1" and r["status"] == "ok"]
                if m:
                    s = float(m[0]["total_ms"]) / 1e3
                    vals.append("%.6g" % s)
                    if best is None or s < best[0]: best = (s, a)
                    if a != "grid" and (best2 is None or s < best2[0]): best2 = (s, a)
                else:
                    vals.append("NaN")
            f.write("%d %s\n" % (n, " ".join(vals)))
            if best: win.append((math.log10(n), yi, algos.index(best[1]), best[1]))
            if best2: win2.append((math.log10(n), yi, algos.index(best2[1]), best2[1]))
for name, ws in (("winners.dat", win), ("winners-classic.dat", win2)):
    with open(os.path.join(tmp, name), "w") as f:
        for w in ws: f.write("%.3f %d %d %s\n" % w)
with open(os.path.join(tmp, "ylabels"), "w") as f:
    f.write(", ".join('"%s" %d' % (d, i) for i, d in enumerate(dists)))
with open(os.path.join(tmp, "dists"), "w") as f:
    f.write(" ".join(dists))
PY
note="$machine, 1 thread, median warm call (bench/run-peers.sh)"
cd "$root/bench/plots"
for d in $(cat "$tmp/dists"); do
  for fmt in png svg; do
    gnuplot -e "dat='$tmp/peers-$d.dat'; ncol=9; anchors=''; nanc=0; dist='$d (every peer)'; out='$figs/peers-$d'; fmt='$fmt'; pngterm='$pngterm'; note='$note'" growth.gp
  done
done
ny=$(wc -w <"$tmp/dists")
for fmt in png svg; do
  gnuplot -e "dat='$tmp/winners.dat'; ylabels='$(cat "$tmp/ylabels")'; ny=$ny; out='$figs/peers-winners'; fmt='$fmt'; pngterm='$pngterm'; note='$note'" winners.gp
  gnuplot -e "dat='$tmp/winners-classic.dat'; ylabels='$(cat "$tmp/ylabels")'; ny=$ny; out='$figs/peers-winners-classic'; fmt='$fmt'; pngterm='$pngterm'; note='$note'; title='Fastest classic peer (the grid left out) by generator and n'" winners.gp
done
echo "make-algorithms-figures.sh: wrote docs/figures/peers-*.png and .svg from $csv"
