/*
 * periodic.c: pair queries and neighbour lists in a periodic box (sc_box)
 * on any peer. The spheres, wrapped into the box, and images of the
 * spheres near a periodic face, shifted by one period, form one joint
 * view; the peer searches it as one set, and the sinks map each hit to the
 * pair of spheres it stands for, keeping it when the box's predicate holds
 * with the hit's shift (sc_images in output.h):
 *
 *   spheres -> validate, largest radius, wrapped (x, y, z, r) rows, the
 *              spheres in a face band listed and their images counted
 *              (pass one, parallel)
 *           -> the listed spheres' images after the rows (pass two)
 *           -> the peer's one-set search with an image-mapping sink
 *
 * An image's radius is grown by a margin (proof at image_radius) so that
 * the search on the rounded shifted coordinates proposes every pair the
 * box's expression accepts; the sinks then decide on the expression
 * itself, on the wrapped centres and the caller's radii. Memory grows with
 * n and the images (a thin band when the box is much larger than the
 * spheres; at most 26 per sphere when they are large against it), never
 * with the box's volume.
 */
#define _POSIX_C_SOURCE 200809L
#include "queries.h"
#include "keep.h"

#include <math.h>
#include <string.h>

#include "kernels.h"

bool sc_box_periodic(const sc_box *b) {
    return b->periodic[0] || b->periodic[1] || b->periodic[2];
}

