#!/usr/bin/python3
"""scipy_pairs: all intersecting sphere pairs the way a SciPy user finds them.

    scipy_pairs.py FILE.npy [--repeat R] [--max-candidates C]

Each repeat: cKDTree(centres), query_pairs(r_query, output_type='ndarray')
with r_query = 2 r_max (every intersecting pair is within it), then the exact
filter of spherecollide.h in numpy float64, same formula and order:
    dx = xi-xj, dy = yi-yj, dz = zi-zj, d2 = (dx*dx + dy*dy) + dz*dz,
    s = ri + rj, keep d2 <= s*s
(each numpy ufunc rounds once, so there is no fused multiply-add). The count
and the checksum (sum of spherecollide's sc_pair_mix(i, j), i < j, mod 2^64)
are taken over the kept pairs. The file read is not timed. Single-threaded
by design (cKDTree.query_pairs has no workers argument).

r_query is 2 r_max widened by a relative 2^-40 (plus 2^-535): cKDTree computes
distances in its own rounding, so a pair exactly touching at s = 2 r_max could
otherwise be dropped before the exact filter sees it.

Guard: query_pairs materialises every candidate pair (16 bytes each, twice at
its peak). Before timing, an untimed estimate from ball counts around 2000
sampled centres (exact when n <= 2000) predicts the candidates; if more than
C (default 1e8, about 3 GiB at the peak) it prints "refused: ..." and exits 3.
C = 0 turns the guard off.

Prints the same line as the C runners (runner_util.h):
pairs=K checksum=0x... seconds=S peak_rss_mb=M threads=1 repeats=R times=...
Exit: 0 ok, 1 failure, 2 usage, 3 refused or scipy missing.
"""
import argparse
import resource
import sys
import time

import numpy as np

try:
    from scipy.spatial import cKDTree
except ImportError:
    print("skipped: python3-scipy not installed")
    sys.exit(3)

CHUNK = 1 << 22  # pairs filtered per numpy pass: bounds the filter's temporaries
SAMPLE = 2000  # centres whose ball counts estimate the candidate count (guard)


def pair_mix(i, j):
    """spherecollide's sc_pair_mix on uint64 arrays (wrapping arithmetic)."""
    z = (i.astype(np.uint64) << np.uint64(32)) | j.astype(np.uint64)
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def exact_filter(x, y, z, r, cand):
    """Count and checksum of the candidate pairs (K x 2, i < j) that intersect."""
    count = 0
    checksum = 0
    for lo in range(0, cand.shape[0], CHUNK):
        i = cand[lo:lo + CHUNK, 0]
        j = cand[lo:lo + CHUNK, 1]
        dx = x[i] - x[j]
        dy = y[i] - y[j]
        dz = z[i] - z[j]
        d2 = (dx * dx + dy * dy) + dz * dz
        s = r[i] + r[j]
        keep = d2 <= s * s
        ki = i[keep]
        kj = j[keep]
        count += int(ki.shape[0])
        if ki.shape[0]:
            checksum = (checksum + int(np.sum(pair_mix(ki, kj), dtype=np.uint64))) % (1 << 64)
    return count, checksum


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-candidates", type=float, default=1e8)
    a = ap.parse_args()
    if not 1 <= a.repeat <= 1000 or a.max_candidates < 0:
        ap.error("bad --repeat or --max-candidates")

    rows = np.load(a.file, mmap_mode=None, allow_pickle=False)
    if rows.dtype != np.float64 or rows.ndim != 2 or rows.shape[1] != 4:
        print(f"scipy_pairs: {a.file}: need an (N, 4) float64 array", file=sys.stderr)
        return 1
    rows = np.ascontiguousarray(rows)
    n = rows.shape[0]
    x = rows[:, 0].copy()
    y = rows[:, 1].copy()
    z = rows[:, 2].copy()
    r = rows[:, 3].copy()
    rmax = float(r.max()) if n else 0.0
    r_query = 2.0 * rmax * (1.0 + 2.0 ** -40) + 2.0 ** -535
    # np.seterr: the uint64 mixing wraps on purpose.
    np.seterr(over="ignore")

    if a.max_candidates > 0 and n > 1:
        # Estimate the candidates from ball counts around a fixed sample of up to
        # SAMPLE centres (all of them when n <= SAMPLE): n (mean count - 1) / 2.
        # (count_neighbors would be exact but costs as much as the search.)
        tree = cKDTree(rows[:, :3])
        pick = np.random.default_rng(1).choice(n, min(n, SAMPLE), replace=False)
        counts = tree.query_ball_point(rows[pick, :3], r_query, return_length=True)
        cands = n * (float(np.mean(counts)) - 1.0) / 2.0
        del tree
        if cands > a.max_candidates:
            print(f"refused: query_pairs({r_query:.6g}) would return about {cands:.3g} candidate "
                  f"pairs > --max-candidates {a.max_candidates:.3g}")
            return 3

    times = []
    result = None
    for rep in range(a.repeat):
        t0 = time.perf_counter()
        tree = cKDTree(rows[:, :3])
        cand = tree.query_pairs(r_query, output_type="ndarray")
        res = exact_filter(x, y, z, r, cand)
        times.append(time.perf_counter() - t0)
        proposed = int(cand.shape[0])
        del tree, cand
        if result is not None and res != result:
            print(f"scipy_pairs: repeat {rep} disagrees with repeat 0", file=sys.stderr)
            return 1
        result = res
    print(f"scipy_pairs: n={n}, r_query={r_query:.9g}, {proposed} candidate pairs, "
          f"{result[0]} intersect", file=sys.stderr)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"pairs={result[0]} checksum=0x{result[1]:016x} seconds={float(np.median(times)):.9g} "
          f"peak_rss_mb={peak_mb:.1f} threads=1 repeats={a.repeat} "
          f"times={','.join(f'{t:.6g}' for t in times)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
