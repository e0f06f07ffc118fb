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
 * A communicator of one rank completes at the first test. */
#include <errno.h>
#include <time.h>

#include "mpi_internal.h"

enum {
    SPIN_NS = 50000,
    MIN_SLEEP_NS = 10000,
    MAX_SLEEP_NS = 1000000,
    WAIT_FRACTION = 16,
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

void sc_mpi_wait(MPI_Request *request) {
    int done = 0;
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done)
        return;
    int64_t start = now_ns(), waited = 0;
    while (!done && waited < SPIN_NS) {
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
    sc_mpi_wait(&r);
}

void sc_mpi_gatherv(const void *in, int count, MPI_Datatype type, void *out, const int *out_counts,
                    const int *out_displs, MPI_Datatype out_type, int root, MPI_Comm comm) {
    MPI_Request r;
    MPI_Igatherv(in, count, type, out, out_counts, out_displs, out_type, root, comm, &r);
    sc_mpi_wait(&r);
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
    sc_mpi_wait(&r);
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
