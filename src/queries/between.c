/*
 * between.c: two-set (bipartite) queries on any peer. The pairs (i, j),
 * i in A and j in B, are the one-set search's pairs of a joint view
 * [A's part | B's part] that cross the split (sc_cross, kept by the sinks):
 *
 *   small set S -> occupancy bitmap of its padded boxes
 *   large set L -> one parallel pass: validate, keep the candidates whose
 *                  cell (or box) meets the bitmap
 *   joint view  -> S and L's candidates, copied in double -> the peer's
 *                  one-set search with a crossing sink
 *
 * so when S is much smaller than L no index of A u B is built: the peer
 * indexes S and the few spheres of L near it. When the sets are of
 * comparable size the filter would keep most of L, and the joint view is
 * all of both. The copy is exact (float32 widens to double exactly), so
 * the predicate decides on the caller's values as for one set, and every
 * peer's exactness carries over. The filter only ever drops spheres that
 * cannot meet S (proof at sc_pad(), probe.h).
 *
 * In a periodic box the filter runs on wrapped centres, with each small
 * sphere's box also marked shifted by a period where it reaches across a
 * face (marked_centres), and the joint view goes to periodic.c, which
 * wraps it, adds the images and searches; its sinks keep the crossing
 * pairs as here.
 */
#define _POSIX_C_SOURCE 200809L
#include "keep.h"
#include "kernels.h"
#include "probe.h"

#include <math.h>
#include <string.h>

/* The larger set is filtered when at least this many times the smaller. */
#define FILTER_RATIO 4
/* Bitmap cells at most: 2 MiB, and 16 bits per sphere of the larger set. */
#define FILTER_CELLS_MAX ((uint64_t)1 << 24)
#define FILTER_CELLS_PER_SPHERE 16
/* A large-set sphere whose box spans more bitmap rows is kept untested. */
#define FILTER_ROWS_MAX 64
/* The filter copies its candidates' rows for the probe (sc_kept_rows) into
 * room for one large sphere in this many, and 64 more per thread; it
 * copies those of each sub-block of this many spheres after filtering it,
 * while they are in cache. */
#define FILTER_ROWS_SHARE 8
#define FILTER_SUB 4096

/* The small set's occupancy: bit (iz * ky + iy) * kx + ix is set when a
 * small sphere's box, widened by `reach`, meets cell (ix, iy, iz) of the
 * grid on [lo, hi] with cell index floor((x - lo) * inv), clamped. The
 * clamped cell is monotone in x, so an interval [a, b] meets exactly the
 * cells cell(a) .. cell(b). */
typedef struct occupancy {
    int dims;
    const sc_wrap *wrap; /* a periodic box, or NULL */
    double lo[3], hi[3], inv;
    uint32_t k[3];
    uint64_t zs;    /* bits a z slab of k[0] k[1] cells takes: whole words */
    uint64_t never; /* a bit past the cells, never set (its word is there) */
    double top[3];  /* k - 1 */
    double reach;   /* a large sphere with pad <= reach is tested at its centre */
    uint64_t *bits;
} occupancy;

static inline double coord(const sc_view *v, int axis, size_t i) {
    const char *a = axis == 0 ? v->x : axis == 1 ? v->y : v->z;
    return sc_view_get(v, a, i);
}

/* The half-width of small sphere i's marked box: pad + reach, rounded
 * up (a sum of doubles rounds by at most u; 2^-51 more covers it). In a
 * periodic box, 2^-44 B more: the expression's displacement, fl(fl(wl -
 * ws) -+ L), is within 2uB of the real wl - (ws +- L), and a shifted
 * centre fl(ws +- L) within uB of the real one (B as at sc_wrap; |wl -
 * ws| <= L <= B), so a large centre wl the expression pairs with ws lies
 * within sc_pad(rs) + sc_pad(rl) + 3uB of the centre of the copy marked. */
static inline double marked_half(const occupancy *o, double r) {
    const double margin = o->wrap ? 0x1p-44 * o->wrap->big : 0.0;
    return (sc_pad(r) + o->reach + margin) * (1.0 + 0x1p-51);
}

/* The centres of small sphere i's marked boxes (half-width w) into c,
 * returning how many: its centre; in a periodic box its wrapped centre
 * and, on each periodic axis, that centre shifted by a period where the
 * shifted box reaches into [lo, hi]: every large centre is wrapped into
 * it, and meets a small sphere through one shift of -1, 0 or 1 per axis,
 * that of the minimum image, so a large sphere with pad <= reach has its
 * centre in a marked copy. (Larger ones are tested shifted themselves:
 * occupancy_big.) 27 at most. */
static int marked_centres(const occupancy *o, const sc_view *s, size_t i, double w,
                          double c[27][3]) {
    double at[3][3]; /* per axis: the choices */
    int k[3];
    for (int a = 0; a < 3; a++) {
        const double x = a < o->dims ? coord(s, a, i) : 0.0;
        const sc_wrap *p = o->wrap;
        k[a] = 1;
        at[a][0] = x;
        if (!p || !p->periodic[a])
            continue;
        const double v = sc_wrap_x(x, p->lo[a], p->hi[a], p->period[a]);
        const double up = v + p->period[a], down = v - p->period[a];
        at[a][0] = v;
        if (up - w <= p->hi[a])
            at[a][k[a]++] = up;
        if (down + w >= p->lo[a])
            at[a][k[a]++] = down;
    }
    int m = 0;
    for (int iz = 0; iz < k[2]; iz++)
        for (int iy = 0; iy < k[1]; iy++)
            for (int ix = 0; ix < k[0]; ix++, m++) {
                c[m][0] = at[0][ix];
                c[m][1] = at[1][iy];
                c[m][2] = at[2][iz];
            }
    return m;
}

