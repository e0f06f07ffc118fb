/*
 * keep.c: the sinks' keep for the query front ends (keep.h): two sets'
 * cut, a periodic box's images, a neighbour list's skin, and their
 * compositions, each batch of hits mapped in place.
 */
#include "keep.h"

sc_keep *sc_keep_enter(sc_context *c, sc_keep *own) {
    if (c->keep_state)
        return c->keep_state;
    *own = (sc_keep){0};
    c->keep_state = own;
    c->keep = sc_keep_pairs;
    return own;
}

void sc_keep_changed(sc_context *c) {
    const sc_keep *k = c->keep_state;
    c->pair_ranged = k && (k->cross.on || k->images.on);
    c->pair_rows = !k ? 0 : k->cross.on ? k->cross.na : k->images.on ? k->images.n : 0;
    c->pair_cols = !k ? 0 : k->cross.on ? k->cross.nb : c->pair_rows;
}

void sc_keep_leave(sc_context *c, sc_keep *own) {
    if (c->keep_state != own)
        return;
    c->keep_state = NULL;
    c->keep = NULL;
    sc_keep_changed(c);
}

/* The neighbour lists' skin predicate on the caller's values: the library's
 * own (docs/design.md) with s = (ri + rj) + skin. The search that proposed
 * the pair ran on radii grown past r + skin / 2, a superset. */
static bool skin_holds(const sc_view *v, double skin, uint32_t a, uint32_t b) {
    const double dx = sc_view_get(v, v->x, a) - sc_view_get(v, v->x, b);
    const double dy = sc_view_get(v, v->y, a) - sc_view_get(v, v->y, b);
    const double dz = v->z ? sc_view_get(v, v->z, a) - sc_view_get(v, v->z, b) : 0.0;
    const double d2 = (dx * dx + dy * dy) + dz * dz;
    const double s = (sc_view_r(v, a) + sc_view_r(v, b)) + skin;
    return d2 <= s * s;
}

/* The same predicate on working indices (see sc_keep.wx). The operands'
 * order does not matter: a - b and b - a square to the same double. */
static bool skin_holds_work(const sc_keep *k, uint32_t a, uint32_t b) {
    const double dx = k->wx[a] - k->wx[b], dy = k->wy[a] - k->wy[b];
    const double dz = k->wz ? k->wz[a] - k->wz[b] : 0.0;
    const double d2 = (dx * dx + dy * dy) + dz * dz;
    const double t = (k->wr[a] + k->wr[b]) + k->skin;
    return d2 <= t * t;
}

/* A list's filter on a hit: working indices wa, wb; input indices lo, hi. */
static inline bool list_keeps(const sc_keep *k, uint32_t wa, uint32_t wb, uint32_t lo,
                              uint32_t hi) {
    if (!k->filter)
        return true;
    return k->wx ? skin_holds_work(k, wa, wb) : skin_holds(k->exact, k->skin, lo, hi);
}

/* The box's predicate (sc_box's expression) for spheres p < q of a
 * periodic query with wrapped centres cp and cq, seen from p with q
 * shifted by `shift` (an image code), with the radius sum s (ri + rj, or a
 * list's (ri + rj) + skin): true when that shift is q's minimum image and
 * d2 <= s * s. */
static bool images_meet(const sc_images *im, const double cp[3], const double cq[3], unsigned shift,
                        double s) {
    double d[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < im->dims; a++, shift /= 3) {
        double t = cq[a] - cp[a];
        int k = 0;
        if (im->periodic[a]) {
            if (t > im->half[a]) {
                t -= im->period[a];
                k = -1;
            } else if (t < -im->half[a]) {
                t += im->period[a];
                k = 1;
            }
        }
        if ((int)(shift % 3) - 1 != k)
            return false;
        d[a] = t;
    }
    const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
    return d2 <= s * s;
}

/* One hit (working indices wa, wb) of a periodic query: true, with the
 * pair (*oi, *oj) as keep_pairs reports it, when the sink keeps it. */
