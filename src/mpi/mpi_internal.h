/* mpi_internal.h: what the distributed layer's files share. The layer is
 * built on spherecollide.h's public API only; docs/mpi.md states the rules
 * that these files follow (numbers in the comments: its rules). */
#ifndef SC_MPI_INTERNAL_H
#define SC_MPI_INTERNAL_H

#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

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
    sc_mpi_records own;   /* the spheres this rank owns (rule 1); the ghost phase
                           * builds local in its records */
    sc_mpi_records local; /* for the search: [owned non-giants | ghosts | giants];
                           * a view of own's records (cap 0: it owns nothing),
                           * valid until the next call writes own */
    size_t local_own;     /* local.at[0, local_own): owned, not giants */
    size_t local_giants;  /* local.at[local.count - local_giants, count): giants */
    size_t owned;         /* the spheres owned here, giants included */
    double ext[7];        /* with ext_known: the box of own's positions (lo[3],
                           * hi[3]) and their largest search radius, taken
                           * by the check's copy where no move follows */
    int ext_known;
} sc_mpi_set;

/* One neighbour-list entry as it travels to its row's rank: row and col
 * are ids (internal, then the caller's), value the spec's value. */
typedef struct sc_mpi_entry {
    uint64_t row, col;
    double value;
} sc_mpi_entry;

/* A growable array of entries (grown, never shrunk). */
typedef struct sc_mpi_entries {
    sc_mpi_entry *at;
    size_t count, cap;
} sc_mpi_entries;

/* The list the last neighbour count built, in CSR over this rank's rows,
 * kept for the fill that follows. */
typedef struct sc_mpi_nbr_list {
    uint64_t *offsets, *cols; /* rows + 1, entries */
    double *values;           /* entries */
    size_t rows, rows_cap, entries_cap;
    sc_nbr_spec spec;
    int valid;
} sc_mpi_nbr_list;

/* The routing's hint (ghosts.c), taken from the last call's regions
 * when it had one set, no periodic axis and no giant: planes that every
 * other rank's region lay beyond (lo[a] below, hi[a] above this rank's
 * own, each moved back by a slack so that regions that drift a little
 * still lie beyond them), and the largest search radius each rank's
 * region and this rank's spheres may have. The next call's first pass
 * over its owned records (the check's copy in the caller's layout, the
 * ghost phase's extent after an RCB move) also copies each sphere that
 * lies within `deep` of a plane or has a search radius above rcap
 * (route's candidates) into a buffer of their own. When that call's
 * regions still lie beyond the planes with radii within the bounds, the
 * routing reads the candidates alone, not every record (docs/mpi.md,
 * "Routing"). */
typedef struct sc_mpi_hint {
    int ok, dims;
    double lo[3], hi[3], deep, rcap;
    int *face;    /* per rank: 2a (below lo[a]), 2a + 1 (above hi[a]), -1 none */
    double *rmax; /* per rank: the largest search radius its region may have */
} sc_mpi_hint;

/* What the caller passed to one call. */
typedef struct sc_mpi_query {
    int sets;               /* 1: pairs within v[0]; 2: between v[0] and v[1] */
    const sc_spheres *v[2]; /* this rank's spheres of each set */
    const uint64_t *ids[2]; /* their global ids, or NULL (rank order) */
    sc_mpi_pair_fn fn;      /* the caller's stream, or NULL */
    void *user;
    uint64_t *fill; /* fill: the caller's buffer of `capacity` pairs */
    size_t capacity;
    const sc_nbr_spec *nbr; /* a neighbour list (one set), or NULL */
} sc_mpi_query;

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
    int *dest; /* per record of a move: its rank; dest_cap entries, grown only */
    size_t dest_cap;
    uint8_t *giant_mine; /* set 0's giant k is owned here; capacity options.giants */
    int *counts, *displs, *rcounts, *rdispls; /* per rank, for the exchanges */
    int *near;  /* per rank: the ranks a ghost route tests sphere by sphere */
    int *faces; /* per entry of near: the faces of the box its region lies beyond */
    /* One bit per routed record: set when it goes to some rank (the
     * packing pass visits these alone); routed_cap words, or NULL. */
    uint64_t *routed;
    size_t routed_cap;
    /* One set: set 0's local ids as 32 bits (id32[k] = local.at[k].id),
     * when id32_ok says every one fits (the search's filter then reads
     * these, 4 bytes a sphere, not the 40-byte records); written by the
     * routing's counting pass, which reads every owned record anyway, or
     * with a hint by the first pass over them (below). */
    uint32_t *id32;
    size_t id32_cap, id32_need; /* id32_need: the last call's local count */
    int id32_ok;
    double *regions; /* per rank: lo[3], hi[3], rmax, spheres */
    sc_mpi_hint hint;
    /* This call's first pass over the owned records (the check's copy,
     * or under RCB the ghost phase's extent) copied route's candidates
     * into cand and wrote id32 (ORing the ids into hinted_ids_or) from
     * the hint. */
    sc_mpi_records cand;
    int hinted;
    uint64_t hinted_ids_or;
    /* Neighbour lists: records carry ids numbered in rank order (firsts[r]
     * is rank r's first) so a row's rank follows
     * from its id; with a skin the search reads grown radii (grown, one
     * per local record; grow_h the half skin, 0 without). */
    uint64_t *firsts;
    double grow_h;
    double *grown;
    size_t grown_cap;
    sc_mpi_entries entries, spare_entries;
    MPI_Datatype entry; /* one sc_mpi_entry */
    sc_mpi_nbr_list kept;
    const sc_mpi_query *query; /* the call running (for the callbacks) */
    sc_status nbr_status;      /* a callback's failure */
    uint64_t nbr_pairs;        /* pairs the callback kept */
    sc_mpi_stats stats;
    char message[256];
};

