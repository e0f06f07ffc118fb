/*
 * queries.h: what the query front ends (src/queries) lend each other: the
 * one-set dispatch (pairs.c) and the periodic box's passes (periodic.c),
 * which the two-set queries and the neighbour lists run on.
 */
#ifndef SC_QUERIES_H
#define SC_QUERIES_H

#include "engine.h"

#include <math.h>

/* A one-set pair query: sc_engine_run, or with a periodic box in the
 * options, sc_periodic_run (pairs.c). */
SC_INTERNAL sc_status sc_engine_query(sc_context *c, const sc_spheres *spheres, sc_query_fn fn,
                                      void *arg);
/* Runs fn on the spheres and their periodic images (periodic.c). */
SC_INTERNAL sc_status sc_periodic_run(sc_context *c, const sc_spheres *spheres, sc_query_fn fn,
                                      void *arg);
/* Whether the options' box has a periodic axis. */
SC_INTERNAL bool sc_box_periodic(const sc_box *box);

/* Part of a searched view: all of set's spheres (map NULL) or the n
 * listed ones, in that order. v is set's view. */
typedef struct sc_part {
    const sc_spheres *set;
    const sc_view *v;
    const uint32_t *map;
    size_t n;
} sc_part;

/* sc_periodic_run on the parts one after the other (a two-set query's
 * [A's part | B's part]: between.c), dims 2 or 3; the sinks' positions
 * [0, n) are the parts' spheres in that order. t0: the call's start. An
 * invalid sphere, or one past the box's radius limit, gives the status
 * of the first in part order. */
SC_INTERNAL sc_status sc_periodic_parts(sc_context *c, const sc_part *parts, int nparts, int dims,
                                        sc_query_fn fn, void *arg, double t0);
/* The status of s's first sphere that a periodic query refuses (invalid,
 * or past the radius limit), SC_OK when none is. */
SC_INTERNAL sc_status sc_periodic_check(const sc_spheres *s);

/* What wrapping needs of the box, for views of `dims` dimensions: its
 * periodic axes (none beyond dims), periods, and B = the largest |lo|,
 * |hi| plus the period over them (the scale of the wrapped centres'
 * rounding, periodic.c). With one_side, a periodic query makes images
 * for half the shifts only, its bands sized for spheres up to radius
 * reach (periodic.c: bands); sc_wrap_plan leaves it off, reach 0. */
typedef struct sc_wrap {
    int dims, periodic[3];
    double lo[3], hi[3], period[3];
    double big;
    bool one_side;
    double reach, reach_g; /* reach_g: an image radius of reach (periodic.c) */
} sc_wrap;
SC_INTERNAL void sc_wrap_plan(const sc_box *box, int dims, sc_wrap *w);

/* sc_box's wrap(x), as documented. */
static inline double sc_wrap_x(double x, double lo, double hi, double period) {
    if (x >= lo && x < hi)
        return x;
    const double t = x - floor((x - lo) / period) * period;
    return t < lo || t >= hi ? lo : t;
}

/* d2 of the minimum image of cj seen from ci (i < j), as sc_box's
 * expression computes it on the caller's centres (z = 0 in 2-D). */
SC_INTERNAL double sc_box_distance2(const sc_box *box, int dims, const double ci[3],
                                    const double cj[3]);

#endif /* SC_QUERIES_H */
