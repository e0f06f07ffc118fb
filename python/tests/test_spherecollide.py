"""Tests of the Python module against a brute-force NumPy oracle in double.

Run by ctest (python.pytest) with PYTHONPATH at the build tree's package and
SC_CLI at the command-line tool.
"""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import spherecollide as sc


# ---- the oracle ------------------------------------------------------------------

def _as_double(centres, radii):
    """Centres as (N, 3) float64 (z = 0 for circles), radii as (N,) float64."""
    c = np.asarray(centres, dtype=np.float64)
    r = np.broadcast_to(np.asarray(radii, dtype=np.float64), (len(c),))
    if c.shape[1] == 2:
        c = np.column_stack([c, np.zeros(len(c))])
    return c, r


def _brute_pairs(c, r, skin=0.0):
    """(i, j) arrays, i < j, with (dx*dx + dy*dy) + dz*dz <= ((ri + rj) + skin)**2
    in double (NumPy's elementwise ufuncs: one rounding per operation, no FMA),
    in lexicographic order. skin 0 adds +0.0: the same double as ri + rj."""
    ii, jj = [], []
    for i0 in range(0, len(c), 256):
        ci, ri = c[i0:i0 + 256], r[i0:i0 + 256]
        dx = ci[:, None, 0] - c[None, :, 0]
        dy = ci[:, None, 1] - c[None, :, 1]
        dz = ci[:, None, 2] - c[None, :, 2]
        d2 = (dx * dx + dy * dy) + dz * dz
        s = (ri[:, None] + r[None, :]) + skin
        a, b = np.nonzero(d2 <= s * s)
        a = a + i0
        keep = a < b
        ii.append(a[keep])
        jj.append(b[keep])
    if not ii:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(ii), np.concatenate(jj)


def oracle(centres, radii):
    """Every intersecting pair i < j, sorted, as a (K, 2) uint32 array."""
    i, j = _brute_pairs(*_as_double(centres, radii))
    return np.column_stack([i, j]).astype(np.uint32).reshape(-1, 2)


def lexsorted(p):
    p = np.asarray(p).reshape(-1, 2)
    return p[np.lexsort((p[:, 1], p[:, 0]))]


# ---- data sets ---------------------------------------------------------------------

def _rng(seed):
    return np.random.default_rng(seed)


def uniform(n=1500, seed=1):
    g = _rng(seed)
    return g.random((n, 3)) * 40.0, g.random(n) * 1.2


def clustered(n=1500, seed=2):
    g = _rng(seed)
    hubs = g.random((6, 3)) * 100.0
    c = hubs[g.integers(0, 6, n)] + g.normal(0.0, 2.0, (n, 3))
    return c, g.random(n) * 0.6


def heavytail(n=1200, seed=3):
    g = _rng(seed)
    r = np.minimum((1.0 - g.random(n)) ** (-1 / 1.5), 300.0) * 0.2
    return g.random((n, 3)) * 150.0, r


def coincident(n=600, seed=4):
    """Zero radii on a coarse lattice (exact contacts at distance 0) and
    neighbours one subnormal apart."""
    g = _rng(seed)
    c = g.integers(0, 6, (n, 3)).astype(np.float64)
    c[::7, 0] += 5e-324
    r = np.zeros(n)
    r[::5] = 0.5  # some touch the lattice neighbours exactly
    return c, r


def huge(n=800, seed=5):
    """Coordinates near the documented limit 1e150."""
    g = _rng(seed)
    return (g.random((n, 3)) * 2 - 1) * 1e149, g.random(n) * 1.2e148


def circles(n=1500, seed=6):
    g = _rng(seed)
    return g.random((n, 2)) * 40.0, g.random(n) * 1.0


DATASETS = {f.__name__: f for f in (uniform, clustered, heavytail, coincident, huge, circles)}


# ---- exact pairs on every algorithm ----------------------------------------------------

@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("algorithm", sc.ALGORITHMS)
def test_every_algorithm_matches_the_oracle(name, algorithm):
    c, r = DATASETS[name]()
    want = oracle(c, r)
    got = sc.pairs(c, r, algorithm=algorithm, threads=2)
    assert got.dtype == np.intp and got.ndim == 2 and got.shape[1] == 2
    narrow = sc.pairs(c, r, algorithm=algorithm, threads=2, dtype=np.uint32)
    assert narrow.dtype == np.uint32
    np.testing.assert_array_equal(narrow, got)
    assert np.all(got[:, 0] < got[:, 1])
    np.testing.assert_array_equal(lexsorted(got), want)
    k, checksum = sc.count(c, r, algorithm=algorithm, threads=2)
    assert k == len(want)
    assert checksum == sc.pair_checksum(want)


def test_datasets_are_not_trivial():
    for name, make in DATASETS.items():
        assert len(oracle(*make())) > 50, name


@pytest.mark.parametrize("name", ["uniform", "heavytail", "circles"])
def test_stream_order_is_the_same_for_every_thread_count(name):
    c, r = DATASETS[name]()
    ref = sc.pairs(c, r, threads=1)
    for t in (2, 3, 4):
        np.testing.assert_array_equal(sc.pairs(c, r, threads=t), ref)


@pytest.mark.parametrize("kernel", ["scalar", "auto"])
def test_kernels_and_sorted_output(kernel):
    c, r = heavytail()
    got = sc.pairs(c, r, sorted=True, kernel=kernel, threads=3)
    np.testing.assert_array_equal(got, oracle(c, r))  # lexicographic already


