/*
 * periodic.c: one-set pair queries in a periodic box (sc_box) on any peer.
 * The spheres, wrapped into the box, and images of the spheres near a
 * periodic face, shifted by one period, form one joint view; the peer
 * searches it as one set, and the sinks map each hit to the pair of
 * spheres it stands for, keeping it when the box's predicate holds with
 * the hit's shift (sc_images in output.h):
 *
 *   spheres -> validate, largest radius           (one parallel pass)
 *           -> count the images in the face bands  (one parallel pass)
 *           -> joint double SoA: the wrapped spheres, then their images
 *           -> the peer's one-set search with an image-mapping sink
 *
 * An image's radius is grown by a margin (proof at plan_box) so that the
 * search on the rounded shifted coordinates proposes every pair the box's
 * expression accepts; the sinks then decide on the expression itself, on
 * the wrapped centres and the caller's radii. Memory grows with n and the
 * images (a thin band when the box is much larger than the spheres; at
 * most 26 per sphere when they are large against it), never with the
 * box's volume.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine.h"

#include <math.h>
#include <string.h>

bool sc_box_periodic(const sc_box *b) {
    return b->periodic[0] || b->periodic[1] || b->periodic[2];
}

/* sc_box's wrap(x), as documented. */
static inline double wrap(double x, double lo, double hi, double period) {
    if (x >= lo && x < hi)
        return x;
    const double t = x - floor((x - lo) / period) * period;
    return t < lo || t >= hi ? lo : t;
}

bool sc_images_meet(const sc_images *im, uint32_t p, uint32_t q, unsigned shift) {
    const double *c[3] = {im->x, im->y, im->z};
    double d[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < im->dims; a++, shift /= 3) {
        double t = c[a][q] - c[a][p];
        int s = 0;
        if (im->periodic[a]) {
            if (t > im->half[a]) {
                t -= im->period[a];
                s = -1;
            } else if (t < -im->half[a]) {
                t += im->period[a];
                s = 1;
            }
        }
        if ((int)(shift % 3) - 1 != s)
            return false;
        d[a] = t;
    }
    const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
    const double s = im->r[p] + im->r[q];
    return d2 <= s * s;
}

/* What the passes need of the box, for one view. */
typedef struct box_plan {
    int dims, periodic[3];
    double lo[3], hi[3], period[3];
    double margin; /* added to an image's radius */
} box_plan;

/* The margin. Take spheres p < q whose pair the box's expression accepts
 * with shift s, so q's image sits at c = cq + s L (real arithmetic, L the
 * double period). The expression's displacement on an axis, fl(fl(cq -
 * cp) + s L), and the search's, fl(fl(cq + s L) - cp), are each within
 * 2u (|cp| + |cq| + L) <= 4uB of c - cp, u = 2^-53, B = max |lo|, |hi|
 * plus L over the periodic axes (wrapped centres lie in [lo, hi]); so
 * they differ by at most 8uB per axis, 2^-48 B in length. As at
 * between.c's pad(), the expression's acceptance bounds its displacement
 * by (rp + rq)(1 + 4u) + 2^-535, and the search accepts a displacement up
 * to (rp + g)(1 - 4u) - 2^-535 for an image radius g. g = r + margin
 * with margin = 2^-44 (rmax + B) + 2^-500 (rounded down by at most u g)
 * exceeds rq + 8u (rp + rq) + 2^-534 + 2^-48 B, with about 2^-44 B to
 * spare for the band test's rounding below: every accepted pair is
 * proposed, if the image is there. An image of q is made for shift s
 * when, on every axis with s != 0, cq lies within 2 gq of the face s
 * points away from. The acceptance puts cq + s L within gp + gq of cp,
 * which lies inside [lo, hi), so the image of the larger of p and q (gp
 * <= gq: within 2 gq) is made, and both on a tie; the sinks keep the pair
 * from that side only (output.c). Bands sized by each sphere's own radius
 * keep a few huge spheres from giving every small one images. */
static sc_status plan_box(const sc_box *box, int dims, double rmax, box_plan *b) {
    b->dims = dims;
    double big = 0.0;
    for (int a = 0; a < 3; a++) {
        b->periodic[a] = a < dims && box->periodic[a];
        b->lo[a] = box->lo[a];
        b->hi[a] = box->hi[a];
        b->period[a] = box->hi[a] - box->lo[a];
        if (b->periodic[a]) {
            const double m = fabs(b->lo[a]) > fabs(b->hi[a]) ? fabs(b->lo[a]) : fabs(b->hi[a]);
            big = m + b->period[a] > big ? m + b->period[a] : big;
        }
    }
    b->margin = 0x1p-44 * (rmax + big) + 0x1p-500;
    return SC_OK;
}

static inline double coord(const sc_view *v, int axis, size_t i) {
    const char *a = axis == 0 ? v->x : axis == 1 ? v->y : v->z;
    return sc_view_get(v, a, i);
}

/* The shifts sphere (wrapped centre w, radius r) gets images for, per
 * axis: bit 0 for +1 (near lo), bit 1 for -1 (near hi). Returns the
 * images' count (the product of each axis's choices, less the sphere). */