/* Sets bits b to e (inclusive). */
static inline void mark_bits(uint64_t *bits, uint64_t b, uint64_t e) {
    const uint64_t wb = b >> 6, we = e >> 6;
    const uint64_t first = ~(uint64_t)0 << (b & 63), last = ~(uint64_t)0 >> (63 - (e & 63));
    if (wb == we) {
        bits[wb] |= first & last;
        return;
    }
    bits[wb] |= first;
    for (uint64_t k = wb + 1; k < we; k++)
        bits[k] = ~(uint64_t)0;
    bits[we] |= last;
}

/* Whether any bit of row (iy, iz) from ix0 to ix1 is set. */
static bool row_meets(const uint64_t *bits, uint64_t row0, uint32_t ix0, uint32_t ix1) {
    for (uint64_t b = row0 + ix0, e = row0 + ix1; b <= e;) {
        const unsigned sh = (unsigned)(b & 63);
        const uint64_t take = e - b + 1 < 64 - sh ? e - b + 1 : 64 - sh;
        const uint64_t mask = take == 64 ? ~(uint64_t)0 : (((uint64_t)1 << take) - 1) << sh;
        if (bits[b >> 6] & mask)
            return true;
        b += take;
    }
    return false;
}

/* A small sphere's marked box (a copy's, in a periodic box): the cells
 * c0 .. c1 on each axis. */
typedef struct mark {
    uint32_t c0[3], c1[3];
} mark;

/* Marks the boxes that reach the z cells [zlo, zhi), clipped to them;
 * ms[from..m) are in order of c0[2] >> zshift. Threads given disjoint z
 * ranges write disjoint words: a z slab is a whole number of words
 * (o->zs). */
static void mark_slabs(occupancy *o, const mark *ms, size_t from, size_t m, int zshift,
                       uint32_t zlo, uint32_t zhi) {
    for (size_t k = from; k < m; k++) {
        const mark *b = &ms[k];
        if (b->c0[2] >> zshift > (zhi - 1) >> zshift) /* so are all after it */
            break;
        if (b->c0[2] >= zhi || b->c1[2] < zlo)
            continue;
        const uint32_t z0 = b->c0[2] > zlo ? b->c0[2] : zlo;
        const uint32_t z1 = b->c1[2] < zhi - 1 ? b->c1[2] : zhi - 1;
        for (uint32_t iz = z0; iz <= z1; iz++)
            for (uint32_t iy = b->c0[1]; iy <= b->c1[1]; iy++) {
                const uint64_t row = iz * o->zs + (uint64_t)iy * o->k[0];
                mark_bits(o->bits, row + b->c0[0], row + b->c1[0]);
            }
    }
}

/* Sizes the bitmap's grid on the boxes' extent (o->lo, o->hi): cells
 * about half the marked boxes' half-width (finer keeps fewer large
 * spheres, at more cache misses per test), fewer when the box would need
 * more than the cap (16 per large sphere, 2 MiB). A z slab is rounded up
 * to whole words. Returns the cells, or UINT64_MAX when no grid within
 * the cap was found. */
static uint64_t occupancy_grid(occupancy *o, size_t nl, double mean) {
    uint64_t cap = FILTER_CELLS_PER_SPHERE * (uint64_t)nl + 4096;
    cap = cap < FILTER_CELLS_MAX ? cap : FILTER_CELLS_MAX;
    double h = (mean + o->reach) / 2, extent = 0.0;
    for (int a = 0; a < o->dims; a++)
        extent = o->hi[a] - o->lo[a] > extent ? o->hi[a] - o->lo[a] : extent;
    if (!(h > extent * 0x1p-20)) /* points, or a tiny spread: a coarser grid */
        h = extent * 0x1p-20;
    uint64_t cells = UINT64_MAX;
    for (int round = 0; round < 400 && cells > cap; round++, h *= 1.25) {
        o->inv = h > 0.0 ? 1.0 / h : 0.0;
        for (int a = 0; a < 3; a++) {
            const double span = (o->hi[a] - o->lo[a]) * o->inv;
            o->k[a] = a < o->dims && span < (double)(1u << 22) ? (uint32_t)span + 1 : 1;
            if (a < o->dims && !(span < (double)(1u << 22)))
                o->k[a] = 1u << 22;
        }
        o->zs = ((uint64_t)o->k[0] * o->k[1] + 63) / 64 * 64; /* < 2^45 */
        /* saturates past the cap: the product would wrap */
        cells = o->zs > cap ? UINT64_MAX : o->zs * o->k[2];
    }
    return cells <= cap ? cells : UINT64_MAX;
}

/* Builds the occupancy of the (valid) small set s in the context's
 * scratch, for a large set of nl spheres, on up to `threads` threads.
 * false: no filter worth its cost (the marks would exceed a budget of a
 * few per large sphere) or no memory; the caller then searches all of the
 * large set. The boxes are listed (c->joint, free until the joint view),
 * put in order of their first z cell, so that each thread's marks move
 * through its slabs of the bitmap rather than at random (the bitmap is
 * larger than a core's cache), and marked by threads over disjoint z
 * ranges. copies_at is scratch of a slot per thread. */
/* One function, though long (its steps are described above): the list,
 * the order and the marking are three parallel passes over the same
 * boxes' buffers and the threads' slots, which each pass hands the next. */
