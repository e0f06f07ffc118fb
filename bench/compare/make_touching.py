#!/usr/bin/python3
"""make_touching: writes M sphere pairs that sit on the edge of the predicate.

    make_touching.py M OUT.npy [--seed S]

Pair k is spheres 2k and 2k+1: radii in [1, 1.5], the first centre at a lattice
point of a cube centred on the origin (spacing 10, so pairs never meet each
other; near the origin |x| is comparable to r, where rounding x +/- r and
rounding ri + rj are of the same size), the second at distance ri + rj along the x axis (even k) or a
random direction (odd k), then
moved along x (bisection over the doubles) to the last position that spherecollide's double
predicate still accepts ((dx*dx + dy*dy) + dz*dz <= (ri + rj)^2). One pair in
four is then moved one ulp further out, so it is just rejected. A broad phase
whose bounds are x +/- r rounded to nearest loses some of the accepted pairs;
run-compare.sh --quick uses this file to check that every runner finds them.
Needs numpy only.
"""
import argparse
import sys

import numpy as np


def ordered(v):
    """int64 keys that order like the doubles v (negative values mirrored)."""
    b = v.view(np.int64)
    return np.where(b < 0, np.int64(-(2**63)) - b, b)


def unordered(k):
    """The inverse of ordered()."""
    b = np.where(k < 0, np.int64(-(2**63)) - k, k)
    return b.view(np.float64)


def accepts(p, q):
    dx = p[:, 0] - q[:, 0]
    dy = p[:, 1] - q[:, 1]
    dz = p[:, 2] - q[:, 2]
    d2 = (dx * dx + dy * dy) + dz * dz
    s = p[:, 3] + q[:, 3]
    return d2 <= s * s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("m", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    m = a.m
    rng = np.random.default_rng(a.seed)
    side = int(np.ceil(m ** (1 / 3)))
    k = np.arange(m)
    lattice = np.stack([k % side, (k // side) % side, k // (side * side)], axis=1).astype(np.float64)
    p = np.empty((m, 4))
    p[:, :3] = 10.0 * (lattice - (side - 1) / 2.0) + rng.uniform(-0.25, 0.25, (m, 3))
    p[:, 3] = rng.uniform(1.0, 1.5, m)
    q = np.empty((m, 4))
    q[:, 3] = rng.uniform(1.0, 1.5, m)
    u = rng.normal(size=(m, 3))
    # Half the pairs touch along the x axis (y and z equal), where a box test
    # decides on exactly the quantities the predicate does; the rest along a
    # random direction.
    axis = k % 2 == 0
    u[axis] = 0.0
    u[axis, 0] = np.where(rng.random(int(axis.sum())) < 0.5, 1.0, -1.0)
    u /= np.linalg.norm(u, axis=1)[:, None]
    q[:, :3] = p[:, :3] + u * (p[:, 3] + q[:, 3])[:, None] * (1.0 - 1e-9)
    if not accepts(p, q).all():
        print("make_touching: a starting position is not accepted", file=sys.stderr)
        return 1
    # Bisect q's x coordinate between an accepted position (inside) and a
    # rejected one (outside, 3 units further along x, away from p's centre):
    # it ends with `inside` accepted and `outside`, one ulp further, rejected.
    sign = np.where(q[:, 0] >= p[:, 0], 1.0, -1.0)
    inside = ordered(q[:, 0].copy())
    outside = ordered(q[:, 0] + 3.0 * sign)
    trial = q.copy()
    while True:
        gap = np.abs(outside - inside)
        if (gap <= 1).all():
            break
        mid = inside + (outside - inside) // 2
        trial[:, 0] = unordered(mid)
        ok = accepts(p, trial) & (gap > 1)
        inside = np.where(ok, mid, inside)
        outside = np.where(~ok & (gap > 1), mid, outside)
    q[:, 0] = unordered(inside)
    if not accepts(p, q).all():
        print("make_touching: could not place every pair", file=sys.stderr)
        return 1
    reject = rng.random(m) < 0.25
    q[reject, 0] = unordered(outside)[reject]
    rows = np.empty((2 * m, 4))
    rows[0::2] = p
    rows[1::2] = q
    np.save(a.out, rows)
    print(f"make_touching: {m} pairs, {int(accepts(p, q).sum())} accepted on the edge, "
          f"{int((~accepts(p, q)).sum())} just outside -> {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