def test_float32_is_read_as_float32():
    c, r = uniform()
    c32, r32 = c.astype(np.float32), r.astype(np.float32)
    want = oracle(c32.astype(np.float64), r32.astype(np.float64))
    np.testing.assert_array_equal(lexsorted(sc.pairs(c32, r32)), want)
    # a float32 / float64 mix is widened to float64 exactly: the same set
    np.testing.assert_array_equal(lexsorted(sc.pairs(c32, r32.astype(np.float64))), want)


# ---- layouts: read where they are, or copied exactly ----------------------------------

def _layouts(c, r):
    rows = np.column_stack([c, r])              # one (N, 4) array: column views
    ro_c, ro_r = c.copy(), r.copy()
    ro_c.setflags(write=False)
    ro_r.setflags(write=False)
    wide = np.zeros((len(c), 7))
    wide[:, 1:4] = c
    return {
        "contiguous": (c, r),
        "columns of one (N, 4)": (rows[:, :3], rows[:, 3]),
        "Fortran order": (np.asfortranarray(c), r),
        "read-only": (ro_c, ro_r),
        "strided rows": (wide[:, 1:4], r.copy()),
        "reversed columns": (c[:, ::-1][:, ::-1], r),
        "list input": (c.tolist(), r.tolist()),
    }


def test_layouts_give_the_same_pairs():
    c, r = clustered()
    ref = sc.pairs(c, r)
    for name, (cc, rr) in _layouts(c, r).items():
        np.testing.assert_array_equal(sc.pairs(cc, rr), ref, err_msg=name)


def test_views_and_copies():
    c, r = uniform(3000)
    sub_c, sub_r = c[::2], r[::2]                   # every other sphere, no copy
    np.testing.assert_array_equal(lexsorted(sc.pairs(sub_c, sub_r)), oracle(sub_c, sub_r))
    rev_c, rev_r = c[::-1], r[::-1]                 # negative strides: copied
    np.testing.assert_array_equal(lexsorted(sc.pairs(rev_c, rev_r)), oracle(rev_c, rev_r))
    perm = c[:, [2, 0, 1]]                          # reordered axes (a copy)
    np.testing.assert_array_equal(lexsorted(sc.pairs(perm, r)), oracle(perm, r))
    zyx = c[:, ::-1]                                # negative column stride: read in place
    assert zyx.strides[1] < 0
    np.testing.assert_array_equal(lexsorted(sc.pairs(zyx, r)), oracle(zyx, r))
    xy = c[:, 1::-1]                                # circles from the first two columns, reversed
    np.testing.assert_array_equal(lexsorted(sc.pairs(xy, r)), oracle(xy, r))


def test_integer_coordinates_and_one_radius():
    g = _rng(9)
    c = g.integers(0, 30, (1000, 3))
    np.testing.assert_array_equal(lexsorted(sc.pairs(c, 1.0)), oracle(c, np.full(1000, 1.0)))
    np.testing.assert_array_equal(lexsorted(sc.pairs(c, 1)), oracle(c, np.full(1000, 1.0)))


def test_empty_and_single():
    for n in (0, 1):
        p = sc.pairs(np.zeros((n, 3)), np.ones(n))
        assert p.shape == (0, 2) and p.dtype == np.intp
        assert sc.pairs(np.zeros((n, 3)), np.ones(n), dtype=np.uint32).dtype == np.uint32
        assert sc.count(np.zeros((n, 3)), np.ones(n)) == (0, 0)
        assert [a.shape for a in sc.iter_pairs(np.zeros((n, 2)), np.ones(n))] == []


# ---- chunks ----------------------------------------------------------------------------

def test_iter_pairs_concatenates_to_pairs():
    c, r = heavytail()
    ref = sc.pairs(c, r, threads=2)
    for chunk in (1, 7, 1000, 10**6):
        chunks = list(sc.iter_pairs(c, r, chunk=chunk, threads=2))
        assert all(1 <= len(a) <= chunk and a.dtype == np.intp for a in chunks)
        narrow = list(sc.iter_pairs(c, r, chunk=chunk, threads=2, dtype=np.uint32))
        assert all(a.dtype == np.uint32 for a in narrow)
        np.testing.assert_array_equal(np.concatenate(narrow), ref)
        np.testing.assert_array_equal(np.concatenate(chunks), ref)
    srt = np.concatenate(list(sc.iter_pairs(c, r, chunk=50, sorted=True)))
    np.testing.assert_array_equal(srt, oracle(c, r))


def test_iter_pairs_stops_early_and_frees_its_context():
    c, r = heavytail()
    it = sc.iter_pairs(c, r, chunk=10)
    first = next(it)
    assert len(first) == 10
    it.close()                       # stops the search thread
    for a in sc.iter_pairs(c, r, chunk=10):
        break                        # abandoned mid-way; the generator's close stops it
    np.testing.assert_array_equal(lexsorted(sc.pairs(c, r)), oracle(c, r))