double sc_box_distance2(const sc_box *box, int dims, const double ci[3], const double cj[3]) {
    double d[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < dims; a++) {
        if (!box->periodic[a]) {
            d[a] = cj[a] - ci[a];
            continue;
        }
        const double lo = box->lo[a], hi = box->hi[a], L = hi - lo;
        double t = sc_wrap_x(cj[a], lo, hi, L) - sc_wrap_x(ci[a], lo, hi, L);
        if (t > 0.5 * L)
            t -= L;
        else if (t < -0.5 * L)
            t += L;
        d[a] = t;
    }
    return (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
}

void sc_wrap_plan(const sc_box *box, int dims, sc_wrap *b) {
    b->dims = dims;
    b->big = 0.0;
    b->one_side = false;
    b->reach = b->reach_g = 0.0;
    for (int a = 0; a < 3; a++) {
        b->periodic[a] = a < dims && box->periodic[a];
        b->lo[a] = box->lo[a];
        b->hi[a] = box->hi[a];
        b->period[a] = box->hi[a] - box->lo[a];
        if (b->periodic[a]) {
            const double m = fabs(b->lo[a]) > fabs(b->hi[a]) ? fabs(b->lo[a]) : fabs(b->hi[a]);
            b->big = m + b->period[a] > b->big ? m + b->period[a] : b->big;
        }
    }
}

/* The radius of an image of a sphere of radius r, and why. Take spheres p
 * and q, rp <= rq, whose pair the box's expression accepts with q's image
 * at c = cq + s L (real arithmetic, L the double period). The
 * expression's displacement on an axis, fl(fl(cq - cp) + s L), and the
 * search's, fl(fl(cq + s L) - cp), are each within 2u (|cp| + |cq| + L)
 * <= 4uB of c - cp, u = 2^-53, B = the largest |lo|, |hi| plus L over the
 * periodic axes (wrapped centres lie in [lo, hi]); so they differ by at
 * most 8uB per axis, 2^-48 B in length. As at between.c's pad(), the
 * expression's acceptance bounds its displacement by (rp + rq)(1 + 4u) +
 * 2^-535, and the search accepts a displacement up to (rp + g)(1 - 4u) -
 * 2^-535 for an image radius g. g = r + 2^-44 (r + B) + 2^-500 (rounded
 * down by at most u g) exceeds rq + 16u rq + 2^-534 + 2^-48 B >= rq + 8u
 * (rp + rq) + ..., with about 2^-44 B to spare for the band test's
 * rounding below: the image of the larger sphere proposes every pair the
 * expression accepts, if it is there. It is: an image of q is made for
 * shift s when, on every axis with s != 0, cq lies within 2 gq of the
 * face s points away from, and the acceptance puts cq + s L within gp +
 * gq <= 2 gq of cp, which lies inside [lo, hi). So the image of the
 * larger of p and q is made (both on a tie), and the sinks keep the pair
 * from that side only (output.c). Bands sized by each sphere's own radius
 * keep a few huge spheres from giving every small one images.
 *
 * One side (b->one_side, every radius at most R = b->reach): of the
 * shifts s and -s, only the one whose first non-zero component (x, then
 * y, then z) is +1 gets images, and every sphere gets them in a band of
 * gq + gR, gR = g(R). The pair p, q with q's minimum image at shift s is
 * then proposed by exactly one hit: q's image at s when s is the one
 * (the acceptance puts cq + s L within gp + gq <= gR + gq of cp, so q is
 * in that band), else p's at -s. That image may be of the smaller
 * sphere, so g's margin here also counts R: g - r >= 2^-44 (r + B + R)
 * >= 2^-44 (B + rq) covers the 8u (rp + rq) + 2^-48 B above for either
 * sphere. The sum g + gR rounds by at most u (g + gR), far inside the
 * 2^-44 (r + B + R) it exceeds gp + gq by. Uniform radii get about half
 * the images of the bands above; a wide spread of radii, more. */
static inline double image_radius(const sc_wrap *b, double r) {
    return r + (0x1p-44 * ((r + b->big) + b->reach) + 0x1p-500);
}

/* One side with bands for radii up to reach, or (on false) both sides. */
static void wrap_sides(sc_wrap *b, bool on, double reach) {
    b->one_side = on;
    b->reach = on ? reach : 0.0;
    b->reach_g = on ? image_radius(b, reach) : 0.0;
}

/* The shifts sphere (wrapped centre w, radius r) gets images for, per
 * axis: bit 0 for +1 (near lo), bit 1 for -1 (near hi). Returns the
 * images' count: the product of each axis's choices, less the sphere,
 * or with one side those of them whose first non-zero shift is +1. */
static inline unsigned bands(const sc_wrap *b, const double w[3], double r, unsigned sides[3]) {
    const double g = image_radius(b, r);
    const double width = g + (b->one_side ? b->reach_g : g);
    unsigned all = 1, half = 0; /* half: over the axes from z down to a */
    for (int a = 2; a >= 0; a--) {
        sides[a] = 0;
        if (b->periodic[a])
            sides[a] = (unsigned)(w[a] < b->lo[a] + width) | (unsigned)(w[a] >= b->hi[a] - width)
                                                                 << 1;
        half += (sides[a] & 1) * all;
        all *= 1 + (sides[a] & 1) + (sides[a] >> 1);
    }
    return b->one_side ? half : all - 1;
}

/* The joint view is rows (x, y, z, r) of doubles (z = 0 in 2-D): the
 * wrapped spheres at [0, n), then their images. Rows keep a sphere in one
 * cache line for the peer's gather, which reads them in random order. */
enum { ROW = 4 };

/* The threads' blocks of positions and what pass one found in them. */
typedef struct joint_plan {
    size_t n;
    int threads;
    size_t *images;   /* per thread: its images; then where they start */
    size_t *banded;   /* per thread: its positions with images */
    uint32_t *band;   /* block t's positions with images, from its first one */
    size_t first_bad; /* SIZE_MAX: every sphere valid */
    double rmax;
} joint_plan;

/* What pass one found in one thread's block: besides the images, the
 * bounds of the rows it wrote (sc_bounds), their radii counted by exponent
 * in raw's four tables (row position & 3: one table would chain every
 * increment to the last through memory). */
typedef struct found {
    size_t images, banded, first_bad;
    double rmax, rmin, lo[3], hi[3];
    uint32_t (*raw)[SC_RAW_EXPS];
} found;

static found found_empty(uint32_t (*raw)[SC_RAW_EXPS]) {
    memset(raw, 0, 4 * sizeof *raw);
    return (found){0,
                   0,
                   SIZE_MAX,
                   0.0,
                   HUGE_VAL,
                   {HUGE_VAL, HUGE_VAL, HUGE_VAL},
                   {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL},
                   raw};
}

/* A row written: its values into the block's bounds. */
static inline void found_row(found *t, size_t pos, const double row[4]) {
    for (int a = 0; a < 3; a++) {
        t->lo[a] = row[a] < t->lo[a] ? row[a] : t->lo[a];
        t->hi[a] = row[a] > t->hi[a] ? row[a] : t->hi[a];
    }
    t->rmin = row[3] < t->rmin ? row[3] : t->rmin;
    t->raw[pos & 3][sc_raw_exp(row[3])]++;
}

/* The reference for one sphere, k of a part (map: its index in the set),
 * at position pos: validates it (as the bounds stage does, and the radius
 * limit), counts the largest radius, writes its wrapped row and, near a
 * face, lists it and counts its images. f64 and d3 are constants where it
 * is inlined. */
static inline void wrap_one(const sc_wrap *b, const sc_view *v, const uint32_t *map, size_t k,
                            size_t pos, double *rows, uint32_t *band, found *t, bool f64, bool d3) {
    const size_t i = map ? map[k] : k;
#define LOAD(p, k)                                                                                 \
    (f64 ? *(const double *)(const void *)((p) + (k))                                              \
         : (double)*(const float *)(const void *)((p) + (k)))
    double w[3] = {LOAD(v->x, i * v->stride), LOAD(v->y, i * v->stride),
                   d3 ? LOAD(v->z, i * v->stride) : 0.0};
    const double r = LOAD(v->r, i * v->rstride);
#undef LOAD
    /* fabs(NaN) <= M is false: one test for finite and in range */
    const bool ok = (fabs(w[0]) <= SC_MAX_ABS_VALUE) & (fabs(w[1]) <= SC_MAX_ABS_VALUE) &
                    (fabs(w[2]) <= SC_MAX_ABS_VALUE) & (r >= 0.0) & (r <= SC_MAX_ABS_VALUE / 2);
    if (!ok) {
        t->first_bad = pos < t->first_bad ? pos : t->first_bad;
        return;
    }
    t->rmax = r > t->rmax ? r : t->rmax;
    for (int a = 0; a < 3; a++)
        if (b->periodic[a])
            w[a] = sc_wrap_x(w[a], b->lo[a], b->hi[a], b->period[a]);
    double *row = rows + ROW * pos;
    row[0] = w[0];
    row[1] = w[1];
    row[2] = w[2];
    row[3] = r;
    const double mine[4] = {w[0], w[1], w[2], r};
    found_row(t, pos, mine);
    unsigned sides[3];
    const unsigned m = bands(b, w, r, sides);
    band[t->banded] = (uint32_t)pos; /* written always, kept when it has images */
    t->banded += m != 0;
    t->images += m;
}

/* Pass one on spheres k0..k1 of part pt, at positions at.. (wrap_one for
 * each), listing the positions that get images in band. The kernel
 * table's wrap takes 3-D
 * spheres (double or float) in the set's own order go four at a time
 * while they are valid and inside the box (kernels/wrap.h), the rest one
 * by one. f64 and d3 are constants where it is inlined. */
static inline void wrap_part(const sc_wrap *b, const sc_part *pt, size_t k0, size_t k1, size_t at,
                             double *rows, uint32_t *band, found *f, bool f64, bool d3,
                             sc_wrap_fn wrap, bool stream) {
    const sc_view *v = pt->v;
    const uint32_t *map = pt->map;
    found t = *f; /* a local, not *f: the row stores could alias it */
    const bool by4 = wrap && d3 && !map;
    const sc_wrap_box wb = {{b->periodic[0], b->periodic[1], b->periodic[2]},
                            {b->lo[0], b->lo[1], b->lo[2]},
                            {b->hi[0], b->hi[1], b->hi[2]},
                            {b->period[0], b->period[1], b->period[2]},
                            b->big,
                            b->one_side,
                            b->reach,
                            b->reach_g,
                            SC_MAX_ABS_VALUE / 2,
                            stream};
    const sc_src4 src = {v->x, v->y, v->z, v->r, v->stride, v->rstride, f64};
    for (size_t k = k0; k < k1;) {
        if (by4) {
            sc_wrap_found fv = {t.images,
                                t.banded,
                                t.rmax,
                                t.rmin,
                                {t.lo[0], t.lo[1], t.lo[2]},
                                {t.hi[0], t.hi[1], t.hi[2]},
                                t.raw};
            k = wrap(&wb, &src, k, k1, at + (k - k0), rows, band, &fv);
            t.images = fv.images;
            t.banded = fv.banded;
            t.rmax = fv.rmax;
            t.rmin = fv.rmin;
            for (int a = 0; a < 3; a++) {
                t.lo[a] = fv.lo[a];
                t.hi[a] = fv.hi[a];
            }
        }
        /* the group the four-at-a-time pass did not take, or all */
        const size_t stop = by4 && k1 - k > 4 ? k + 4 : k1;
        for (; k < stop; k++)
            wrap_one(b, v, map, k, at + (k - k0), rows, band, &t, f64, d3);
    }
    *f = t;
}

/* Half the last-level cache of the machines measured (32 MiB, shared). */
#define STREAM_BYTES ((size_t)16 << 20)

/* Pass one, over the parts' spheres: each thread takes a block of
 * positions, whichever parts they fall in, and adds its rows' bounds to
 * *bounds. */
static void pass_one(const sc_wrap *b, const sc_part *parts, int nparts, joint_plan *j,
                     double *rows, sc_wrap_fn wrap4, sc_bounds *bounds) {
    const size_t n = j->n;
    /* rows past STREAM_BYTES are written past the cache: they would not
     * stay in it until the engine's next pass reads them, and a store
     * that misses first reads its line */
    const bool stream = n * 4 * sizeof(double) >= STREAM_BYTES;
    size_t first_bad = SIZE_MAX;
    double rmax = 0.0;
#pragma omp parallel num_threads(j->threads) reduction(min : first_bad) reduction(max : rmax)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
        uint32_t raw[4][SC_RAW_EXPS];
        found f = found_empty(raw);
        uint32_t *band = j->band + lo;
        size_t start = 0; /* the part's first position */
        for (int p = 0; p < nparts; start += parts[p].n, p++) {
            const sc_part *pt = &parts[p];
            const size_t from = lo > start ? lo : start;
            const size_t to = hi < start + pt->n ? hi : start + pt->n;
            if (from >= to)
                continue;
            const size_t k0 = from - start, k1 = to - start;
            if (pt->v->f64)
                pt->v->z
                    ? wrap_part(b, pt, k0, k1, from, rows, band, &f, true, true, wrap4, stream)
                    : wrap_part(b, pt, k0, k1, from, rows, band, &f, true, false, wrap4, stream);
            else
                pt->v->z
                    ? wrap_part(b, pt, k0, k1, from, rows, band, &f, false, true, wrap4, stream)
                    : wrap_part(b, pt, k0, k1, from, rows, band, &f, false, false, wrap4, stream);
        }
        j->images[t] = f.images;
        j->banded[t] = f.banded;
        first_bad = f.first_bad;
        rmax = f.rmax;
#pragma omp critical(sc_periodic_bounds)
        sc_bounds_add(bounds, f.lo, f.hi, f.rmin, f.rmax, raw, 4);
    }
    j->first_bad = first_bad;
    j->rmax = rmax;
}

