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
 *   - in dimension 0, or with few intervals or points (the cutoff): the
 *     one-way scan: I and P sorted by key in d, and for each i the points
 *     after i's key up to hi_i[d], the lower dimensions checked box by box;
 *     its cost is the sort plus the pairs that overlap in d;
 *   - else the intervals that span the whole segment contain every point of
 *     P: they are finished in d and go down a dimension, once as intervals
 *     against P's points and once as points against P's intervals (each
 *     pair overlaps in d - 1 one way only);
 *   - the others follow P's points, split at their median key, into the
 *     halves they reach.
 * Every array is reordered in place (the sets, not their order, are what a
 * caller relies on); a pair is reported where its interval is finished,
 * which happens once. Candidate pairs go to the kernel, which decides them
 * with the exact predicate.
 *
 * Layout: the working copy is ordered by the boxes' lower ends in the top
 * dimension (the engine's radix sort), so ids near each other are boxes
 * near each other along the first split and the top dimension's key order
 * is the id order; each box's six ends sit together (lo, hi per axis), so
 * one test touches one box's cache line, not six arrays.
 *
 * Parallelism: the build expands the top of the recursion breadth first
 * into independent jobs (each with its own copies of its sets, budgeted at
 * 8 n + 4096 ids) until there are about 256, and each job is a chunk.
 */
#include "peer.h"
#include "kernels.h"

#include <math.h>
#include <string.h>

enum { WORK, BOXES, FBOXES, IDS, JOBS, KEYS, TMP_KEYS, INDEX, TMP_INDEX, COUNTS };

typedef struct seg_box {
    double e[6]; /* lo, hi on axis 0, then axis 1, then axis 2 */
} seg_box;

/* The same box rounded outward to floats, for the scan's SIMD filter. */
typedef struct seg_fbox {
    float e[6];
} seg_fbox;

typedef struct seg_job {
    uint32_t i0, ni, p0, np; /* ids of I and P in the id pool */
    double lo_v, hi_v;       /* the segment's ends in dimension d (keys with ids) */
    uint32_t lo_id, hi_id;
    int d;
} seg_job;

typedef struct seg_state {
    const seg_box *box; /* by working index */
    const seg_fbox *fbox;
    uint32_t *ids; /* the jobs' sets (reordered by the search) */
    const seg_job *job;
    size_t cutoff;
    int dims;
} seg_state;

#define SEG_LIST 2048
/* scans with at most this many points walk them with the box filter */
#define SEG_SCAN 65536

typedef struct seg_ctx {
    const seg_box *box;
    const seg_fbox *fbox;
    size_t cutoff;
    sc_cands cl; /* one home sphere (ni = 1) and its candidates */
    sc_boxfilter_fn filter;
    float *f;          /* 6 arrays of SEG_SCAN + 32 floats: the scan's points */
    uint32_t *pos;     /* SEG_SCAN + 16: the filter's survivors */
    struct seg_kv *kv; /* SEG_SCAN: the scan's sort */
    int top;
} seg_ctx;

/* A key in some dimension as an integer, with its id: sorting these in
 * place of ids reads contiguous memory instead of a box per comparison. */
typedef struct seg_kv {
    uint64_t key;
    uint32_t id, pad;
} seg_kv;

static inline double lo_of(const seg_box *b, int d, uint32_t i) {
    return b[i].e[2 * d];
}
static inline double hi_of(const seg_box *b, int d, uint32_t i) {
    return b[i].e[2 * d + 1];
}

/* key (va, ia) < key (vb, ib) */
static inline bool key_less(double va, uint32_t ia, double vb, uint32_t ib) {
    return va < vb || (va == vb && ia < ib);
}
/* key of box a < key of box b in dimension d */
static inline bool box_less(const seg_box *b, int d, uint32_t a, uint32_t c) {
    return key_less(lo_of(b, d, a), a, lo_of(b, d, c), c);
}
static inline bool overlap_below(const seg_box *b, int d, uint32_t x, uint32_t y) {
    for (int k = 0; k < d; k++)
        if (!(b[x].e[2 * k] <= b[y].e[2 * k + 1] && b[y].e[2 * k] <= b[x].e[2 * k + 1]))
            return false;
    return true;
}

/* Sorts ids a[0..n) by key in dimension d: quicksort (median of three,
 * the smaller side first by recursion, the larger by the loop), insertion
 * sort below 16. Keys are distinct (ids break ties). */
static void sort_ids(const seg_box *b, int d, uint32_t *a, size_t n) {
    while (n > 16) {
        const size_t m = n / 2;
        uint32_t x = a[0], y = a[m], z = a[n - 1], pv; /* the median of the three */
        if (box_less(b, d, x, y))
            pv = box_less(b, d, y, z) ? y : (box_less(b, d, x, z) ? z : x);
        else
            pv = box_less(b, d, x, z) ? x : (box_less(b, d, y, z) ? z : y);
        const double pvv = lo_of(b, d, pv);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (key_less(lo_of(b, d, a[i]), a[i], pvv, pv))
                i++;
            while (key_less(pvv, pv, lo_of(b, d, a[j]), a[j]))
                j--;
            if (i >= j)
                break;
            const uint32_t t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        /* a[0..j] <= pivot <= a[j+1..n) */
        const size_t nl = j + 1;
        if (nl < n - nl) {
            sort_ids(b, d, a, nl);
            a += nl;
            n -= nl;
        } else {
            sort_ids(b, d, a + nl, n - nl);
            n = nl;
        }
    }
    for (size_t i = 1; i < n; i++) {
        const uint32_t x = a[i];
        const double xv = lo_of(b, d, x);
        size_t j = i;
        while (j > 0 && key_less(xv, x, lo_of(b, d, a[j - 1]), a[j - 1])) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static inline bool kv_less(const seg_kv *x, const seg_kv *y) {
    return x->key < y->key || (x->key == y->key && x->id < y->id);
}
/* quicksort as sort_ids, on (key, id) */
static void sort_kv(seg_kv *a, size_t n) {
    while (n > 16) {
        const size_t m = n / 2;
        const seg_kv *x = &a[0], *y = &a[m], *z = &a[n - 1];
        const seg_kv pv = kv_less(x, y) ? (kv_less(y, z) ? *y : (kv_less(x, z) ? *z : *x))
                                        : (kv_less(x, z) ? *x : (kv_less(y, z) ? *z : *y));
        size_t i = 0, j = n - 1;
        for (;;) {
            while (kv_less(&a[i], &pv))
                i++;
            while (kv_less(&pv, &a[j]))
                j--;
            if (i >= j)
                break;
            const seg_kv t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        const size_t nl = j + 1;
        if (nl < n - nl) {
            sort_kv(a, nl);
            a += nl;
            n -= nl;
        } else {
            sort_kv(a + nl, n - nl);
            n = nl;
        }
    }
    for (size_t i = 1; i < n; i++) {
        const seg_kv x = a[i];
        size_t j = i;
        while (j > 0 && kv_less(&x, &a[j - 1])) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}
/* Sorts ids by key in d, as sort_ids. In the top dimension the key order
 * is the id order (the working copy is sorted that way), so the ids
 * themselves are the keys; below it, a double's order as an integer, with
 * -0 taken as +0 as key_less does. */
static void sort_keys(const seg_ctx *c, int d, uint32_t *a, size_t n) {
    if (n > SEG_SCAN) {
        sort_ids(c->box, d, a, n);
        return;
    }
    seg_kv *kv = c->kv;
    for (size_t k = 0; k < n; k++) {
        uint64_t u = a[k];
        if (d != c->top) {
            const double v = lo_of(c->box, d, a[k]) + 0.0;
            memcpy(&u, &v, 8);
            u = (u >> 63) ? ~u : u | 0x8000000000000000ull;
        }
        kv[k] = (seg_kv){u, a[k], 0};
    }
    sort_kv(kv, n);
    for (size_t k = 0; k < n; k++)
        a[k] = kv[k].id;
}

/* The one-way scan: every i in I, p in P with i containing p in d and
 * overlap below d. With dimensions below d and at most SEG_SCAN points,
 * the walk runs through the sweep's box filter (kernels/boxfilter.h) on
 * P's float boxes, laid out in key order: the float boxes hold the double
 * ones, so the filter keeps every pair the exact test below it would, and
 * the extra ones it lets through are rejected by the kernel (an
 * intersecting pair's boxes overlap on every axis); the walk's start
 * (i's key) stays exact, so each pair is still met once. */
static void scan_filtered(seg_ctx *c, const uint32_t *I, size_t ni, const uint32_t *P, size_t np,
                          int d) {
    const seg_box *b = c->box;
    const seg_fbox *fb = c->fbox;
    const size_t w = SEG_SCAN + 32, q = np + 16; /* q: the query's slot */
    float *f = c->f;
    float *xlo = f, *xhi = f + w, *ylo = f + 2 * w, *yhi = f + 3 * w, *zlo = f + 4 * w,
          *zhi = f + 5 * w;
    for (size_t k = 0; k < np; k++) {
        const float *e = fb[P[k]].e;
        xlo[k] = e[2 * d];
        ylo[k] = e[0];
        yhi[k] = e[1];
        zlo[k] = d == 2 ? e[2] : -INFINITY; /* d == 1: nothing to prune on z */
        zhi[k] = d == 2 ? e[3] : INFINITY;
    }
    for (size_t k = np; k < np + 16; k++)
        xlo[k] = ylo[k] = yhi[k] = zlo[k] = zhi[k] = 0.0f;
    const sc_fbox box = {xlo, xhi, ylo, yhi, zlo, zhi, NULL, NULL, NULL, NULL};
    size_t first = 0;
    for (size_t a = 0; a < ni; a++) {
        const uint32_t i = I[a];
        const double li = lo_of(b, d, i);
        while (first < np && !key_less(li, i, lo_of(b, d, P[first]), P[first]))
            first++;
        if (first == np)
            break;
        const float *e = fb[i].e;
        xhi[q] = e[2 * d + 1];
        ylo[q] = e[0];
        yhi[q] = e[1];
        zlo[q] = d == 2 ? e[2] : -INFINITY;
        zhi[q] = d == 2 ? e[3] : INFINITY;
        int done;
        const uint32_t m =
            c->filter(&box, (uint32_t)q, (uint32_t)first, (uint32_t)np, c->pos, &done);
        if (m == 0)
            continue;
        c->cl.args.i0 = i;
        for (uint32_t t = 0; t < m; t++)
            sc_cands_push(&c->cl, P[c->pos[t]]);
        sc_cands_flush(&c->cl);
    }
}

static void scan(seg_ctx *c, uint32_t *I, size_t ni, uint32_t *P, size_t np, int d) {
    const seg_box *b = c->box;
    sort_keys(c, d, I, ni);
    sort_keys(c, d, P, np);
    if (d > 0 && np <= SEG_SCAN) {
        scan_filtered(c, I, ni, P, np, d);
        return;
    }
    size_t first = 0;
    for (size_t a = 0; a < ni; a++) {
        const uint32_t i = I[a];
        const double li = lo_of(b, d, i), hi = hi_of(b, d, i);
        while (first < np && !key_less(li, i, lo_of(b, d, P[first]), P[first]))
            first++;
        if (first == np)
            break;
        c->cl.args.i0 = i;
        for (size_t k = first; k < np && lo_of(b, d, P[k]) <= hi; k++)
            if (d == 0 || overlap_below(b, d, i, P[k]))
                sc_cands_push(&c->cl, P[k]);
        if (c->cl.m > 0)
            sc_cands_flush(&c->cl);
    }
}

/* Reorders a[0..n) so that the ids passing keep() come first; returns how many. */
#define PARTITION(a, n, keep_expr, out)                                                            \
    do {                                                                                           \
        size_t k_ = 0;                                                                             \
        for (size_t t_ = 0; t_ < (n); t_++) {                                                      \
            const uint32_t x = (a)[t_];                                                            \
            if (keep_expr) {                                                                       \
                (a)[t_] = (a)[k_];                                                                 \
                (a)[k_++] = x;                                                                     \
            }                                                                                      \
        }                                                                                          \
        (out) = k_;                                                                                \
    } while (0)

/* The k-th smallest point key of P in dimension d moved to P[k] (selection). */
static void select_key(const seg_box *b, uint32_t *P, size_t n, size_t k, int d) {
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const uint32_t pv = P[lo + (hi - lo) / 2];
        const double pvv = lo_of(b, d, pv);
        size_t i = lo, j = hi;
        for (;;) {
            while (key_less(lo_of(b, d, P[i]), P[i], pvv, pv))
                i++;
            while (key_less(pvv, pv, lo_of(b, d, P[j]), P[j]))
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

/* The two steps of the recursion, shared by the search and the build's
 * split. spanning(): moves the intervals spanning [lo, hi) to the front of
 * I and returns how many. halve(): splits P at its median key, returns the
 * points below it (first in P) and the median's key in *mv, *mid. */
static size_t spanning(const seg_box *b, uint32_t *I, size_t ni, double lo_v, uint32_t lo_id,
                       double hi_v, int d) {
    size_t nm;
    PARTITION(I, ni, key_less(lo_of(b, d, x), x, lo_v, lo_id) && hi_v <= hi_of(b, d, x), nm);
    return nm;
}
static size_t halve(const seg_box *b, uint32_t *P, size_t np, int d, double *mv, uint32_t *mid) {
    select_key(b, P, np, np / 2, d);
    const uint32_t mi = P[np / 2];
    const double m = lo_of(b, d, mi);
    size_t nl;
    PARTITION(P, np, key_less(lo_of(b, d, x), x, m, mi), nl);
    *mv = m;
    *mid = mi;
    return nl;
}

static void hybrid(seg_ctx *c, uint32_t *I, size_t ni, uint32_t *P, size_t np, double lo_v,
                   uint32_t lo_id, double hi_v, uint32_t hi_id, int d) {
    const seg_box *b = c->box;
    if (ni == 0 || np == 0)
        return;
    if (d == 0 || ni <= c->cutoff || np <= c->cutoff) {
        scan(c, I, ni, P, np, d);
        return;
    }
    const size_t nm = spanning(b, I, ni, lo_v, lo_id, hi_v, d);
    if (nm > 0) { /* finished in d: down a dimension, both ways (which reorders P) */
        hybrid(c, I, nm, P, np, -INFINITY, 0, INFINITY, UINT32_MAX, d - 1);
        hybrid(c, P, np, I, nm, -INFINITY, 0, INFINITY, UINT32_MAX, d - 1);
    }
    uint32_t *rest = I + nm;
    const size_t nr = ni - nm;
    if (nr == 0)
        return;
    double mv;
    uint32_t mid;
    const size_t nl = halve(b, P, np, d, &mv, &mid);
    /* intervals reaching the left part [lo, m): start before m, end at or after lo */
    size_t il;
    PARTITION(rest, nr, key_less(lo_of(b, d, x), x, mv, mid) && hi_of(b, d, x) >= lo_v, il);
    hybrid(c, rest, il, P, nl, lo_v, lo_id, mv, mid, d);
    /* ... and the right part [m, hi): start before hi, end at or after m */
    size_t ir;
    PARTITION(rest, nr, key_less(lo_of(b, d, x), x, hi_v, hi_id) && hi_of(b, d, x) >= mv, ir);
    hybrid(c, rest, ir, P + nl, np - nl, mv, mid, hi_v, hi_id, d);
}

static sc_status seg_build(const sc_peer_env *e, sc_peer_built *out) {
    seg_state *s = e->state;
    const sc_view *v = e->view;
    const size_t n = v->n;
    const int dims = v->z ? 3 : 2, top = dims - 1;
    const size_t budget = 8 * n + 4096;
    const size_t max_jobs = 1024;
    if (!sc_work_reserve(e, WORK, n, &out->work) || !sc_keysort_reserve(e, KEYS, n) ||
        !sc_env_reserve(e, BOXES, sizeof(seg_box) * (n + 1)) ||
        !sc_env_reserve(e, FBOXES, sizeof(seg_fbox) * (n + 1)) ||
        !sc_env_reserve(e, IDS, 4 * budget) ||
        !sc_env_reserve(e, JOBS, sizeof(seg_job) * (max_jobs + 4)))
        return SC_ERR_OUT_OF_MEMORY;
    /* the working order: by the boxes' lower ends in the top dimension */
    const uint32_t *index = sc_sweep_order(e, KEYS, top == 2 ? v->z : v->y, 64, 0.0);
    double t = sc_now();
    sc_gather(v, index, n, &out->work);
    sc_env_stage(e, SC_STAGE_GATHER, t);
    t = sc_now();
    seg_box *bx = e->buf[BOXES].p;
    seg_fbox *fb = e->buf[FBOXES].p;
    const sc_work *w = &out->work;
    /* the float boxes relative to the bounds' low corner (peer.h:
     * sc_f_down_from): a float's resolution of the extent at any offset */
    double origin[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < dims && n > 0; a++)
        origin[a] = e->bounds->lo[a];
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        const double c[3] = {w->x[k], w->y[k], w->z[k]};
        for (int a = 0; a < 3; a++) {
            bx[k].e[2 * a] = sc_box_lo(c[a], w->r[k]);
            bx[k].e[2 * a + 1] = sc_box_hi(c[a], w->r[k]);
            fb[k].e[2 * a] = sc_f_down_from(bx[k].e[2 * a], origin[a]);
            fb[k].e[2 * a + 1] = sc_f_up_from(bx[k].e[2 * a + 1], origin[a]);
        }
    }
    s->box = bx;
    s->fbox = fb;
    s->dims = dims;
    s->cutoff = e->opt->segtree.cutoff;
    uint32_t *ids = e->buf[IDS].p;
    seg_job *job = e->buf[JOBS].p;
    size_t used = 0, njobs = 0;
    if (n > 1) { /* the root: I = P = every box, the top dimension */
        for (size_t k = 0; k < n; k++)
            ids[k] = ids[n + k] = (uint32_t)k;
        used = 2 * n;
        job[njobs++] = (seg_job){0,        (uint32_t)n, (uint32_t)n, (uint32_t)n, -INFINITY,
                                 INFINITY, 0,           UINT32_MAX,  top};
    }
    /* Breadth first: a job is split when it is big, not a scan, and there
     * is room; its parts replace it at the end of the list, in a fixed
     * order. */
    for (size_t q = 0; q < njobs && njobs + 4 <= max_jobs / 4 * 3;) {
        seg_job jb = job[q];
        const size_t size = (size_t)jb.ni + jb.np;
        if (jb.d == 0 || jb.ni <= s->cutoff || jb.np <= s->cutoff ||
            size < n / 64 + 2 * s->cutoff ||
            used + 2 * (size_t)jb.ni + 3 * (size_t)jb.np > budget) {
            q++;
            continue;
        }
        uint32_t *I = ids + jb.i0, *P = ids + jb.p0;
        const int d = jb.d;
        size_t il, ir, np = jb.np;
        const size_t nm = spanning(bx, I, jb.ni, jb.lo_v, jb.lo_id, jb.hi_v, d);
        double mv;
        uint32_t mid;
        const size_t nl = halve(bx, P, np, d, &mv, &mid);
        uint32_t *rest = I + nm;
        const size_t nr = jb.ni - nm;
        /* copies: the spanning set with P (both ways) if any, P's halves,
         * and the intervals reaching each half (il + ir <= 2 (ni - nm)):
         * at most 2 (nm + np) + 2 (ni - nm) + np = 2 ni + 3 np ids */
        seg_job parts[4];
        int np_ = 0;
        uint32_t *dst = ids + used;
        if (nm > 0) {
            memcpy(dst, I, 4 * nm);
            memcpy(dst + nm, P, 4 * np);
            parts[np_++] = (seg_job){(uint32_t)used,
                                     (uint32_t)nm,
                                     (uint32_t)(used + nm),
                                     (uint32_t)np,
                                     -INFINITY,
                                     INFINITY,
                                     0,
                                     UINT32_MAX,
                                     d - 1};
            used += nm + np;
            dst = ids + used;
            memcpy(dst, P, 4 * np);
            memcpy(dst + np, I, 4 * nm);
            parts[np_++] = (seg_job){(uint32_t)used,
                                     (uint32_t)np,
                                     (uint32_t)(used + np),
                                     (uint32_t)nm,
                                     -INFINITY,
                                     INFINITY,
                                     0,
                                     UINT32_MAX,
                                     d - 1};
            used += nm + np;
            dst = ids + used;
        }
        PARTITION(rest, nr, key_less(lo_of(bx, d, x), x, mv, mid) && hi_of(bx, d, x) >= jb.lo_v,
                  il);
        memcpy(dst, rest, 4 * il);
        memcpy(dst + il, P, 4 * nl);
        parts[np_++] = (seg_job){(uint32_t)used, (uint32_t)il, (uint32_t)(used + il),
                                 (uint32_t)nl,   jb.lo_v,      mv,
                                 jb.lo_id,       mid,          d};
        used += il + nl;
        dst = ids + used;
        PARTITION(rest, nr,
                  key_less(lo_of(bx, d, x), x, jb.hi_v, jb.hi_id) && hi_of(bx, d, x) >= mv, ir);
        memcpy(dst, rest, 4 * ir);
        memcpy(dst + ir, P + nl, 4 * (np - nl));
        parts[np_++] = (seg_job){(uint32_t)used,
                                 (uint32_t)ir,
                                 (uint32_t)(used + ir),
                                 (uint32_t)(np - nl),
                                 mv,
                                 jb.hi_v,
                                 mid,
                                 jb.hi_id,
                                 d};
        used += ir + np - nl;
        /* the job is replaced by its parts (the first in its slot) */
        job[q] = parts[0];
        for (int k = 1; k < np_; k++)
            job[njobs++] = parts[k];
    }
    sc_env_stage(e, SC_STAGE_CELLS, t);
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
    uint32_t *list = tls;
    float *f = (float *)(list + SEG_LIST + 16);
    uint32_t *pos = (uint32_t *)(f + 6 * (SEG_SCAN + 32));
    seg_ctx c = {s->box,
                 s->fbox,
                 s->cutoff,
                 sc_cands_make(&b->work, kernel, hits, list, SEG_LIST),
                 sc_kernels_of(kernel)->boxfilter, /* the filter that matches the kernel */
                 f,
                 pos,
                 (seg_kv *)(pos + SEG_SCAN + 16),
                 s->dims - 1};
    c.cl.args.ni = 1; /* tri_end stays 0: a box never pairs with itself */
    hybrid(&c, s->ids + jb->i0, jb->ni, s->ids + jb->p0, jb->np, jb->lo_v, jb->lo_id, jb->hi_v,
           jb->hi_id, jb->d);
    return c.cl.tests;
}

static void seg_defaults(sc_options *o) {
    o->segtree.cutoff = 1024;
}

static bool seg_valid(const sc_options *o) {
    return o->segtree.cutoff >= 1;
}

const sc_peer sc_peer_segtree = {.id = SC_ALGO_SEGTREE,
                                 .name = "segtree",
                                 .stages = {[SC_STAGE_KEYS] = "sweep keys",
                                            [SC_STAGE_SORT] = "sweep order",
                                            [SC_STAGE_GATHER] = "working copy",
                                            [SC_STAGE_CELLS] = "segment tree"},
                                 .tls_bytes =
                                     4 * (SEG_LIST + 16 + 6 * (SEG_SCAN + 32) + SEG_SCAN + 16) +
                                     sizeof(seg_kv) * SEG_SCAN,
                                 .defaults = seg_defaults,
                                 .valid = seg_valid,
                                 .build = seg_build,
                                 .search = seg_search};
