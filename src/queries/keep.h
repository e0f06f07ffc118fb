/*
 * keep.h: what a query front end hands the core's sinks (src/queries):
 * which hits are pairs and of which spheres. A two-set query (between.c)
 * keeps the pairs across its two parts, as each set's indices; a periodic
 * query (periodic.c) maps a hit on an image to the pair of spheres it
 * stands for, when the box's predicate holds; a neighbour list with a skin
 * (neighbors.c) keeps the pairs its own predicate holds for. They compose
 * (a periodic two-set query, a periodic list): each front end sets its
 * part of one sc_keep around its query function, and the sinks call
 * sc_keep_pairs on each batch of hits (sc_sink.keep). The core sees only
 * the function and an opaque pointer.
 */
#ifndef SC_KEEP_H
#define SC_KEEP_H

#include "context.h"

/* A two-set query's joint view: A's part is [0, split), B's part the
 * rest; map_a / map_b (NULL: identity) take a part's position to its
 * set's index (between.c), below na and nb. on == false: a one-set query. */
typedef struct sc_cross {
    bool on;
    uint32_t split;
    const uint32_t *map_a, *map_b;
    size_t na, nb;
} sc_cross;

/* An image (periodic.c): the sphere it is of, its shift's code (sx+1) +
 * 3 (sy+1) + 9 (sz+1) in periods (s in {-1, 0, 1}), and that sphere's
 * radius and wrapped centre as its row holds them (z = 0 in 2-D). One
 * record, so that a hit on an image costs one random read where the
 * arrays and the sphere's row cost several. */
typedef struct sc_image {
    uint32_t of, shift;
    double r;
    double c[3];
} sc_image;

/* A periodic query's joint view (periodic.c): positions [0, n) are the
 * spheres themselves, wrapped into the box; position n + g is image[g]. A hit stands for the pair of the spheres it
 * names when the box's predicate holds with that shift (sc_box), from
 * one side only (sc_keep_pairs); rows[4 k ..] holds position k's wrapped
 * centre and radius (an image's radius is grown: periodic.c). With
 * `trust_direct`, a hit of two spheres themselves is the pair as found
 * (no sphere reaches half a period, so its minimum image is unshifted).
 * on == false: not a periodic query. */
typedef struct sc_images {
    bool on, trust_direct;
    bool one_side; /* images for half the shifts: a pair's one image hit */
    int dims;
    uint32_t n;
    const sc_image *image;
    const double *rows; /* (x, y, z, r) per position, z = 0 in 2-D */
    int periodic[3];
    double period[3], half[3];
} sc_images;

/* The front ends' state of one query. */
typedef struct sc_keep {
    sc_cross cross;   /* two sets: which pairs count, and their indices */
    sc_images images; /* a periodic box: which hits are pairs, of which spheres */
    /* a neighbour list with a skin: only pairs whose skin predicate holds
     * on `exact` (the caller's values) are kept (the search ran on radii
     * grown to a superset) */
    const sc_view *exact;
    bool filter;
    double skin;
    /* the filter's values in the peer's working order, where it has a
     * working copy (centres as copied, the caller's radii gathered): the
     * spheres a hit names were just read by the kernel, so these are in
     * cache where the caller's rows, in input order, are not. wz may be
     * NULL (2-D); wx NULL: the filter reads `exact` */
    const double *wx, *wy, *wz, *wr;
} sc_keep;

/* The keep state of the query running on c: the one a front end outside
 * this one installed, else *own, zeroed and installed (with sc_keep_pairs
 * as the context's keep). Pair each call with sc_keep_leave(c, own). */
SC_INTERNAL sc_keep *sc_keep_enter(sc_context *c, sc_keep *own);
/* After a front end changed its part of the state: the context's pair
 * ranges (sc_context.pair_rows, pair_cols) from it. */
SC_INTERNAL void sc_keep_changed(sc_context *c);
/* Uninstalls *own if sc_keep_enter installed it. */
SC_INTERNAL void sc_keep_leave(sc_context *c, sc_keep *own);
/* The sinks' keep: a batch of hits (working indices, in place) to the
 * pairs kept, as input indices (row, col): for one set row < col; for
 * two sets row indexes A and col indexes B, and pairs within one set are
 * dropped; a neighbour list's filter drops pairs beyond its skin. In a
 * periodic query a hit first becomes the pair of spheres it stands for,
 * or nothing, and the two-set cut applies to those spheres. Returns how
 * many pairs remain. Slot k is read before slot m <= k is written. */
SC_INTERNAL size_t sc_keep_pairs(const sc_sink *s, uint32_t *p, size_t n);

#endif /* SC_KEEP_H */