static bool occupancy_build(sc_context *c, const sc_view *s, size_t nl, const sc_wrap *wrap,
                            occupancy *o, int threads, size_t *copies_at) {
    const size_t n = s->n;
    o->dims = s->z ? 3 : 2;
    o->wrap = wrap;
    /* reach: the pads most large spheres are expected to have, from the
     * small set's (twice the mean, or its largest pad when smaller) */
    double sum = 0.0, biggest = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double p = sc_pad(sc_view_r(s, i));
        sum += p;
        biggest = p > biggest ? p : biggest;
    }
    const double mean = sum / (double)n;
    o->reach = biggest < 2.0 * mean ? biggest : 2.0 * mean;
    for (int a = 0; a < 3; a++) { /* 2-D: z = 0, one cell */
        o->lo[a] = a < o->dims ? INFINITY : 0.0;
        o->hi[a] = a < o->dims ? -INFINITY : 0.0;
    }
    /* The boxes: each thread lists those of a block of spheres, first
     * counting them (and the boxes' extent), then, once the grid is
     * sized and the list's room reserved, writing them from where the
     * blocks before its own end: the serial order for every thread count. */
    enum { ZBUCKETS = 1024 };
    const sc_allocator *al = sc_context_allocator(c);
    const int tn0 = n >= 4096 && threads > 1 ? threads : 1;
    bool fits = true;
    size_t m = 0;          /* boxes */
    uint64_t cost_all = 0; /* their marking's, saturating */
    uint32_t zspan = 0;    /* the most z cells a box spans, less one */
    int zshift = 0;
    uint64_t cells = UINT64_MAX;
    mark *ms = NULL, *sorted = NULL;
    uint32_t *zkey = NULL, *zorder = NULL, *zstart = NULL;
    void *zscratch = NULL;
    int sort_threads = 1;
#pragma omp parallel num_threads(tn0)
    {
        const int t = sc_thread_id(), tn = sc_num_threads();
        const size_t lo = n * (size_t)t / (size_t)tn, hi = n * (size_t)(t + 1) / (size_t)tn;
        double centre[27][3], blo[3] = {INFINITY, INFINITY, INFINITY},
                              bhi[3] = {-INFINITY, -INFINITY, -INFINITY};
        size_t mine = 0;
        for (size_t i = lo; i < hi; i++) {
            const double w = marked_half(o, sc_view_r(s, i));
            const int copies = marked_centres(o, s, i, w, centre);
            mine += (size_t)copies;
            for (int k = 0; k < copies; k++)
                for (int a = 0; a < o->dims; a++) {
                    const double x = centre[k][a];
                    blo[a] = x - w < blo[a] ? x - w : blo[a];
                    bhi[a] = x + w > bhi[a] ? x + w : bhi[a];
                }
        }
        copies_at[t] = mine;
#pragma omp critical(sc_between_extent)
        for (int a = 0; a < o->dims; a++) {
            o->lo[a] = blo[a] < o->lo[a] ? blo[a] : o->lo[a];
            o->hi[a] = bhi[a] > o->hi[a] ? bhi[a] : o->hi[a];
        }
#pragma omp barrier
#pragma omp master
        {
            for (int u = 0; u < tn; u++) { /* counts -> where each block's boxes start */
                const size_t k = copies_at[u];
                copies_at[u] = m;
                m += k;
            }
            cells = occupancy_grid(o, nl, mean);
            fits = cells != UINT64_MAX && m <= UINT32_MAX;
            if (fits) {
                for (int a = 0; a < 3; a++)
                    o->top[a] = (double)(o->k[a] - 1);
                while ((o->k[2] - 1) >> zshift >= ZBUCKETS)
                    zshift++;
                /* the counting sort's scratch first (size_t), the boxes,
                 * then their z buckets, order and the buckets' starts */
                sort_threads = sc_counting_threads(threads, ZBUCKETS, 2 * m + 2 * ZBUCKETS);
                const size_t sc = (sc_counting_scratch(sort_threads, ZBUCKETS) + 63) / 64 * 64;
                /* reserved for the widest team (c->room), laid out for this one */
                const int room = c->room > threads ? c->room : threads;
                const size_t sc_room =
                    (sc_counting_scratch(sc_counting_threads(room, ZBUCKETS, 2 * m + 2 * ZBUCKETS),
                                         ZBUCKETS) +
                     63) /
                    64 * 64;
                const size_t need = (sc_room > sc ? sc_room : sc) + 2 * m * sizeof(mark) +
                                    (2 * m + ZBUCKETS + 1) * sizeof(uint32_t);
                const size_t words = (size_t)(cells / 64) + 1; /* and never's */
                fits = sc_buf_reserve(al, &c->joint, need) &&
                       sc_buf_reserve(al, &c->occupied, words * 8);
                if (fits) {
                    zscratch = c->joint.p;
                    ms = (mark *)(void *)((char *)c->joint.p + sc);
                    sorted = ms + m;
                    zkey = (uint32_t *)(void *)(sorted + m);
                    zorder = zkey + m;
                    zstart = zorder + m;
                }
            }
        }
#pragma omp barrier
        if (fits) {
            uint64_t cost = 0;
            uint32_t span = 0;
            size_t at = copies_at[t];
            for (size_t i = lo; i < hi; i++) {
                const double w = marked_half(o, sc_view_r(s, i));
                const int copies = marked_centres(o, s, i, w, centre);
                for (int k = 0; k < copies; k++, at++) {
                    uint32_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
                    for (int a = 0; a < o->dims; a++) {
                        c0[a] = sc_cell_of(centre[k][a] - w, o->lo[a], o->inv, o->k[a]);
                        c1[a] = sc_cell_of(centre[k][a] + w, o->lo[a], o->inv, o->k[a]);
                    }
                    const uint64_t rows = (uint64_t)(c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1);
                    const uint64_t one = rows * ((c1[0] - c0[0]) / 64 + 1);
                    cost = one > UINT64_MAX - cost ? UINT64_MAX : cost + one;
                    ms[at] = (mark){{c0[0], c0[1], c0[2]}, {c1[0], c1[1], c1[2]}};
                    zkey[at] = c0[2] >> zshift;
                    span = c1[2] - c0[2] > span ? c1[2] - c0[2] : span;
                }
            }
#pragma omp critical(sc_between_extent)
            {
                cost_all = cost > UINT64_MAX - cost_all ? UINT64_MAX : cost_all + cost;
                zspan = span > zspan ? span : zspan;
            }
        }
    }
    /* the marking budget: row spans, a few per large sphere */
    if (!fits || cost_all > 8 * (uint64_t)nl + 64 * (uint64_t)n)
        return false;
    sc_counting_order(zkey, m, ZBUCKETS, sort_threads, zscratch, zstart, zorder);
    const int nm = m >= 4096 ? threads : 1;