static inline bool keep_image_hit(const sc_sink *s, uint32_t wa, uint32_t wb, uint32_t *oi,
                                  uint32_t *oj) {
    const sc_keep *k = s->keep_state;
    const sc_images *im = &k->images;
    const unsigned direct = 13; /* the code of no shift */
    const uint32_t a = s->index[wa], b = s->index[wb];
    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo >= im->n) /* two images: their spheres' own hit is elsewhere */
        return false;
    uint32_t i = lo, j = hi;
    unsigned shift = direct; /* j's image, seen from i */
    double rsum = 0.0;       /* ri + rj, once known without reading the rows */
    const double *ci = im->rows + 4 * (size_t)lo, *cj = im->rows + 4 * (size_t)hi;
    double clo[3]; /* lo's centre from the working copy */
    if (hi >= im->n) {
        const sc_image *g = &im->image[hi - im->n];
        const uint32_t q = g->of;
        /* (lo, an image of q) and (q, an image of lo) stand for one pair:
         * kept where the image is of the larger sphere, of the larger
         * index on a tie, whose image always exists (periodic.c); with
         * one side only one of them is made. Either way a sphere's own
         * images are dropped. lo's radius from the working copy, which
         * the kernel has just read (the same double as its row's). */
        const uint32_t wlo = a < b ? wa : wb;
        const double ro = s->work_r ? s->work_r[wlo] : im->rows[4 * (size_t)lo + 3];
        const double rq = g->r;
        if (im->one_side ? lo == q : !(rq > ro || (rq == ro && lo < q)))
            return false;
        shift = g->shift;
        i = lo < q ? lo : q;
        j = lo < q ? q : lo;
        if (lo > q) /* lo's image seen from q: the opposite shift */
            shift = 26 - shift;
        rsum = ro + rq; /* the rows' i and j radii, summed in either order */
        /* the centres: q's from its image's record, lo's from the working
         * copy the kernel has just read (exact copies of the rows') */
        const double *cl = ci; /* lo's row */
        if (s->work_r) {
            clo[0] = s->work_x[wlo];
            clo[1] = s->work_y[wlo];
            clo[2] = s->work_z ? s->work_z[wlo] : 0.0;
            cl = clo;
        }
        ci = lo < q ? cl : g->c;
        cj = lo < q ? g->c : cl;
    }
    /* two sets: a pair across the split, as its sets' indices */
    *oi = i;
    *oj = j;
    if (k->cross.on) {
        if (i >= k->cross.split || j < k->cross.split)
            return false;
        *oi = k->cross.map_a ? k->cross.map_a[i] : i;
        *oj = k->cross.map_b ? k->cross.map_b[j - k->cross.split] : j - k->cross.split;
    }
    if (hi < im->n && im->trust_direct && !k->filter)
        return true;
    /* a list with a skin searched on grown radii: its own predicate on
     * the caller's radii */
    const double sum = k->filter     ? (sc_view_r(k->exact, i) + sc_view_r(k->exact, j)) + k->skin
                       : hi >= im->n ? rsum
                                     : im->rows[4 * (size_t)i + 3] + im->rows[4 * (size_t)j + 3];
    return images_meet(im, ci, cj, shift, sum);
}

/* Maps the held image hits (working indices, pairs in held) with
 * keep_image_hit, writing the kept pairs from slot m on; returns the new m. */
static inline size_t map_held(const sc_sink *s, const uint32_t *held, int nheld, uint32_t *p,
                              size_t m) {
    for (int h = 0; h < nheld; h++)
        m += keep_image_hit(s, held[2 * h], held[2 * h + 1], &p[2 * m], &p[2 * m + 1]);
    return m;
}

size_t sc_keep_pairs(const sc_sink *s, uint32_t *p, size_t n) {
    const sc_keep *kp = s->keep_state;
    const uint32_t *idx = s->index;
    size_t m = 0;
    if (kp->images.on) {
        const uint32_t ns = kp->images.n;
        /* One set, no list: a hit of two spheres themselves is the pair
         * as found (trust_direct), as in the open loop below; only hits
         * on an image take the whole mapping. Those are set aside, their
         * image's record fetched, and mapped DEFER at a time: the records
         * are far apart, and each would otherwise stall its hit. The order
         * of the kept pairs depends on the hits' only. */
        if (kp->images.trust_direct && !kp->filter && !kp->cross.on) {
            enum { DEFER = 16 };
            uint32_t held[2 * DEFER];
            int nheld = 0;
            for (size_t k = 0; k < n; k++) {
                const uint32_t wa = p[2 * k], wb = p[2 * k + 1];
                const uint32_t a = idx[wa], b = idx[wb];
                const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
                if (hi < ns) {
                    p[2 * m] = lo;
                    p[2 * m + 1] = hi;
                    m++;
                    continue;
                }
                if (lo >= ns) /* two images: dropped (keep_image_hit) */
                    continue;
                __builtin_prefetch(&kp->images.image[hi - ns]);
                held[2 * nheld] = wa;
                held[2 * nheld + 1] = wb;
                if (++nheld < DEFER)
                    continue;
                m = map_held(s, held, nheld, p, m); /* m <= k: slots of hits already read */
                nheld = 0;
            }
            return map_held(s, held, nheld, p, m);
        }
        for (size_t k = 0; k < n; k++) {
            const uint32_t wa = p[2 * k], wb = p[2 * k + 1];
            uint32_t oi, oj;
            if (!keep_image_hit(s, wa, wb, &oi, &oj))
                continue;
            p[2 * m] = oi;
            p[2 * m + 1] = oj;
            m++;
        }
        return m;
    }
    if (kp->cross.on) {
        const uint32_t split = kp->cross.split;
        const uint32_t *ma = kp->cross.map_a, *mb = kp->cross.map_b;
        for (size_t k = 0; k < n; k++) {
            const uint32_t a = idx[p[2 * k]], b = idx[p[2 * k + 1]];
            const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
            if (lo >= split || hi < split)
                continue;
            p[2 * m] = ma ? ma[lo] : lo;
            p[2 * m + 1] = mb ? mb[hi - split] : hi - split;
            m++;
        }
        return m;
    }
    for (size_t k = 0; k < n; k++) {
        const uint32_t a = idx[p[2 * k]], b = idx[p[2 * k + 1]];
        const uint32_t lo = a < b ? a : b, hi = a < b ? b : a; /* branch-free */
        if (!list_keeps(kp, p[2 * k], p[2 * k + 1], lo, hi))
            continue;
        p[2 * m] = lo;
        p[2 * m + 1] = hi;
        m++;
    }
    return m;
}
