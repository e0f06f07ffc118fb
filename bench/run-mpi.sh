#!/usr/bin/env bash
# run-mpi.sh: the distributed pair search's figures (issue 54), one CSV.
#
#   bench/run-mpi.sh [OUT.csv]
#
# Runs bench/mpi_bench under mpiexec (oversubscribed where the ranks
# outnumber the cores; one search thread a rank unless a line says) for:
#   one-rank     uniform 10^6, 1 rank, alternating with the library called
#                directly on the same spheres (direct_median_s)
#   threads-2    uniform 10^7, 1 rank x 2 threads (the library directly)
#   ranks-2      uniform 10^7, 2 ranks x 1 thread, alternating with the
#                floor of any exact layer on rows from all over the domain
#                (direct_median_s: each rank's rows packed by x slab, one
#                MPI_Alltoallv, and the id-reading stream below on what
#                arrived: mpi_bench --direct-move)
#   ranks-2-slabs  the same with each rank holding one x slab already, in
#                the caller's layout (no move: a simulation's steady state),
#                alternating with the library called directly on each
#                rank's slab, both at once (direct_median_s: the library's
#                share of the time, without the layer)
#   ranks-2-slabs-ids  the same, its direct rounds streaming the pairs of
#                each slab in 40-byte records and reading both ends' ids
#                as the layer's filter does (the floor of reporting global
#                ids while the library knows only indices)
#   ranks-2-slabs-scan  the same, each direct round first reading every
#                row of the rank once for its extent and largest radius and
#                agreeing on them in one MPI_Iallreduce (--direct-scan: the
#                floor of any exact layer on the library's public API, which
#                must look at each owned sphere before it can send a ghost)
#   cpu-4, cpu-8 uniform 10^6 on 4 and 8 ranks: cpu_s (all ranks) against
#                one-rank's, with the halo fraction and bytes per rank,
#                alternating with the floor from rows (--direct-move;
#                direct_cpu_s its summed CPU)
#   cpu-4-slabs, cpu-8-slabs  the same with the spheres in x slabs already
#                (the caller's layout: no move), alternating with the floor
#                with the scan and the id reads (--direct-scan)
#   spread-8     uniform, clustered and heavytail 10^7 on 8 ranks: the most
#                loaded rank's candidate tests over the mean, and the halo
# Writes OUT.csv (default bench/results/<machine>/mpi.csv) with
# mpi_bench's columns after a machine column. Environment: SC_MPI_BENCH (a
# built mpi_bench; else build-bench/ is built), SC_MPI_BIG (the large n,
# default 10000000), SC_MPIEXEC (the launcher, default mpiexec; another
# one, such as mpiexec.mpich with an mpi_bench built on MPICH (docs/mpi.md,
# "MPICH"), writes mpi-<its name>.csv by default, not mpi.csv).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -n "${SC_MPI_BENCH:-}" ]; then
  bench=$SC_MPI_BENCH
else
  cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$root/build-bench" -j "$(nproc)" --target mpi_bench sc_bench >/dev/null
  bench=$root/build-bench/bench/mpi_bench
fi
big=${SC_MPI_BIG:-10000000}
tag=$("$(dirname "$bench")/sc_bench" --print-machine-tag 2>/dev/null || echo "$(uname -m)-$(nproc)c")
mpiexec=${SC_MPIEXEC:-mpiexec}
name=mpi
[ -z "${SC_MPIEXEC:-}" ] || name="mpi-$(basename "$mpiexec")"
out=${1:-$root/bench/results/$tag/$name.csv}
mkdir -p "$(dirname "$out")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
run() { # run RANKS LABEL ARGS...: one rank a core (--bind-to core) where
  # the cores suffice, else unbound (OpenMPI's default when oversubscribed)
  local np=$1 label=$2 bind=core; shift 2
  [ "$np" -le "$(nproc)" ] || bind=none
  "$mpiexec" -n "$np" --bind-to "$bind" "$bench" --label "$label" "$@" | sed "s/^/$tag,/"
}
{
  echo "machine,$("$bench" --header --n 10 --rounds 2 | head -1)"
  run 1 one-rank --n 1000000 --rounds 21 --direct
  # a process of 2 threads needs both cores: not bound to one
  "$mpiexec" -n 1 --bind-to none "$bench" --label threads-2 --n "$big" --threads 2 --rounds 5 \
    --direct | sed "s/^/$tag,/"
  run 2 ranks-2 --n "$big" --rounds 9 --direct-move
  run 2 ranks-2-slabs --n "$big" --rounds 9 --slabs --layout caller --direct
  run 2 ranks-2-slabs-ids --n "$big" --rounds 9 --slabs --layout caller --direct-ids
  run 2 ranks-2-slabs-scan --n "$big" --rounds 9 --slabs --layout caller --direct-scan
  run 4 cpu-4 --n 1000000 --rounds 9 --direct-move
  run 8 cpu-8 --n 1000000 --rounds 9 --direct-move
  run 4 cpu-4-slabs --n 1000000 --rounds 9 --slabs --layout caller --direct-scan
  run 8 cpu-8-slabs --n 1000000 --rounds 9 --slabs --layout caller --direct-scan
  for d in uniform clustered heavytail; do
    run 8 spread-8 --dist "$d" --n "$big" --rounds 3
  done
} | tee "$out"