#pragma omp parallel for num_threads(nm) schedule(static)
    for (size_t k = 0; k < m; k++)
        sorted[k] = ms[zorder[k]];
    o->bits = c->occupied.p;
    o->never = cells;
    o->bits[cells / 64] = 0; /* never's word */
    const int nt = m >= 2048 && threads > 1 ? threads : 1;
#pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), tn = omp_get_num_threads();
#else
        const int t = 0, tn = 1;
#endif
        const uint32_t zlo = (uint32_t)((uint64_t)o->k[2] * (uint64_t)t / (uint64_t)tn);
        const uint32_t zhi = (uint32_t)((uint64_t)o->k[2] * (uint64_t)(t + 1) / (uint64_t)tn);
        if (zlo < zhi) {
            memset(o->bits + zlo * (o->zs / 64), 0, (size_t)(zhi - zlo) * (size_t)(o->zs / 8));
            const uint32_t first = zlo > zspan ? zlo - zspan : 0; /* z0 of a box reaching zlo */
            const size_t from = zstart[first >> zshift];
            mark_slabs(o, sorted, from, m, zshift, zlo, zhi);
        }
    }
    return true;
}

/* Whether the box [b0, b1] meets a marked cell (or spans more rows than
 * are worth testing). */
static bool box_meets(const occupancy *o, const double b0[3], const double b1[3]) {
    uint32_t c0[3], c1[3];
    for (int a = 0; a < 3; a++) {
        if (b1[a] < o->lo[a] || b0[a] > o->hi[a])
            return false;
        c0[a] = sc_cell_of(b0[a], o->lo[a], o->inv, o->k[a]);
        c1[a] = sc_cell_of(b1[a], o->lo[a], o->inv, o->k[a]);
    }
    if ((uint64_t)(c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1) > FILTER_ROWS_MAX)
        return true;
    for (uint32_t iz = c0[2]; iz <= c1[2]; iz++)
        for (uint32_t iy = c0[1]; iy <= c1[1]; iy++)
            if (row_meets(o->bits, iz * o->zs + (uint64_t)iy * o->k[0], c0[0], c1[0]))
                return true;
    return false;
}

/* Marks occupancy_bit returns besides a bit's index. */
#define CELL_OUT UINT64_MAX       /* outside the marked region: no meeting */
#define CELL_BIG (UINT64_MAX - 1) /* pad > reach: occupancy_big decides */

/* The bit to test for large sphere (x, y, z) with pad p (a 2-D set has z =
 * 0 and the grid's single z cell), or CELL_OUT, or CELL_BIG. A sphere with
 * pad <= reach that meets a small sphere has its centre in that sphere's
 * marked box (widened by reach, and in a periodic box shifted to the copy
 * the minimum image picks), so its centre's cell is marked. */
static inline uint64_t occupancy_bit(const occupancy *o, double x, double y, double z, double p) {
    if (p > o->reach)
        return CELL_BIG;
    /* & not &&: one branch, the set is usually all in or all out */
    if (!((x >= o->lo[0]) & (x <= o->hi[0]) & (y >= o->lo[1]) & (y <= o->hi[1]) & (z >= o->lo[2]) &
          (z <= o->hi[2])))
        return CELL_OUT;
    /* inside [lo, hi] the cell index is >= 0; capped at k - 1 as by
     * sc_cell_of (a select, not fmin: that is a libm call) */
    const double tx = (x - o->lo[0]) * o->inv, ty = (y - o->lo[1]) * o->inv,
                 tz = (z - o->lo[2]) * o->inv;
    const uint64_t ix = (uint64_t)(int64_t)(tx < o->top[0] ? tx : o->top[0]);
    const uint64_t iy = (uint64_t)(int64_t)(ty < o->top[1] ? ty : o->top[1]);
    const uint64_t iz = (uint64_t)(int64_t)(tz < o->top[2] ? tz : o->top[2]);
    return iz * o->zs + iy * o->k[0] + ix;
}

/* Whether a large sphere past the reach (centre c, pad p) may meet a small
 * one: it is tested over its own box's cells. In a periodic box that box
 * may reach past a face, where the small spheres it meets lie one period
 * over: it is tested shifted by -1, 0 and 1 periods on each periodic axis
 * (the wrapped centre wl meets ws through shift k when wl - kL lies within
 * pl + ps + 3uB of ws, inside the box; the marks' margin covers the 3uB
 * and the uB of the shifted centre, as at marked_half). */