static inline unsigned bands(const box_plan *b, const double w[3], double r, unsigned sides[3]) {
    const double width = 2.0 * (r + b->margin);
    unsigned count = 1;
    for (int a = 0; a < 3; a++) {
        sides[a] = 0;
        if (b->periodic[a])
            sides[a] = (unsigned)(w[a] < b->lo[a] + width) | (unsigned)(w[a] >= b->hi[a] - width) << 1;
        count *= 1 + (sides[a] & 1) + (sides[a] >> 1);
    }
    return count - 1;
}

/* The wrapped centre of sphere i. */
static inline void wrapped(const box_plan *b, const sc_view *v, size_t i, double w[3]) {
    for (int a = 0; a < 3; a++) {
        w[a] = a < b->dims ? coord(v, a, i) : 0.0;
        if (b->periodic[a])
            w[a] = wrap(w[a], b->lo[a], b->hi[a], b->period[a]);
    }
}

/* A periodic query's joint view, and the threads' blocks. */
typedef struct joint_plan {
    size_t n, total;
    int threads;
    size_t *first; /* per thread: its first image's position in [0, images) */
} joint_plan;

/* Validates the spheres (the first bad one's status, the radius limit
 * included) and finds the largest radius. */
static sc_status check_spheres(const sc_spheres *s, const sc_view *v, int threads, double *rmax) {
    const size_t n = v->n;
    size_t first_bad = SIZE_MAX;
    double biggest = 0.0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first_bad) \
    reduction(max : biggest)
    for (size_t i = 0; i < n; i++) {
        const double x = sc_view_get(v, v->x, i), y = sc_view_get(v, v->y, i),
                     z = v->z ? sc_view_get(v, v->z, i) : 0.0, r = sc_view_r(v, i);
        /* fabs(NaN) <= M is false: one test for finite and in range */
        const bool ok = (fabs(x) <= SC_MAX_ABS_VALUE) & (fabs(y) <= SC_MAX_ABS_VALUE) &
                        (fabs(z) <= SC_MAX_ABS_VALUE) & (r >= 0.0) &
                        (r <= SC_MAX_ABS_VALUE / 2);
        if (!ok && i < first_bad)
            first_bad = i;
        biggest = ok && r > biggest ? r : biggest;
    }
    *rmax = biggest;
    if (first_bad == SIZE_MAX)
        return SC_OK;
    /* the library's own status for that sphere, else the radius limit */
    sc_spheres one = *s;
    one.count = 1;
    const size_t off = first_bad * v->stride, roff = first_bad * v->rstride;
    one.x = v->x + off;
    one.y = v->y + off;
    one.z = v->z ? v->z + off : NULL;
    one.r = v->r + roff;
    one.stride = v->stride;
    one.r_stride = v->rstride;
    const sc_status st = sc_spheres_validate(&one, NULL);
    return st != SC_OK ? st : SC_ERR_OUT_OF_RANGE;
}

/* Counts each thread block's images into first[t], then turns the counts
 * into positions; returns the total, or SIZE_MAX past SC_MAX_SPHERES. */
static size_t count_images(const box_plan *b, const sc_view *v, size_t *first, int threads) {
    const size_t n = v->n;
#pragma omp parallel num_threads(threads)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
        size_t m = 0;
        for (size_t i = lo; i < hi; i++) {
            double w[3];
            unsigned sides[3];
            wrapped(b, v, i, w);
            m += bands(b, w, sc_view_r(v, i), sides);
        }
        first[t] = m;
    }
    size_t at = 0;
    for (int t = 0; t < threads; t++) {
        const size_t m = first[t];
        first[t] = at;
        at += m;
    }
    return at;
}

/* The joint SoA (x, y, z, r at stride `total`): the wrapped spheres at
 * [0, n), each thread block's images from n + first[t], in sphere order
 * and, per sphere, in the order of their shift codes. */
static void write_joint(const box_plan *b, const sc_view *v, const joint_plan *j, double *x,
                        uint32_t *image_of, uint8_t *image_shift) {
    const size_t n = v->n, total = j->total;
    double *y = x + total, *z = b->dims == 3 ? x + 2 * total : NULL, *r = x + 3 * total;
#pragma omp parallel num_threads(j->threads)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
        size_t g = j->first[t];
        for (size_t i = lo; i < hi; i++) {
            double w[3];
            unsigned sides[3];
            wrapped(b, v, i, w);
            const double ri = sc_view_r(v, i);
            x[i] = w[0];
            y[i] = w[1];
            if (z)
                z[i] = w[2];
            r[i] = ri;
            if (!bands(b, w, ri, sides))
                continue;
            const double gi = ri + b->margin;
            for (int sz = -1; sz <= 1; sz++)
                for (int sy = -1; sy <= 1; sy++)
                    for (int sx = -1; sx <= 1; sx++) {
                        const int s[3] = {sx, sy, sz};
                        bool made = !(sx == 0 && sy == 0 && sz == 0);
                        for (int a = 0; a < 3 && made; a++)
                            made = s[a] == 0 || (sides[a] & (s[a] > 0 ? 1u : 2u));
                        if (!made)
                            continue;
                        double c[3];
                        for (int a = 0; a < 3; a++)
                            c[a] = s[a] == 0 ? w[a] : s[a] > 0 ? w[a] + b->period[a]
                                                                : w[a] - b->period[a];
                        const size_t k = n + g;
                        x[k] = c[0];
                        y[k] = c[1];
                        if (z)
                            z[k] = c[2];
                        r[k] = gi;
                        image_of[g] = (uint32_t)i;
                        image_shift[g] = (uint8_t)((sx + 1) + 3 * (sy + 1) + 9 * (sz + 1));
                        g++;
                    }
        }
    }
}

