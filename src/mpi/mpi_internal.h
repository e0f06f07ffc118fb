/* mpi_internal.h: what the distributed layer's files share. The layer is
 * built on spherecollide.h's public API only; docs/mpi.md states the rules
 * that these files follow (numbers in the comments: its rules). */
#ifndef SC_MPI_INTERNAL_H
#define SC_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "spherecollide_mpi.h"

/* One sphere as it travels between ranks and as the local search reads it
 * (a strided view over these records: no copy into arrays). */
typedef struct sc_mpi_record {
    double x, y, z, r;
    uint64_t id;
} sc_mpi_record;

/* A growable array of records; grown, never shrunk, so repeated calls on
 * batches of the same size allocate nothing new. */
typedef struct sc_mpi_records {
    sc_mpi_record *at;
    size_t count, cap;
} sc_mpi_records;

/* One set of spheres through the pipeline: a one-set query has one, a
 * two-set query two (a = 0, b = 1). */
typedef struct sc_mpi_set {
    sc_mpi_records own;   /* the spheres this rank owns (rule 1) */
    sc_mpi_records local; /* for the search: [owned non-giants | ghosts | giants] */
    size_t local_own;     /* local.at[0, local_own): owned, not giants */
    size_t local_giants;  /* local.at[local.count - local_giants, count): giants */
} sc_mpi_set;

struct sc_mpi_context {
    MPI_Comm comm;       /* the caller's communicator, duplicated */
    MPI_Datatype record; /* one sc_mpi_record, for every exchange */
    int rank, ranks;
    sc_mpi_options options;
    sc_context *search;
    int dims; /* 2 or 3, agreed by every rank in the call */
    /* Periodic axes (options.search.box) among the first dims, and the
     * absolute margin their wrapping adds to rule 3's reach (0 without). */
    int periodic[3];
    double pad;
    /* The call's sets (1 or 2; rules 1, 3 and 5) and the moves' buffer.
     * One set: ghosts of set 0 go to set 0's regions. Two sets: ghosts of
     * b (set 1) go to a's regions, and a keeps no ghosts (docs/mpi.md,
     * "Two sets"). */
    sc_mpi_set set[2];
    int sets;
    sc_mpi_records spare;
    uint8_t *giant_mine; /* set 0's giant k is owned here; capacity options.giants */
    int *counts, *displs, *rcounts, *rdispls; /* per rank, for the exchanges */
    double *regions;                          /* per rank: lo[3], hi[3], rmax, spheres */
    sc_mpi_stats stats;
    char message[256];
};

/* Allocation through the search options' allocator (docs/api.md); NULL on
 * failure. */
void *sc_mpi_alloc(const sc_mpi_context *c, size_t bytes);
void sc_mpi_free(const sc_mpi_context *c, void *p);
/* Grows r to hold at least n records (content kept); SC_ERR_OUT_OF_MEMORY. */
sc_status sc_mpi_reserve(const sc_mpi_context *c, sc_mpi_records *r, size_t n);

/* Rule 8: every rank passes its own status (and the global id it concerns,
 * or UINT64_MAX); every rank gets the same agreed status and message. */
sc_status sc_mpi_agree(sc_mpi_context *c, sc_status status, uint64_t id);

/* The layout phase (rule 1): moves every set's owned spheres to the ranks
 * of the RCB cells (one cut for all sets). Collective; returns an agreed
 * status. */
sc_status sc_mpi_layout_rcb(sc_mpi_context *c);

/* The ghost phase (rules 2, 3, 5): builds every set's local from its own.
 * Collective; returns an agreed status. */
sc_status sc_mpi_ghosts(sc_mpi_context *c);

/* A record's centre as the layout and the regions see it: on a periodic
 * axis wrapped into the box by sc_box's wrap() (the library's own
 * expression, so owners agree with the search), else as given. The record
 * keeps the caller's values: the search wraps them itself. */
void sc_mpi_position(const sc_mpi_context *c, const sc_mpi_record *s, double p[3]);

/* Rule 3's test: may a sphere at c (a position) of radius r meet one of
 * radius at most rmax whose position lies in the box [lo, hi]? On a
 * periodic axis the gap is the shorter way round. Never false for a pair
 * the library's predicate reports (docs/mpi.md, "No pair is lost"). */
int sc_mpi_may_reach(const sc_mpi_context *c, const double p[3], double r, const double lo[3],
                     const double hi[3], double rmax);

#endif