static bool occupancy_big(const occupancy *o, const double c[3], double p) {
    double at[3][3]; /* per axis: the centres to test, shifted or not */
    int k[3];
    for (int a = 0; a < 3; a++) {
        k[a] = 1;
        at[a][0] = c[a];
        if (o->wrap && o->wrap->periodic[a]) {
            at[a][k[a]++] = c[a] + o->wrap->period[a];
            at[a][k[a]++] = c[a] - o->wrap->period[a];
        }
    }
    for (int iz = 0; iz < k[2]; iz++)
        for (int iy = 0; iy < k[1]; iy++)
            for (int ix = 0; ix < k[0]; ix++) {
                const double b0[3] = {at[0][ix] - p, at[1][iy] - p, at[2][iz] - p};
                const double b1[3] = {at[0][ix] + p, at[1][iy] + p, at[2][iz] + p};
                if (box_meets(o, b0, b1))
                    return true;
            }
    return false;
}

/* Large spheres [lo, hi) through the filter, their candidates' indices
 * appended to idx[*kept..]; false when one is not valid (checked as the
 * bounds stage checks it; in a periodic box, also the radius limit). In a
 * periodic box the centres are wrapped first. Spheres go in batches:
 * their bits are found and fetched ahead (the bitmap, up to 2 MiB, is read
 * at random), then tested. f64 and d3 are constants where it is inlined,
 * so each layout gets its own loop. The scalar reference of
 * kernels/filter_avx2.c. */
enum { FILTER_BATCH = 16 };
static inline bool filter_one_by_one(const sc_view *l, const occupancy *o, size_t lo, size_t hi,
                                     uint32_t *idx, size_t *kept, bool f64, bool d3) {
    const char *px = l->x, *py = l->y, *pz = l->z, *pr = l->r;
    const size_t st = l->stride, rst = l->rstride;
    const sc_wrap *p = o->wrap;
    const double rlimit = p ? SC_MAX_ABS_VALUE / 2 : SC_MAX_ABS_VALUE;
    size_t m = *kept;
    bool bad = false;
    for (size_t j0 = lo; j0 < hi; j0 += FILTER_BATCH) {
        const size_t nb = hi - j0 < FILTER_BATCH ? hi - j0 : FILTER_BATCH;
        uint64_t bit[FILTER_BATCH];
        for (size_t t = 0; t < nb; t++) {
            const size_t j = j0 + t;
#define LOAD(p, k)                                                                                 \
    (f64 ? *(const double *)(const void *)((p) + (k))                                              \
         : (double)*(const float *)(const void *)((p) + (k)))
            double c[3] = {LOAD(px, j * st), LOAD(py, j * st), d3 ? LOAD(pz, j * st) : 0.0};
            const double r = LOAD(pr, j * rst);
#undef LOAD
            /* fabs(NaN) <= M is false: one test for finite and in range */
            bad |= !((fabs(c[0]) <= SC_MAX_ABS_VALUE) & (fabs(c[1]) <= SC_MAX_ABS_VALUE) &
                     (fabs(c[2]) <= SC_MAX_ABS_VALUE) & (r >= 0.0) & (r <= rlimit));
            if (p)
                for (int a = 0; a < 3; a++)
                    if (p->periodic[a])
                        c[a] = sc_wrap_x(c[a], p->lo[a], p->hi[a], p->period[a]);
            const double pd = sc_pad(r);
            bit[t] = occupancy_bit(o, c[0], c[1], c[2], pd);
            if (bit[t] < CELL_BIG)
                __builtin_prefetch(&o->bits[bit[t] >> 6]);
            else if (bit[t] == CELL_BIG && !bad) /* rare: decided now */
                bit[t] = occupancy_big(o, c, pd) ? CELL_BIG : CELL_OUT;
        }
        for (size_t t = 0; t < nb; t++) {
            const uint64_t b = bit[t];
            /* written always, kept when it meets: no branch to mispredict */
            idx[m] = (uint32_t)(j0 + t);
            m += b == CELL_BIG || (b < CELL_BIG && ((o->bits[b >> 6] >> (b & 63)) & 1));
        }
    }
    *kept = m;
    return !bad;
}

/* The rows of candidates idx[from .. to) into rows[4 * from ..] (z = 0 in
 * 2-D), as far as cap rows go; *copied gets how far they went. */
static inline void copy_kept(const sc_view *l, const uint32_t *idx, size_t from, size_t to,
                             double *rows, size_t cap, size_t *copied, bool f64, bool d3) {
    const char *px = l->x, *py = l->y, *pz = l->z, *pr = l->r;
    const size_t st = l->stride, rst = l->rstride;
    to = to < cap ? to : cap;
    for (size_t q = from; q < to; q++) {
        const size_t j = idx[q];
#define LOAD(p, k)                                                                                 \
    (f64 ? *(const double *)(const void *)((p) + (k))                                              \
         : (double)*(const float *)(const void *)((p) + (k)))
        double *row = rows + 4 * q;
        row[0] = LOAD(px, j * st);
        row[1] = LOAD(py, j * st);
        row[2] = d3 ? LOAD(pz, j * st) : 0.0;
        row[3] = LOAD(pr, j * rst);
#undef LOAD
    }
    *copied = to > *copied ? to : *copied;
}

/* filter_one_by_one, with the kernel table's filter four at a time where it
 * takes the spheres (3-D, double or float), a sub-block at a time: the
 * candidates' rows are copied into rows (up to cap; NULL: none) after
 * each. Returns the candidates, or SIZE_MAX when a sphere is not valid;
 * *copied: the rows copied. */
