"""spherecollide: every intersecting pair of a batch of spheres, exactly.

Spheres i and j intersect when, in IEEE double on your values,
``(dx*dx + dy*dy) + dz*dz <= (ri + rj)**2`` (touching counts); every function
returns exactly that pair set, as indices i < j into your arrays, whatever the
dtype, algorithm or thread count.

    import numpy as np, spherecollide as sc
    centres = np.random.default_rng(1).random((100_000, 3)) * 100
    radii = np.full(100_000, 0.5)
    p = sc.pairs(centres, radii)            # (K, 2) intp, i < j (dtype=np.uint32 for half the memory)
    k, checksum = sc.count(centres, radii)  # K without storing the pairs
    off, nbr = sc.neighbors(centres, radii, full=True)  # CSR: row i is nbr[off[i]:off[i+1]]

Arrays: centres of shape (N, 3), or (N, 2) for circles; radii of shape (N,)
or one number for all. float32 and float64 are read where they are, at any
positive strides (slices, Fortran order, read-only arrays, a column view of
one (N, 4) array), with the GIL released. Other real dtypes, a float32/float64
mix, negative or zero strides and unaligned arrays are first copied to the
wider float (exactly). Big-endian arrays and complex, object or long double
arrays are refused (converting them is the caller's choice).
"""

import contextlib as _contextlib
import threading as _threading

import numpy as _np

try:
    from . import _core
except ImportError as _e:  # the package's Python file without its C extension
    raise ImportError(
        "spherecollide: the C extension (_core) is not built beside " + __file__ + ". Build it with "
        "`bash scripts/build-and-run.sh` (or `cmake --build build --target sc_python`; it needs "
        "Debian's python3-dev and python3-numpy), then run Debian's /usr/bin/python3 with "
        "PYTHONPATH=build/python, or install it with `cmake --install build` or `pip install "
        "--no-build-isolation --no-index .` in a virtual environment (docs/python.md)") from _e
from ._core import Error

__all__ = ["pairs", "count", "iter_pairs", "neighbors", "pairs_between", "count_between", "cell_order", "Context", "pair_checksum", "clear_cache", "Error",
           "ALGORITHMS", "system_info", "__version__"]

__version__ = _core.version()


def system_info(threads=0):
    """The machine as the library sees it, as text: CPU features, the kernel
    chosen, the page policy for scratch (huge pages or not, and why), the
    hwloc topology and the binding `threads` threads would get (0: one per
    core). The C library's sc_system_info; worth pasting into a bug report."""
    return _core.system_info(int(threads))

_names = _core.names()
#: The algorithm names, as the C library's sc_algorithm_name gives them.
ALGORITHMS = tuple(_names["algorithms"])
_KERNELS = tuple(_names["kernels"])


# ---- arrays -------------------------------------------------------------------

def _real_array(a, what):
    a = _np.asarray(a)
    if a.dtype.kind in "biu":
        return a.astype(_np.float64)          # exact below 2**53
    if a.dtype.kind != "f" or a.dtype.itemsize not in (2, 4, 8):
        raise TypeError(f"{what}: dtype {a.dtype} is not a real float or integer type "
                        "the library reads (float32, float64; integers and float16 are widened)")
    if a.dtype.itemsize == 2:
        return a.astype(_np.float32)          # exact
    if not a.dtype.isnative:
        raise ValueError(f"{what}: byte order {a.dtype.str!r} is not this machine's; "
                         f"convert it first, for example {what}.astype({a.dtype.newbyteorder('=').str!r})")
    return a


def _readable(a):
    """a as the library reads it: aligned, positive strides along N. An
    unaligned array is copied (ascontiguousarray would keep a contiguous
    one as it is, unaligned)."""
    if not a.flags.aligned or (a.shape[0] > 1 and a.strides[0] <= 0):
        return _np.array(a, order="C", copy=True)
    return a


def _wide(dtype):
    """True for intp indices (NumPy's and scipy's convention, the default),
    False for uint32 (half the memory)."""
    d = _np.dtype(dtype)
    if d == _np.dtype(_np.intp):
        return True
    if d == _np.dtype(_np.uint32):
        return False
    raise TypeError(f"dtype must be numpy.intp (the default) or numpy.uint32, not {d}")


def _as_index(a, wide):
    return a.astype(_np.intp) if wide and a.dtype != _np.intp else a


