"""spherecollide.mpi: the exact pair search over MPI ranks, on mpi4py.

Each rank passes its own spheres (and, if it has them, their global ids);
every call is collective on the communicator and gives exactly the pairs,
count and checksum that one process gives on the whole set, however the
spheres are spread over the ranks (docs/mpi.md).

    from mpi4py import MPI
    import numpy as np, spherecollide.mpi as scm
    k, checksum = scm.count(MPI.COMM_WORLD, centres, radii)  # the same on every rank
    p = scm.pairs(MPI.COMM_WORLD, centres, radii)              # (K_rank, 2) uint64 global ids

Ids: ``ids=None`` numbers each rank's spheres in rank order (rank 0's rows
first), else a uint64 array of unique global ids. Every pair goes to exactly
one rank. ``box`` as in ``spherecollide.pairs`` (a number L for [0, L) on
every axis, or (lo, hi) sequences): periodic, minimum image. ``layout`` is
"rcb" (spheres move to the rank of their cell) or "caller" (searched where
they are); ``threads`` the search threads a rank (default 1; 0: the cores
the rank may use). Errors raise ``spherecollide.mpi.Error`` on every rank,
with the same message naming the rank and the sphere's global id.

Built where python3-mpi4py and libopenmpi-dev are installed; run under
``mpiexec -n P python3 -m mpi4py script.py``.
"""

import numpy as _np

try:
    from . import _mpi
except ImportError as _e:
    raise ImportError(
        "spherecollide.mpi: the MPI extension (_mpi) is not built beside " + __file__ + ". It is "
        "built by the CMake build where Debian's python3-mpi4py and libopenmpi-dev are installed "
        "(bash scripts/setup-deps.sh installs them); docs/mpi.md") from _e

__all__ = ["count", "pairs", "count_between", "pairs_between", "pair_mix", "Error"]


class Error(RuntimeError):
    """A failed collective call: the same status and message on every rank."""

    def __init__(self, status, name, message):
        super().__init__(message or name)
        self.status = status
        self.name = name


def pair_mix(i, j):
    """The checksum's mix of one pair of global ids (sc_mpi_pair_mix)."""
    return _mpi.pair_mix(int(i), int(j))


def _rows(centres, radii):
    c = _np.asarray(centres)
    if c.ndim != 2 or c.shape[1] not in (2, 3):
        raise ValueError("centres must have shape (N, 3) or (N, 2)")
    if c.dtype.kind not in "fiu":
        raise TypeError("centres must be real numbers, not %s" % c.dtype)
    r = _np.asarray(radii)
    if r.ndim == 0:
        r = _np.full(len(c), r, dtype=_np.float64)
    if r.shape != (len(c),):
        raise ValueError("radii must have shape (N,) or be one number")
    if r.dtype.kind not in "fiu":
        raise TypeError("radii must be real numbers, not %s" % r.dtype)
    # float32 widens to float64 exactly: the predicate runs in double on the same values
    rows = _np.empty((len(c), c.shape[1] + 1), dtype=_np.float64)
    rows[:, :-1] = c
    rows[:, -1] = r
    return rows, c.shape[1]


def _ids(ids, n):
    if ids is None:
        return None
    a = _np.ascontiguousarray(ids, dtype=_np.uint64)
    if a.shape != (n,):
        raise ValueError("ids must have shape (N,)")
    return a


def _box(box, dims):
    if box is None:
        return None
    if _np.ndim(box) == 0:
        lo, hi = [0.0] * 3, [float(box)] * 3
    else:
        lo, hi = ([float(v) for v in box[0]], [float(v) for v in box[1]])
        if len(lo) != dims or len(hi) != dims:
            raise ValueError("box must be one number or (lo, hi) with one value per axis")
        lo, hi = lo + [0.0] * (3 - dims), hi + [0.0] * (3 - dims)
    periodic = tuple(1 if k < dims else 0 for k in range(3))
    return (tuple(lo), tuple(hi), periodic)


def _layout(layout):
    if layout not in ("rcb", "caller"):
        raise ValueError('layout must be "rcb" or "caller"')
    return 0 if layout == "rcb" else 1


def _call(comm, want, a, b, ids, ids_b, box, layout, threads):
    rows_a, dims = _rows(*a)
    rows_b, dims_b = _rows(*b) if b is not None else (None, dims)
    if dims_b != dims:
        raise ValueError("a and b must both be 3-D or both 2-D")
    try:
        return _mpi.run(comm, want, dims, rows_a, _ids(ids, len(rows_a)), rows_b,
                        _ids(ids_b, len(rows_b)) if rows_b is not None else None,
                        _layout(layout), int(threads), _box(box, dims))
    except RuntimeError as e:
        if len(e.args) == 3 and isinstance(e.args[0], int):
            raise Error(*e.args) from None
        raise


def _as_pairs(raw):
    return _np.frombuffer(raw, dtype=_np.uint64).reshape(-1, 2).copy()


def count(comm, centres, radii, ids=None, box=None, layout="rcb", threads=1):
    """(K, checksum) over every rank's spheres; the same on every rank."""
    _, k, checksum = _call(comm, False, (centres, radii), None, ids, None, box, layout, threads)
    return k, checksum


def pairs(comm, centres, radii, ids=None, box=None, layout="rcb", threads=1):
    """This rank's share of the pairs: a (K_rank, 2) uint64 array of global
    ids, smaller id first; over all ranks every pair exactly once."""
    raw, _, _ = _call(comm, True, (centres, radii), None, ids, None, box, layout, threads)
    return _as_pairs(raw)


def count_between(comm, centres_a, radii_a, centres_b, radii_b, ids_a=None, ids_b=None,
                  box=None, layout="rcb", threads=1):
    """(K, checksum) of the pairs (i in a, j in b), each set spread over the
    ranks; the same on every rank."""
    _, k, checksum = _call(comm, False, (centres_a, radii_a), (centres_b, radii_b), ids_a, ids_b,
                           box, layout, threads)
    return k, checksum


def pairs_between(comm, centres_a, radii_a, centres_b, radii_b, ids_a=None, ids_b=None,
                  box=None, layout="rcb", threads=1):
    """This rank's share of the pairs between a and b: (K_rank, 2) uint64,
    a's global id then b's."""
    raw, _, _ = _call(comm, True, (centres_a, radii_a), (centres_b, radii_b), ids_a, ids_b, box,
                      layout, threads)
    return _as_pairs(raw)