static inline size_t filter_block(const sc_view *l, const occupancy *o, size_t lo, size_t hi,
                                  uint32_t *idx, double *rows, size_t cap, size_t *copied, bool f64,
                                  bool d3, sc_filter_fn filter) {
    size_t m = 0;
    bool good = true;
    *copied = 0;
    const bool by4 = filter && d3;
    sc_filter_grid g = {{0, 0, 0},
                        {0.0, 0.0, 0.0},
                        {0.0, 0.0, 0.0},
                        {0.0, 0.0, 0.0},
                        {o->lo[0], o->lo[1], o->lo[2]},
                        {o->hi[0], o->hi[1], o->hi[2]},
                        o->inv,
                        {o->top[0], o->top[1], o->top[2]},
                        o->reach,
                        o->wrap ? SC_MAX_ABS_VALUE / 2 : SC_MAX_ABS_VALUE,
                        o->k[0],
                        o->zs,
                        o->never,
                        o->bits};
    for (int a = 0; a < 3 && o->wrap; a++) {
        g.periodic[a] = o->wrap->periodic[a];
        g.box_lo[a] = o->wrap->lo[a];
        g.box_hi[a] = o->wrap->hi[a];
        g.box_period[a] = o->wrap->period[a];
    }
    const sc_src4 src = {l->x, l->y, l->z, l->r, l->stride, l->rstride, f64};
    for (size_t j = lo; j < hi;) {
        const size_t end = rows && hi - j > FILTER_SUB ? j + FILTER_SUB : hi;
        const size_t m0 = m;
        while (j < end) {
            if (by4)
                j = filter(&g, &src, j, end, idx, &m);
            /* the group the four-at-a-time pass did not take, or all */
            const size_t stop = by4 && end - j > 4 ? j + 4 : end;
            good &= filter_one_by_one(l, o, j, stop, idx, &m, f64, d3);
            j = stop;
        }
        if (rows && m > m0 && m0 < cap)
            copy_kept(l, idx, m0, m, rows, cap, copied, f64, d3);
    }
    return good ? m : SIZE_MAX;
}

/* One pass over the large set: each thread's block of spheres leaves its
 * candidates' indices at the block's start in idx; they are then packed
 * to the front in index order. With rows (else NULL), thread t copies its
 * candidates' rows into its own room, at kr->at[t] for hi / SHARE - lo /
 * SHARE + 64 rows, and kr describes them. counts has four slots per
 * thread. Returns the candidates, or SIZE_MAX when a sphere is not valid. */
static size_t filter_large(const sc_view *l, const occupancy *o, uint32_t *idx, size_t *counts,
                           double *rows, sc_kept_rows *kr, int threads, sc_filter_fn filter4) {
    const size_t n = l->n;
    size_t *kept = counts, *first = counts + threads, *copied = counts + 2 * threads,
           *at = counts + 3 * threads;
    int bad = 0;
#pragma omp parallel num_threads(threads) reduction(| : bad)
    {
        const int t = sc_thread_id(), nt = sc_num_threads();
        const size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
        at[t] = lo / FILTER_ROWS_SHARE + 64 * (size_t)t;
        const size_t cap = hi / FILTER_ROWS_SHARE - lo / FILTER_ROWS_SHARE + 64;
        double *mine = rows ? rows + 4 * at[t] : NULL;
        size_t m;
        if (l->f64)
            m = l->z ? filter_block(l, o, lo, hi, idx + lo, mine, cap, &copied[t], true, true,
                                    filter4)
                     : filter_block(l, o, lo, hi, idx + lo, mine, cap, &copied[t], true, false,
                                    filter4);
        else
            m = l->z ? filter_block(l, o, lo, hi, idx + lo, mine, cap, &copied[t], false, true,
                                    filter4)
                     : filter_block(l, o, lo, hi, idx + lo, mine, cap, &copied[t], false, false,
                                    filter4);
        bad = m == SIZE_MAX;
        kept[t] = bad ? 0 : m;
#pragma omp barrier
#pragma omp single
        {
            size_t to = 0;
            for (int b = 0; b < nt; b++) {
                const size_t from = n * (size_t)b / (size_t)nt;
                memmove(idx + to, idx + from, kept[b] * sizeof(uint32_t));
                first[b] = to;
                to += kept[b];
            }
            kr->segs = nt;
            kr->rows = rows;
            kr->first = first;
            kr->n = copied;
            kr->at = at;
            kept[0] = to;
        }
    }
    return bad ? SIZE_MAX : kept[0];
}

/* The room filter_large's rows take for a large set of n spheres. */
static size_t kept_rows_room(size_t n, size_t threads) {
    return 4 * sizeof(double) * (n / FILTER_ROWS_SHARE + 64 * threads);
}

/* A part's spheres into the joint rows of (x, y, z, r) doubles (z = 0 in
 * 2-D), the caller's values read typed (f64 a constant where inlined); a
 * part through a map takes the rows the filter copied (kept, or NULL) and
 * reads the rest of the larger set at increasing indices, some apart,
 * fetched ahead. Rows, not separate arrays: the search's gather then reads
 * one line per sphere where four arrays cost four. */
static inline void copy_rows(const sc_part *p, const sc_kept_rows *kept, double *rows, int threads,
                             bool f64) {
    const sc_view *v = p->v;
    const char *px = v->x, *py = v->y, *pz = v->z, *pr = v->r;
    const size_t st = v->stride, rst = v->rstride;
    const uint32_t *map = p->map;
    kept = map ? kept : NULL;
#define LOAD(q)                                                                                    \
    (f64 ? *(const double *)(const void *)(q) : (double)*(const float *)(const void *)(q))
#pragma omp parallel num_threads(threads)
    {
        const int t = sc_thread_id(), nt = sc_num_threads();
        const size_t k0 = p->n * (size_t)t / (size_t)nt, k1 = p->n * (size_t)(t + 1) / (size_t)nt;
        int s = 0;
        for (size_t k = k0; k < k1; k++) {
            double *row = rows + 4 * k;
            const double *from = sc_kept_row(kept, k, &s);
            if (from) {
                memcpy(row, from, 4 * sizeof(double));
                continue;
            }
            if (map && k + 16 < p->n) {
                __builtin_prefetch(px + (size_t)map[k + 16] * st);
                __builtin_prefetch(pr + (size_t)map[k + 16] * rst);
            }
            const size_t i = map ? map[k] : k;
            row[0] = LOAD(px + i * st);
            row[1] = LOAD(py + i * st);
            row[2] = pz ? LOAD(pz + i * st) : 0.0;
            row[3] = LOAD(pr + i * rst);
        }
    }
#undef LOAD
}

