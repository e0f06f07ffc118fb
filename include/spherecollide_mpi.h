/* spherecollide_mpi.h: the pair search over MPI ranks (libspherecollide_mpi).
 *
 * Each rank holds some of the spheres, with their global ids; the calls
 * give exactly the pairs, count and checksum that one process gives on the
 * whole set, for any number of ranks and any assignment of spheres to
 * ranks. Built on the public API of spherecollide.h only; the core library
 * has no MPI dependency. The rules (ownership, ghosts, giants, each pair
 * once, errors) and their proofs are in docs/mpi.md.
 *
 * Every call below is collective on the context's communicator (a
 * duplicate of the caller's, so the library's messages never meet the
 * caller's) and returns the same status on every rank: a bad value, an
 * allocation failure or a stopped callback on one rank is agreed before
 * any rank leaves, and no rank is left waiting in a collective.
 */
#ifndef SPHERECOLLIDE_MPI_H
#define SPHERECOLLIDE_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "spherecollide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Options                                                                  */
/* ======================================================================== */

/** Where each sphere is searched. */
typedef enum sc_mpi_layout {
    SC_MPI_LAYOUT_RCB = 0,   /**< weighted recursive coordinate bisection of a
                                  sample of the centres: spheres move to the
                                  rank whose cell holds their centre (default) */
    SC_MPI_LAYOUT_CALLER = 1 /**< each sphere stays on the rank that passed it
                                  (a simulation code's own distribution); any
                                  assignment is exact, a compact one is fast */
} sc_mpi_layout;

/** What RCB balances over the ranks. */
typedef enum sc_mpi_weight {
    SC_MPI_WEIGHT_COST = 0, /**< each sphere's estimated search cost: a fixed
                                 part plus its expected candidate tests, from
                                 the sample's local density (default;
                                 docs/mpi.md, rule 1) */
    SC_MPI_WEIGHT_COUNT = 1 /**< the number of spheres */
} sc_mpi_weight;

/** Options of a distributed context. The struct grows at its end only;
 *  `size` says which layout the caller was built with. */
typedef struct sc_mpi_options {
    size_t size;          /**< sizeof(sc_mpi_options); set by sc_mpi_options_default */
    sc_options search;    /**< the rank-local search (algorithm, threads, kernel,
                               allocator, box, ...): a periodic box gives the
                               single-process predicate bit for bit (every
                               radius <= SC_MAX_ABS_VALUE / 2, else
                               SC_ERR_OUT_OF_RANGE naming the sphere);
                               `sorted` is not used */
    sc_mpi_layout layout; /**< default SC_MPI_LAYOUT_RCB */
    size_t sample;        /**< RCB: centres sampled over all ranks, >= 1;
                                default 65536 */
    size_t giants;        /**< most spheres treated as giants (sent to every
                               rank instead of ghosted), default 1024 */
    sc_mpi_weight weight; /**< RCB: default SC_MPI_WEIGHT_COST */
} sc_mpi_options;

/** The defaults above, with sc_options_default() for the search. */
SC_API sc_mpi_options sc_mpi_options_default(void);

/* ======================================================================== */
/* Context                                                                  */
/* ======================================================================== */

typedef struct sc_mpi_context sc_mpi_context;

/** Collective on comm: duplicates it and creates the rank-local search
 *  context. options may be NULL for the defaults. On error *out is NULL
 *  on every rank. */
SC_API sc_status sc_mpi_context_create(MPI_Comm comm, const sc_mpi_options *options,
                                       sc_mpi_context **out);
/** Collective: frees the context and its communicator; accepts NULL on
 *  every rank. */
SC_API void sc_mpi_context_destroy(sc_mpi_context *ctx);

/** The last call's message: "" after SC_OK, else one line naming the
 *  rank and, for a bad value, the sphere's global id; the same on every
 *  rank. Valid until the next call on the context. */
SC_API const char *sc_mpi_message(const sc_mpi_context *ctx);

/* ======================================================================== */
/* Pair search                                                              */
/* ======================================================================== */