/* Allocation through the search options' allocator (docs/api.md); NULL on
 * failure. */
void *sc_mpi_alloc(const sc_mpi_context *c, size_t bytes);
void sc_mpi_free(const sc_mpi_context *c, void *p);
/* Grows r to hold at least n records (content kept); SC_ERR_OUT_OF_MEMORY. */
sc_status sc_mpi_reserve(const sc_mpi_context *c, sc_mpi_records *r, size_t n);
/* Grows a scratch array *at of *cap elements of elem bytes to hold at
 * least n (content dropped; grown by half again at least, never shrunk).
 * 0, or -1 with *at NULL and *cap 0 when the allocation failed. */
int sc_mpi_grow(const sc_mpi_context *c, void **at, size_t *cap, size_t n, size_t elem);

/* The collectives the layer calls (wait.c): MPI's own, with the same
 * arguments, but started nonblocking and waited for by tests that sleep
 * in between rather than poll (once an exchange's bytes have had time to
 * move), so a waiting rank leaves its core to the ranks and threads that
 * still work. */
void sc_mpi_wait(MPI_Request *request);
void sc_mpi_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm);
void sc_mpi_allgather(const void *in, int count, MPI_Datatype type, void *out, int out_count,
                      MPI_Datatype out_type, MPI_Comm comm);
void sc_mpi_allgatherv(const void *in, int count, MPI_Datatype type, void *out,
                       const int *out_counts, const int *out_displs, MPI_Datatype out_type,
                       MPI_Comm comm);
void sc_mpi_gatherv(const void *in, int count, MPI_Datatype type, void *out, const int *out_counts,
                    const int *out_displs, MPI_Datatype out_type, int root, MPI_Comm comm);
void sc_mpi_alltoall(const void *in, int count, MPI_Datatype type, void *out, int out_count,
                     MPI_Datatype out_type, MPI_Comm comm);
void sc_mpi_alltoallv(const void *in, const int *counts, const int *displs, MPI_Datatype type,
                      void *out, const int *out_counts, const int *out_displs,
                      MPI_Datatype out_type, MPI_Comm comm);
void sc_mpi_exscan(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm);
void sc_mpi_bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

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

/* Whether this call's first pass over set 0's n owned spheres copies
 * route's candidates from the hint: with room for them and for id32 (at
 * the size the ghost phase asks), 1 and c->cand, c->id32 ready. */
int sc_mpi_hint_begin(sc_mpi_context *c, size_t n);

/* The hint's part of a first pass (the check's copy, the extent pass):
 * its candidates so far (m, of which cap fit in cand), the ids ORed. */
typedef struct sc_mpi_hint_pass {
    sc_mpi_hint h;
    sc_mpi_record *cand;
    uint32_t *id32;
    size_t cap, m;
    uint64_t ids_or;
} sc_mpi_hint_pass;

/* A sphere at p with search radius r that the hint rules out of the
 * routing: farther than deep from every plane (fl(hi - p) > deep, as
 * route's own first test), with a radius within rcap. A NaN is never
 * deep. */
static inline int sc_mpi_hint_deep(const sc_mpi_hint *h, const double p[3], double r) {
    int deep = !(r > h->rcap);
    for (int a = 0; a < 3; a++)
        deep &= (p[a] - h->lo[a] > h->deep) & (h->hi[a] - p[a] > h->deep);
    return deep;
}

/* One record k of the pass, at position p with search radius r: a
 * candidate unless the hint rules it out (few: a branch the CPU
 * predicts), and its id into id32. */
