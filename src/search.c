/*
 * search.c: stage 5, the pair search over cells. Takes the cell table, the
 * gathered working copy and a kernel; hands every intersecting pair to the
 * sink exactly once.
 *
 * Work is split into chunks of consecutive sorted spheres (a chunk may cut a
 * cell; chunk size depends on n only, so the chunk order, and with it the
 * streamed pair order, is the same for every thread count). For each home
 * cell (level l, coordinates z, y, x) the spheres of the chunk in it are
 * tested against:
 *   - their own cell from i + 1 on, and the cell x + 1 (contiguous in the
 *     sorted order: one range);
 *   - the rows (dz, dy) = (0, 1), (1, -1), (1, 0), (1, 1) of the same level,
 *     cells x - 1 .. x + 1 of a row being contiguous: a half stencil, so each
 *     pair of cells of a level is visited once;
 *   - for every coarser non-empty level l', the 27 cells around the parent
 *     cell (coordinates >> (l' - l)): pairs across levels are found from the
 *     finer side only.
 * Rows are found by cursors, one per (target level, row offset), that move
 * forward through the sorted cell keys as the home cell advances (O(1)
 * amortised, streaming through memory); a target behind the cursor (a new
 * row of home cells under a coarser parent, or a wrap of the key space) falls
 * back to a binary search. Coordinates wrap modulo 2^bits per axis (see
 * keys.c); the x - 1 / x + 1 neighbour across the wrap is looked up apart.
 */
#include "internal.h"
#include "output.h"

#define MAX_RANGES (2 + 4 * 2 + 9 * 2 * SC_MAX_LEVELS)
#define ROW_SLOTS (4 + 9 * SC_MAX_LEVELS)

typedef struct cursor {
    size_t pos;
    uint64_t last;
    int valid;
} cursor;

typedef struct walker {
    const sc_cells *cells;
    const sc_grid_plan *plan;
    cursor cur[ROW_SLOTS];
    sc_range ranges[MAX_RANGES];
    int nranges;
} walker;

size_t sc_search_chunk_spheres(size_t n) {
    size_t c = n / 1024;
    if (c < 256)
        c = 256;
    if (c > 8192)
        c = 8192;
    return c;
}

/* First cell in [lo, hi) with key >= key. */
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
        /* Short hops are the common case; long ones gallop. */
        int steps = 0;
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

static inline uint64_t row_key(const sc_grid_plan *p, int level, uint64_t z, uint64_t y,
                               uint64_t x) {
    return ((uint64_t)level << p->level_shift) | (z << p->shift[2]) | (y << p->shift[1]) |
           (x << p->shift[0]);
}

static void add_range(walker *w, size_t c0, size_t c1) {
    if (c0 >= c1)
        return;
    const uint32_t *start = w->cells->start;
    sc_range *r = &w->ranges[w->nranges++];
    r->j0 = start[c0];
    r->j1 = start[c1];
    r->tri = 0;
}

/* Cells with keys in [key(x0), key(x1)] of one row of a level. */
static void add_cells(walker *w, cursor *c, int level, uint64_t z, uint64_t y, uint64_t x0,
                      uint64_t x1) {
    const sc_cells *cl = w->cells;
    const size_t lo = cl->level_begin[level], hi = cl->level_begin[level + 1];
    const uint64_t k0 = row_key(w->plan, level, z, y, x0), k1 = row_key(w->plan, level, z, y, x1);
    size_t b = c ? cursor_find(c, cl->key, lo, hi, k0) : lower_bound(cl->key, lo, hi, k0);
    size_t e = b;
    while (e < hi && cl->key[e] <= k1)
        e++;
    add_range(w, b, e);
}

/* Cells x - 1 .. x + 1 of row (z, y) of a level whose x axis has `wx` cells. */
static void add_row(walker *w, cursor *c, int level, uint64_t z, uint64_t y, uint64_t x,
                    uint64_t wx) {
    if (x > 0 && x + 1 < wx) {
        add_cells(w, c, level, z, y, x - 1, x + 1);
    } else if (x == 0) {
        add_cells(w, c, level, z, y, 0, 1);
        add_cells(w, NULL, level, z, y, wx - 1, wx - 1);
    } else { /* x == wx - 1 */
        add_cells(w, c, level, z, y, x - 1, x);
        add_cells(w, NULL, level, z, y, 0, 0);
    }
}

