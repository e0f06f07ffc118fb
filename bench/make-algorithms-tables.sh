#!/usr/bin/env bash
# make-algorithms-tables.sh: rewrites the measured tables of
# docs/algorithms.md (between the "peers-table" and "seeds-table" markers)
# from bench/results/<machine>/peers.csv and seeds.csv (bench/run-peers.sh,
# bench/run-seeds.sh). Touches nothing else.
#   bash bench/make-algorithms-tables.sh [MACHINE]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
machine=${1:-amd-epyc-2c}
dir=$root/bench/results/$machine
doc=$root/docs/algorithms.md
python3 - "$dir" "$doc" "$machine" <<'PY'
import csv, sys, os
d, doc, machine = sys.argv[1], sys.argv[2], sys.argv[3]
algos = ["grid", "brute", "partition1d", "sap", "hashgrid", "octree", "kdsplit", "bvh", "segtree"]
rows = list(csv.DictReader(open(os.path.join(d, "peers.csv"))))
tmax = max(int(r["threads"]) for r in rows)
def cell(r):
    if r is None: return ""
    if r["status"] != "ok": return r["status"]
    return "%.3g" % float(r["total_ms"])
out = []
out.append("Median ms per warm call (`spherecollide pairs FILE --algorithm A --repeat R`, "
           "R <= 5 so a point takes about a minute), %s, on 1 and %d threads; **bold**: the "
           "fastest; skipped: predicted over 30 s a run. Source: `bench/results/%s/peers.csv` "
           "(`bash bench/run-peers.sh`).\n" % (machine, tmax, machine))
for t in (1, tmax):
    out.append("\n**%d thread%s**\n" % (t, "" if t == 1 else "s"))
    out.append("| generator | n | " + " | ".join(algos) + " | fastest |")
    out.append("|---|---:|" + "---:|" * len(algos) + "---|")
    keys = []
    for r in rows:
        k = (r["dist"], int(r["n"]))
        if k not in keys: keys.append(k)
    for dist, n in keys:
        sel = {r["algorithm"]: r for r in rows if r["dist"] == dist and int(r["n"]) == n and int(r["threads"]) == t}
        ok = [(float(r["total_ms"]), a) for a, r in sel.items() if r["status"] == "ok"]
        best = min(ok)[1] if ok else ""
        cells = []
        for a in algos:
            c = cell(sel.get(a))
            cells.append("**%s**" % c if a == best else c)
        out.append("| %s | %s | %s | %s |" % (dist, "{:,}".format(n), " | ".join(cells), best))
peers = "\n".join(out) + "\n"
seeds = ""
sp = os.path.join(d, "seeds.csv")
if os.path.exists(sp):
    srows = list(csv.DictReader(open(sp)))
    s = ["Median ms per call on one thread, %s. Source: `bench/results/%s/seeds.csv` "
         "(`bash bench/run-seeds.sh`).\n" % (machine, machine),
         "| seed | input | n | algorithm | options | pairs | ms | tests per sphere |",
         "|---|---|---:|---|---|---:|---:|---:|"]
    for r in srows:
        s.append("| %s | %s | %s | %s | %s | %s | %.3g | %s |" % (r["seed"], r["input"], "{:,}".format(int(r["n"])),
                 r["algorithm"], r["options"], r["pairs"], float(r["total_ms"]), r["tests_per_sphere"]))
    seeds = "\n".join(s) + "\n"
text = open(doc).read()
def put(text, name, body):
    b, e = "<!-- %s:begin -->\n" % name, "<!-- %s:end -->" % name
    i, j = text.index(b) + len(b), text.index(e)
    return text[:i] + body + text[j:]
text = put(text, "peers-table", peers)
if seeds: text = put(text, "seeds-table", seeds)
open(doc, "w").write(text)
PY
echo "updated $doc"