def _prepare(centres, radii):
    c = _real_array(centres, "centres")
    if c.ndim != 2 or c.shape[1] not in (2, 3):
        raise ValueError(f"centres must have shape (N, 3) or (N, 2), not {c.shape}")
    n = c.shape[0]
    r = _real_array(radii, "radii")
    if r.ndim == 0:
        r = _np.full(n, r, dtype=r.dtype)
    if r.ndim != 1 or r.shape[0] != n:
        raise ValueError(f"radii must have shape ({n},) (one per centre) or be one number, not {r.shape}")
    if c.dtype != r.dtype:                    # float32 with float64: both float64, exactly
        c, r = c.astype(_np.float64), r.astype(_np.float64)
    return _readable(c), _readable(r)


# ---- contexts -----------------------------------------------------------------------

_MAX_BOX = 1e150 / 8   # SC_MAX_BOX_VALUE


def _scalar(x):
    return not isinstance(x, (list, tuple)) and _np.ndim(x) == 0


def _box(box):
    """box= as the library's sc_box: ((periodic,) * 3, lo, hi), or None.

    A number L: every axis periodic on [0, L). A sequence of 2 or 3 entries,
    one per axis: None (open), a number L ([0, L)) or a pair (lo, hi)."""
    if box is None:
        return None
    entries = [box] * 3 if _scalar(box) else list(box)
    if not 2 <= len(entries) <= 3:
        raise ValueError(f"box must be a number or one entry per axis (2 or 3), not {box!r}")
    per, lo, hi = [0, 0, 0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    for k, e in enumerate(entries):
        if e is None:
            continue
        a, b = (0.0, e) if _scalar(e) else tuple(e)
        a, b = float(a), float(b)
        if not (abs(a) <= _MAX_BOX and abs(b) <= _MAX_BOX and a < b and b - a > 0.0):
            raise ValueError(f"box axis {k}: {e!r} must be L or (lo, hi) with lo < hi, "
                             f"within +-{_MAX_BOX:g}")
        per[k], lo[k], hi[k] = 1, a, b
    return (tuple(per), tuple(lo), tuple(hi)), len(entries)


def _box_fits(box, c):
    if box is not None and box[1] == 2 and c.shape[1] == 3:
        raise ValueError("box gives 2 axes but the centres are 3-D (give 3 entries, None for an open axis)")


def _options(algorithm, threads, kernel, sorted, chunk, box=None):
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
    if kernel not in _KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(_KERNELS)}, not {kernel!r}")
    t = 0 if threads is None else int(threads)
    if t < 0:
        raise ValueError(f"threads must be None (one per core) or >= 1, not {threads}")
    if int(chunk) < 1:
        raise ValueError(f"chunk must be >= 1, not {chunk}")
    return (ALGORITHMS.index(algorithm), t, _KERNELS.index(kernel), bool(sorted), int(chunk),
            None if box is None else box[0])


class Context:
    """One library context with fixed options, reused by every call on it: its
    scratch memory stays allocated and warm between calls, as a C caller's
    does. One call at a time (RuntimeError otherwise); use one per thread.
    The module's functions keep such contexts for you."""

    def __init__(self, *, algorithm="grid", threads=None, sorted=False, kernel="auto", chunk=65536,
                 box=None):
        self._box = _box(box)
        self._core = _core.Context(*_options(algorithm, threads, kernel, sorted, chunk, self._box))

    def _prepare(self, centres, radii):
        c, r = _prepare(centres, radii)
        _box_fits(getattr(self, "_box", None), c)
        return c, r

    def pairs(self, centres, radii, *, dtype=_np.intp):
        """As spherecollide.pairs(), in this context's box."""
        return self._core.pairs(*self._prepare(centres, radii), wide=_wide(dtype))

    def count(self, centres, radii):
        """As spherecollide.count(), in this context's box."""
        return self._core.count(*self._prepare(centres, radii))

    def iter_pairs(self, centres, radii, *, dtype=_np.intp):
        """As spherecollide.iter_pairs(), in chunks of this context's chunk."""
        wide = _wide(dtype)
        it = self._core.chunks(*self._prepare(centres, radii))
        try:
            for chunk in it:
                yield _as_index(chunk, wide)
        finally:
            it.close()

    def pairs_between(self, a, ra, b, rb, *, dtype=_np.intp):
        """As spherecollide.pairs_between(), in this context's box."""
        return self._core.pairs(*self._prepare(a, ra), *self._prepare(b, rb), wide=_wide(dtype))

    def count_between(self, a, ra, b, rb):
        """As spherecollide.count_between(), in this context's box."""
        return self._core.count(*self._prepare(a, ra), *self._prepare(b, rb))

    def neighbors(self, centres, radii, *, full=False, skin=0.0, values=None, dtype=_np.intp):
        """As spherecollide.neighbors(), in this context's box."""
        wide = _wide(dtype)
        c, r = self._prepare(centres, radii)
        return _neighbors_result(self._core.neighbors(c, r, *_nbr_args(full, skin, values)), values,
                                 wide)

    def cell_order(self, centres, radii, *, dtype=_np.intp):
        """As spherecollide.cell_order(), with this context's grid (a context of
        another algorithm raises Error, status 9, SC_ERR_UNSUPPORTED)."""
        wide = _wide(dtype)
        return _as_index(self._core.cell_order(*_prepare(centres, radii)), wide)

    def stats(self):
        """The last query's statistics (sc_stats): seconds per stage, total_seconds
        (the library's time for the call), pairs, checksum, levels, threads, kernel..."""
        return self._core.stats()

    def trim(self):
        """Frees the scratch memory; the context stays usable."""
        self._core.trim()