/* The shift codes (sx + 1) + 3 (sy + 1) + 9 (sz + 1), as bits of a word,
 * whose component on axis a is one of those mask m allows (bit s + 1 for
 * shift s). */
static const uint32_t CODES_OF[3][8] = {{0x0000000u, 0x1249249u, 0x2492492u, 0x36db6dbu, 0x4924924u,
                                         0x5b6db6du, 0x6db6db6u, 0x7ffffffu},
                                        {0x0000000u, 0x01c0e07u, 0x0e07038u, 0x0fc7e3fu, 0x70381c0u,
                                         0x71f8fc7u, 0x7e3f1f8u, 0x7ffffffu},
                                        {0x0000000u, 0x00001ffu, 0x003fe00u, 0x003ffffu, 0x7fc0000u,
                                         0x7fc01ffu, 0x7fffe00u, 0x7ffffffu}};

/* The shift codes whose first non-zero component (x, y, z) is +1: with
 * one side, the only ones given images (image_radius). */
#define CODES_LEADING_PLUS                                                                         \
    (CODES_OF[0][4] | (CODES_OF[0][2] & CODES_OF[1][4]) |                                          \
     (CODES_OF[0][2] & CODES_OF[1][2] & CODES_OF[2][4]))

/* Pass two, over the listed spheres: each thread writes its block's
 * images from row n + images[t] on, in sphere order and, per sphere, in
 * the order of their shift codes, and adds their bounds to *bounds. */
