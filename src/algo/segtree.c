/*
 * segtree.c: the streaming segment tree of Zomorodian and Edelsbrunner
 * (SC_ALGO_SEGTREE), the algorithm inside CGAL's box_intersection_d and
 * npm's box-intersect, in complete (self) mode on the spheres' boxes
 * (peer.h), written from the paper's description.
 *
 * Boxes as points and intervals. In dimension d, box b's point is its key
 * (lo_b[d], b) and its interval holds the points q with
 * (lo_b[d], b) < key(q) and lo_q[d] <= hi_b[d] ("b contains q"). For two
 * boxes that overlap in d exactly one contains the other (the one whose key
 * is smaller), and for boxes that do not, neither: so "a contains b in the
 * top dimension and they overlap in every lower one" names each
 * intersecting pair exactly once, and no box pairs with itself.
 *
 * hybrid(I, P, [lo, hi), d) reports every i in I, p in P with p's point in
 * [lo, hi), i containing p in d, and overlap in every dimension below d:
 *   - a small I or P (the cutoff): every pair is tested directly;
 *   - else the intervals that span the whole segment contain every point of
 *     P: they are finished in d and go down a dimension, once as intervals
 *     against P's points and once as points against P's intervals (each
 *     pair overlaps in d - 1 one way only); below the last dimension every
 *     pair is reported, once;
 *   - the others follow P's points, split at their median key, into the
 *     halves they reach.
 * Every array is reordered in place; a pair is reported where its interval
 * is finished, which happens once. Candidate pairs go to the kernel, which
 * decides them with the exact predicate.
 *
 * Parallelism: the build expands the top of the recursion breadth first
 * into independent jobs (each with its own copies of its sets, budgeted at
 * 8 n + 4096 ids) until there are about 256, and each job is a chunk.
 */
#include "peer.h"

#include <math.h>
#include <string.h>
#include <stdlib.h>

enum { WORK, INDEX, BOXES, IDS, JOBS };

typedef struct seg_job {
    uint32_t i0, ni, p0, np; /* ids of I and P in the id pool */
    double lo_v, hi_v;       /* the segment's ends in dimension d (keys with ids) */
    uint32_t lo_id, hi_id;
    int d;                   /* -1: every pair of I x P is reported */
} seg_job;

typedef struct seg_state {
    const double *lo[3], *hi[3]; /* box ends by working index */
    uint32_t *ids;               /* the jobs' sets (reordered by the search) */
    const seg_job *job;
    size_t cutoff;
    int dims;
} seg_state;

#define SEG_LIST 2048

typedef struct seg_ctx {
    const seg_state *s;
    sc_cands cl; /* one home sphere (ni = 1) and its candidates */
} seg_ctx;

/* key (va, ia) < key (vb, ib) */
static inline bool key_less(double va, uint32_t ia, double vb, uint32_t ib) {
    return va < vb || (va == vb && ia < ib);
}
static inline bool contains(const seg_state *s, int d, uint32_t i, uint32_t p) {
    return key_less(s->lo[d][i], i, s->lo[d][p], p) && s->lo[d][p] <= s->hi[d][i];
}
static inline bool overlap_below(const seg_state *s, int d, uint32_t a, uint32_t b) {
    for (int k = 0; k < d; k++)
        if (!(s->lo[k][a] <= s->hi[k][b] && s->lo[k][b] <= s->hi[k][a]))
            return false;
    return true;
}

/* Every pair of I x P that the rules of dimension d (or, d < 0, none) admit. */
static void scan(seg_ctx *c, const uint32_t *I, size_t ni, const uint32_t *P, size_t np, int d) {
    const seg_state *s = c->s;
    for (size_t a = 0; a < ni; a++) {
        const uint32_t i = I[a];
        c->cl.args.i0 = i;
        for (size_t b = 0; b < np; b++) {
            const uint32_t p = P[b];
            if (d < 0 || (contains(s, d, i, p) && overlap_below(s, d, i, p)))
                sc_cands_push(&c->cl, p);
        }
        if (c->cl.m > 0)
            sc_cands_flush(&c->cl);
    }
}

/* Reorders a[0..n) so that the ids passing keep() come first; returns how many. */
#define PARTITION(a, n, keep_expr, out)                                                           \
    do {                                                                                          \
        size_t k_ = 0;                                                                            \
        for (size_t t_ = 0; t_ < (n); t_++) {                                                     \
            const uint32_t x = (a)[t_];                                                           \
            if (keep_expr) {                                                                      \
                (a)[t_] = (a)[k_];                                                                \
                (a)[k_++] = x;                                                                    \
            }                                                                                     \
        }                                                                                         \
        (out) = k_;                                                                               \
    } while (0)