typedef struct periodic_query {
    sc_images images;
    sc_query_fn fn;
    void *arg;
} periodic_query;

static sc_status imaging(sc_context *c, sc_prepared *p, void *arg) {
    periodic_query *q = arg;
    c->images = q->images;
    const sc_status st = q->fn(c, p, q->arg);
    c->images = (sc_images){0};
    return st;
}

/* A failed call's statistics: zeroed, as every query's start. */
static sc_status failed(sc_context *c, sc_status st) {
    memset(&c->stats, 0, sizeof c->stats);
    c->queries++;
    return st;
}

sc_status sc_periodic_run(sc_context *c, const sc_spheres *spheres, sc_query_fn fn, void *arg) {
    const double t0 = sc_now();
    sc_view v;
    sc_status st = spheres ? sc_view_make(spheres, &v) : SC_ERR_INVALID_ARGUMENT;
    if (st != SC_OK)
        return failed(c, st);
    const size_t n = v.n;
    size_t threads = n / SC_SPHERES_PER_THREAD + 1; /* as the engine does */
    if (threads > 1 && threads > (size_t)sc_context_threads(c))
        threads = (size_t)sc_context_threads(c);
    double rmax = 0.0;
    if ((st = check_spheres(spheres, &v, (int)threads, &rmax)) != SC_OK)
        return failed(c, st);
    box_plan b;
    plan_box(&c->opt.box, v.z ? 3 : 2, rmax, &b);

    const sc_allocator *al = sc_context_allocator(c);
    if (!sc_buf_reserve(al, &c->survivors, threads * sizeof(size_t)))
        return failed(c, SC_ERR_OUT_OF_MEMORY);
    joint_plan j = {n, 0, (int)threads, c->survivors.p};
    const size_t images = count_images(&b, &v, j.first, j.threads);
    if (images > SC_MAX_SPHERES - n)
        return failed(c, SC_ERR_TOO_MANY_SPHERES);
    j.total = n + images;
    if (!sc_buf_reserve(al, &c->images_buf, (images ? images : 1) * (sizeof(uint32_t) + 1)) ||
        !sc_buf_reserve(al, &c->joint, 4 * sizeof(double) * (j.total ? j.total : 1)))
        return failed(c, SC_ERR_OUT_OF_MEMORY);
    uint32_t *image_of = c->images_buf.p;
    uint8_t *image_shift = (uint8_t *)(image_of + images);
    double *x = c->joint.p;
    write_joint(&b, &v, &j, x, image_of, image_shift);
    const double t_images = sc_now() - t0;

    const size_t N = j.total;
    const sc_spheres joint = {N, SC_F64, sizeof(double), x, x + N, b.dims == 3 ? x + 2 * N : NULL,
                              x + 3 * N, sizeof(double)};
    periodic_query q = {{true, true, b.dims, (uint32_t)n, image_of, image_shift, x, x + N,
                         b.dims == 3 ? x + 2 * N : NULL, x + 3 * N, {0, 0, 0}, {0, 0, 0},
                         {0, 0, 0}},
                        fn, arg};
    for (int a = 0; a < 3; a++) {
        q.images.periodic[a] = b.periodic[a];
        q.images.period[a] = b.period[a];
        q.images.half[a] = 0.5 * b.period[a];
        /* A pair of two spheres themselves, found as it is, has the
         * minimum image unshifted when no two spheres reach half a
         * period apart (4 rmax, rounded generously, below it). */
        if (b.periodic[a] && !(4.0 * rmax * (1.0 + 0x1p-40) + 0x1p-490 < b.period[a]))
            q.images.trust_direct = false;
    }
    st = sc_engine_run(c, &joint, imaging, &q);
    c->stats.seconds[SC_STAGE_BOUNDS] += t_images;
    c->stats.total_seconds = sc_now() - t0;
    sc_context_log(c, SC_LOG_DEBUG, "periodic: %zu spheres, %zu images", n, images);
    return st;
}

sc_status sc_engine_query(sc_context *c, const sc_spheres *spheres, sc_query_fn fn, void *arg) {
    if (c && sc_box_periodic(&c->opt.box))
        return sc_periodic_run(c, spheres, fn, arg);
    return sc_engine_run(c, spheres, fn, arg);
}