static void pass_two(const sc_wrap *b, const joint_plan *j, double *rows, sc_image *image,
                     sc_bounds *bounds) {
    const size_t n = j->n;
#pragma omp parallel num_threads(j->threads)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const uint32_t *band = j->band + n * (size_t)t / (size_t)nt;
        size_t g = j->images[t];
        uint32_t raw[4][SC_RAW_EXPS];
        found f = found_empty(raw);
        for (size_t k = 0; k < j->banded[t]; k++) {
            /* the listed rows are a few percent of the spheres, far apart
             * and out of cache since pass one wrote them: fetched ahead */
            if (k + 16 < j->banded[t])
                __builtin_prefetch(rows + ROW * (size_t)band[k + 16]);
            const uint32_t i = band[k];
            const double *w = rows + ROW * (size_t)i;
            const double gi = image_radius(b, w[3]);
            unsigned sides[3];
            bands(b, w, w[3], sides);
            /* per axis the coordinates of shifts -1, 0 and +1, and which
             * it gets (bit s + 1): 0 always, -1 near hi, +1 near lo; the
             * shift codes of their product but (0, 0, 0), taken in
             * ascending order */
            double at[3][3];
            uint32_t codes = ~((uint32_t)1 << 13);
            if (b->one_side)
                codes &= CODES_LEADING_PLUS;
            for (int a = 0; a < 3; a++) {
                at[a][0] = w[a] - b->period[a];
                at[a][1] = w[a];
                at[a][2] = w[a] + b->period[a];
                codes &= CODES_OF[a][2u | (sides[a] & 2u ? 1u : 0u) | (sides[a] & 1u ? 4u : 0u)];
            }
            for (; codes; codes &= codes - 1) {
                const unsigned code = (unsigned)__builtin_ctz(codes);
                double *row = rows + ROW * (n + g);
                row[0] = at[0][code % 3];
                row[1] = at[1][code / 3 % 3];
                row[2] = at[2][code / 9];
                row[3] = gi;
                found_row(&f, g, row);
                f.rmax = gi > f.rmax ? gi : f.rmax;
                image[g] = (sc_image){i, code, w[3], {w[0], w[1], w[2]}};
                g++;
            }
        }
#pragma omp critical(sc_periodic_bounds)
        sc_bounds_add(bounds, f.lo, f.hi, f.rmin, f.rmax, raw, 4);
    }
}

