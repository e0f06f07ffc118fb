"""spherecollide.mpi under mpiexec (ctest python.mpi: 4 ranks, run with
``python3 -m mpi4py`` so an exception on one rank aborts the job rather
than hanging it). Each rank makes the whole set, keeps its share, and
checks the distributed count, checksum and gathered pair set against the
serial module on the whole set: blocks of rows and a random assignment
with global ids, float32, 2-D, a periodic box, the caller's layout, two
sets; and a NaN on one rank raising the same Error on every rank. Exits
non-zero on any failure (on every rank: the failures are allreduced)."""
import sys

import numpy as np
from mpi4py import MPI

import spherecollide as sc
import spherecollide.mpi as scm

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL rank %d: %s" % (rank, what), file=sys.stderr)


def spheres(n, dims, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    side = (n * 4.2 / 0.3) ** (1.0 / dims)
    return (rng.random((n, dims)) * side).astype(dtype), rng.uniform(0.5, 1.0, n).astype(dtype)


def share(n, how, seed):
    if how == "blocks":
        return np.arange(n)[np.arange(n) * size // n == rank]
    owner = np.random.default_rng(seed).integers(0, size, n)
    return np.nonzero(owner == rank)[0]


def gathered(p):
    parts = comm.allgather(p)
    allp = np.concatenate(parts) if parts else np.zeros((0, 2), np.uint64)
    return allp[np.lexsort((allp[:, 1], allp[:, 0]))]


def serial_pairs(c, r, box=None):
    p = sc.pairs(c, r, box=box).astype(np.uint64)
    return p[np.lexsort((p[:, 1], p[:, 0]))]


for what, n, dims, dtype, how, box, layout in [
    ("blocks", 6000, 3, np.float64, "blocks", None, "rcb"),
    ("random ids", 6000, 3, np.float64, "random", None, "rcb"),
    ("float32", 5000, 3, np.float32, "random", None, "caller"),
    ("2-D", 6000, 2, np.float64, "blocks", None, "rcb"),
    ("periodic", 5000, 3, np.float64, "random", 30.0, "rcb"),
]:
    c, r = spheres(n, dims, 7)
    c, r = c.astype(dtype), r.astype(dtype)
    mine = share(n, how, 3)
    ids = mine.astype(np.uint64) if how == "random" else None
    ref = serial_pairs(c, r, box)
    k, checksum = scm.count(comm, c[mine], r[mine], ids=ids, box=box, layout=layout)
    ref_k, ref_sum = sc.count(c, r, box=box)
    check(k == ref_k == len(ref) and checksum == ref_sum,
          "%s: count %d/%x, serial %d/%x" % (what, k, checksum, ref_k, ref_sum))
    p = scm.pairs(comm, c[mine], r[mine], ids=ids, box=box, layout=layout)
    check(p.dtype == np.uint64 and p.shape[1] == 2 and np.all(p[:, 0] < p[:, 1]),
          "%s: pairs are (K, 2) uint64, smaller id first" % what)
    check(np.array_equal(gathered(p), ref), "%s: the gathered pairs are the serial set" % what)

# two sets, each spread over the ranks
ca, ra = spheres(4000, 3, 11)
cb, rb = spheres(3000, 3, 12)
ma, mb = share(4000, "random", 5), share(3000, "blocks", 6)
k, checksum = scm.count_between(comm, ca[ma], ra[ma], cb[mb], rb[mb], ids_a=ma.astype(np.uint64))
ref_k, ref_sum = sc.count_between(ca, ra, cb, rb)
check(k == ref_k and checksum == ref_sum, "between: count %d, serial %d" % (k, ref_k))
p = scm.pairs_between(comm, ca[ma], ra[ma], cb[mb], rb[mb], ids_a=ma.astype(np.uint64))
ref = sc.pairs_between(ca, ra, cb, rb).astype(np.uint64)
check(np.array_equal(gathered(p), ref[np.lexsort((ref[:, 1], ref[:, 0]))]),
      "between: the gathered pairs are the serial set")
one_pair = sc.count(np.array([[0.0, 0, 0], [1.0, 0, 0], [9.0, 0, 0]]), np.ones(3))
check(one_pair == (1, scm.pair_mix(0, 1)), "pair_mix(0, 1) is the checksum of the pair (0, 1)")

# a NaN on the last rank: every rank raises the same Error
c, r = spheres(2000, 3, 9)
mine = share(2000, "blocks", 0)
c = c[mine].copy()
if rank == size - 1 and len(c) > 1:
    c[1, 0] = np.nan
try:
    scm.count(comm, c, r[mine])
    check(False, "a NaN on one rank raises")
except scm.Error as e:
    messages = comm.allgather(str(e))
    bad = comm.bcast(int(mine[1]) if rank == size - 1 else None, root=size - 1)
    check(e.name.startswith("non-finite value") and ("sphere id %d:" % bad) in str(e),
          "a NaN: Error naming sphere id %d (%s)" % (bad, e))
    check(len(set(messages)) == 1, "a NaN: one message on every rank")

total = comm.allreduce(len(failures))
if rank == 0:
    print("spherecollide.mpi on %d ranks: %d checks a rank, %d failures" % (size, checks, total))
sys.exit(1 if total else 0)