# One idle Context per set of options and thread in use, kept between calls.
_lock = _threading.Lock()
_idle = {}          # options -> [idle Context]


def _borrow(key):
    with _lock:
        idle = _idle.get(key)
        if idle:
            return idle.pop()
    ctx = Context.__new__(Context)
    ctx._core = _core.Context(*key)
    return ctx


def _give_back(key, ctx):
    with _lock:
        idle = _idle.setdefault(key, [])
        if len(idle) < 2:
            idle.append(ctx)


@_contextlib.contextmanager
def _borrowed(key):
    """A cached Context for these options for the duration of a call."""
    ctx = _borrow(key)
    try:
        yield ctx
    finally:
        _give_back(key, ctx)


def clear_cache():
    """Frees the library contexts (and their scratch memory) kept between calls."""
    with _lock:
        _idle.clear()


# ---- the calls ------------------------------------------------------------------

def pairs(centres, radii, *, box=None, algorithm="grid", threads=None, sorted=False,
          kernel="auto", dtype=_np.intp):
    """Every intersecting pair, as a (K, 2) array of indices, i < j in each row:
    intp (int64) by default, as NumPy and scipy index, or ``dtype=np.uint32``
    for half the memory (written as the search runs, not converted after).

    The row order is the library's stream order, the same for every thread
    count; ``sorted=True`` gives (i, j) lexicographic order. Raises Error for
    a NaN, infinite, negative-radius or out-of-range value (its .index names the sphere).

    ``box`` makes boundaries periodic: a number L (every axis on [0, L)), or
    one entry per axis, each None (open), L, or (lo, hi). Pairs then use the
    minimum-image displacement, evaluated as the C header's sc_box says;
    centres outside the box wrap; radii must be at most 5e149.
    """
    wide = _wide(dtype)
    b = _box(box)
    key = _options(algorithm, threads, kernel, sorted, 65536, b)
    c, r = _prepare(centres, radii)
    _box_fits(b, c)
    with _borrowed(key) as ctx:
        return ctx._core.pairs(c, r, wide=wide)


def count(centres, radii, *, box=None, algorithm="grid", threads=None, kernel="auto"):
    """(K, checksum): the pair count and the order-free checksum
    sum(pair_mix(i, j)) mod 2**64, in memory that does not grow with K.
    ``box`` as for pairs()."""
    b = _box(box)
    key = _options(algorithm, threads, kernel, False, 65536, b)
    c, r = _prepare(centres, radii)
    _box_fits(b, c)
    with _borrowed(key) as ctx:
        return ctx._core.count(c, r)


def iter_pairs(centres, radii, *, chunk=65536, box=None, algorithm="grid", threads=None,
               sorted=False, kernel="auto", dtype=_np.intp):
    """The pairs of pairs(), as an iterator of (k, 2) arrays of ``dtype`` (intp or
    uint32, as for pairs()), 1 <= k <= chunk.

    For outputs too large for memory: the search runs while you consume the
    chunks, holding one chunk per library thread. Breaking out of the loop (or
    closing the iterator) stops the search. Concatenated, the chunks equal pairs().
    """
    wide = _wide(dtype)
    b = _box(box)
    key = _options(algorithm, threads, kernel, sorted, chunk, b)
    c, r = _prepare(centres, radii)
    _box_fits(b, c)
    with _borrowed(key) as ctx:
        it = ctx._core.chunks(c, r)
        try:
            for part in it:
                yield _as_index(part, wide)
        finally:
            it.close()


def _prepare_two(a, ra, b, rb, box):
    pa, pb = _prepare(a, ra), _prepare(b, rb)
    _box_fits(box, pa[0])
    _box_fits(box, pb[0])
    return pa, pb