/* The status of sphere i of s, the first bad one: the library's own, else
 * the radius limit. */
static sc_status status_of(const sc_spheres *s, const sc_view *v, size_t i) {
    sc_spheres one = *s;
    one.count = 1;
    one.x = v->x + i * v->stride;
    one.y = v->y + i * v->stride;
    one.z = v->z ? v->z + i * v->stride : NULL;
    one.r = v->r + i * v->rstride;
    one.stride = v->stride;
    one.r_stride = v->rstride;
    const sc_status st = sc_spheres_check(&one, NULL, 1);
    return st != SC_OK ? st : SC_ERR_OUT_OF_RANGE;
}

/* The status of the sphere at position pos of the parts. */
static sc_status status_at(const sc_part *parts, int nparts, size_t pos) {
    for (int p = 0; p < nparts; pos -= parts[p].n, p++)
        if (pos < parts[p].n)
            return status_of(parts[p].set, parts[p].v, parts[p].map ? parts[p].map[pos] : pos);
    return SC_ERR_INVALID_ARGUMENT; /* not reached: pos is below the parts' total */
}

sc_status sc_periodic_check(const sc_spheres *s) {
    sc_view v;
    const sc_status st = sc_view_make(s, &v);
    if (st != SC_OK)
        return st;
    for (size_t i = 0; i < v.n; i++) {
        const double r = sc_view_r(&v, i);
        const double x = sc_view_get(&v, v.x, i), y = sc_view_get(&v, v.y, i),
                     z = v.z ? sc_view_get(&v, v.z, i) : 0.0;
        if (!((fabs(x) <= SC_MAX_ABS_VALUE) & (fabs(y) <= SC_MAX_ABS_VALUE) &
              (fabs(z) <= SC_MAX_ABS_VALUE) & (r >= 0.0) & (r <= SC_MAX_ABS_VALUE / 2)))
            return status_of(s, &v, i);
    }
    return SC_OK;
}

