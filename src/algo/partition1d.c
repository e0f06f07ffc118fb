/*
 * partition1d.c: seed 000's algorithm (SC_ALGO_PARTITION1D). Space is cut
 * along x into segments of equal width; each sphere is registered in every
 * segment its interval [x - r, x + r] (rounded outward, peer.h) overlaps;
 * within a segment every sphere is checked against the ones registered
 * before it, and a pair seen in several segments is kept only in the one
 * that holds its reference point (peer.h), so it is reported once.
 *
 * Width: 1.1 x the mean diameter (the seed's text) or the largest diameter
 * (its repository), never so small that there would be more segments than
 * spheres, nor narrower than a box's rounding at the coordinates' magnitude
 * (2^-48 |x|): memory is O(n) whatever the extent along x or the offset.
 * Registrations are then at most about 3.9 n for the mean width (sum of
 * 2r / w <= n / 1.1 plus three per sphere) and 4 n for the largest. Cost: the sum over segments
 * of their count squared, quadratic in the spheres that share a slab of x:
 * the algorithm's weakness on data that is dense in y and z.
 * The segments are searched as chunks of consecutive segments, in parallel.
 */
#include "peer.h"

#include <math.h>

enum { WORK, ENTRIES, START, CHUNKS };

typedef struct part_state {
    double origin, width;
    size_t segments;
    const uint32_t *start; /* segment s: entries [start[s], start[s + 1]) */
    const uint32_t *chunk; /* chunk c: segments [chunk[c], chunk[c + 1]) */
} part_state;

/* Lower end of segment s: one formula everywhere, monotone in s. Segment 0
 * reaches down to -inf and the last one up to +inf. */
static inline double seg_lo(const part_state *p, size_t s) {
    return s == 0 ? -INFINITY : s >= p->segments ? INFINITY : p->origin + (double)s * p->width;
}

/* The segment holding v: lo(s) <= v < lo(s + 1). */
static size_t seg_of(const part_state *p, double v) {
    double g = floor((v - p->origin) / p->width);
    size_t s = g < 0.0 ? 0 : g >= (double)p->segments ? p->segments - 1 : (size_t)g;
    while (s > 0 && v < seg_lo(p, s)) /* rounding in the guess: a step or two at most */
        s--;
    while (s + 1 < p->segments && v >= seg_lo(p, s + 1))
        s++;
    return s;
}

