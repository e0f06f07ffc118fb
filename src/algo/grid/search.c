/*
 * search.c: the search stage. Takes the row table, the sorted keys
 * and the gathered working copy and a kernel; hands every intersecting pair
 * to the sink exactly once.
 *
 * Geometry. A sphere of level l sits in row (z, y) of that level and at fine
 * x coordinate X (1/8 of a level-0 cell). A partner of level l' >= l is
 * within one level-l' cell: in a row (z', y') of level l' with |z' - z>>s|,
 * |y' - y>>s| <= 1 (s = l' - l), and with |X' - X| <= w(l, l'), at most a
 * level-l' cell and less where the two levels' largest radii do not reach
 * that far (keys.c shows why the rounded coordinates keep this exact). So
 * each home sphere i tests, in sorted order, windows of those rows:
 *   - its own row, forward: j > i with X_j <= X_i + w(l, l);
 *   - rows (dz, dy) = (0, 1), (1, -1), (1, 0), (1, 1) of its level, both
 *     sides (a half stencil: each pair of rows of a level is visited from
 *     exactly one side);
 *   - the 9 rows around its parent row in every coarser non-empty level
 *     less those whose box lies out of reach of the home row's (add_nb),
 *     unless the build chose to find that pair of levels from the coarser
 *     side (test_block_down). A level's short rows among them are merged
 *     by X into one strip with one window (make_strip).
 * Rows are sorted by X, so as i walks its row every window only moves
 * forward: O(1) amortised per sphere and per row, streaming memory. Rows are
 * found once per home row by cursors that move forward through the row table
 * (falling back to a binary search when a target goes backwards: a new home
 * row under a coarser parent, or a wrap), one lookup per run of up to three
 * rows of one z slab, whose keys are consecutive (add_run). Where the plan
 * says an axis may wrap, neighbours are taken modulo 2^bits, and X windows
 * that cross the wrap get a second, binary-searched range.
 *
 * Work is split into chunks of consecutive sorted spheres (a chunk may cut a
 * row; chunk size depends on n only, so the chunk order, and with it the
 * streamed pair order, is the same for every thread count); the shared
 * scheduler (schedule.c) runs them. Contiguous runs of chunks per thread
 * matter here: the neighbour rows one chunk reads are still in that core's
 * cache when a later chunk makes them home rows (handing chunks out in turn
 * made each core fetch every row: 8% slower search at uniform 10^6, 2
 * threads; schedule(static) or guided instead: 17-20% slower on the
 * powerlaw generator).
 */
#include "grid.h"

#include <string.h>

#include <simde/x86/sse2.h>

#define NB_MAX (5 + 9 * (SC_MAX_LEVELS - 1))
/* Neighbour rows of at most this many spheres skip their windows, or join
 * their level's strip. */
#define SHORT_ROW 8
/* Strip entries of one home row: at most 9 short rows in each of at most
 * SC_MAX_LEVELS - 1 coarser levels. */
#define STRIP_ALL (9 * SHORT_ROW * (SC_MAX_LEVELS - 1))
#define ROW_SLOTS (4 + 9 * SC_MAX_LEVELS)
#define LIST_CAP 2048 /* candidates per kernel call; more are split */
/* A block's spheres span at most this many cells of their level in x
 * (bounded, so that sparse fine rows of the hierarchy do not test many
 * more candidates: docs/decisions/0003-stage-tuning.md). */
#define BLOCK_SPAN_CELLS 2
#define BLOCK_SPAN_CELLS_1 4 /* home rows with no coarser level to query */

typedef struct cursor {
    size_t pos;
    uint64_t last;
    int valid;
} cursor;

/* A neighbour row of the current home row and the window in it. */
typedef struct nbrow {
    uint32_t rs, re; /* spheres of the row */
    uint32_t lo, hi; /* current window (both rs at first) */
    uint64_t w;      /* half width in X units */
    uint32_t fast;   /* list_range_w's fast path: 8, 16 or 32 */
} nbrow;

/* The short rows of one coarser level around a home row, merged into one
 * list sorted by X (x[0 .. n), sphere j[k] at X x[k]) with one window: a
 * fine home block then moves two window ends per level, not per row. */
typedef struct strip {
    uint32_t *x, *j;
    uint32_t n, lo, hi;
    uint64_t w;
} strip;

typedef struct walker {
    const sc_rows *rows;
    const sc_grid_plan *plan;
    const uint64_t *key;
    const uint32_t *xq; /* X of each sphere */
    uint64_t xmask, xw; /* X field mask and modulus */
    cursor cur[ROW_SLOTS];
    nbrow nb[NB_MAX];
    int nnb;
    int nnb_coarser;        /* neighbour rows in coarser levels, and strips */
    int64_t home_z, home_y; /* the home row's cell at its level */
    int home_level;
    double hy[2], hz[2];  /* the home row's box on y and z (sc_grid_row_box) */
    double hr;            /* no radius in the home row exceeds this */
    const uint32_t *down; /* sc_grid_state.down */
    strip st[SC_MAX_LEVELS];
    int nst;
    uint32_t list[LIST_CAP + 32];
    /* the strips' X and sphere index, strip after strip, with room for
     * advance's reads past the last and list_copy's 16-entry copies */
    uint32_t sx[STRIP_ALL + 2 * SC_BLOCK], sj[STRIP_ALL + 16];
} walker;