static void copy_part(const sc_part *p, const sc_kept_rows *kept, double *rows, int threads) {
    if (p->v->f64)
        copy_rows(p, kept, rows, threads, true);
    else
        copy_rows(p, kept, rows, threads, false);
}

/* The query's kernel table's filter, which takes 3-D spheres four at a
 * time (filter_avx2.c, or its reference filter_scalar.c). */
static sc_filter_fn group_filter(const sc_context *c) {
    sc_kernel kernel = c->opt.kernel;
    return sc_kernels_of(sc_kernel_resolve(&kernel))->filter;
}

typedef struct between_query {
    sc_cross cross;
    sc_query_fn fn;
    void *arg;
} between_query;

static sc_status crossing(sc_context *c, sc_prepared *p, void *arg) {
    between_query *q = arg;
    sc_keep own;
    sc_keep *k = sc_keep_enter(c, &own);
    k->cross = q->cross;
    sc_keep_changed(c);
    const sc_status st = q->fn(c, p, q->arg);
    k->cross = (sc_cross){0};
    sc_keep_changed(c);
    sc_keep_leave(c, &own);
    return st;
}

/* The first refused sphere's status, A's before B's (in a periodic box,
 * a radius past its limit too). */
static sc_status first_problem(const sc_spheres *a, const sc_spheres *b, bool periodic,
                               int threads) {
    sc_status st = periodic ? sc_periodic_check(a) : sc_spheres_check(a, NULL, threads);
    if (st == SC_OK)
        st = periodic ? sc_periodic_check(b) : sc_spheres_check(b, NULL, threads);
    return st;
}

