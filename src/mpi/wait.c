/* wait.c: the layer's collectives, started nonblocking and waited for
 * without holding the core. A blocking collective in OpenMPI polls its
 * progress loop until every rank arrives, so a rank that waits for a
 * slower one burns its core; where ranks outnumber cores (an oversubscribed
 * node, or a workstation that runs other work) that core is the one the
 * slower rank needs. Here a wait tests its request for a short while
 * (SPIN_NS: a partner on another core is usually that close), then sleeps
 * between tests, each sleep a fraction of the time waited so far
 * (1 / WAIT_FRACTION, at least MIN_SLEEP_NS, at most MAX_SLEEP_NS), so the
 * time lost after the partner arrives stays a small share of the wait.
 * A communicator of one rank completes at the first test.
 *
 * An exchange that moves data tests without sleeping for as long as its
 * bytes take to move at SPIN_BYTES_PER_US (a memory copy's rate, low):
 * an implementation may move a large message in steps, each made in an
 * MPI call on both ends (MPICH over UCX does), so a nap then stalls the
 * transfer itself rather than a wait for a late partner. */
#include <errno.h>
#include <time.h>

#include "mpi_internal.h"

enum {
    SPIN_NS = 50000,
    MIN_SLEEP_NS = 10000,
    MAX_SLEEP_NS = 1000000,
    WAIT_FRACTION = 16,
    SPIN_BYTES_PER_US = 8000, /* 8 GB/s */
};

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void nap(int64_t ns) {
    struct timespec t = {.tv_sec = 0, .tv_nsec = (long)ns};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* Waits for a request that moves `bytes` on this rank (sent and received). */
static void wait_moving(MPI_Request *request, double bytes) {
    int done = 0;
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done)
        return;
    const double moving = bytes * 1000.0 / SPIN_BYTES_PER_US;
    const int64_t spin = SPIN_NS + (moving < 1e10 ? (int64_t)moving : (int64_t)1e10);
    int64_t start = now_ns(), waited = 0;
    while (!done && waited < spin) {
        MPI_Test(request, &done, MPI_STATUS_IGNORE);
        waited = now_ns() - start;
    }
    while (!done) {
        int64_t sleep = waited / WAIT_FRACTION;
        nap(sleep < MIN_SLEEP_NS ? MIN_SLEEP_NS : sleep > MAX_SLEEP_NS ? MAX_SLEEP_NS : sleep);
        MPI_Test(request, &done, MPI_STATUS_IGNORE);
        waited = now_ns() - start;
    }
}

void sc_mpi_wait(MPI_Request *request) {
    wait_moving(request, 0.0);
}

/* The bytes of count elements of type t at each of n places. */
static double bytes_of(const int *counts, int n, MPI_Datatype t) {
    int size = 0;
    MPI_Type_size(t, &size);
    double total = 0.0;
    for (int k = 0; k < n; k++)
        total += (double)counts[k];
    return total * size;
}

static int ranks_of(MPI_Comm comm) {
    int n = 1;
    MPI_Comm_size(comm, &n);
    return n;
}

void sc_mpi_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm) {
    MPI_Request r;
    MPI_Iallreduce(in, out, count, type, op, comm, &r);
    sc_mpi_wait(&r);
}

void sc_mpi_allgather(const void *in, int count, MPI_Datatype type, void *out, int out_count,
                      MPI_Datatype out_type, MPI_Comm comm) {
    MPI_Request r;
    MPI_Iallgather(in, count, type, out, out_count, out_type, comm, &r);
    sc_mpi_wait(&r);
}

void sc_mpi_allgatherv(const void *in, int count, MPI_Datatype type, void *out,
                       const int *out_counts, const int *out_displs, MPI_Datatype out_type,
                       MPI_Comm comm) {
    MPI_Request r;
    MPI_Iallgatherv(in, count, type, out, out_counts, out_displs, out_type, comm, &r);
    wait_moving(&r, bytes_of(out_counts, ranks_of(comm), out_type));
}

void sc_mpi_gatherv(const void *in, int count, MPI_Datatype type, void *out, const int *out_counts,
                    const int *out_displs, MPI_Datatype out_type, int root, MPI_Comm comm) {
    MPI_Request r;
    MPI_Igatherv(in, count, type, out, out_counts, out_displs, out_type, root, comm, &r);
    int rank = 0;
    MPI_Comm_rank(comm, &rank); /* out_counts matter at the root only */
    wait_moving(&r, rank == root ? bytes_of(out_counts, ranks_of(comm), out_type)
                                 : bytes_of(&count, 1, type));
}

void sc_mpi_alltoall(const void *in, int count, MPI_Datatype type, void *out, int out_count,
                     MPI_Datatype out_type, MPI_Comm comm) {
    MPI_Request r;
    MPI_Ialltoall(in, count, type, out, out_count, out_type, comm, &r);
    sc_mpi_wait(&r);
}

void sc_mpi_alltoallv(const void *in, const int *counts, const int *displs, MPI_Datatype type,
                      void *out, const int *out_counts, const int *out_displs,
                      MPI_Datatype out_type, MPI_Comm comm) {
    MPI_Request r;
    MPI_Ialltoallv(in, counts, displs, type, out, out_counts, out_displs, out_type, comm, &r);
    const int n = ranks_of(comm);
    wait_moving(&r, bytes_of(counts, n, type) + bytes_of(out_counts, n, out_type));
}

void sc_mpi_exscan(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm) {
    MPI_Request r;
    MPI_Iexscan(in, out, count, type, op, comm, &r);
    sc_mpi_wait(&r);
}

void sc_mpi_bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    MPI_Request r;
    MPI_Ibcast(buffer, count, type, root, comm, &r);
    sc_mpi_wait(&r);
}