def test_context_is_one_call_at_a_time_and_reusable():
    c, r = heavytail()
    want = oracle(c, r)
    ctx = sc.Context(threads=2, chunk=10)
    it = ctx.iter_pairs(c, r)
    assert len(next(it)) == 10
    with pytest.raises(RuntimeError, match="in use"):
        ctx.count(c, r)
    it.close()
    assert ctx.count(c, r) == (len(want), sc.pair_checksum(want))
    st = ctx.stats()
    assert st["pairs"] == len(want) and st["spheres"] == len(c) and 1 <= st["threads"] <= 2
    assert st["scratch_bytes"] > 0 and st["total_seconds"] > 0
    ctx.trim()
    np.testing.assert_array_equal(lexsorted(ctx.pairs(c, r)), want)
    srt = sc.Context(sorted=True, algorithm="sap")
    np.testing.assert_array_equal(srt.pairs(c, r), want)


def test_pairs_blocks_are_reused_only_once_released():
    """pairs() appends to the block of the last array released (its pages
    resident): an array still held is never written again, a reused block
    larger or smaller than the answer gives exactly the answer, and the
    empty answer and an error leave later calls exact."""
    big_c, big_r = uniform(3000, seed=11)
    small_c, small_r = uniform(400, seed=12)
    want_big, want_small = oracle(big_c, big_r), oracle(small_c, small_r)
    assert len(want_big) > 4 * len(want_small) > 0
    ctx = sc.Context(threads=2)
    held = ctx.pairs(big_c, big_r)
    kept = held.copy()
    for _ in range(3):
        again = ctx.pairs(big_c, big_r)  # held is not released: a new block
        np.testing.assert_array_equal(lexsorted(again), want_big)
        del again  # released: the next call appends to its block
        small = ctx.pairs(small_c, small_r)
        np.testing.assert_array_equal(lexsorted(small), want_small)
        del small
        np.testing.assert_array_equal(held, kept)
    assert ctx.pairs(np.zeros((0, 3)), np.zeros(0)).shape == (0, 2)
    with pytest.raises(sc.Error):
        ctx.pairs(big_c, -big_r)
    np.testing.assert_array_equal(lexsorted(ctx.pairs(big_c, big_r)), want_big)
    np.testing.assert_array_equal(held, kept)


def test_concurrent_calls_from_python_threads():
    sets = [DATASETS[k]() for k in ("uniform", "clustered", "heavytail", "circles")]
    want = [len(oracle(c, r)) for c, r in sets]
    got = [None] * 8

    def work(k):
        c, r = sets[k % 4]
        got[k] = sc.count(c, r, threads=2)[0]

    ts = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got == want + want


# ---- bad input -------------------------------------------------------------------------

def test_bad_shapes_and_types():
    c, r = uniform(100)
    with pytest.raises(ValueError, match=r"shape \(N, 3\) or \(N, 2\)"):
        sc.pairs(np.zeros((10, 4)), np.ones(10))
    with pytest.raises(ValueError, match=r"shape \(N, 3\) or \(N, 2\)"):
        sc.pairs(np.zeros(10), np.ones(10))
    with pytest.raises(ValueError, match=r"radii must have shape \(100,\)"):
        sc.pairs(c, r[:99])
    with pytest.raises(TypeError, match="complex"):
        sc.pairs(c.astype(np.complex128), r)
    with pytest.raises(TypeError, match="object"):
        sc.pairs(c.astype(object), r)
    with pytest.raises(ValueError, match="byte order"):
        sc.pairs(c.astype(">f8"), r)
    with pytest.raises(ValueError, match="byte order"):
        sc.pairs(c, r.astype(">f4"))
    with pytest.raises(ValueError, match="algorithm must be one of"):
        sc.pairs(c, r, algorithm="kdtree")
    with pytest.raises(ValueError, match="threads"):
        sc.count(c, r, threads=-1)
    with pytest.raises(ValueError, match="chunk"):
        next(sc.iter_pairs(c, r, chunk=0))


