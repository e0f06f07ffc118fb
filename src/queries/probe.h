/*
 * probe.h: a two-set query's direct search (probe.c), for between.c: the
 * larger set's candidates tested against a grid of the smaller set only,
 * so that no pair within either set is ever tested. Not installed.
 */
#ifndef SC_PROBE_H
#define SC_PROBE_H
#include "queries.h"

/* A half-width that bounds how far a sphere of radius r can be from any
 * sphere it meets in double, beyond the other's own pad: if the
 * predicate holds for spheres i and j, then on every axis
 * |xi - xj| <= pad(ri) + pad(rj) in exact arithmetic. Proof: d2 >=
 * fl(dx*dx) (sums of non-negative terms round monotonically), so
 * fl(dx*dx) <= fl(s*s), s = fl(ri + rj); with u = 2^-53 and underflow's
 * absolute error 2^-1075, dx^2 (1 - u) <= s^2 (1 + u) + 2^-1074, so |dx| <=
 * s (1 + 2u) + 2^-536.5; dx = fl(xi - xj) is within u of xi - xj (exact
 * when subnormal), and s within u of ri + rj: |xi - xj| <= (ri + rj)(1 +
 * 7u) + 2^-536. pad(r) >= r (1 + 2^-47) + 2^-501 covers each side. */
static inline double sc_pad(double r) {
    return r * (1.0 + 0x1p-46) + 0x1p-500;
}

/* The cell of coordinate x on a grid of k cells from lo, 1 / inv wide:
 * floor((x - lo) * inv), clamped to [0, k - 1]. Monotone in x, so an
 * interval [a, b] meets exactly the cells sc_cell_of(a) .. sc_cell_of(b)
 * (between.c's bitmap and probe.c's grid). */
static inline uint32_t sc_cell_of(double x, double lo, double inv, uint32_t k) {
    const double t = (x - lo) * inv;
    return t >= (double)k ? k - 1 : t > 0.0 ? (uint32_t)t : 0;
}

/* The smaller set's spheres with a pad above the grid's go in a list that
 * every candidate tests; at most this many. */
#define SC_PROBE_BIG 16

/* A planned probe. Working positions [0, ns) are the smaller set S,
 * counting-sorted by cell with its big spheres last, [ns, ns + nc) the
 * candidates; index takes a working position to its position in
 * between.c's joint view. */
typedef struct sc_probe {
    int dims;
    double lo[3], hi[3]; /* the bounds of S's grid spheres' centres */
    double inv, cell;    /* 1 / cell, the cell edge */
    double gridpad;      /* the largest pad of a sphere in the grid */
    uint32_t k[3];       /* cells per axis (1 on z in 2-D) */
    uint32_t stride[3];  /* the table's: k + 1 (an empty layer past the
                            cells), 1 on z in 2-D */
    uint64_t cells;      /* table entries */
    int nbig;            /* S's big spheres, at [start[cells], + nbig) */
    size_t ns, nc;
    size_t wide;               /* candidates whose window spans more than two cells */
    double *sx, *sy, *sz, *sr; /* S by working position, padded (z = 0 in 2-D) */
    double *rows;              /* candidate t's (x, y, z, r) at rows + 4 t (z = 0 in 2-D) */
    uint32_t *index;
    uint32_t *order;       /* nc: the candidates in probing order (then their
                        cells, and the cells' first positions) */
    bool sorted;           /* probed in order of their cell, else their own */
    const uint32_t *start; /* cells + 1 entries: cell q's S spheres are
                              [start[q], start[q + 1]) */
    int sort_threads;      /* the counting sorts' (sc_counting_threads) */
    void *sort_scratch;    /* theirs, for cells + 1 buckets */
} sc_probe;

/* Plans the grid of the small part (valid spheres; small_at: its first
 * sphere's joint position) for nc candidates, reserves the working copy
 * in the context's peer buffers and sorts S into its front, on up to
 * `threads` threads. false when a
 * probe would not pay (S's radii too spread for one grid) or there is no
 * memory; the caller then searches a joint view instead. */
SC_INTERNAL bool sc_probe_plan(sc_context *c, const sc_part *small, uint32_t small_at, size_t nc,
                               int threads, sc_probe *pr);
/* The rows (x, y, z, r in double; z = 0 in 2-D) that between.c's filter
 * copied of its candidates as it kept them, while their spheres were in
 * cache: segment s holds candidates first[s] .. first[s] + n[s] - 1 at
 * rows + 4 * at[s] on. Its room is a share of the large set, so a segment
 * may hold fewer than its thread kept (first[s + 1] - first[s]): the
 * others are read from the caller's spheres through the map. */
typedef struct sc_kept_rows {
    int segs;
    const double *rows;
    const size_t *first, *n, *at;
} sc_kept_rows;

/* Candidate k's copied row, or NULL (none copied, or kept NULL). *seg is
 * the segment to look from: start at 0 and pass k in ascending order, and
 * it only moves forward. */
static inline const double *sc_kept_row(const sc_kept_rows *kept, size_t k, int *seg) {
    if (!kept)
        return NULL;
    int s = *seg;
    while (s + 1 < kept->segs && k >= kept->first[s + 1])
        s++;
    *seg = s;
    const size_t q = k - kept->first[s];
    return q < kept->n[s] ? kept->rows + 4 * (kept->at[s] + q) : NULL;
}

/* Copies the large part's nc candidates (valid; large_at: the first's
 * joint position) after S on up to `threads` threads, from kept (or NULL)
 * where it holds them, and counts what probing them would cost; false
 * when that is above a budget of a few tests per sphere (large candidates
 * among small spheres). */
SC_INTERNAL bool sc_probe_candidates(const sc_part *large, uint32_t large_at,
                                     const sc_kept_rows *kept, sc_probe *pr, int threads);
/* The sc_build_fn that installs a planned probe (arg: sc_probe *) as the
 * query's peer: its chunks are runs of candidates. */
SC_INTERNAL sc_status sc_probe_build(sc_context *c, sc_prepared *p, void *arg);

#endif /* SC_PROBE_H */