/** The checksum's pair mix on global ids i < j: sc_pair_mix(i, j) when both
 *  are below 2^32 (so a set numbered by rows gets the single-process
 *  checksum); otherwise m(m(i) ^ j), with m splitmix64's output step
 *  (z += 0x9E3779B97F4A7C15, then sc_pair_mix's two multiplications and
 *  three shifts). Thread-safe. */
SC_API uint64_t sc_mpi_pair_mix(uint64_t i, uint64_t j);

/** Pair callback: pairs[2k] < pairs[2k+1] are the global ids of the k-th
 *  pair of this chunk, 1 <= count <= the search's chunk_pairs. Each pair
 *  is given to exactly one rank (the owner of its end with the smaller
 *  radius, between equal radii the smaller id; or of its non-giant end). Return non-zero to stop: every rank's call then
 *  returns SC_ERR_STOPPED. */
typedef int (*sc_mpi_pair_fn)(const uint64_t *pairs, size_t count, void *user);

/** Counts the pairs among every rank's spheres and sums their checksum
 *  (sc_mpi_pair_mix over global ids, mod 2^64); *out is the same on every
 *  rank (zeroed on error). local is this rank's view (count 0 allowed,
 *  every rank 2-D or every rank 3-D); ids its spheres' global ids (unique
 *  over all ranks, below UINT64_MAX), or NULL on every rank for ids
 *  numbered in rank order (rank 0's rows first). */
SC_API sc_status sc_mpi_count_pairs(sc_mpi_context *ctx, const sc_spheres *local,
                                    const uint64_t *ids, sc_summary *out);

/** As sc_mpi_count_pairs, and streams this rank's share of the pairs to fn
 *  (every pair to exactly one rank). */
SC_API sc_status sc_mpi_stream_pairs(sc_mpi_context *ctx, const sc_spheres *local,
                                     const uint64_t *ids, sc_mpi_pair_fn fn, void *user,
                                     sc_summary *out);

/** Writes this rank's share of the pairs (as sc_mpi_stream_pairs gives
 *  them) to pairs[0 .. 2*capacity). *needed (if not NULL) is this rank's
 *  count when the search ran to the end. When any rank's capacity is
 *  short, every rank returns SC_ERR_BUFFER_TOO_SMALL, each having written
 *  its first `capacity` pairs, and *out holds the totals; pairs may be
 *  NULL with capacity 0 (a size query: the same spheres and options give
 *  each rank the same share again). */
SC_API sc_status sc_mpi_fill_pairs(sc_mpi_context *ctx, const sc_spheres *local,
                                   const uint64_t *ids, uint64_t *pairs, size_t capacity,
                                   size_t *needed, sc_summary *out);

/* ======================================================================== */
/* Two sets                                                                 */
/* ======================================================================== */

/** The pairs (i in a, j in b) whose spheres intersect, each set spread over
 *  the ranks in any way: sc_count_between's answer on the whole sets. The
 *  checksum sums sc_mpi_pair_mix(i, j) with i a's global id and j b's (no
 *  order between them; for ids below 2^32 it equals sc_count_between's on
 *  sets numbered by rows). ids_a and ids_b as for one set, each numbered
 *  in rank order within its set when NULL; a's ids and b's are separate
 *  spaces. Every rank's views of both sets are 3-D, or every rank's 2-D.
 *  A bad sphere of a is named before one of b. */
SC_API sc_status sc_mpi_count_between(sc_mpi_context *ctx, const sc_spheres *a,
                                      const uint64_t *ids_a, const sc_spheres *b,
                                      const uint64_t *ids_b, sc_summary *out);

/** As sc_mpi_count_between, and streams this rank's share of the pairs to
 *  fn: pairs[2k] is a's global id, pairs[2k+1] b's. Each pair goes to one
 *  rank: the owner of its non-giant a, else of its non-giant b, else of a. */
SC_API sc_status sc_mpi_stream_between(sc_mpi_context *ctx, const sc_spheres *a,
                                       const uint64_t *ids_a, const sc_spheres *b,
                                       const uint64_t *ids_b, sc_mpi_pair_fn fn, void *user,
                                       sc_summary *out);

/** sc_mpi_fill_pairs for two sets. */
SC_API sc_status sc_mpi_fill_between(sc_mpi_context *ctx, const sc_spheres *a,
                                     const uint64_t *ids_a, const sc_spheres *b,
                                     const uint64_t *ids_b, uint64_t *pairs, size_t capacity,
                                     size_t *needed, sc_summary *out);