static sc_status part_build(const sc_peer_env *e, sc_peer_built *out) {
    part_state *p = e->state;
    const sc_view *v = e->view;
    const sc_bounds *b = e->bounds;
    const size_t n = v->n;
    double t = sc_now();
    double sum_r = 0.0;
    for (size_t k = 0; k < n; k++)
        sum_r += sc_view_r(v, k);
    const double rmax = n ? b->rmax : 0.0;
    double w = e->opt->partition1d.width == SC_SEGMENT_MAX_DIAMETER
                   ? 2.0 * rmax
                   : 1.1 * 2.0 * (n ? sum_r / (double)n : 0.0);
    p->origin = n ? sc_box_lo(b->lo[0], rmax) : 0.0;
    const double extent = n ? sc_box_hi(b->hi[0], rmax) - p->origin : 0.0;
    const double cap = n > 1 ? (double)n : 1.0;
    if (!(w >= extent / cap)) /* also for w = 0 (zero radii) */
        w = extent / cap;
    /* Never narrower than a box's rounding far from the origin: a box is
     * 2 r plus up to 2^-48 |x| wide (sc_box_lo, sc_box_hi), so with w at
     * least that a sphere meets at most 2 r / w + 3 segments at any offset.
     * (At x = 1e20 with radii of 0.01 a narrower w put every sphere in
     * every segment: n^2 registrations.) */
    const double big = n ? fmax(fabs(b->lo[0]), fabs(b->hi[0])) : 0.0;
    if (w < big * 0x1p-48)
        w = big * 0x1p-48;
    if (!(w > 0.0))
        w = 1.0; /* all centres on one x, radius 0: one segment */
    p->width = w;
    double segs = ceil(extent / w);
    p->segments = segs < 1.0 ? 1 : segs > cap ? (size_t)cap : (size_t)segs;
    const size_t S = p->segments;

    /* registrations: count per segment, then fill in input order */
    if (!sc_env_reserve(e, START, 4 * (S + 2)))
        return SC_ERR_OUT_OF_MEMORY;
    uint32_t *start = e->buf[START].p;
    for (size_t s = 0; s <= S + 1; s++)
        start[s] = 0;
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        const double x = sc_view_get(v, v->x, k), r = sc_view_r(v, k);
        const size_t s0 = seg_of(p, sc_box_lo(x, r)), s1 = seg_of(p, sc_box_hi(x, r));
        for (size_t s = s0; s <= s1; s++)
            start[s + 2]++;
        total += s1 - s0 + 1;
    }
    if (total > UINT32_MAX)
        return SC_ERR_OUT_OF_MEMORY;
    if (!sc_env_reserve(e, ENTRIES, 4 * (total + 1)) ||
        !sc_work_reserve(e, WORK, total, &out->work))
        return SC_ERR_OUT_OF_MEMORY;
    for (size_t s = 2; s <= S + 1; s++)
        start[s] += start[s - 1];
    uint32_t *entries = e->buf[ENTRIES].p;
    for (size_t k = 0; k < n; k++) {
        const double x = sc_view_get(v, v->x, k), r = sc_view_r(v, k);
        const size_t s0 = seg_of(p, sc_box_lo(x, r)), s1 = seg_of(p, sc_box_hi(x, r));
        for (size_t s = s0; s <= s1; s++)
            entries[start[s + 1]++] = (uint32_t)k;
    }
    sc_env_stage(e, SC_STAGE_CELLS, t);
    t = sc_now();
    sc_gather(v, entries, total, &out->work);
    sc_env_stage(e, SC_STAGE_GATHER, t);

    if (!sc_env_reserve(e, CHUNKS, 4 * (256 + 1)))
        return SC_ERR_OUT_OF_MEMORY;
    uint32_t *chunk = e->buf[CHUNKS].p;
    out->nchunks = sc_chunk_units(start, S, 256, chunk);
    p->start = start;
    p->chunk = chunk;
    out->state = p;
    out->cells = S;
    out->levels = 1;
    out->cell_size = w;
    return SC_OK;
}

static uint64_t part_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel,
                            sc_hits *hits, void *tls) {
    const part_state *p = b->state;
    uint64_t tests = 0;
    for (uint32_t s = p->chunk[chunk]; s < p->chunk[chunk + 1]; s++) {
        if (p->start[s + 1] - p->start[s] < 2)
            continue;
        sc_region g = {{seg_lo(p, s), -INFINITY, -INFINITY},
                       {seg_lo(p, s + 1), INFINITY, INFINITY}};
        tests += sc_leaf_pairs(&b->work, p->start[s], p->start[s + 1], &g, 1, kernel, hits, tls);
    }
    return tests;
}

static void part_defaults(sc_options *o) {
    o->partition1d.width = SC_SEGMENT_MEAN_DIAMETER;
}

static bool part_valid(const sc_options *o) {
    return o->partition1d.width == SC_SEGMENT_MEAN_DIAMETER ||
           o->partition1d.width == SC_SEGMENT_MAX_DIAMETER;
}

const sc_peer sc_peer_partition1d = {
    .id = SC_ALGO_PARTITION1D,
    .name = "partition1d",
    .stages = {[SC_STAGE_GATHER] = "working copy", [SC_STAGE_CELLS] = "segments"},
    .tls_bytes = SC_LEAF_TLS,
    .defaults = part_defaults,
    .valid = part_valid,
    .build = part_build,
    .search = part_search};