def pairs_between(a, ra, b, rb, *, box=None, algorithm="grid", threads=None, sorted=False,
                  kernel="auto", dtype=_np.intp):
    """The intersecting pairs between two sets, as a (K, 2) array (intp, or
    uint32 with ``dtype=np.uint32``, as for pairs()): row
    (i, j) means sphere i of (a, ra) meets sphere j of (b, rb), by the same
    double predicate as pairs(). No pairs within one set; the same sphere in
    both sets meets itself. Both sets 3-D or both 2-D; their dtypes may
    differ. When one set is much smaller, only the larger set's spheres near
    it are searched (no index of both is built). ``sorted=True`` gives (i, j)
    lexicographic order. ``box`` as for pairs(): both sets wrap in it and
    each pair uses the minimum image. Errors as pairs(), for the set holding
    the bad value.
    """
    wide = _wide(dtype)
    bx = _box(box)
    key = _options(algorithm, threads, kernel, sorted, 65536, bx)
    pa, pb = _prepare_two(a, ra, b, rb, bx)
    with _borrowed(key) as ctx:
        return ctx._core.pairs(*pa, *pb, wide=wide)


def count_between(a, ra, b, rb, *, box=None, algorithm="grid", threads=None, kernel="auto"):
    """(K, checksum) of pairs_between(): the checksum sums pair_mix(i, j)."""
    bx = _box(box)
    key = _options(algorithm, threads, kernel, False, 65536, bx)
    pa, pb = _prepare_two(a, ra, b, rb, bx)
    with _borrowed(key) as ctx:
        return ctx._core.count(*pa, *pb)


_VALUES = {None: 0, "overlap": 1, "distance": 2}


def _nbr_args(full, skin, values):
    if values not in _VALUES:
        raise ValueError(f"values must be None, 'overlap' or 'distance', not {values!r}")
    skin = float(skin)
    if not skin >= 0.0 or skin > 1e150:
        raise ValueError(f"skin must be a number from 0 to 1e150, not {skin!r}")
    return bool(full), skin, _VALUES[values]


def _neighbors_result(res, values, wide):
    off, idx, val = res
    idx = _as_index(idx, wide)
    return (off, idx) if values is None else (off, idx, val)


def neighbors(centres, radii, *, full=False, skin=0.0, values=None, box=None, algorithm="grid",
              threads=None, kernel="auto", dtype=_np.intp):
    """The CSR neighbour list: (offsets, indices) or, with values, (offsets, indices, values).

    Row i is indices[offsets[i]:offsets[i+1]], sorted, the same for every
    thread count and algorithm: the j > i that intersect sphere i (a half
    list), or every j != i with ``full=True``. ``skin`` lists pairs up to skin
    apart: ``(dx*dx + dy*dy) + dz*dz <= ((ri + rj) + skin)**2`` in double.
    ``values="overlap"`` gives (ri + rj) - d per entry (negative within the
    skin), ``"distance"`` gives d, as float64. offsets is int64 (n + 1),
    indices intp (``dtype=np.uint32`` for half the memory);
    ``scipy.sparse.csr_matrix((values, indices, offsets), shape=(n, n))`` takes them.
    ``box`` as for pairs(): the minimum image decides the list and d.
    """
    wide = _wide(dtype)
    b = _box(box)
    key = _options(algorithm, threads, kernel, False, 65536, b)
    args = _nbr_args(full, skin, values)
    c, r = _prepare(centres, radii)
    _box_fits(b, c)
    with _borrowed(key) as ctx:
        return _neighbors_result(ctx._core.neighbors(c, r, *args), values, wide)


_M64 = (1 << 64) - 1


def cell_order(centres, radii, *, threads=None, dtype=_np.intp):
    """The grid's cell order, as an (N,) intp array (``dtype=np.uint32`` for
    half the memory): order[k] is the index of
    the sphere at position k of the order the grid lays its working copy out
    in (a permutation of 0..N-1, the same for every thread count).

    Arrays kept in it (``centres[order]``, ``radii[order]``, and every other
    per-sphere array alike), as MD and DEM codes re-sort their particles every
    few steps, make later calls read them in sequence, and skip the grid's
    sort while no sphere has moved out of order (repair it while few have). The pairs are then in the
    new indices: ``order[p]`` maps them back. Periodic boxes do not change
    the order (centres are ordered as given).
    """
    wide = _wide(dtype)
    key = _options("grid", threads, "auto", False, 65536, None)
    c, r = _prepare(centres, radii)
    with _borrowed(key) as ctx:
        return _as_index(ctx._core.cell_order(c, r), wide)


def pair_checksum(p):
    """The checksum count() returns, computed from a (K, 2) array of pairs."""
    p = _np.asarray(p, dtype=_np.uint64).reshape(-1, 2)
    z = (p[:, 0] << _np.uint64(32)) | p[:, 1]
    with _np.errstate(over="ignore"):
        z = z + _np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> _np.uint64(30))) * _np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _np.uint64(27))) * _np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> _np.uint64(31))
    return int(z.sum(dtype=_np.uint64)) & _M64