/* The k-th smallest point key of P in dimension d moved to P[k] (selection). */
static void select_key(const seg_state *s, uint32_t *P, size_t n, size_t k, int d) {
    const double *v = s->lo[d];
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const uint32_t pv = P[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        for (;;) {
            while (key_less(v[P[i]], P[i], v[pv], pv))
                i++;
            while (key_less(v[pv], pv, v[P[j]], P[j]))
                j--;
            if (i >= j)
                break;
            const uint32_t t = P[i];
            P[i] = P[j];
            P[j] = t;
            i++;
            j--;
        }
        /* now P[lo..j] <= pivot <= P[j+1..hi] (keys are distinct) */
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
}

static void hybrid(seg_ctx *c, uint32_t *I, size_t ni, uint32_t *P, size_t np, double lo_v,
                   uint32_t lo_id, double hi_v, uint32_t hi_id, int d) {
    const seg_state *s = c->s;
    if (ni == 0 || np == 0)
        return;
    if (d < 0 || ni <= s->cutoff || np <= s->cutoff) {
        scan(c, I, ni, P, np, d);
        return;
    }
    /* intervals spanning [lo, hi): (lo_i, i) < lo and hi.value <= hi_i */
    size_t nm;
    PARTITION(I, ni, key_less(s->lo[d][x], x, lo_v, lo_id) && hi_v <= s->hi[d][x], nm);
    if (nm > 0) { /* below the last dimension, one direction: every pair is done */
        hybrid(c, I, nm, P, np, -INFINITY, 0, INFINITY, UINT32_MAX, d - 1);
        if (d > 0)
            hybrid(c, P, np, I, nm, -INFINITY, 0, INFINITY, UINT32_MAX, d - 1);
    }
    I += nm;
    ni -= nm;
    if (ni == 0)
        return;
    /* split P at the median key */
    const size_t half = np / 2;
    select_key(s, P, np, half, d);
    const uint32_t mid = P[half];
    const double mv = s->lo[d][mid];
    size_t nl;
    PARTITION(P, np, key_less(s->lo[d][x], x, mv, mid), nl);
    /* intervals reaching the left part [lo, m): start before m, end at or after lo */
    size_t il;
    PARTITION(I, ni, key_less(s->lo[d][x], x, mv, mid) && s->hi[d][x] >= lo_v, il);
    hybrid(c, I, il, P, nl, lo_v, lo_id, mv, mid, d);
    /* ... and the right part [m, hi): start before hi, end at or after m */
    size_t ir;
    PARTITION(I, ni, key_less(s->lo[d][x], x, hi_v, hi_id) && s->hi[d][x] >= mv, ir);
    hybrid(c, I, ir, P + nl, np - nl, mv, mid, hi_v, hi_id, d);
}

static sc_status seg_build(const sc_peer_env *e, sc_peer_built *out) {
    seg_state *s = e->state;
    const sc_view *v = e->view;
    const size_t n = v->n;
    const int dims = v->z ? 3 : 2;
    const size_t budget = 8 * n + 4096;
    const size_t max_jobs = 1024;
    if (!sc_work_reserve(e, WORK, n, &out->work) || !sc_env_reserve(e, INDEX, 4 * (n + 1)) ||
        !sc_env_reserve(e, BOXES, 6 * 8 * (n + 1)) || !sc_env_reserve(e, IDS, 4 * budget) ||
        !sc_env_reserve(e, JOBS, sizeof(seg_job) * (max_jobs + 4)))
        return SC_ERR_OUT_OF_MEMORY;
    double t = sc_now();
    uint32_t *index = e->buf[INDEX].p;
    for (size_t k = 0; k < n; k++)
        index[k] = (uint32_t)k;
    sc_gather(v, index, n, &out->work);
    sc_stage_add(e->seconds, SC_STAGE_GATHER, t);
    t = sc_now();
    double *bx = e->buf[BOXES].p;
    const double *c[3] = {out->work.x, out->work.y, out->work.z};
    for (int a = 0; a < 3; a++) {
        double *lo = bx + (size_t)a * (n + 1), *hi = bx + (size_t)(3 + a) * (n + 1);
        for (size_t k = 0; k < n; k++) {
            lo[k] = sc_box_lo(c[a][k], out->work.r[k]);
            hi[k] = sc_box_hi(c[a][k], out->work.r[k]);
        }
        s->lo[a] = lo;
        s->hi[a] = hi;
    }
    s->dims = dims;
    s->cutoff = e->opt->segtree.cutoff;
    uint32_t *ids = e->buf[IDS].p;
    seg_job *job = e->buf[JOBS].p;
    size_t used = 0, njobs = 0;
    if (n > 1) { /* the root: I = P = every box, the top dimension */
        for (size_t k = 0; k < n; k++)
            ids[k] = ids[n + k] = (uint32_t)k;
        used = 2 * n;
        job[njobs++] = (seg_job){0, (uint32_t)n, (uint32_t)n, (uint32_t)n, -INFINITY, INFINITY, 0,
                                 UINT32_MAX, dims - 1};
    }
    /* Breadth first: a job is split when it is big and there is room; its
     * parts replace it at the end of the list, in a fixed order. */
    for (size_t q = 0; q < njobs && njobs + 4 <= max_jobs / 4 * 3;) {
        seg_job jb = job[q];
        const size_t size = (size_t)jb.ni + jb.np;
        if (jb.d < 0 || jb.ni <= s->cutoff || jb.np <= s->cutoff || size < n / 64 + 2 * s->cutoff ||
            used + 4 * size > budget || getenv("SEG_NOSPLIT")) {
            q++;
            continue;
        }
        uint32_t *I = ids + jb.i0, *P = ids + jb.p0;
        const int d = jb.d;
        size_t nm, ni = jb.ni, np = jb.np;
        PARTITION(I, ni, key_less(s->lo[d][x], x, jb.lo_v, jb.lo_id) && jb.hi_v <= s->hi[d][x], nm);
        const size_t half = np / 2;
        select_key(s, P, np, half, d);
        const uint32_t mid = P[half];
        const double mv = s->lo[d][mid];
        size_t nl, il, ir;
        PARTITION(P, np, key_less(s->lo[d][x], x, mv, mid), nl);
        uint32_t *rest = I + nm;
        const size_t nr = ni - nm;
        /* copies: the spanning set with P (both ways above dimension 0), P's
         * halves, and the intervals reaching each half: at most
         * 2 (nm + np) + ni + np <= 4 size ids */
        seg_job parts[4];
        int np_ = 0;
        uint32_t *dst = ids + used;
        if (nm > 0) {
            memcpy(dst, I, 4 * nm);
            memcpy(dst + nm, P, 4 * np);
            parts[np_++] = (seg_job){(uint32_t)used, (uint32_t)nm, (uint32_t)(used + nm), (uint32_t)np,
                                     -INFINITY, INFINITY, 0, UINT32_MAX, d - 1};
            used += nm + np;
            dst = ids + used;
        }
        if (nm > 0 && d > 0) { /* the other direction (none below the last dimension) */
            memcpy(dst, P, 4 * np);
            memcpy(dst + np, I, 4 * nm);
            parts[np_++] = (seg_job){(uint32_t)used, (uint32_t)np, (uint32_t)(used + np), (uint32_t)nm,
                                     -INFINITY, INFINITY, 0, UINT32_MAX, d - 1};
            used += nm + np;
            dst = ids + used;
        }
        PARTITION(rest, nr, key_less(s->lo[d][x], x, mv, mid) && s->hi[d][x] >= jb.lo_v, il);
        memcpy(dst, rest, 4 * il);
        memcpy(dst + il, P, 4 * nl);
        parts[np_++] = (seg_job){(uint32_t)used, (uint32_t)il, (uint32_t)(used + il), (uint32_t)nl,
                                 jb.lo_v, mv, jb.lo_id, mid, d};
        used += il + nl;
        dst = ids + used;
        PARTITION(rest, nr, key_less(s->lo[d][x], x, jb.hi_v, jb.hi_id) && s->hi[d][x] >= mv, ir);
        memcpy(dst, rest, 4 * ir);
        memcpy(dst + ir, P + nl, 4 * (np - nl));
        parts[np_++] = (seg_job){(uint32_t)used, (uint32_t)ir, (uint32_t)(used + ir),
                                 (uint32_t)(np - nl), mv, jb.hi_v, mid, jb.hi_id, d};
        used += ir + np - nl;
        /* the job is replaced by its parts (the first in its slot) */
        job[q] = parts[0];
        for (int k = 1; k < np_; k++)
            job[njobs++] = parts[k];
    }
    sc_stage_add(e->seconds, SC_STAGE_CELLS, t);
    s->ids = ids;
    s->job = job;
    out->nchunks = njobs;
    out->state = s;
    out->cells = njobs;
    out->levels = dims;
    return SC_OK;
}

static uint64_t seg_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel, sc_hits *hits,
                           void *tls) {
    const seg_state *s = b->state;
    const seg_job *jb = &s->job[chunk];
    seg_ctx c = {s, sc_cands_make(&b->work, kernel, hits, tls, SEG_LIST)};
    c.cl.args.ni = 1; /* tri_end stays 0: a box never pairs with itself */
    hybrid(&c, s->ids + jb->i0, jb->ni, s->ids + jb->p0, jb->np, jb->lo_v, jb->lo_id, jb->hi_v,
           jb->hi_id, jb->d);
    return c.cl.tests;
}

const sc_peer sc_peer_segtree = {"segtree", 4 * (SEG_LIST + 16), seg_build, seg_search};