static inline void sc_mpi_hint_take(sc_mpi_hint_pass *t, const sc_mpi_record *o, size_t k,
                                    const double p[3], double r) {
    if (!sc_mpi_hint_deep(&t->h, p, r)) {
        if (t->m < t->cap)
            t->cand[t->m] = *o;
        t->m++;
    }
    t->id32[k] = (uint32_t)o->id;
    t->ids_or |= o->id;
}

/* The pass's start from c's hint and buffers, and its end: c->hinted
 * when every candidate fitted (else the routing reads every record). */
sc_mpi_hint_pass sc_mpi_hint_pass_begin(const sc_mpi_context *c);
void sc_mpi_hint_pass_end(sc_mpi_context *c, const sc_mpi_hint_pass *t);

/* Rule 3's test: may a sphere at c (a position) of radius r meet one of
 * radius at most rmax whose position lies in the box [lo, hi]? On a
 * periodic axis the gap is the shorter way round. Never false for a pair
 * the library's predicate reports (docs/mpi.md, "No pair is lost"). */
int sc_mpi_may_reach(const sc_mpi_context *c, const double p[3], double r, const double lo[3],
                     const double hi[3], double rmax);

/* Runs one collective call: resets the statistics and message, runs the
 * pipeline (check, layout, ghosts, search, and for a neighbour list its
 * finish, reduce) and zeroes *out on failure. */
sc_status sc_mpi_enter(sc_mpi_context *c, const sc_mpi_query *q, sc_summary *out, size_t *needed);

/* The radius rule 3, rule 5 and the search use: r, or with a neighbour
 * list's skin the grown radius (docs/mpi.md, "Neighbour lists"). */
static inline double sc_mpi_search_radius(const sc_mpi_context *c, double r) {
    if (c->grow_h == 0)
        return r;
    const double g = (r + c->grow_h) * (1.0 + 0x1p-48);
    uint64_t u;
    memcpy(&u, &g, sizeof u);
    u += 2;
    double up;
    memcpy(&up, &u, sizeof up);
    return up;
}
/* sc_box's wrap(), the expression spherecollide.h documents. */
static inline double sc_mpi_wrap(double x, double lo, double hi) {
    if (x >= lo && x < hi)
        return x;
    const double L = hi - lo, t = x - floor((x - lo) / L) * L;
    return t < lo || t >= hi ? lo : t;
}

/* A record's centre as the layout and the regions see it: on a periodic
 * axis wrapped into the box by sc_box's wrap() (the library's own
 * expression, so owners agree with the search), else as given. The record
 * keeps the caller's values: the search wraps them itself. Inline: every
 * phase calls it once a sphere. */
static inline void sc_mpi_position(const sc_mpi_context *c, const sc_mpi_record *s, double p[3]) {
    p[0] = s->x, p[1] = s->y, p[2] = s->z;
    const sc_box *b = &c->options.search.box;
    for (int a = 0; a < 3; a++)
        if (c->periodic[a])
            p[a] = sc_mpi_wrap(p[a], b->lo[a], b->hi[a]);
}

/* An empty extent (sc_mpi_set.ext), and one position and search radius
 * added to it; sc_mpi_extent_end gives the empty box zeros. Min and max
 * are exact, so any order of adding gives the same extent. */
static inline void sc_mpi_extent_begin(double e[7]) {
    for (int a = 0; a < 3; a++)
        e[a] = INFINITY, e[3 + a] = -INFINITY;
    e[6] = 0;
}
static inline void sc_mpi_extent_add(double e[7], const double p[3], double r) {
    for (int a = 0; a < 3; a++) {
        e[a] = p[a] < e[a] ? p[a] : e[a];
        e[3 + a] = p[a] > e[3 + a] ? p[a] : e[3 + a];
    }
    e[6] = r > e[6] ? r : e[6];
}
static inline void sc_mpi_extent_end(double e[7]) {
    if (!(e[0] <= e[3]))
        for (int a = 0; a < 7; a++)
            e[a] = 0;
}

/* Rule 4 for one set: is the pair of local records a, b of set 0 kept
 * on this rank? */
int sc_mpi_decides(const sc_mpi_context *c, size_t a, size_t b);

/* The pair predicate on the caller's values of two records, as
 * spherecollide.h documents it (minimum image on the box's periodic
 * axes): d2. */
double sc_mpi_pair_d2(const sc_mpi_context *c, const sc_mpi_record *a, const sc_mpi_record *b);

/* Neighbour lists (neighbors.c): the search's callback, which keeps this
 * rank's pairs that the list holds as entries, and the collective step
 * after the search that sends each entry to its row's rank and builds
 * the kept CSR list. */
int sc_mpi_keep_neighbors(const uint32_t *pairs, size_t count, void *user);
sc_status sc_mpi_neighbors_finish(sc_mpi_context *c, const sc_mpi_query *q);
void sc_mpi_neighbors_release(sc_mpi_context *c);

#endif