@pytest.mark.parametrize("where,value,status,name", [
    ((37, 1), np.nan, 2, "non-finite value"),
    ((37, 2), -np.inf, 2, "non-finite value"),
    ((37, 0), 2e150, 4, "value out of range"),
    ((37, 3), -0.5, 3, "negative radius"),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_bad_values_raise_error_naming_the_sphere(where, value, status, name, dtype):
    c, r = uniform(100)
    c, r = c.astype(dtype), r.astype(dtype)
    if dtype == np.float32 and value == 2e150:
        value = np.inf  # a float32 cannot hold 2e150
        status, name = 2, "non-finite value"
    i, col = where
    if col == 3:
        r[i] = value
    else:
        c[i, col] = value
    for call in (sc.pairs, sc.count, lambda a, b: list(sc.iter_pairs(a, b))):
        with pytest.raises(sc.Error) as e:
            call(c, r)
        assert e.value.status == status
        assert e.value.status_name.startswith(name)
        assert e.value.index == i
        assert str(e.value).startswith(f"sphere {i}: {name}")
        assert isinstance(e.value, ValueError)


# ---- the same answer as the command line ------------------------------------------------

@pytest.mark.parametrize("sorted_", [False, True])
def test_same_pairs_and_order_as_the_cli(tmp_path, sorted_):
    c, r = heavytail(4000)
    rows = np.column_stack([c, r])
    np.save(tmp_path / "in.npy", rows)
    assert os.environ.get("SC_CLI"), "SC_CLI must name the command-line tool (ctest sets it)"
    cmd = [os.environ["SC_CLI"], "pairs", str(tmp_path / "in.npy"), "-o", str(tmp_path / "out.npy"),
           "--threads", "2", "--quiet"] + (["--sorted"] if sorted_ else [])
    subprocess.run(cmd, check=True)
    cli = np.load(tmp_path / "out.npy")
    mine = sc.pairs(c, r, threads=3, sorted=sorted_)
    assert cli.dtype == np.uint32
    np.testing.assert_array_equal(mine, cli)


# ---- neighbour lists ---------------------------------------------------------------------

def nbr_oracle(centres, radii, full, skin, values):
    """The CSR list from the oracle's pairs at radii + skin: row i sorted.
    The skin predicate is d2 <= ((ri + rj) + skin)**2 and the values are
    computed from (i, j) with i < j, both in double."""
    c, r = _as_double(centres, radii)
    n = len(c)
    i, j = _brute_pairs(c, r, skin)
    lo, hi = i, j
    if full:
        i, j = np.concatenate([i, j]), np.concatenate([j, i])
        lo, hi = np.minimum(i, j), np.maximum(i, j)
    order = np.lexsort((j, i))
    i, j, lo, hi = i[order], j[order], lo[order], hi[order]
    off = np.zeros(n + 1, np.int64)
    np.add.at(off, i + 1, 1)
    off = np.cumsum(off)
    d = c[lo] - c[hi]
    dist = np.sqrt((d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2])
    val = {"overlap": (r[lo] + r[hi]) - dist, "distance": dist, None: None}[values]
    return off, j.astype(np.uint32), val


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("full,skin,values", [(False, 0.0, None), (True, 0.0, "overlap"),
                                              (False, 0.3, "distance"), (True, 5e-324, None)])
def test_neighbors_match_the_oracle(name, full, skin, values):
    c, r = DATASETS[name]()
    want = nbr_oracle(c, r, full, skin, values)
    for k, algorithm in enumerate(sc.ALGORITHMS):
        got = sc.neighbors(c, r, full=full, skin=skin, values=values, algorithm=algorithm,
                           threads=1 + k % 3)
        assert len(got) == (2 if values is None else 3)
        assert got[0].dtype == np.int64 and got[1].dtype == np.intp
        np.testing.assert_array_equal(got[0], want[0], err_msg=f"{algorithm}: offsets")
        np.testing.assert_array_equal(got[1], want[1], err_msg=f"{algorithm}: indices")
        if values is not None:
            assert got[2].dtype == np.float64
            # bit for bit: the same double expressions
            np.testing.assert_array_equal(got[2].view(np.uint64), want[2].view(np.uint64))


def test_neighbors_half_list_is_the_pair_set():
    c, r = uniform(3000)
    off, nbr = sc.neighbors(c, r)
    rows = np.repeat(np.arange(len(c), dtype=np.uint32), np.diff(off))
    np.testing.assert_array_equal(np.column_stack([rows, nbr]), sc.pairs(c, r, sorted=True))
    assert int(off[-1]) == sc.count(c, r)[0] > 0


def test_neighbors_float32_and_context():
    c, r = heavytail(1500)
    c32, r32 = c.astype(np.float32), r.astype(np.float32)
    want = nbr_oracle(c32, r32, True, 0.05, "overlap")
    ctx = sc.Context(threads=2)
    for _ in range(2):  # the second call reuses the context's scratch
        off, nbr, val = ctx.neighbors(c32, r32, full=True, skin=0.05, values="overlap")
        np.testing.assert_array_equal(off, want[0])
        np.testing.assert_array_equal(nbr, want[1])
        np.testing.assert_array_equal(val, want[2])
    assert ctx.stats()["pairs"] == len(want[1]) // 2


def test_neighbors_bad_arguments():
    c, r = uniform(200)
    with pytest.raises(ValueError, match="values must be"):
        sc.neighbors(c, r, values="depth")
    for skin in (-1.0, float("nan"), float("inf"), 1e151):
        with pytest.raises(ValueError, match="skin must be"):
            sc.neighbors(c, r, skin=skin)
    r = r.copy()
    r[17] = -0.5
    with pytest.raises(sc.Error) as e:
        sc.neighbors(c, r, skin=4.0)  # grown radii would hide it: still refused
    assert e.value.index == 17 and e.value.status_name.startswith("negative radius")


def test_neighbors_same_as_the_cli(tmp_path):
    c, r = heavytail(3000)
    np.save(tmp_path / "in.npy", np.column_stack([c, r]))
    subprocess.run([os.environ["SC_CLI"], "neighbors", str(tmp_path / "in.npy"), "--full",
                    "--skin", "0.125", "-o", str(tmp_path / "out.npy"), "--quiet"], check=True)
    cli = np.load(tmp_path / "out.npy")
    off, nbr = sc.neighbors(c, r, full=True, skin=0.125, threads=3)
    rows = np.repeat(np.arange(len(c), dtype=np.uint32), np.diff(off))
    np.testing.assert_array_equal(np.column_stack([rows, nbr]), cli)


# ---- two sets ------------------------------------------------------------------------------

def between_oracle(a, ra, b, rb):
    """Every (i, j), i in a and j in b, with (dx*dx + dy*dy) + dz*dz <= (ri + rj)**2
    in double, in lexicographic order, as a (K, 2) uint32 array."""
    a, ra = _as_double(a, ra)
    b, rb = _as_double(b, rb)
    out = []
    for i0 in range(0, len(a), 256):
        ci, ri = a[i0:i0 + 256], ra[i0:i0 + 256]
        dx = ci[:, None, 0] - b[None, :, 0]
        dy = ci[:, None, 1] - b[None, :, 1]
        dz = ci[:, None, 2] - b[None, :, 2]
        d2 = (dx * dx + dy * dy) + dz * dz
        s = ri[:, None] + rb[None, :]
        i, j = np.nonzero(d2 <= s * s)
        out.append(np.column_stack([i + i0, j]))
    if not out:
        return np.zeros((0, 2), np.uint32)
    return np.concatenate(out).astype(np.uint32).reshape(-1, 2)


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("algorithm", sc.ALGORITHMS)
def test_pairs_between_match_the_oracle(name, algorithm):
    c, r = DATASETS[name]()
    c2, r2 = DATASETS[name](seed=40)  # the small set spread over the same region
    small, rs = c2[:150], r2[:150]
    for a, ra, b, rb in ((small, rs, c, r), (c, r, small, rs), (c2, r2, c, r)):
        want = between_oracle(a, ra, b, rb)
        got = sc.pairs_between(a, ra, b, rb, algorithm=algorithm, threads=2, sorted=True)
        assert got.dtype == np.intp and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        narrow = sc.pairs_between(a, ra, b, rb, algorithm=algorithm, sorted=True, dtype=np.uint32)
        assert narrow.dtype == np.uint32
        np.testing.assert_array_equal(narrow, want)
        assert sc.count_between(a, ra, b, rb, algorithm=algorithm) == (len(want), sc.pair_checksum(want))
        unsorted = sc.pairs_between(a, ra, b, rb, algorithm=algorithm, threads=3)
        np.testing.assert_array_equal(lexsorted(unsorted), want)


def test_pairs_between_mixed_dtypes_context_and_edges():
    c, r = clustered()
    a, ra = c[:100].astype(np.float32), r[:100].astype(np.float32)
    want = between_oracle(a, ra, c, r)
    assert len(want) > 100  # a sphere in both sets meets itself, and its neighbours
    ctx = sc.Context(sorted=True)
    np.testing.assert_array_equal(ctx.pairs_between(a, ra, c, r), want)
    assert ctx.count_between(a, ra, c, r) == (len(want), sc.pair_checksum(want))
    assert ctx.stats()["spheres"] < len(c)  # only the large set's spheres near a were searched
    empty = sc.pairs_between(c[:0], r[:0], c, r)
    assert empty.shape == (0, 2)
    with pytest.raises(ValueError, match="both be 3-D or both 2-D"):
        sc.pairs_between(c, r, c[:, :2], r)


@pytest.mark.parametrize("which", ["a", "b"])
def test_pairs_between_bad_values_name_the_sphere(which):
    c, r = uniform(2000)
    a, ra = c[:100].copy(), r[:100].copy()
    b, rb = c.copy(), r.copy()
    (ra if which == "a" else rb)[57] = -1.0
    for call in (sc.pairs_between, sc.count_between):
        with pytest.raises(sc.Error) as e:
            call(a, ra, b, rb)
        assert e.value.status == 3 and e.value.index == 57


def test_pairs_between_same_as_the_cli(tmp_path):
    c, r = heavytail(4000)
    c2, r2 = heavytail(4000, seed=9)
    np.save(tmp_path / "a.npy", np.column_stack([c2[:500], r2[:500]]))
    np.save(tmp_path / "b.npy", np.column_stack([c, r]))
    subprocess.run([os.environ["SC_CLI"], "pairs", str(tmp_path / "a.npy"), "--against",
                    str(tmp_path / "b.npy"), "-o", str(tmp_path / "out.npy"), "--quiet"], check=True)
    cli = np.load(tmp_path / "out.npy")
    np.testing.assert_array_equal(sc.pairs_between(c2[:500], r2[:500], c, r, threads=3), cli)


# ---- periodic boxes --------------------------------------------------------------------------

def _wrap(x, lo, hi):
    """The C header's wrap(x) on an array: x when lo <= x < hi, else
    x - floor((x - lo) / L) * L, then lo when that is outside [lo, hi)."""
    L = hi - lo
    t = x - np.floor((x - lo) / L) * L
    t = np.where((t < lo) | (t >= hi), lo, t)
    return np.where((x >= lo) & (x < hi), x, t)


def periodic_oracle(centres, radii, box, other=None, other_radii=None):
    """The header's periodic expression over every i < j: wrapped centres,
    d = cj - ci per axis, d - L when d > 0.5 L, d + L when d < -0.5 L on a
    periodic axis; box is a list of (lo, hi) or None per axis. With another
    set: every (i, j), i in the first and j in the other."""
    def wrapped(centres, radii):
        c, r = _as_double(centres, radii)
        c = c.copy()
        for a, b in enumerate(box):
            if b is not None:
                c[:, a] = _wrap(c[:, a], *b)
        return c, r
    c, r = wrapped(centres, radii)
    cb, rb = (c, r) if other is None else wrapped(other, other_radii)
    out = []
    for i0 in range(0, len(c), 256):
        ci, ri = c[i0:i0 + 256], r[i0:i0 + 256]
        d = [cb[None, :, a] - ci[:, None, a] for a in range(3)]
        for a, b in enumerate(box):
            if b is not None:
                L = b[1] - b[0]
                d[a] = np.where(d[a] > 0.5 * L, d[a] - L, np.where(d[a] < -0.5 * L, d[a] + L, d[a]))
        d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2]
        s = ri[:, None] + rb[None, :]
        i, j = np.nonzero(d2 <= s * s)
        i = i + i0
        keep = i < j if other is None else np.ones(len(i), bool)
        out.append(np.column_stack([i[keep], j[keep]]))
    return np.concatenate(out).astype(np.uint32).reshape(-1, 2) if out else np.zeros((0, 2), np.uint32)


def _box_cases(c):
    """Boxes for the data: fitted, cutting through it (spheres wrap), one
    axis open (as both the module's forms and the oracle's)."""
    lo, hi = c.min(axis=0), c.max(axis=0)
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    fitted = [(float(lo[a]), float(np.nextafter(hi[a], np.inf))) for a in range(c.shape[1])]
    cut = [(float(mid[a] - 0.7 * half[a]), float(mid[a] + 0.7 * half[a])) for a in range(c.shape[1])]
    open_last = cut[:-1] + [None]
    cases = [(fitted, fitted), (cut, cut), (open_last, open_last)]
    return [(arg, want + [None] * (3 - len(want))) for arg, want in cases]


@pytest.mark.parametrize("name", ["uniform", "clustered", "heavytail", "coincident", "circles"])
@pytest.mark.parametrize("algorithm", sc.ALGORITHMS)
def test_periodic_box_matches_the_oracle(name, algorithm):
    c, r = DATASETS[name]()
    for arg, box in _box_cases(c):
        want = periodic_oracle(c, r, box)
        got = sc.pairs(c, r, box=arg, algorithm=algorithm, threads=2, sorted=True)
        np.testing.assert_array_equal(got, want)
        assert sc.count(c, r, box=arg, algorithm=algorithm) == (len(want), sc.pair_checksum(want))
        unsorted = sc.pairs(c, r, box=arg, algorithm=algorithm, threads=3)
        np.testing.assert_array_equal(lexsorted(unsorted), want)


def test_periodic_box_crosses_faces_and_takes_every_form():
    c, r = uniform(3000)
    open_pairs = oracle(c, r)
    want = periodic_oracle(c, r, [(0.0, 40.0)] * 3)
    assert len(want) > len(open_pairs)  # pairs across the faces
    for form in (40.0, [40.0, 40.0, 40.0], [(0, 40), 40, (0.0, 40.0)], np.float32(40)):
        np.testing.assert_array_equal(sc.pairs(c, r, box=form, sorted=True), want)
    chunks = list(sc.iter_pairs(c, r, box=40.0, chunk=1000, sorted=True))
    np.testing.assert_array_equal(np.concatenate(chunks), want)
    ctx = sc.Context(box=40.0, sorted=True)
    np.testing.assert_array_equal(ctx.pairs(c, r), want)
    assert ctx.stats()["spheres"] > len(c)  # the images near the faces were searched
    # a small box against the spheres: many images, pairs across two faces
    small = [(0.0, 3.0)] * 3
    want = periodic_oracle(c[:200], r[:200], small)
    np.testing.assert_array_equal(sc.pairs(c[:200], r[:200], box=3.0, sorted=True), want)
    # circles, x periodic only
    c2, r2 = circles()
    want = periodic_oracle(c2, r2, [(0.0, 30.0), None, None])
    np.testing.assert_array_equal(sc.pairs(c2, r2, box=[30.0, None], sorted=True), want)


def test_periodic_box_bad_arguments():
    c, r = uniform(500)
    for bad in ([1, 2, 3, 4], [(5, 1), None, None], float("nan"), [(0, 1e150), None, None], (1,)):
        with pytest.raises(ValueError, match="box"):
            sc.pairs(c, r, box=bad)
    with pytest.raises(ValueError, match="3-D"):
        sc.pairs(c, r, box=[10.0, 10.0])
    r2 = r.copy()
    r2[7] = 6e149  # above the periodic limit (1e150 / 2)
    with pytest.raises(sc.Error) as e:
        sc.count(c, r2, box=40.0)
    assert e.value.status == 4
    with pytest.raises(sc.Error) as e:  # the limit holds in either set of two
        sc.pairs_between(c[:50], r[:50], c, r2, box=40.0)
    assert e.value.status == 4
    with pytest.raises(ValueError, match="3-D"):
        sc.count_between(c, r, c, r, box=[10.0, 10.0])


def test_periodic_box_same_as_the_cli(tmp_path):
    c, r = uniform(4000)
    np.save(tmp_path / "in.npy", np.column_stack([c, r]))
    subprocess.run([os.environ["SC_CLI"], "pairs", str(tmp_path / "in.npy"), "--box", "5:35,0:40,-",
                    "-o", str(tmp_path / "out.npy"), "--quiet", "--threads", "2"], check=True)
    cli = np.load(tmp_path / "out.npy")
    mine = sc.pairs(c, r, box=[(5, 35), 40, None], threads=3)
    np.testing.assert_array_equal(mine, cli)


@pytest.mark.parametrize("name", ["uniform", "heavytail", "circles"])
@pytest.mark.parametrize("algorithm", sc.ALGORITHMS)
def test_periodic_pairs_between_match_the_oracle(name, algorithm):
    c, r = DATASETS[name]()
    c2, r2 = DATASETS[name](seed=41)
    small, rs = c2[:120], r2[:120]  # a small set: the larger one is filtered
    for arg, box in _box_cases(c)[1:]:
        for a, ra, b, rb in ((small, rs, c, r), (c, r, small, rs), (c2, r2, c, r)):
            want = periodic_oracle(a, ra, box, b, rb)
            got = sc.pairs_between(a, ra, b, rb, box=arg, algorithm=algorithm, threads=2, sorted=True)
            np.testing.assert_array_equal(got, want)
            assert sc.count_between(a, ra, b, rb, box=arg, algorithm=algorithm) == \
                (len(want), sc.pair_checksum(want))
    ctx = sc.Context(box=_box_cases(c)[1][0], threads=3)
    want = periodic_oracle(small, rs, _box_cases(c)[1][1], c, r)
    np.testing.assert_array_equal(lexsorted(ctx.pairs_between(small, rs, c, r)), want)


def test_periodic_pairs_between_same_as_the_cli(tmp_path):
    c, r = uniform(3000)
    c2, r2 = uniform(200, seed=43)
    np.save(tmp_path / "a.npy", np.column_stack([c2, r2]))
    np.save(tmp_path / "b.npy", np.column_stack([c, r]))
    subprocess.run([os.environ["SC_CLI"], "pairs", str(tmp_path / "a.npy"), "--against",
                    str(tmp_path / "b.npy"), "--box", "5:35,0:40,-", "--sorted",
                    "-o", str(tmp_path / "out.npy"), "--quiet"], check=True)
    cli = np.load(tmp_path / "out.npy")
    mine = sc.pairs_between(c2, r2, c, r, box=[(5, 35), 40, None], sorted=True, threads=2)
    assert len(cli) > 0
    np.testing.assert_array_equal(mine, cli)


@pytest.mark.parametrize("algorithm", ["grid", "brute", "sap", "bvh"])
def test_periodic_neighbors_match_the_oracle(algorithm):
    c, r = uniform(1500)
    box = [(2.0, 38.0), (0.0, 40.0), None]
    for full, skin, values in ((False, 0.0, None), (True, 0.0, "overlap"), (True, 0.7, "distance")):
        want = periodic_oracle(c, r, box) if skin == 0 else None
        off, idx, *val = sc.neighbors(c, r, full=full, skin=skin, values=values, box=box,
                                      algorithm=algorithm, threads=2)
        # rows from the oracle at s = (ri + rj) + skin, by the expression
        cw = c.copy()
        for a, b in enumerate(box):
            if b is not None:
                cw[:, a] = _wrap(cw[:, a], *b)
        rows = []
        for i in range(len(c)):
            d = cw - cw[i]
            for a, b in enumerate(box):
                if b is not None:
                    L = b[1] - b[0]
                    # the expression runs from the smaller index: d(j - i) for j > i,
                    # and its negation (the same magnitude) for j < i
                    d[:, a] = np.where(d[:, a] > 0.5 * L, d[:, a] - L,
                                       np.where(d[:, a] < -0.5 * L, d[:, a] + L, d[:, a]))
            d2 = (d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2]
            s = (r[i] + r) + skin
            j = np.nonzero(d2 <= s * s)[0]
            j = j[(j != i) & ((j > i) | full)]
            rows.append(j)
        np.testing.assert_array_equal(off, np.concatenate([[0], np.cumsum([len(j) for j in rows])]))
        np.testing.assert_array_equal(idx, np.concatenate(rows).astype(np.uint32))
        if want is not None and not full:
            np.testing.assert_array_equal(np.column_stack([np.repeat(np.arange(len(c)), np.diff(off)), idx]), want)
        if values == "distance":
            i = np.repeat(np.arange(len(c)), np.diff(off))
            lo, hi = np.minimum(i, idx), np.maximum(i, idx)
            d = cw[hi] - cw[lo]
            for a, b in enumerate(box):
                if b is not None:
                    L = b[1] - b[0]
                    d[:, a] = np.where(d[:, a] > 0.5 * L, d[:, a] - L,
                                       np.where(d[:, a] < -0.5 * L, d[:, a] + L, d[:, a]))
            np.testing.assert_array_equal(val[0], np.sqrt((d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2]))


# ---- the grid's cell order ---------------------------------------------------------

@pytest.mark.parametrize("name", sorted(DATASETS))
def test_cell_order_is_a_permutation_with_the_same_pairs(name):
    c, r = DATASETS[name]()
    r = np.broadcast_to(r, (len(c),))
    order = sc.cell_order(c, r, threads=2)
    assert order.dtype == np.intp and order.shape == (len(c),)
    assert sc.cell_order(c, r, dtype=np.uint32).dtype == np.uint32
    np.testing.assert_array_equal(np.sort(order), np.arange(len(c), dtype=np.uint32))
    np.testing.assert_array_equal(sc.cell_order(c, r, threads=1), order)
    np.testing.assert_array_equal(sc.cell_order(c, r, threads=3), order)
    # the pairs of the reordered spheres, mapped back, are the oracle's
    got = order[sc.pairs(c[order], r[order], threads=2)]
    got = np.sort(got, axis=1)
    np.testing.assert_array_equal(lexsorted(got), oracle(c, r))


def test_cell_order_on_a_context_needs_the_grid():
    c, r = uniform(20000, seed=9)
    ctx = sc.Context(threads=2)
    order = ctx.cell_order(c, r)
    np.testing.assert_array_equal(order, sc.cell_order(c, r))
    k, _ = ctx.count(c[order], r[order])
    assert k == ctx.count(c, r)[0] and k > 10000
    with pytest.raises(sc.Error) as e:
        sc.Context(algorithm="sap").cell_order(c, r)
    assert e.value.status == 9 and e.value.status_name.startswith("not supported")
    with pytest.raises(sc.Error) as e:
        c2 = c.copy()
        c2[5, 1] = np.nan
        ctx.cell_order(c2, r)
    assert e.value.index == 5
    assert sc.cell_order(np.zeros((0, 3)), np.zeros(0)).shape == (0,)


# ---- system information ------------------------------------------------------------

def test_system_info_names_the_machine_and_the_page_policy():
    text = sc.system_info(threads=2)
    assert text.startswith("spherecollide " + sc.__version__ + "\n")
    assert "\nthreads: 2 " in text
    assert "\nkernel: " in text
    assert "\nhuge pages: " in text
    assert sc.system_info() != ""
    # the policy is read once per process: a fresh interpreter for each setting
    import sys
    for value, want in (("0", "huge pages: not advised (SC_HUGE_PAGES=0)"),
                        ("1", "huge pages: advised for scratch blocks of 2 MiB or more (SC_HUGE_PAGES=1)")):
        env = dict(os.environ, SC_HUGE_PAGES=value)
        out = subprocess.run([sys.executable, "-c", "import spherecollide as sc; print(sc.system_info())"],
                             env=env, check=True, capture_output=True, text=True).stdout
        assert want in out.splitlines(), out


# ---- index dtypes and unaligned arrays (issue 52) ------------------------------------------

def test_default_indices_do_not_overflow():
    # i * n past 2**32: uint32 indices would wrap silently
    n = 70000
    c = np.zeros((n, 3))
    c[:, 0] = np.arange(n) * 3.0
    c[-2:, 0] = c[-1, 0]  # the last two spheres meet
    p = sc.pairs(c, 1.0)
    assert p.dtype == np.intp and p.tolist() == [[n - 2, n - 1]]
    assert int((p[:, 0] * n)[0]) == (n - 2) * n


def test_index_dtype_is_checked():
    c, r = uniform()
    for f in (lambda d: sc.pairs(c, r, dtype=d), lambda d: list(sc.iter_pairs(c, r, dtype=d)),
              lambda d: sc.neighbors(c, r, dtype=d), lambda d: sc.cell_order(c, r, dtype=d),
              lambda d: sc.pairs_between(c, r, c[:10], r[:10], dtype=d)):
        for bad in (np.int32, np.float64, np.uint64):
            with pytest.raises(TypeError, match="numpy.intp"):
                f(bad)


def _unaligned(a):
    """A C-contiguous copy of a whose data starts one byte past an aligned address."""
    buf = bytearray(a.nbytes + 1)
    u = np.frombuffer(buf, a.dtype, count=a.size, offset=1).reshape(a.shape)
    u[...] = a
    assert u.flags.c_contiguous and not u.flags.aligned
    return u


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("which", ["centres", "radii", "both"])
def test_unaligned_arrays_are_copied(dtype, which):
    c, r = uniform()
    c, r = c.astype(dtype), np.asarray(r, dtype).reshape(-1)
    r = np.broadcast_to(r, (len(c),)).copy()
    cu = _unaligned(c) if which != "radii" else c
    ru = _unaligned(r) if which != "centres" else r
    np.testing.assert_array_equal(sc.pairs(cu, ru), sc.pairs(c, r))
    assert sc.count(cu, ru) == sc.count(c, r)
    np.testing.assert_array_equal(np.concatenate(list(sc.iter_pairs(cu, ru))), sc.pairs(c, r))
    for got, want in zip(sc.neighbors(cu, ru, skin=0.1), sc.neighbors(c, r, skin=0.1)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(sc.pairs_between(cu, ru, c[:50], r[:50]),
                                  sc.pairs_between(c, r, c[:50], r[:50]))
    assert sc.count_between(c[:50], r[:50], cu, ru) == sc.count_between(c[:50], r[:50], c, r)
    np.testing.assert_array_equal(sc.cell_order(cu, ru), sc.cell_order(c, r))
    ctx = sc.Context()
    np.testing.assert_array_equal(ctx.pairs(cu, ru), sc.pairs(c, r))


def test_import_without_the_extension_says_how_to_build(tmp_path):
    # the package's Python file alone, as a build tree holds it before the
    # extension is built
    pkg = tmp_path / "spherecollide"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(open(sc.__file__).read())
    run = subprocess.run([sys.executable, "-c", "import spherecollide"], capture_output=True,
                         text=True, cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert run.returncode != 0
    assert "ImportError" in run.stderr and "scripts/build-and-run.sh" in run.stderr, run.stderr


def test_periodic_radius_limit_names_the_sphere():
    c = np.zeros((5, 3))
    r = np.array([1, 1, 6e149, 1, 1.0])
    calls = [lambda: sc.pairs(c, r, box=10.0), lambda: sc.count(c, r, box=10.0),
             lambda: list(sc.iter_pairs(c, r, box=10.0)), lambda: sc.neighbors(c, r, box=10.0),
             lambda: sc.Context(box=10.0).pairs(c, r),
             lambda: sc.pairs_between(c, r, c[:2], r[:2], box=10.0),
             lambda: sc.pairs_between(c[:2], r[:2], c, r, box=10.0)]
    for call in calls:
        with pytest.raises(sc.Error) as e:
            call()
        assert e.value.index == 2 and e.value.status == 4, (e.value, e.value.index)
        assert "5e149" in str(e.value) and "periodic" in str(e.value)
    # open boundaries take it (below 1e150)
    assert sc.count(c, r)[0] == 10