/* Collects the candidate ranges of home cell `ci`. */
static void home_ranges(walker *w, size_t ci, int level) {
    const sc_grid_plan *p = w->plan;
    const sc_cells *cl = w->cells;
    const uint64_t key = cl->key[ci];
    const int bx = p->bits[0] - level, by = p->bits[1] - level, bz = p->bits[2] - level;
    const uint64_t wx = (uint64_t)1 << bx, wy = (uint64_t)1 << by, wz = (uint64_t)1 << bz;
    const uint64_t x = (key >> p->shift[0]) & (wx - 1);
    const uint64_t y = (key >> p->shift[1]) & (wy - 1);
    const uint64_t z = (key >> p->shift[2]) & (wz - 1);
    w->nranges = 0;

    /* Own cell from i + 1, plus cell x + 1 when it directly follows. */
    const size_t level_end = cl->level_begin[level + 1];
    size_t own_end = ci + 1;
    if (x + 1 < wx && own_end < level_end && cl->key[own_end] == key + ((uint64_t)1 << p->shift[0]))
        own_end++;
    sc_range *r = &w->ranges[w->nranges++];
    r->j0 = cl->start[ci];
    r->j1 = cl->start[own_end];
    r->tri = 1;
    if (x + 1 == wx)
        add_cells(w, NULL, level, z, y, 0, 0);

    /* Half stencil: rows (0,1), (1,-1), (1,0), (1,1). */
    static const int dzy[4][2] = {{0, 1}, {1, -1}, {1, 0}, {1, 1}};
    for (int k = 0; k < 4; k++) {
        uint64_t zz = (z + (uint64_t)(int64_t)dzy[k][0]) & (wz - 1);
        uint64_t yy = (y + (uint64_t)(int64_t)dzy[k][1]) & (wy - 1);
        add_row(w, &w->cur[k], level, zz, yy, x, wx);
    }

    /* Coarser levels: the 27 cells around the parent. */
    for (int l = level + 1; l < p->levels; l++) {
        if (cl->level_begin[l] == cl->level_begin[l + 1])
            continue;
        const int s = l - level;
        const uint64_t px = x >> s, py = y >> s, pz = z >> s;
        const uint64_t mx = (wx >> s) - 1, my = (wy >> s) - 1, mz = (wz >> s) - 1;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++) {
                cursor *c = &w->cur[4 + 9 * l + 3 * (dz + 1) + (dy + 1)];
                add_row(w, c, l, (pz + (uint64_t)(int64_t)dz) & mz, (py + (uint64_t)(int64_t)dy) & my,
                        px, mx + 1);
            }
    }
}

/* The level a cell key belongs to. */
static inline int key_level(const sc_grid_plan *p, uint64_t key) {
    return (int)(key >> p->level_shift);
}

sc_status sc_search_run(sc_search_job *job) {
    const sc_work *wk = job->work;
    const sc_cells *cl = job->cells;
    const size_t n = wk->n;
    if (n == 0 || cl->count == 0)
        return SC_OK;
    const size_t cs = sc_search_chunk_spheres(n);
    const size_t nchunks = (n + cs - 1) / cs;
    sc_sink *sink = job->sink;
    uint64_t tests = 0;
    size_t done = 0;
    const int progress_every = nchunks > 200 ? (int)(nchunks / 200) : 1;

#pragma omp parallel reduction(+ : tests)
    {
        const int tid = sc_thread_id();
        walker w;
        w.cells = cl;
        w.plan = job->plan;
        sc_kernel_args args;
        args.x = wk->x;
        args.y = wk->y;
        args.z = wk->z;
        args.r = wk->r;
        args.ranges = w.ranges;
        sc_hits *hits = &sink->th[tid].hits;

#pragma omp for schedule(dynamic, 1)
        for (size_t chunk = 0; chunk < nchunks; chunk++) {
            if (__atomic_load_n(&sink->stopped, __ATOMIC_RELAXED))
                continue;
            sc_sink_chunk_begin(sink, tid, chunk);
            const size_t s0 = chunk * cs, s1 = s0 + cs < n ? s0 + cs : n;
            for (int k = 0; k < ROW_SLOTS; k++)
                w.cur[k].valid = 0;
            /* Cell holding s0: last cell whose start <= s0. */
            size_t lo = 0, hi = cl->count;
            while (hi - lo > 1) {
                size_t mid = lo + (hi - lo) / 2;
                if (cl->start[mid] <= s0)
                    lo = mid;
                else
                    hi = mid;
            }
            for (size_t ci = lo; ci < cl->count && cl->start[ci] < s1; ci++) {
                const uint32_t a0 = cl->start[ci] > s0 ? cl->start[ci] : (uint32_t)s0;
                const uint32_t a1 = cl->start[ci + 1] < s1 ? cl->start[ci + 1] : (uint32_t)s1;
                home_ranges(&w, ci, key_level(job->plan, cl->key[ci]));
                args.a0 = a0;
                args.a1 = a1;
                args.nranges = w.nranges;
                tests += job->kernel(&args, hits);
            }
            sc_sink_chunk_end(sink, tid, chunk);
            size_t d = __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
            if (job->progress && tid == 0 && d % (size_t)progress_every == 0)
                job->progress((double)d / (double)nchunks, job->progress_user);
        }
    }
    sc_sink_finish(sink);
    job->candidate_tests = tests;
    if (job->progress)
        job->progress(1.0, job->progress_user);
    return sink->stopped ? SC_ERR_STOPPED : SC_OK;
}