static sc_status between_run(sc_context *c, const sc_spheres *a, const sc_spheres *b,
                             sc_query_fn fn, void *arg) {
    if (!c)
        return SC_ERR_INVALID_ARGUMENT;
    const double t0 = sc_now();
    sc_view va, vb;
    sc_status st = a && b ? sc_view_make(a, &va) : SC_ERR_INVALID_ARGUMENT;
    if (st == SC_OK)
        st = sc_view_make(b, &vb);
    if (st == SC_OK && va.n && vb.n && (a->z == NULL) != (b->z == NULL))
        st = SC_ERR_INVALID_ARGUMENT; /* one 2-D and one 3-D set */
    if (st == SC_OK && a->count + b->count > SC_MAX_SPHERES)
        st = SC_ERR_TOO_MANY_SPHERES;
    if (st != SC_OK)
        return sc_engine_failed(c, st);
    const bool periodic = sc_box_periodic(&c->opt.box);
    const bool d3 = (va.n ? a->z : b->z) != NULL; /* an empty set takes the other's dims */
    sc_wrap wrap;
    if (periodic)
        sc_wrap_plan(&c->opt.box, d3 ? 3 : 2, &wrap);
    const bool a_small = va.n <= vb.n;
    const sc_spheres *small = a_small ? a : b;
    const sc_view *vs = a_small ? &va : &vb, *vl = a_small ? &vb : &va;
    /* as the engine does: a thread per SC_SPHERES_PER_THREAD at most; the
     * filter and the search take the team the load choice made for the
     * query's whole size (a choice keyed on each stage's own size would
     * start over at every stage) */
    c->load_n = va.n + vb.n;
    const size_t threads = (size_t)sc_context_team(c, vl->n);

    /* the large set's candidates: all of it, or those the filter keeps */
    const sc_allocator *al = sc_context_allocator(c);
    const uint32_t *map = NULL;
    size_t nl = vl->n;
    occupancy o;
    sc_kept_rows kept_rows = {0, NULL, NULL, NULL, NULL};
    if (vs->n == 0) { /* nothing meets an empty set; the other is still checked */
        if ((st = first_problem(a, b, periodic, (int)threads)) != SC_OK)
            return sc_engine_failed(c, st);
        nl = 0;
    } else if (vs->n * FILTER_RATIO <= vl->n) {
        /* before its boxes are made */
        if ((periodic ? sc_periodic_check(small) : sc_spheres_check(small, NULL, (int)threads)) !=
            SC_OK)
            return sc_engine_failed(c, first_problem(a, b, periodic, (int)threads));
        /* four counts a thread, the candidates' indices, and, outside a
         * periodic box (where the joint view is wrapped), room for the
         * rows the filter copies */
        const size_t counts = 4 * threads * sizeof(size_t);
        const size_t at_rows = (counts + sizeof(uint32_t) * vl->n + 63) / 64 * 64;
        const bool copy = !periodic;
        /* reserved for the widest team (c->room), laid out for this one */
        const size_t room = (size_t)c->room > threads ? (size_t)c->room : threads;
        const size_t at_rows_room =
            (4 * room * sizeof(size_t) + sizeof(uint32_t) * vl->n + 63) / 64 * 64;
        if (!sc_buf_reserve(al, &c->survivors,
                            copy ? at_rows_room + kept_rows_room(vl->n, room) : at_rows_room))
            return sc_engine_failed(c, SC_ERR_OUT_OF_MEMORY);
        if (occupancy_build(c, vs, vl->n, periodic ? &wrap : NULL, &o, (int)threads,
                            c->survivors.p)) {
            uint32_t *idx = (uint32_t *)(void *)((char *)c->survivors.p + counts);
            double *rows = copy ? (double *)(void *)((char *)c->survivors.p + at_rows) : NULL;
            nl = filter_large(vl, &o, idx, c->survivors.p, rows, &kept_rows, (int)threads,
                              group_filter(c));
            if (nl == SIZE_MAX)
                return sc_engine_failed(c, first_problem(a, b, periodic, (int)threads));
            map = idx;
        }
    }
    const double t_filter = sc_now() - t0;

    const sc_part ps = {small, vs, NULL, vs->n}, pl = {a_small ? b : a, vl, map, nl};
    const sc_part *p1 = a_small ? &ps : &pl, *p2 = a_small ? &pl : &ps;
    between_query q = {{true, (uint32_t)p1->n, p1->map, p2->map, va.n, vb.n}, fn, arg};
    if (periodic) { /* periodic.c validates, wraps, images and searches */
        const sc_part parts[2] = {*p1, *p2};
        st = sc_periodic_parts(c, parts, 2, d3 ? 3 : 2, crossing, &q, t0); /* times from t0 */
        sc_context_log(c, SC_LOG_DEBUG, "between: %zu x %zu spheres, %zu of the larger searched",
                       va.n, vb.n, nl);
        return st;
    }

    /* With the grid, the candidates filtered from the larger set are
     * probed against a grid of the smaller one (probe.c): no pair within
     * a set is tested. The joint search below is the fallback (S's radii
     * too spread for one grid, probes too costly) and every other peer's. */
    if (map && (sc_peer_of(c->opt.algorithm)->caps & SC_PEER_PROBE)) {
        sc_probe pr;
        const double t1 = sc_now();
        const uint32_t small_at = a_small ? 0 : (uint32_t)nl;
        const uint32_t large_at = a_small ? (uint32_t)vs->n : 0;
        if (sc_probe_plan(c, &ps, small_at, nl, (int)threads, &pr)) {
            const double t2 = sc_now();
            if (sc_probe_candidates(&pl, large_at, kept_rows.rows ? &kept_rows : NULL, &pr,
                                    (int)threads)) {
                const double t3 = sc_now();
                st = sc_engine_run_built(c, vs->n + nl, true, sc_probe_build, &pr, crossing, &q);
                c->stats.seconds[SC_STAGE_BOUNDS] += t_filter;
                c->stats.seconds[SC_STAGE_SORT] += t2 - t1;
                c->stats.seconds[SC_STAGE_GATHER] += t3 - t2;
                c->stats.total_seconds = sc_now() - t0;
                sc_context_log(c, SC_LOG_DEBUG,
                               "between: %zu x %zu spheres, %zu of the larger probed (%d of "
                               "the smaller past the grid's pad, %zu windows past two cells, "
                               "in %s order)",
                               va.n, vb.n, nl, pr.nbig, pr.wide, pr.sorted ? "cell" : "index");
                return st;
            }
        }
    }

    /* the joint view, A's part first */
    const size_t n = vs->n + nl;
    if (!sc_buf_reserve(al, &c->joint, 4 * sizeof(double) * (n ? n : 1)))
        return sc_engine_failed(c, SC_ERR_OUT_OF_MEMORY);
    double *rows = c->joint.p;
    const double t1 = sc_now();
    const sc_kept_rows *kr = kept_rows.rows ? &kept_rows : NULL;
    copy_part(p1, kr, rows, (int)threads);
    copy_part(p2, kr, rows + 4 * p1->n, (int)threads);
    const double t_copy = sc_now() - t1;
    const sc_spheres joint = {n,
                              SC_F64,
                              4 * sizeof(double),
                              rows,
                              rows + 1,
                              d3 ? rows + 2 : NULL,
                              rows + 3,
                              4 * sizeof(double)};
    st = sc_engine_run(c, &joint, crossing, &q);
    c->stats.seconds[SC_STAGE_BOUNDS] += t_filter;
    c->stats.seconds[SC_STAGE_GATHER] += t_copy;
    c->stats.total_seconds = sc_now() - t0;
    sc_context_log(c, SC_LOG_DEBUG, "between: %zu x %zu spheres, %zu of the larger searched", va.n,
                   vb.n, nl);
    return st;
}

sc_status sc_count_between(sc_context *c, const sc_spheres *a, const sc_spheres *b,
                           sc_summary *out) {
    if (!out)
        return SC_ERR_INVALID_ARGUMENT;
    out->pairs = out->checksum = 0;
    return between_run(c, a, b, sc_engine_count, out);
}

sc_status sc_stream_between(sc_context *c, const sc_spheres *a, const sc_spheres *b, sc_pair_fn fn,
                            void *user, sc_summary *out) {
    if (out)
        out->pairs = out->checksum = 0;
    if (!fn)
        return SC_ERR_INVALID_ARGUMENT;
    sc_engine_stream_arg s = {fn, user};
    const sc_status st = between_run(c, a, b, sc_engine_stream, &s);
    if (out && c) {
        out->pairs = c->stats.pairs;
        out->checksum = c->stats.checksum;
    }
    return st;
}

sc_status sc_fill_between(sc_context *c, const sc_spheres *a, const sc_spheres *b, uint32_t *pairs,
                          size_t capacity, size_t *needed, sc_summary *out) {
    sc_fill f;
    sc_status st = sc_fill_begin(&f, pairs, capacity, needed, out);
    if (st != SC_OK)
        return st;
    if (!b) /* not a one-set query: B is required */
        return SC_ERR_INVALID_ARGUMENT;
    sc_summary s = {0, 0};
    st = sc_stream_between(c, a, b, sc_fill_take, &f, &s);
    return sc_fill_end(&f, st, &s, needed, out);
}