/* First row in [lo, hi) with key >= key. */
static size_t lower_bound(const uint64_t *keys, size_t lo, size_t hi, uint64_t key) {
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t cursor_find(cursor *c, const uint64_t *keys, size_t lo, size_t hi, uint64_t key) {
    size_t p;
    if (c->valid && key >= c->last) {
        p = c->pos;
        int steps = 0; /* short hops are the common case; long ones bisect */
        while (p < hi && keys[p] < key && steps < 8) {
            p++;
            steps++;
        }
        if (p < hi && keys[p] < key)
            p = lower_bound(keys, p, hi, key);
    } else {
        p = lower_bound(keys, lo, hi, key);
    }
    c->pos = p;
    c->last = key;
    c->valid = 1;
    return p;
}

/* First sphere in [lo, hi) whose X >= x (spheres of one row, sorted by X). */
static uint32_t x_lower(const uint32_t *xq, uint32_t lo, uint32_t hi, uint64_t x) {
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (xq[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* How far apart the intervals [alo, ahi] and [blo, bhi] are, as computed
 * (0 where they meet or overlap). */
static inline double box_gap(double alo, double ahi, double blo, double bhi) {
    const double up = alo - bhi, down = blo - ahi;
    const double g = up > down ? up : down;
    return g > 0.0 ? g : 0.0;
}

/* Key of row (z, y) of `level`. */
static inline uint64_t row_key(const sc_grid_plan *p, int level, int64_t z, int64_t y) {
    return ((uint64_t)level << p->level_shift) | sc_grid_zy(p, level, (uint64_t)z, (uint64_t)y)
                                                     << p->shift[1];
}

/* Appends row r of the row table as a neighbour row with half width `half`. */
static inline void push_nb(walker *w, size_t r, uint64_t half) {
    nbrow *nb = &w->nb[w->nnb++];
    nb->rs = w->rows->start[r];
    nb->re = w->rows->start[r + 1];
    nb->lo = nb->hi = nb->rs;
    nb->w = half;
    nb->fast = 8;
}

/* Whether row y of a coarser `level`, whose box lies gz from the home
 * row's on z, is out of reach: sr = fl(hr + rl), the two rows' largest
 * radii. Only coarser rows can be: the home level's neighbour cells touch
 * the home cell. A culled row holds no partner of any home sphere, in the
 * predicate's own rounding: for home i and candidate j,
 * fl(lo_j - hi_i) <= fl(yj - yi) (lo_j <= yj, yi <= hi_i, rounding is
 * monotone), so the computed |dy| >= gy, likewise |dz| >= gz, and
 * d2 = fl(fl(dx^2 + dy^2) + dz^2) >= fl(gy^2 + gz^2); while
 * s = fl(ri + rj) <= sr. So g2 > fl(sr^2) means d2 > s^2 for every such
 * pair: the row is not even looked up. */
static inline int row_culled(const sc_grid_plan *p, int level, int64_t y, const walker *w,
                             double gz, double sr) {
    double ylo, yhi;
    sc_grid_row_box(p, 1, level, y, &ylo, &yhi);
    const double gy = box_gap(ylo, yhi, w->hy[0], w->hy[1]);
    return gy * gy + gz * gz > sr * sr;
}

/* Adds row (z, y) of `level` as a neighbour, if it exists. */
static void add_nb(walker *w, cursor *c, int level, int64_t z, int64_t y, uint64_t half) {
    const sc_grid_plan *p = w->plan;
    const int64_t wz = (int64_t)1 << (p->bits[2] - level), wy = (int64_t)1 << (p->bits[1] - level);
    if (p->wrap[2])
        z &= wz - 1;
    else if (z < 0 || z >= wz)
        return;
    if (p->wrap[1])
        y &= wy - 1;
    else if (y < 0 || y >= wy)
        return;
    if (level != w->home_level) { /* row_culled says why */
        double zlo, zhi;
        sc_grid_row_box(p, 2, level, z, &zlo, &zhi);
        if (row_culled(p, level, y, w, box_gap(zlo, zhi, w->hz[0], w->hz[1]),
                       w->hr + p->rlevel[level]))
            return;
    }
    const sc_rows *rw = w->rows;
    const uint64_t key = row_key(p, level, z, y);
    const size_t lo = rw->level_begin[level], hi = rw->level_begin[level + 1];
    const size_t r = c ? cursor_find(c, rw->key, lo, hi, key) : lower_bound(rw->key, lo, hi, key);
    if (r < hi && rw->key[r] == key)
        push_nb(w, r, half);
}

/* Adds rows (z, y0) .. (z, y1) of `level` (y1 - y0 <= 2), those that exist
 * and are in reach, in ascending y: the same rows as add_nb on each, in the
 * same order. Without Morton rows, and away from a y wrap, they are
 * consecutive keys of one z slab, so one cursor lookup finds the first and
 * the rest follow in the row table. `c` points at 3 cursors. */
static void add_run(walker *w, cursor *c, int level, int64_t z, int64_t y0, int64_t y1,
                    uint64_t half) {
    const sc_grid_plan *p = w->plan;
    const int64_t wz = (int64_t)1 << (p->bits[2] - level), wy = (int64_t)1 << (p->bits[1] - level);
    if (p->morton || (p->wrap[1] && (y0 < 0 || y1 >= wy))) {
        for (int64_t y = y0; y <= y1; y++)
            add_nb(w, &c[y - y0], level, z, y, half);
        return;
    }
    if (p->wrap[2])
        z &= wz - 1;
    else if (z < 0 || z >= wz)
        return;
    if (y0 < 0)
        y0 = 0;
    if (y1 >= wy)
        y1 = wy - 1;
    const int coarser = level != w->home_level; /* row_culled says why */
    double gz = 0.0, sr = 0.0;
    if (coarser) {
        double zlo, zhi;
        sc_grid_row_box(p, 2, level, z, &zlo, &zhi);
        gz = box_gap(zlo, zhi, w->hz[0], w->hz[1]);
        sr = w->hr + p->rlevel[level];
        /* the ends out of reach are not looked up */
        for (; y0 <= y1; y0++)
            if (!row_culled(p, level, y0, w, gz, sr))
                break;
        for (; y1 >= y0; y1--)
            if (!row_culled(p, level, y1, w, gz, sr))
                break;
    }
    if (y0 > y1)
        return;
    const sc_rows *rw = w->rows;
    const uint64_t k0 = row_key(p, level, z, y0);
    const uint64_t k1 = k0 + ((uint64_t)(y1 - y0) << p->shift[1]);
    const size_t hi = rw->level_begin[level + 1];
    for (size_t r = cursor_find(c, rw->key, rw->level_begin[level], hi, k0);
         r < hi && rw->key[r] <= k1; r++) {
        /* the ends passed above: only a middle row may still be out of reach */
        if (coarser && y1 - y0 == 2 && rw->key[r] == k0 + ((uint64_t)1 << p->shift[1]) &&
            row_culled(p, level, y0 + 1, w, gz, sr))
            continue;
        push_nb(w, r, half);
    }
}

/* Moves the short rows among nb[a ..] (one coarser level, windows of half
 * width h) into a new strip, merged by X, where there are two or more (one
 * is as cheap taken whole). `used` counts the strip buffer's entries. */
static void make_strip(walker *w, int a, uint64_t h, uint32_t *used) {
    int shorts = 0;
    for (int k = a; k < w->nnb; k++)
        shorts += w->nb[k].re - w->nb[k].rs <= SHORT_ROW;
    if (shorts < 2)
        return;
    strip *st = &w->st[w->nst++];
    st->x = w->sx + *used;
    st->j = w->sj + *used;
    st->n = st->lo = st->hi = 0;
    st->w = h;
    int keep = a;
    for (int k = a; k < w->nnb; k++) {
        const nbrow nb = w->nb[k];
        if (nb.re - nb.rs > SHORT_ROW) {
            w->nb[keep++] = nb;
            continue;
        }
        /* merge from the back: ties keep the strip's entries first */
        uint32_t i = st->n, m = nb.re - nb.rs, o = st->n + m;
        while (m > 0) {
            const uint32_t jr = nb.rs + m - 1;
            o--;
            if (i > 0 && st->x[i - 1] > w->xq[jr]) {
                i--;
                st->x[o] = st->x[i];
                st->j[o] = st->j[i];
            } else {
                st->x[o] = w->xq[jr];
                st->j[o] = jr;
                m--;
            }
        }
        st->n += nb.re - nb.rs;
    }
    w->nnb = keep;
    *used += st->n;
}

/* The neighbour rows of home row `ri` (level `level`). */
static void home_row(walker *w, size_t ri, int level) {
    const sc_grid_plan *p = w->plan;
    const sc_rows *rw = w->rows;
    const uint64_t key = rw->key[ri];
    uint64_t zu, yu;
    sc_grid_zy_split(p, level,
                     (key >> p->shift[1]) & (((uint64_t)1 << (p->bits[1] + p->bits[2])) - 1), &zu,
                     &yu);
    const int64_t y = (int64_t)yu, z = (int64_t)zu;
    w->home_z = z;
    w->home_y = y;
    w->home_level = level;
    if (level + 1 < p->levels) { /* the box is for coarser rows only */
        sc_grid_row_box(p, 1, level, y, &w->hy[0], &w->hy[1]);
        sc_grid_row_box(p, 2, level, z, &w->hz[0], &w->hz[1]);
        w->hr = p->rlevel[level];
    }
    const uint64_t half = sc_grid_xhalf(p, level, level);
    w->nnb = 0;
    push_nb(w, ri, half); /* the own row: nb[0] */
    add_run(w, &w->cur[0], level, z, y + 1, y + 1, half);
    add_run(w, &w->cur[1], level, z + 1, y - 1, y + 1, half);
    const int same_level = w->nnb;
    uint32_t used = 0;
    w->nst = 0;
    for (int l = level + 1; l < p->levels; l++) {
        if (rw->level_begin[l] == rw->level_begin[l + 1] || (w->down[l] >> level & 1u))
            continue;
        const int s = l - level, first = w->nnb;
        const uint64_t lhalf = sc_grid_xhalf(p, level, l);
        for (int dz = -1; dz <= 1; dz++)
            add_run(w, &w->cur[4 + 9 * l + 3 * (dz + 1)], l, (z >> s) + dz, (y >> s) - 1,
                    (y >> s) + 1, lhalf);
        if (!p->wrap[0])
            make_strip(w, first, lhalf, &used);
    }
    for (int t = 0; t < 2 * SC_BLOCK; t++) /* what advance reads past the last strip */
        w->sx[used + t] = UINT32_MAX;
    w->nnb_coarser = w->nnb - same_level + w->nst;
    /* The home row's density stands for its neighbours': a window of
     * 2 half widths plus a block holds about d 2 half + SC_BLOCK spheres,
     * d its spheres per X unit: more than 8 where d half > 2, more than 14
     * where d half > 5: list_range_w then writes 16 or 32 entries. */
    const uint32_t rs = rw->start[ri], re = rw->start[ri + 1];
    if (re - rs > SHORT_ROW) { /* shorter rows keep 8 (push_nb) */
        const uint64_t xspan = (uint64_t)w->xq[re - 1] - w->xq[rs];
        const uint64_t dh = (uint64_t)(re - rs - 1) * half;
        const uint32_t fast = dh > 5 * xspan ? 32 : dh > 2 * xspan ? 16 : 8;
        for (int k = 0; k < same_level; k++)
            w->nb[k].fast = fast;
    }
}

_Static_assert(SC_BLOCK == 4, "the lane helpers below hold a block in 4 lanes");

/* A window end's target: spheres with X below `lim` are passed. */
typedef struct xlimit {
    uint32_t lim;   /* <= 2^22 + 1 */
    simde__m128i v; /* lim in every lane */
} xlimit;

/* Passes X <= x when `incl`, X < x otherwise. */
static inline xlimit x_limit(uint64_t x, int incl) {
    xlimit l;
    l.lim = (uint32_t)(x + (uint64_t)incl);
    /* X < 2^22 and lim <= 2^22 + 1: signed 32-bit compares are exact. */
    l.v = simde_mm_set1_epi32((int)l.lim);
    return l;
}

/* First sphere at or after p in [p, re) whose X is not below the limit: up
 * to 2 * SC_BLOCK branch-free steps (windows move by about one sphere per
 * home sphere), then a bisection in the rare long jump. Reading up to
 * 2 * SC_BLOCK keys past re is safe: the key array is padded. */
static inline uint32_t advance(const uint32_t *xq, uint32_t p, uint32_t re, const xlimit *l) {
    /* X is sorted within the row, so the entries below the limit are a
     * prefix: count them with independent compares (vectorised) instead of
     * a chain of dependent loads. Entries past re belong to the next row and
     * may extend the prefix; clamping the count to re - p discards them. */
    const simde__m128i a = simde_mm_loadu_si128((const simde__m128i *)(const void *)(xq + p));
    const simde__m128i b = simde_mm_loadu_si128((const simde__m128i *)(const void *)(xq + p + 4));
    /* The mask is a prefix: its length is the first clear bit, found with a
     * plain bit scan (the library's baseline has no POPCNT). */
    const unsigned mask =
        (unsigned)simde_mm_movemask_ps(simde_mm_castsi128_ps(simde_mm_cmplt_epi32(a, l->v))) |
        ((unsigned)simde_mm_movemask_ps(simde_mm_castsi128_ps(simde_mm_cmplt_epi32(b, l->v))) << 4);
    uint32_t c = (uint32_t)__builtin_ctz(~mask);
    c = c < re - p ? c : re - p;
    p += c;
    if (__builtin_expect(c == 2 * SC_BLOCK && p < re && xq[p] < l->lim, 0)) {
        /* gallop: most long jumps are a few dozen spheres */
        uint32_t step = 4 * SC_BLOCK;
        while (p + step < re && xq[p + step] < l->lim) {
            p += step;
            step *= 2;
        }
        p = x_lower(xq, p, p + step < re ? p + step : re, l->lim);
    }
    return p;
}

/* The candidate list of one home block, filled range by range as the
 * windows move; the kernel runs on it at the end, or earlier when it fills
 * (LIST_CAP candidates per call). */
typedef struct block_list {
    walker *w;
    sc_kernel_args *args;
    sc_kernel_fn kernel;
    sc_hits *hits;
    uint32_t m;
    uint64_t tests;
} block_list;

static void list_flush(block_list *bl) {
    bl->args->cand = bl->w->list;
    bl->args->ncand = bl->m;
    bl->tests += bl->kernel(bl->args, bl->hits);
    bl->args->tri_end = 0; /* the own-row triangle is done */
    bl->m = 0;
}

/* Appends the candidates j0 .. j1 - 1. The common case (at most `fast`, 8,
 * 16 or 32, and room left) writes `fast` entries with no test on the
 * length; only j1 - j0 of them count. The list has 32 slots of slack past
 * LIST_CAP for that. Rows whose windows are expected to be longer than 8
 * take 16 or 32 (home_row): where lengths straddle the limit the test on
 * the length mispredicts, and where they stay well under it the extra
 * stores cost. */
static inline void list_range_w(block_list *bl, uint32_t j0, uint32_t j1, uint32_t fast) {
    uint32_t *list = bl->w->list;
    if (__builtin_expect(j1 - j0 <= fast && bl->m <= LIST_CAP, 1)) {
        const simde__m128i four = simde_mm_set1_epi32(4);
        simde__m128i v =
            simde_mm_add_epi32(simde_mm_set1_epi32((int)j0), simde_mm_setr_epi32(0, 1, 2, 3));
        uint32_t *at = list + bl->m;
        simde_mm_storeu_si128((simde__m128i *)(void *)at, v);
        simde_mm_storeu_si128((simde__m128i *)(void *)(at + 4), simde_mm_add_epi32(v, four));
        if (fast > 8) {
            const simde__m128i eight = simde_mm_add_epi32(four, four);
            for (uint32_t t = 8; t < fast; t += 8) {
                at += 8;
                v = simde_mm_add_epi32(v, eight);
                simde_mm_storeu_si128((simde__m128i *)(void *)at, v);
                simde_mm_storeu_si128((simde__m128i *)(void *)(at + 4),
                                      simde_mm_add_epi32(v, four));
            }
        }
        bl->m += j1 - j0;
        return;
    }
    simde__m128i v =
        simde_mm_add_epi32(simde_mm_set1_epi32((int)j0), simde_mm_setr_epi32(0, 1, 2, 3));
    const simde__m128i four = simde_mm_set1_epi32(4);
    while (j0 < j1) {
        if (bl->m + 8 > LIST_CAP)
            list_flush(bl);
        const uint32_t take = j1 - j0 < 8 ? j1 - j0 : 8;
        simde_mm_storeu_si128((simde__m128i *)(void *)(list + bl->m), v);
        v = simde_mm_add_epi32(v, four);
        simde_mm_storeu_si128((simde__m128i *)(void *)(list + bl->m + 4), v);
        v = simde_mm_add_epi32(v, four);
        bl->m += take;
        j0 += take;
    }
}

static inline void list_range(block_list *bl, uint32_t j0, uint32_t j1) {
    list_range_w(bl, j0, j1, 8);
}

/* Appends the m candidates at j (readable 16 entries past m). At most 16
 * (room left) are one 16-entry copy with no loop. */
static inline void list_copy(block_list *bl, const uint32_t *j, uint32_t m) {
    uint32_t *list = bl->w->list;
    if (__builtin_expect(m <= 16 && bl->m <= LIST_CAP, 1)) {
        memcpy(list + bl->m, j, 16 * sizeof *j);
        bl->m += m;
        return;
    }
    while (m > 0) {
        if (bl->m > LIST_CAP)
            list_flush(bl);
        const uint32_t take = m < 8 ? m : 8;
        memcpy(list + bl->m, j, 8 * sizeof *j);
        bl->m += take;
        j += take;
        m -= take;
    }
}

/* Appends the candidates of neighbour rows nb[1 ..] and of the strips for
 * home spheres with X in [xf, xl]: in each row, X within its half width w
 * of that span, plus the parts that cross the x wrap where the plan says x
 * may wrap. Windows only move forward: successive calls take spans that do
 * not move backwards. */
static void scan_rows(walker *w, block_list *bl, uint64_t xf, uint64_t xl) {
    const int wrap = w->plan->wrap[0];
    /* Rows with the same half width (those of one level; the home level's
     * come first) share the window's limits, set when the width changes. */
    uint64_t h = 0;
    xlimit lo_lim = x_limit(0, 0), hi_lim = x_limit(0, 0);
    for (int k = 1; k < w->nnb; k++) {
        nbrow *nb = &w->nb[k];
        /* A short row is taken whole: a few more candidate tests (four home
         * spheres a vector) cost less than moving its two window ends. Its
         * windows and their wrapped parts are subsets of it, so no
         * candidate is lost or met twice. */
        if (nb->re - nb->rs <= SHORT_ROW) {
            list_range(bl, nb->rs, nb->re);
            continue;
        }
        const uint64_t top = xl + nb->w;
        if (nb->w != h) {
            h = nb->w;
            lo_lim = x_limit(xf >= h ? xf - h : 0, 0);
            hi_lim = x_limit(top < w->xw ? top : w->xw - 1, 1);
        }
        /* A fresh row starts with lo = hi = its first sphere: a home row
         * starts at its smallest X, so the first window usually starts near
         * the neighbour row's start too, and the short forward scan beats a
         * bisection (and its mispredicts). */
        const uint32_t lo = advance(w->xq, nb->lo, nb->re, &lo_lim);
        const uint32_t hi = advance(w->xq, nb->hi > lo ? nb->hi : lo, nb->re, &hi_lim);
        nb->lo = lo;
        nb->hi = hi;
        list_range_w(bl, lo, hi, nb->fast);
        if (wrap) {
            if (xf < h) { /* X in [xw - (h - xf), xw) */
                uint32_t b = x_lower(w->xq, nb->rs, nb->re, w->xw - (h - xf));
                if (b < nb->re)
                    list_range(bl, b, nb->re);
            }
            if (top >= w->xw) { /* X in [0, top - xw] */
                uint32_t e = x_lower(w->xq, nb->rs, nb->re, top - w->xw + 1);
                if (e > nb->rs)
                    list_range(bl, nb->rs, e);
            }
        }
    }
    /* The strips: x does not wrap where there are any. */
    for (int k = 0; k < w->nst; k++) {
        strip *st = &w->st[k];
        const uint64_t hs = st->w;
        const xlimit sl = x_limit(xf >= hs ? xf - hs : 0, 0);
        const xlimit sh = x_limit(xl + hs < w->xw ? xl + hs : w->xw - 1, 1);
        const uint32_t lo = advance(st->x, st->lo, st->n, &sl);
        const uint32_t hi = advance(st->x, st->hi > lo ? st->hi : lo, st->n, &sh);
        st->lo = lo;
        st->hi = hi;
        list_copy(bl, st->j + lo, hi - lo);
    }
}

/* Moves the windows to the home block [i0, i0 + ni) and tests its
 * candidates: the own row's, the other neighbour rows' and the strips'.
 * Returns the candidate tests run. */
static uint64_t test_block(walker *w, sc_kernel_args *args, sc_kernel_fn kernel, sc_hits *hits) {
    const uint32_t i0 = args->i0, ni = args->ni;
    const uint64_t xf = w->xq[i0], xl = w->xq[i0 + ni - 1];
    block_list bl = {w, args, kernel, hits, 0, 0};
    {
        /* The own row (always nb[0]): j > i for some home sphere. The
         * kernel tests i0 + 1 .. i0 + ni - 1 as a triangle (below tri_end),
         * the list holds the rest of the window, past the block. */
        nbrow *nb = &w->nb[0];
        const uint64_t top = xl + nb->w; /* may exceed the X range: then it wraps */
        const uint64_t xhi = top < w->xw ? top : w->xw - 1;
        const uint32_t inext = i0 + ni;
        const xlimit lh = x_limit(xhi, 1);
        const uint32_t hi = advance(w->xq, nb->hi > inext ? nb->hi : inext, nb->re, &lh);
        nb->hi = hi;
        args->tri_end = hi;
        list_range_w(&bl, inext, hi > inext ? hi : inext, nb->fast);
        /* Across the upper wrap: j at the start of the row, j < i0 <= i
         * (every lane). The lower wrap is the partner's upper one. */
        if (w->plan->wrap[0] && top >= w->xw) {
            uint32_t e = x_lower(w->xq, nb->rs, i0, top - w->xw + 1);
            if (e > nb->rs)
                list_range(&bl, nb->rs, e);
        }
    }
    scan_rows(w, &bl, xf, xl);
    /* A lone sphere with no candidate has nothing to test: no kernel call
     * (sparse regions, where the call's fixed work is most of a block's). */
    if (bl.m || ni > 1)
        list_flush(&bl);
    return bl.tests;
}

/* The level-l cells under the 3 level-m cells around cell c of level m
 * (s = m - l) along an axis of `bits` key bits: one range, or two where the
 * axis wraps across its end. Returns how many ranges. */
static int under_ranges(int64_t c, int s, int bits, int m, bool wrap, int64_t lo[2],
                        int64_t hi[2]) {
    const int64_t pl = (int64_t)1 << (bits - (m - s)); /* level-l cells on the axis */
    int64_t a = (c - 1) * ((int64_t)1 << s), b = (c + 2) * ((int64_t)1 << s) - 1;
    if (!wrap) {
        lo[0] = a > 0 ? a : 0;
        hi[0] = b < pl - 1 ? b : pl - 1;
        return lo[0] <= hi[0];
    }
    /* the plan keeps >= 4 cells of every level per axis, so the 3 cells never
     * cover the axis twice */
    a &= pl - 1;
    b &= pl - 1;
    if (a <= b) {
        lo[0] = a;
        hi[0] = b;
        return 1;
    }
    lo[0] = 0, hi[0] = b;
    lo[1] = a, hi[1] = pl - 1;
    return 2;
}

/* Appends the spheres of row r whose X lies within h of the home block's
 * span [xf, xl], with the parts across the x wrap (bisections: these rows
 * are visited once per block, so no window to move). */
static void row_window(walker *w, block_list *bl, size_t r, uint64_t xf, uint64_t xl, uint64_t h) {
    const uint32_t rs = w->rows->start[r], re = w->rows->start[r + 1];
    const uint64_t top = xl + h;
    const uint32_t lo = x_lower(w->xq, rs, re, xf >= h ? xf - h : 0);
    const uint32_t hi = x_lower(w->xq, lo, re, (top < w->xw ? top : w->xw - 1) + 1);
    list_range(bl, lo, hi);
    if (w->plan->wrap[0]) {
        if (xf < h) {
            const uint32_t b = x_lower(w->xq, hi, re, w->xw - (h - xf));
            list_range(bl, b, re);
        }
        if (top >= w->xw) {
            const uint32_t e = x_lower(w->xq, rs, lo, top - w->xw + 1);
            list_range(bl, rs, e);
        }
    }
}

/* The rows of level l in slab z with y in [y0, y1], each searched for the
 * home block's window; rows are looked up from `from` on (keys ascend within
 * a slab). Returns the first row past them. */
static size_t slab_rows(walker *w, block_list *bl, int l, int64_t z, int64_t y0, int64_t y1,
                        size_t from, uint64_t xf, uint64_t xl, uint64_t h) {
    const sc_grid_plan *p = w->plan;
    const sc_rows *rw = w->rows;
    const size_t r1 = rw->level_begin[l + 1];
    if (p->morton) { /* rows of one z are not contiguous: each on its own */
        for (int64_t y = y0; y <= y1; y++) {
            const uint64_t k = row_key(p, l, z, y);
            const size_t r = lower_bound(rw->key, rw->level_begin[l], r1, k);
            if (r < r1 && rw->key[r] == k)
                row_window(w, bl, r, xf, xl, h);
        }
        return from;
    }
    const uint64_t khi = row_key(p, l, z, y1);
    size_t r = lower_bound(rw->key, from, r1, row_key(p, l, z, y0));
    for (; r < r1 && rw->key[r] <= khi; r++)
        row_window(w, bl, r, xf, xl, h);
    return r;
}

/* The pairs of the home block (of level m) with the finer levels that
 * down[m] names: for each, the rows under the block's 3 x 3 cells of level
 * m, each searched for the window |X - X_home| <= w(l, m). Without Morton rows,
 * z slabs that hold no row are skipped with one lookup. The same candidates
 * as the finer spheres' windows into this row would give, so every pair is
 * still tested exactly once. */
static uint64_t test_block_down(walker *w, sc_kernel_args *args, sc_kernel_fn kernel, sc_hits *hits,
                                int m) {
    const sc_grid_plan *p = w->plan;
    const sc_rows *rw = w->rows;
    const uint64_t xf = w->xq[args->i0], xl = w->xq[args->i0 + args->ni - 1];
    const uint64_t zy_mask = ((uint64_t)1 << (p->bits[1] + p->bits[2])) - 1;
    block_list bl = {w, args, kernel, hits, 0, 0};
    args->tri_end = 0; /* no own-row candidates */
    for (int l = 0; l < m; l++) {
        if (!(w->down[m] >> l & 1u))
            continue;
        const uint64_t h = sc_grid_xhalf(p, l, m);
        int64_t zlo[2], zhi[2], ylo[2], yhi[2];
        const int nz = under_ranges(w->home_z, m - l, p->bits[2], m, p->wrap[2], zlo, zhi);
        const int ny = under_ranges(w->home_y, m - l, p->bits[1], m, p->wrap[1], ylo, yhi);
        const size_t r0 = rw->level_begin[l], r1 = rw->level_begin[l + 1];
        for (int iz = 0; iz < nz; iz++) {
            size_t from = r0;
            for (int64_t z = zlo[iz]; z <= zhi[iz];) {
                for (int iy = 0; iy < ny; iy++)
                    from = slab_rows(w, &bl, l, z, ylo[iy], yhi[iy], from, xf, xl, h);
                if (p->morton) {
                    z++;
                    continue;
                }
                /* on to the next z that has a row at all */
                from = lower_bound(rw->key, from, r1, row_key(p, l, z + 1, 0));
                if (from == r1)
                    break;
                uint64_t zu, yu;
                sc_grid_zy_split(p, l, (rw->key[from] >> p->shift[1]) & zy_mask, &zu, &yu);
                z = (int64_t)zu;
            }
        }
    }
    if (bl.m)
        list_flush(&bl);
    return bl.tests;
}

/* How many of the spheres i, i + 1, ... (at most SC_BLOCK, none at or past
 * a1) lie within `span` of sphere i in X: branch-free, since where a block
 * ends is data-dependent and a loop's exit would mispredict about once per
 * block. X is sorted within the row, so those spheres are a prefix. */
static inline uint32_t block_size(const uint32_t *xq, uint32_t i, uint32_t a1, uint32_t span) {
    const uint64_t lim = (uint64_t)xq[i] + span; /* may exceed 2^31: then every X passes */
    uint32_t c;
    /* xq[i + 1 .. i + 3] (the fourth lane is ignored): padded past n. Signed
     * compares are exact since X < 2^22; lim is clamped to 2^31 - 1. */
    const int l = lim < 0x7fffffffu ? (int)lim : 0x7fffffff;
    const simde__m128i v = simde_mm_loadu_si128((const simde__m128i *)(const void *)(xq + i + 1));
    const unsigned mask = (unsigned)simde_mm_movemask_ps(
        simde_mm_castsi128_ps(simde_mm_cmpgt_epi32(v, simde_mm_set1_epi32(l))));
    c = (uint32_t)__builtin_ctz(mask | 8u); /* the first X > lim, or 3 */
    c = c < a1 - i - 1 ? c : a1 - i - 1;
    return 1 + c;
}

static inline int key_level(const sc_grid_plan *p, uint64_t key) {
    return (int)(key >> p->level_shift);
}

_Static_assert(sizeof(walker) <= SC_GRID_TLS_BYTES, "the walker lives in the peer's tls");

uint64_t sc_grid_search_chunk(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel,
                              sc_hits *hits, void *tls) {
    const sc_grid_state *g = b->state;
    const sc_work *wk = &b->work;
    const sc_rows *rw = &g->rows;
    const sc_grid_plan *plan = &g->plan;
    const size_t n = wk->n, cs = g->chunk_spheres;
    walker *w = tls;
    w->rows = rw;
    w->plan = plan;
    w->down = g->down;
    w->key = NULL;
    w->xq = g->xq;
    w->xw = (uint64_t)1 << plan->bits[0];
    w->xmask = w->xw - 1;
    sc_kernel_args args;
    args.x = wk->x;
    args.y = wk->y;
    args.z = wk->z;
    args.r = wk->r;
    args.perm = NULL;
#ifdef SC_STUDY
    if (g->indirect) {
        args.perm = wk->index;
        args.vx = g->view->x;
        args.vy = g->view->y;
        args.vz = g->view->z;
        args.vr = g->view->r;
        args.stride = g->view->stride;
        args.rstride = g->view->rstride;
        args.f64 = g->view->f64;
    }
#endif
    /* Blocks of SC_BLOCK home spheres share their windows. Where x may
     * wrap, a block's window [X_first - h, X_last + h] and its wrapped
     * parts stay disjoint while span + 2h < the X period; the plan keeps
     * that period >= 16 coarsest half widths, so capping the span at
     * period - 2 h_top - 1 is enough. */
    const uint64_t h_top = (uint64_t)1 << (SC_XFINE + plan->levels - 1);
    const uint32_t wrap_span = !plan->wrap[0]          ? UINT32_MAX
                               : w->xw > 2 * h_top + 1 ? (uint32_t)(w->xw - 2 * h_top - 1)
                                                       : 0;
    uint64_t tests = 0;
    const size_t s0 = chunk * cs, s1 = s0 + cs < n ? s0 + cs : n;
    for (int k = 0; k < ROW_SLOTS; k++)
        w->cur[k].valid = 0;
    /* Row holding s0: last row whose start <= s0. */
    size_t lo = 0, hi = rw->count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (rw->start[mid] <= s0)
            lo = mid;
        else
            hi = mid;
    }
    for (size_t ri = lo; ri < rw->count && rw->start[ri] < s1; ri++) {
        const uint32_t a0 = rw->start[ri] > s0 ? rw->start[ri] : (uint32_t)s0;
        const uint32_t a1 = rw->start[ri + 1] < s1 ? rw->start[ri + 1] : (uint32_t)s1;
        const int lev = key_level(plan, rw->key[ri]);
        home_row(w, ri, lev);
        /* A block takes up to SC_BLOCK consecutive spheres spanning at most
         * `span` in X: in sparse rows far-apart spheres would make the
         * shared windows needlessly wide. */
        uint32_t span = (w->nnb_coarser ? BLOCK_SPAN_CELLS : BLOCK_SPAN_CELLS_1)
                        << (SC_XFINE + lev);
        span = span < wrap_span ? span : wrap_span;
        for (uint32_t i = a0; i < a1; i += args.ni) {
            args.i0 = i;
            args.ni = block_size(w->xq, i, a1, span);
            tests += test_block(w, &args, kernel, hits);
            if (g->down[lev])
                tests += test_block_down(w, &args, kernel, hits, lev);
        }
    }
    return tests;
}
