/*
 * mpi_example.c: the pair search over MPI ranks (libspherecollide_mpi) on a
 * chain of spheres whose pairs are known, spread over however many ranks
 * run it.
 *
 * Sphere k (k < 1000) sits at x = k with radius 0.6, so exactly the 999
 * neighbours k, k + 1 meet. Each rank holds every rank-th sphere (the
 * worst spread for a search: every rank's spheres lie among every other's),
 * with the sphere's index as its global id. Rank 0 prints the count and
 * checks it. Exit status 0 on every rank when the count is right.
 *
 * Build and run against an installed spherecollide (with MPI):
 *   mpicc mpi_example.c $(pkg-config --cflags --libs spherecollide_mpi)
 *   mpiexec -n 4 ./a.out
 *
 * SPDX-License-Identifier: MIT
 */
#include <spherecollide_mpi.h>

#include <inttypes.h>
#include <stdio.h>

#define N 1000

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    static double x[N], y[N], z[N], r[N];
    static uint64_t ids[N];
    size_t n = 0;
    for (int k = rank; k < N; k += ranks, n++) {
        x[n] = k, y[n] = 0, z[n] = 0, r[n] = 0.6;
        ids[n] = (uint64_t)k;
    }
    sc_mpi_context *ctx = NULL;
    sc_status st = sc_mpi_context_create(MPI_COMM_WORLD, NULL, &ctx);
    sc_summary sum = {0, 0};
    if (st == SC_OK) {
        sc_spheres mine = sc_spheres_soa_f64(n, x, y, z, r);
        st = sc_mpi_count_pairs(ctx, &mine, ids, &sum);
    }
    int ok = st == SC_OK && sum.pairs == N - 1;
    if (rank == 0)
        printf("%d ranks: %" PRIu64 " pairs (want %d), checksum %016" PRIx64 ": %s%s\n", ranks,
               sum.pairs, N - 1, sum.checksum, ok ? "ok" : "WRONG ",
               st == SC_OK ? "" : sc_mpi_message(ctx));
    sc_mpi_context_destroy(ctx);
    MPI_Finalize();
    return ok ? 0 : 1;
}