/* Grows the joint rows to `rows` rows keeping the first `keep`. */
static bool grow_keeping(const sc_allocator *al, sc_buf *buf, size_t rows, size_t keep) {
    const size_t bytes = ROW * sizeof(double) * rows;
    if (buf->bytes >= bytes)
        return true;
    void *p = sc_alloc(al, bytes);
    if (!p)
        return false;
    if (keep)
        memcpy(p, buf->p, ROW * sizeof(double) * keep);
    sc_buf_release(al, buf);
    buf->p = p;
    buf->bytes = bytes;
    return true;
}

typedef struct periodic_query {
    sc_images images;
    sc_query_fn fn;
    void *arg;
} periodic_query;

static sc_status imaging(sc_context *c, sc_prepared *p, void *arg) {
    periodic_query *q = arg;
    sc_keep own;
    sc_keep *k = sc_keep_enter(c, &own);
    k->images = q->images;
    sc_keep_changed(c);
    const sc_status st = q->fn(c, p, q->arg);
    k->images = (sc_images){0};
    sc_keep_changed(c);
    sc_keep_leave(c, &own);
    return st;
}

sc_status sc_periodic_parts(sc_context *c, const sc_part *parts, int nparts, int dims,
                            sc_query_fn fn, void *arg, double t0) {
    size_t n = 0;
    for (int p = 0; p < nparts; p++)
        n += parts[p].n;
    const size_t threads = (size_t)sc_context_team(c, n);
    sc_wrap b;
    sc_wrap_plan(&c->opt.box, dims, &b);
    /* Images for half the shifts, in bands sized by the largest radius,
     * when the last query's radii were within a factor of 3 of each other
     * (at most the images of own-radius bands for every sphere then:
     * r + 3 r against 2 r on each of two sides), the largest of them with
     * room to grow by 1/32 (image_radius) */
    if (c->images_radii && c->images_rmax <= 3.0 * c->images_rmin)
        wrap_sides(&b, true, c->images_rmax + c->images_rmax / 32.0);

    /* the rows of the spheres and as many images as last time, and more */
    const sc_allocator *al = sc_context_allocator(c);
    const size_t guess = n + c->images_last + c->images_last / 4 + 64;
    if (!sc_buf_reserve(al, &c->bands, 2 * (size_t)c->room * sizeof(size_t) + 4 * (n ? n : 1)) ||
        !grow_keeping(al, &c->joint, guess, 0))
        return sc_engine_failed(c, SC_ERR_OUT_OF_MEMORY);
    joint_plan j = {n,
                    (int)threads,
                    c->bands.p,
                    (size_t *)c->bands.p + threads,
                    (uint32_t *)(void *)((size_t *)c->bands.p + 2 * threads),
                    SIZE_MAX,
                    0.0};
    /* the query's kernel table's four-at-a-time pass (wrap_avx2.c, or its
     * reference wrap_scalar.c with the scalar kernel) */
    sc_kernel kernel = c->opt.kernel;
    const sc_kernel_fn fn_kernel = sc_kernel_resolve(&kernel);
    const sc_wrap_fn wrap4 = sc_kernels_of(fn_kernel)->wrap;
    /* the joint rows' bounds, for the engine (sc_engine_build_known) */
    sc_bounds *bounds = &c->joint_bounds;
    sc_bounds_begin(bounds);
    pass_one(&b, parts, nparts, &j, c->joint.p, wrap4, bounds);
    if (j.first_bad != SIZE_MAX)
        return sc_engine_failed(c, status_at(parts, nparts, j.first_bad));
    if (b.one_side && j.rmax > b.reach) { /* grown past the bands: both sides */
        wrap_sides(&b, false, 0.0);
        sc_bounds_begin(bounds);
        pass_one(&b, parts, nparts, &j, c->joint.p, wrap4, bounds);
    }
    c->images_radii = true;
    c->images_rmin = bounds->rmin;
    c->images_rmax = j.rmax;
    size_t images = 0;
    for (int t = 0; t < j.threads; t++) { /* counts -> where each block's start */
        const size_t m = j.images[t];
        j.images[t] = images;
        images += m;
    }
    if (images > SC_MAX_SPHERES - n)
        return sc_engine_failed(c, SC_ERR_TOO_MANY_SPHERES);
    c->images_last = images;
    const size_t N = n + images;
    if (!grow_keeping(al, &c->joint, N, n) ||
        !sc_buf_reserve(al, &c->images_buf, (images ? images : 1) * sizeof(sc_image)))
        return sc_engine_failed(c, SC_ERR_OUT_OF_MEMORY);
    double *rows = c->joint.p;
    sc_image *image = c->images_buf.p;
    pass_two(&b, &j, rows, image, bounds);
    sc_bounds_end(bounds, N);
    const double t_images = sc_now() - t0;

    const size_t stride = ROW * sizeof(double);
    const sc_spheres joint = {
        N, SC_F64, stride, rows, rows + 1, b.dims == 3 ? rows + 2 : NULL, rows + 3, stride};
    periodic_query q = {
        {true, true, b.one_side, b.dims, (uint32_t)n, image, rows, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
        fn,
        arg};
    for (int a = 0; a < 3; a++) {
        q.images.periodic[a] = b.periodic[a];
        q.images.period[a] = b.period[a];
        q.images.half[a] = 0.5 * b.period[a];
        /* A pair of two spheres themselves, found as it is, has the
         * minimum image unshifted when no two spheres reach half a
         * period apart (4 rmax, rounded generously, below it). */
        if (b.periodic[a] && !(4.0 * j.rmax * (1.0 + 0x1p-40) + 0x1p-490 < b.period[a]))
            q.images.trust_direct = false;
    }
    const sc_known_bounds known = {&joint, bounds};
    const sc_status st =
        sc_engine_run_built(c, N, true, sc_engine_build_known, (void *)&known, imaging, &q);
    c->stats.seconds[SC_STAGE_BOUNDS] += t_images;
    c->stats.total_seconds = sc_now() - t0;
    sc_context_log(c, SC_LOG_DEBUG, "periodic: %zu spheres, %zu images", n, images);
    return st;
}

sc_status sc_periodic_run(sc_context *c, const sc_spheres *spheres, sc_query_fn fn, void *arg) {
    const double t0 = sc_now();
    sc_view v;
    const sc_status st = spheres ? sc_view_make(spheres, &v) : SC_ERR_INVALID_ARGUMENT;
    if (st != SC_OK)
        return sc_engine_failed(c, st);
    const sc_part all = {spheres, &v, NULL, v.n};
    return sc_periodic_parts(c, &all, 1, v.z ? 3 : 2, fn, arg, t0);
}
