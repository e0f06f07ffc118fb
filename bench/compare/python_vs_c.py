#!/usr/bin/python3
"""python_vs_c: the Python module beside the C library and beside SciPy.

    python_vs_c.py --cli CLI --csv OUT.csv --machine NAME --isa ISA FILE.npy [--rounds R] [--reps K]

FILE.npy holds (N, 4) float64 rows x, y, z, r. The module is the one on
PYTHONPATH (run-python.sh points it at the installed prefix). Rounds
alternate, so a change of the host's speed hits every tool alike:
  c_warm       `CLI pairs FILE --count-only --repeat K+1 --json`: the C
               library's warm median (seconds.total) on the mapped file
  py_count     Context().count(rows[:, :3], rows[:, 3]): wall time of the
               call from Python on column views of the same rows (the library
               reads them where they are, as the CLI does), warm, K calls
  py_count_lib the library's own time for those calls (stats total_seconds):
               py_count minus this is what the binding adds
  py_pairs     Context().pairs(...) likewise: the (K, 2) array built too
  ckdtree      cKDTree(centres).query_pairs(2 r_max, output_type='ndarray')
               then scipy_pairs.py's exact filter (one call a round)
Every answer's count and checksum must equal the library's. Times are
medians over all rounds; a ratio is the median over rounds of the round's
ratio of medians (so a slow spell in one round does not count twice). Writes OUT.csv (machine,isa,what,n,threads,median_s,runs,pairs,
checksum,ratio,target,met) and prints a summary.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import spherecollide as sc

try:
    from scipy.spatial import cKDTree
except ImportError:
    cKDTree = None


def load_scipy_runner():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("scipy_pairs", os.path.join(here, "scipy_pairs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--cli", required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--isa", required=True)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=11)
    a = ap.parse_args()

    rows = np.load(a.file)
    assert rows.dtype == np.float64 and rows.ndim == 2 and rows.shape[1] == 4
    n = rows.shape[0]
    c, r = rows[:, :3], rows[:, 3]
    threads = os.cpu_count()
    ctx = sc.Context()                       # the library's defaults, as the CLI's
    k_ref, sum_ref = ctx.count(c, r)         # also warms the context
    times = {"c_warm": [], "py_count": [], "py_count_lib": [], "py_pairs": [], "ckdtree": []}
    ratios = {"py_count": [], "py_count_lib": [], "py_pairs": [], "ckdtree": []}
    runner = load_scipy_runner() if cKDTree else None
    np.seterr(over="ignore")
    for rnd in range(a.rounds):
        out = subprocess.run([a.cli, "pairs", a.file, "--count-only", "--repeat", str(a.reps + 1),
                              "--json", "--quiet"], check=True, capture_output=True, text=True).stdout
        j = json.loads(out.strip().splitlines()[-1])
        assert (j["pairs"], int(j["checksum"], 16)) == (k_ref, sum_ref), "CLI disagrees"
        times["c_warm"].append(j["seconds"]["total"])
        for _ in range(a.reps):
            t0 = time.perf_counter()
            got = ctx.count(c, r)
            times["py_count"].append(time.perf_counter() - t0)
            times["py_count_lib"].append(ctx.stats()["total_seconds"])
            assert got == (k_ref, sum_ref)
        for _ in range(a.reps):
            t0 = time.perf_counter()
            p = ctx.pairs(c, r)
            times["py_pairs"].append(time.perf_counter() - t0)
            assert len(p) == k_ref
            del p
        if runner:
            x, y, z, rr = (np.ascontiguousarray(rows[:, k]) for k in range(4))
            rq = 2.0 * float(r.max()) * (1.0 + 2.0 ** -40) + 2.0 ** -535
            t0 = time.perf_counter()
            cand = cKDTree(c).query_pairs(rq, output_type="ndarray")
            kk, ss = runner.exact_filter(x, y, z, rr, cand)
            times["ckdtree"].append(time.perf_counter() - t0)
            del cand
            assert (kk, ss) == (k_ref, sum_ref), "cKDTree + filter disagrees"
        last = {k: statistics.median(v[-a.reps:]) if k != "c_warm" and k != "ckdtree" else v[-1]
                for k, v in times.items() if v}
        for k in ("py_count", "py_count_lib", "py_pairs"):
            ratios[k].append(last[k] / last["c_warm"])
        if "ckdtree" in last:
            ratios["ckdtree"].append(last["ckdtree"] / last["py_pairs"])
        print(f"round {rnd + 1}/{a.rounds}: " + ", ".join(
            f"{k} {v * 1e3:.1f} ms" for k, v in last.items()), flush=True)

    med = {k: statistics.median(v) for k, v in times.items() if v}
    rat = {k: statistics.median(v) for k, v in ratios.items() if v}
    c_ms = med["c_warm"]
    rows_out = [
        ("c_warm", med["c_warm"], len(times["c_warm"]), "", "", ""),
        ("py_count", med["py_count"], len(times["py_count"]), rat["py_count"], "<= 1.05",
         "yes" if rat["py_count"] <= 1.05 else "no"),
        ("py_count_lib", med["py_count_lib"], len(times["py_count_lib"]), rat["py_count_lib"], "", ""),
        ("py_pairs", med["py_pairs"], len(times["py_pairs"]), rat["py_pairs"], "", ""),
    ]
    if "ckdtree" in med:
        rows_out.append(("ckdtree", med["ckdtree"], len(times["ckdtree"]), rat["ckdtree"], ">= 50",
                         "yes" if rat["ckdtree"] >= 50 else "no"))
    with open(a.csv + ".tmp", "w") as f:
        f.write("machine,isa,what,n,threads,median_s,runs,pairs,checksum,ratio,target,met\n")
        for what, m, runs, ratio, target, met in rows_out:
            thr = 1 if what == "ckdtree" else threads
            rs = f"{ratio:.4g}" if ratio != "" else ""
            f.write(f"{a.machine},{a.isa},{what},{n},{thr},{m:.9f},{runs},{k_ref},0x{sum_ref:016x},{rs},{target},{met}\n")
    os.replace(a.csv + ".tmp", a.csv)
    print(f"n {n}, pairs {k_ref}, checksum 0x{sum_ref:016x}, {threads} threads")
    print(f"C library warm (CLI --repeat)      {c_ms * 1e3:8.2f} ms")
    print(f"Python count()                     {med['py_count'] * 1e3:8.2f} ms  {rat['py_count']:.3f}x C (target <= 1.05)")
    print(f"  of which the library's own time  {med['py_count_lib'] * 1e3:8.2f} ms  {rat['py_count_lib']:.3f}x C")
    print(f"Python pairs() -> (K, 2) array     {med['py_pairs'] * 1e3:8.2f} ms  {rat['py_pairs']:.3f}x C")
    if "ckdtree" in med:
        print(f"cKDTree.query_pairs + exact filter {med['ckdtree'] * 1e3:8.2f} ms  "
              f"{rat['ckdtree']:.1f}x pairs() (target >= 50)")
    else:
        print("cKDTree: python3-scipy is not installed (scripts/setup-study-deps.sh installs it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