/* ======================================================================== */
/* Neighbour lists (CSR)                                                    */
/* ======================================================================== */

/** Pass 1 of 2 of a CSR neighbour list over ranks: row k is this rank's
 *  sphere local[k] (the caller's order, whatever the layout), its entries
 *  the global ids of the spheres it is listed with, sorted ascending. spec
 *  as sc_neighbors_count (the same on every rank): a pair is listed iff
 *  spherecollide.h's list predicate holds on the caller's values (with
 *  skin 0, exactly the pairs of sc_mpi_count_pairs); a half list
 *  (full = 0) puts j in row i when j's global id is the larger, a full
 *  list puts each pair in both rows; values (spec->value) beside each
 *  entry, the same bits in both rows. offsets has local->count + 1
 *  entries: offsets[0] = 0, row k is entries offsets[k] .. offsets[k+1]-1.
 *  The list is kept in the context for the fill that follows (memory:
 *  24 bytes per entry on the rows' rank while it travels, 16 kept). A
 *  skin's grown radii must stay within SC_MAX_ABS_VALUE (half that in a
 *  periodic box), else SC_ERR_OUT_OF_RANGE naming the sphere. */
SC_API sc_status sc_mpi_neighbors_count(sc_mpi_context *ctx, const sc_spheres *local,
                                        const uint64_t *ids, const sc_nbr_spec *spec,
                                        uint64_t *offsets);

/** Pass 2 of 2: writes neighbors[0 .. offsets[n]) (global ids) and, when
 *  spec->value is not NONE, values[0 .. offsets[n]). Right after the count
 *  on the same spheres and spec it copies the kept list; otherwise it
 *  searches again. Offsets that are not this list's on any rank give
 *  SC_ERR_INVALID_ARGUMENT on every rank, with nothing written. */
SC_API sc_status sc_mpi_neighbors_fill(sc_mpi_context *ctx, const sc_spheres *local,
                                       const uint64_t *ids, const sc_nbr_spec *spec,
                                       const uint64_t *offsets, uint64_t *neighbors,
                                       double *values);

/* ======================================================================== */
/* Statistics                                                               */
/* ======================================================================== */

/** The phases of a call, timed per rank. */
typedef enum sc_mpi_phase {
    SC_MPI_PHASE_CHECK = 0,  /**< values checked, ids numbered, copies made */
    SC_MPI_PHASE_LAYOUT = 1, /**< sample, cuts and the move to owners (RCB) */
    SC_MPI_PHASE_GHOSTS = 2, /**< regions, giants and the ghost exchange */
    SC_MPI_PHASE_SEARCH = 3, /**< the rank-local search and its filter */
    SC_MPI_PHASE_REDUCE = 4, /**< the sums over ranks */
    SC_MPI_PHASE_COUNT = 5
} sc_mpi_phase;

/** This rank's statistics of the context's last call. */
typedef struct sc_mpi_stats {
    size_t size; /**< set by the caller to sizeof(sc_mpi_stats) */
    double seconds[SC_MPI_PHASE_COUNT];
    uint64_t owned;           /**< spheres this rank owns (after the layout;
                                   both sets' in a two-set call) */
    uint64_t ghosts;          /**< other ranks' spheres received as ghosts */
    uint64_t giants;          /**< giants over all ranks (each rank holds all) */
    uint64_t pairs;           /**< pairs this rank reported */
    uint64_t found;           /**< pairs its local search found (>= pairs) */
    uint64_t candidate_tests; /**< the local search's sphere-pair tests */
    uint64_t bytes_sent;      /**< bytes this rank sent (layout, ghosts, giants) */
    uint64_t messages_sent;   /**< point-to-point messages with data it sent */
    int threads;              /**< the local search's threads */
} sc_mpi_stats;

/** Copies this rank's statistics (local, not collective); a size below
 *  sizeof(sc_mpi_stats) of this release is SC_ERR_INVALID_ARGUMENT. */
SC_API sc_status sc_mpi_stats_get(const sc_mpi_context *ctx, sc_mpi_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SPHERECOLLIDE_MPI_H */
