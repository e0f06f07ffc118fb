/*
 * probe.c: a two-set query's direct search. When between.c's filter has
 * cut the larger set down to the candidates near the smaller set S, a
 * joint search of S and the candidates would index both and find, then
 * drop, every pair among the candidates (most of its work: they are many
 * times S). Here only S is indexed, and each candidate is tested against
 * the S spheres near it:
 *
 *   plan        S's pads -> one uniform grid of at most CELLS_PER_SPHERE
 *               cells per sphere of S (not used when S is dense in it);
 *               its few much larger spheres (SC_PROBE_BIG at most) in a
 *               list every candidate tests; S counting-sorted by cell
 *               into arrays
 *   candidates  the kept spheres of the larger set copied as rows, the
 *               probes' cost counted (false above a budget), and, when S
 *               is too large to stay in cache, put in order of their
 *               centre's cell
 *   search      chunks of CHUNK candidates in that order: each one's runs
 *               of S spheres (the cell rows its padded box meets, then
 *               the big list), tested four at a time by the AVX2 kernel
 *               (kernels/probe_runs_avx2.c) or one by one by its reference
 *               here, in the kernels' arithmetic
 *
 * so every pair is decided by the one-set predicate. The working copy's
 * index holds joint-view positions, so the sinks (count, stream, fill,
 * sorted) are the one-set query's with between.c's crossing cut; the
 * pairs' order depends on the chunks only, not on the thread count.
 *
 * Completeness: if candidate c meets S sphere s, then on each axis |xs -
 * xc| <= pad(rs) + pad(rc) (sc_pad) <= gridpad + pad(rc) <= w, w as
 * computed in window() (a sum rounds down by at most u; the factor 1 +
 * 2^-51 more than covers it), so fl(xc - w) <= xs <= fl(xc + w) (rounding
 * is monotone and xs a double), and the clamped cell index is monotone in
 * x: s's cell is in the window's range, and a window that misses S's
 * centres' bounds [lo, hi] meets no grid sphere. Big spheres are tested
 * by every candidate.
 *
 * Runs with the grid peer only (between.c), which keeps nothing across
 * calls in the context's peer state or buffers that this overwrites.
 */
#define _POSIX_C_SOURCE 200809L
#include "probe.h"
#include "peer.h"
#include "kernels.h"

#include <math.h>
#include <string.h>

/* Cells at most, per sphere of S (and a few more). */
#define CELLS_PER_SPHERE 8
/* S at most: its cells fit 32-bit indices. */
#define SMALL_MAX ((size_t)1 << 26)
/* The probes' estimated cost (cell rows looked up and tests expected) at
 * most this many per sphere searched, else the joint search runs. */
#define COST_PER_SPHERE 24
/* S spheres per cell above which the probe is not used. */
#define DENSE 1.0
/* Candidates per chunk. */
#define CHUNK 1024
/* S's arrays (sx, sy, sz, sr, index and the cell table) at most this many
 * bytes: the candidates are probed in their own order, S staying in cache
 * whichever S spheres they look up; above it, in order of their cell.
 * The sort's passes cost more than they save while S stays in cache
 * (docs/api.md, two-set queries). */
#define ORDERED_BYTES ((size_t)4 << 20)

/* Peer buffers (the grid's peer, not running, would use them). */
enum { BUF_ROWS, BUF_INDEX, BUF_CELLS, BUF_ORDER, BUF_SORT };

/* The cells c0 .. c1 per axis that candidate (x, y, z, r) must look in;
 * false when its window misses every grid sphere's centre. */
static inline bool window(const sc_probe *pr, double x, double y, double z, double r,
                          uint32_t c0[3], uint32_t c1[3]) {
    const double w = (sc_pad(r) + pr->gridpad) * (1.0 + 0x1p-51);
    const double at[3] = {x, y, z};
    for (int a = 0; a < 3; a++) {
        c0[a] = c1[a] = 0;
        if (a >= pr->dims)
            continue;
        const double b0 = at[a] - w, b1 = at[a] + w;
        if (b1 < pr->lo[a] || b0 > pr->hi[a])
            return false;
        c0[a] = sc_cell_of(b0, pr->lo[a], pr->inv, pr->k[a]);
        c1[a] = sc_cell_of(b1, pr->lo[a], pr->inv, pr->k[a]);
    }
    return true;
}

/* The table entry of cell (ix, iy, iz): (iz s1 + iy) s0 + ix, s the
 * strides (the cells per axis and an empty layer past them). */
static inline uint64_t cell_at(const sc_probe *pr, uint32_t ix, uint32_t iy, uint32_t iz) {
    return ((uint64_t)iz * pr->stride[1] + iy) * pr->stride[0] + ix;
}

static inline uint64_t cell_index(const sc_probe *pr, const double at[3]) {
    uint32_t c[3] = {0, 0, 0};
    for (int a = 0; a < pr->dims; a++)
        c[a] = sc_cell_of(at[a], pr->lo[a], pr->inv, pr->k[a]);
    return cell_at(pr, c[0], c[1], c[2]);
}

/* The largest `keep` pads of S, in decreasing order, into top; their
 * count (min(n, keep)). */
static int largest_pads(const sc_view *v, size_t n, double *top, int keep, double *sum) {
    int m = 0;
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double p = sc_pad(sc_view_r(v, i));
        s += p;
        if (m == keep && !(p > top[m - 1]))
            continue;
        int at = m < keep ? m++ : m - 1;
        for (; at > 0 && top[at - 1] < p; at--)
            top[at] = top[at - 1];
        top[at] = p;
    }
    *sum = s;
    return m;
}

bool sc_probe_plan(sc_context *c, const sc_part *small, uint32_t small_at, size_t nc, int threads,
                   sc_probe *pr) {
    const sc_view *v = small->v;
    const size_t ns = small->n;
    memset(pr, 0, sizeof *pr);
    if (small->map || ns == 0 || ns > SMALL_MAX || ns != v->n)
        return false;
    pr->dims = v->z ? 3 : 2;
    pr->ns = ns;
    pr->nc = nc;

    /* The grid's pad: the largest, unless a few spheres (SC_PROBE_BIG at
     * most) have more than twice the pad of the next: those go in the big
     * list, so that one huge sphere does not widen every window. */
    double top[SC_PROBE_BIG + 1], sum;
    const int m = largest_pads(v, ns, top, SC_PROBE_BIG + 1, &sum);
    int nbig = 0;
    if (m == SC_PROBE_BIG + 1)
        while (nbig < SC_PROBE_BIG && top[nbig] > 2.0 * top[SC_PROBE_BIG])
            nbig++;
    pr->gridpad = top[nbig];
    const double mean = sum / (double)ns;

    /* the grid spheres' centres' bounds (2-D: z = 0, one cell) */
    for (int a = 0; a < 3; a++) {
        pr->lo[a] = a < pr->dims ? INFINITY : 0.0;
        pr->hi[a] = a < pr->dims ? -INFINITY : 0.0;
    }
    const char *axis[3] = {v->x, v->y, v->z};
    for (size_t i = 0; i < ns; i++) {
        if (sc_pad(sc_view_r(v, i)) > pr->gridpad)
            continue;
        for (int a = 0; a < pr->dims; a++) {
            const double x = sc_view_get(v, axis[a], i);
            pr->lo[a] = x < pr->lo[a] ? x : pr->lo[a];
            pr->hi[a] = x > pr->hi[a] ? x : pr->hi[a];
        }
    }
    /* Cells as wide as a typical window's half-width (a window then spans
     * two or three cells per axis), wider where S is sparse in its bounds
     * (at most CELLS_PER_SPHERE cells per sphere: the table stays in
     * cache, and a window finds few empty cells). */
    const uint64_t cap = CELLS_PER_SPHERE * (uint64_t)ns + 64;
    double h = 2.125 * (mean + pr->gridpad), extent = 0.0;
    for (int a = 0; a < pr->dims; a++)
        extent = pr->hi[a] - pr->lo[a] > extent ? pr->hi[a] - pr->lo[a] : extent;
    if (!(h > extent * 0x1p-20))
        h = extent * 0x1p-20;
    uint64_t cells = UINT64_MAX;
    for (int round = 0; round < 400 && cells > cap; round++, h *= 1.25) {
        pr->inv = 1.0 / h;
        pr->cell = h;
        cells = 1;
        for (int a = 0; a < 3; a++) {
            const double span = (pr->hi[a] - pr->lo[a]) * pr->inv;
            pr->k[a] = a >= pr->dims               ? 1
                       : span < (double)(1u << 22) ? (uint32_t)span + 1
                                                   : 1u << 22;
            pr->stride[a] = a >= pr->dims ? 1 : pr->k[a] + 1;    /* and an empty layer */
            cells = cells > cap ? cells : cells * pr->stride[a]; /* saturates past the cap */
        }
    }
    if (cells > cap)
        return false;
    /* S dense in its bounds (more than a sphere per cell: a window's
     * eight cells would hold eight or more): the joint search, whose
     * kernel tests four at a time on finer cells, costs less. */
    if ((double)ns > DENSE * (double)pr->k[0] * (double)pr->k[1] * (double)pr->k[2])
        return false;
    pr->cells = cells;
    pr->sorted =
        (4 * sizeof(double) + sizeof(uint32_t)) * ns + sizeof(uint32_t) * cells > ORDERED_BYTES;

    /* the working copy: S, then the candidates */
    const sc_allocator *al = sc_context_allocator(c);
    const size_t n = ns + nc;
    const size_t sw = ns + SC_PAD; /* S's arrays, padded: the tests read 4 past a run */
    /* the counting sorts' threads: their counts take at most about as
     * much room as the sorted items and the table */
    pr->sort_threads = sc_counting_threads(threads, (uint32_t)cells + 1, 2 * n + 2 * cells);
    /* reserved for the widest team (c->room), laid out for this one */
    const int room_sort = sc_counting_threads(c->room > threads ? c->room : threads,
                                              (uint32_t)cells + 1, 2 * n + 2 * cells);
    if (!sc_buf_reserve(al, &c->peer_buf[BUF_ROWS], sizeof(double) * (4 * sw + 4 * nc)) ||
        !sc_buf_reserve(al, &c->peer_buf[BUF_INDEX], sizeof(uint32_t) * n) ||
        !sc_buf_reserve(al, &c->peer_buf[BUF_CELLS], sizeof(uint32_t) * (cells + 3 + 2 * ns)) ||
        !sc_buf_reserve(al, &c->peer_buf[BUF_ORDER], sizeof(uint32_t) * (2 * nc + cells + 1)) ||
        !sc_buf_reserve(
            al, &c->peer_buf[BUF_SORT],
            sc_counting_scratch(room_sort > pr->sort_threads ? room_sort : pr->sort_threads,
                                (uint32_t)cells + 1)))
        return false;
    pr->sort_scratch = c->peer_buf[BUF_SORT].p;
    pr->order = c->peer_buf[BUF_ORDER].p;
    double *sp = c->peer_buf[BUF_ROWS].p;
    pr->sx = sp;
    pr->sy = sp + sw;
    pr->sz = sp + 2 * sw;
    pr->sr = sp + 3 * sw;
    pr->rows = sp + 4 * sw;
    pr->index = c->peer_buf[BUF_INDEX].p;

    /* Counting sort of S by cell, the big spheres in bucket `cells`
     * after the last cell; start[cells + 2] = ns as well (a two-cell
     * row's end may be read there). */
    uint32_t *start = c->peer_buf[BUF_CELLS].p, *key = start + cells + 3, *sorted = key + ns;
    const int nt = ns >= 4096 ? threads : 1;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < ns; i++) {
        const double at[3] = {sc_view_get(v, v->x, i), sc_view_get(v, v->y, i),
                              v->z ? sc_view_get(v, v->z, i) : 0.0};
        key[i] =
            sc_pad(sc_view_r(v, i)) > pr->gridpad ? (uint32_t)cells : (uint32_t)cell_index(pr, at);
    }
    sc_counting_order(key, ns, (uint32_t)cells + 1, pr->sort_threads, pr->sort_scratch, start,
                      sorted);
    start[cells + 2] = (uint32_t)ns;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t at = 0; at < ns; at++) {
        const size_t i = sorted[at];
        pr->sx[at] = sc_view_get(v, v->x, i);
        pr->sy[at] = sc_view_get(v, v->y, i);
        pr->sz[at] = v->z ? sc_view_get(v, v->z, i) : 0.0;
        pr->sr[at] = sc_view_r(v, i);
        pr->index[at] = small_at + (uint32_t)i;
    }
    for (size_t i = ns; i < sw; i++)
        pr->sx[i] = pr->sy[i] = pr->sz[i] = pr->sr[i] = 0.0;
    pr->start = start;
    pr->nbig = (int)(start[cells + 1] - start[cells]);
    SC_ASSERT(pr->nbig == nbig);
    return true;
}

/* What probing candidate (x, y, z, r) costs: the rows it looks up (added
 * to *rows) and the cells its window spans, times the rows (to *cells: the
 * tests expected are those cells' share of S); *wide counts the windows
 * past two cells on an axis (the search's general path). Integers, so the
 * total, and the choice it makes, is the same for every thread count. */
static inline void probe_cost(const sc_probe *pr, double x, double y, double z, double r,
                              uint64_t *rows, uint64_t *cells, size_t *wide) {
    uint32_t c0[3], c1[3];
    if (window(pr, x, y, z, r, c0, c1)) {
        *wide += (c1[0] - c0[0] > 1) | (c1[1] - c0[1] > 1) | (c1[2] - c0[2] > 1);
        const uint64_t n = (uint64_t)(c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1);
        *rows += n;
        *cells += n * (c1[0] - c0[0] + 1);
    }
}

/* The candidates' copy (f64 a constant where inlined): from the filter's
 * rows where it kept them, else typed reads of the larger set's spheres,
 * fetched ahead (they are at increasing, scattered indices). Each thread
 * takes a block of candidates and walks the segments alongside. Returns
 * the probes' estimated cost. */
static inline double copy_candidates(const sc_part *large, uint32_t large_at,
                                     const sc_kept_rows *kept, sc_probe *pr, int threads,
                                     bool f64) {
    const sc_view *v = large->v;
    const char *px = v->x, *py = v->y, *pz = v->z, *pr_ = v->r;
    const size_t st = v->stride, rst = v->rstride, nc = pr->nc, ns = pr->ns;
    const uint32_t *map = large->map;
    double *rows = pr->rows;
    uint32_t *ckey = pr->order + nc;
    const bool sorted = pr->sorted;
    uint64_t nrows = 0, ncells = 0;
    size_t wide = 0;
#define LOAD(q)                                                                                    \
    (f64 ? *(const double *)(const void *)(q) : (double)*(const float *)(const void *)(q))
#pragma omp parallel num_threads(threads) reduction(+ : nrows, ncells, wide)
    {
        const int t = sc_thread_id(), nt = sc_num_threads();
        const size_t k0 = nc * (size_t)t / (size_t)nt, k1 = nc * (size_t)(t + 1) / (size_t)nt;
        int s = 0;
        for (size_t k = k0; k < k1; k++) {
            const double *from = sc_kept_row(kept, k, &s);
            double x, y, z, r;
            if (from) {
                x = from[0], y = from[1], z = from[2], r = from[3];
            } else {
                if (map && k + 16 < nc) {
                    __builtin_prefetch(px + (size_t)map[k + 16] * st);
                    __builtin_prefetch(pr_ + (size_t)map[k + 16] * rst);
                }
                const size_t i = map ? map[k] : k;
                x = LOAD(px + i * st), y = LOAD(py + i * st);
                z = pz ? LOAD(pz + i * st) : 0.0, r = LOAD(pr_ + i * rst);
            }
            rows[4 * k] = x;
            rows[4 * k + 1] = y;
            rows[4 * k + 2] = z;
            rows[4 * k + 3] = r;
            pr->index[ns + k] = large_at + (uint32_t)k;
            const double at[3] = {x, y, z};
            if (sorted) /* the cell to sort by */
                ckey[k] = (uint32_t)cell_index(pr, at);
            else /* the probing order: the candidates' own */
                pr->order[k] = (uint32_t)k;
            probe_cost(pr, x, y, z, r, &nrows, &ncells, &wide);
        }
    }
#undef LOAD
    pr->wide = wide;
    /* every candidate tests the big list; a cell holds per_cell of S */
    const double per_cell = (double)(ns - (size_t)pr->nbig) / (double)pr->cells;
    return (double)nc * pr->nbig + (double)nrows + per_cell * (double)ncells;
}

bool sc_probe_candidates(const sc_part *large, uint32_t large_at, const sc_kept_rows *kept,
                         sc_probe *pr, int threads) {
    SC_ASSERT(large->n == pr->nc);
    const double cost = large->v->f64 ? copy_candidates(large, large_at, kept, pr, threads, true)
                                      : copy_candidates(large, large_at, kept, pr, threads, false);
    if (!(cost <= COST_PER_SPHERE * (double)(pr->ns + pr->nc)))
        return false;
    /* The probing order, where S exceeds the cache: candidates
     * counting-sorted by the cell of their centre (stable), so that those
     * probing the same S spheres come together and find them in cache. */
    if (!pr->sorted)
        return true;
    const size_t nc = pr->nc;
    uint32_t *order = pr->order, *ckey = order + nc, *start = ckey + nc;
    sc_counting_order(ckey, nc, (uint32_t)pr->cells, pr->sort_threads, pr->sort_scratch, start,
                      order);
    return true;
}

typedef uint64_t (*runs_fn)(const sc_probe_data *d, const sc_probe_run *runs, size_t n,
                            sc_hits *hits);

/* A candidate's window, found ahead: the table entries of its rows'
 * first cells and the cells per row. Most windows span at most two
 * cells per axis (the cells are about twice a typical window's
 * half-width wide): then always two (the second may be the empty layer
 * past the cells), so the loops' counts are constants. */
typedef struct ahead {
    uint64_t first[4]; /* fast: the four rows' (2-D: two) first cells */
    uint32_t c0[3], c1[3];
    int state; /* 0: meets no grid sphere, 1: fast, 2: general */
} ahead;

/* Candidate t's window into a, its table entries fetched. */
static inline void look_ahead(const sc_probe *pr, size_t t, ahead *a) {
    const double *q = pr->rows + 4 * t;
    if (!window(pr, q[0], q[1], q[2], q[3], a->c0, a->c1)) {
        a->state = 0;
        return;
    }
    const bool fast =
        (a->c1[0] - a->c0[0] <= 1) & (a->c1[1] - a->c0[1] <= 1) & (a->c1[2] - a->c0[2] <= 1);
    a->state = fast ? 1 : 2;
    if (fast) {
        const uint64_t f = cell_at(pr, a->c0[0], a->c0[1], a->c0[2]);
        const uint64_t s0 = pr->stride[0], s01 = s0 * pr->stride[1];
        a->first[0] = f;
        a->first[1] = f + s0;
        a->first[2] = f + s01;
        a->first[3] = f + s01 + s0;
        for (int r = 0; r < (pr->dims == 3 ? 4 : 2); r++)
            __builtin_prefetch(pr->start + a->first[r]);
    }
}

/* The S spheres of a fast window fetched (its table entries were, a
 * while ago). */
static inline void fetch_spheres(const sc_probe *pr, const ahead *a) {
    if (a->state == 1)
        for (int r = 0; r < (pr->dims == 3 ? 4 : 2); r++) {
            const uint32_t j = pr->start[a->first[r]];
            __builtin_prefetch(pr->sx + j);
            __builtin_prefetch(pr->sy + j);
            __builtin_prefetch(pr->sz + j);
            __builtin_prefetch(pr->sr + j);
        }
}

/* Runs, gathered for a batch of candidates and tested together. */
enum { RUNS = 256 };
typedef struct run_list {
    sc_probe_run run[RUNS];
    size_t n;
    runs_fn test;
    const sc_probe_data *data;
    sc_hits *hits;
    uint64_t tests;
} run_list;

static inline void runs_flush(run_list *l) {
    l->tests += l->test(l->data, l->run, l->n, l->hits);
    l->n = 0;
}

/* Adds candidate k's run [j, e) when it is not empty (written always,
 * counted when it holds a sphere: no branch). */
static inline void runs_push(run_list *l, uint32_t k, uint32_t j, uint32_t e) {
    if (l->n == RUNS)
        runs_flush(l);
    l->run[l->n] = (sc_probe_run){k, j, e};
    l->n += j < e;
}

/* A chunk's candidates, positions [t0, t1) of the probing order, in
 * turn. S's arrays and the cell table are read where the candidates'
 * cells are; the order keeps those together, and candidate t + 2D's
 * table entries and t + D's spheres are fetched while t's runs are
 * listed. dims is a constant where inlined. */
enum { D = 4, RING = 4 * D };
static inline void probe_chunk(const sc_probe *pr, size_t t0, size_t t1, run_list *l, int dims) {
    const uint32_t *start = pr->start, *order = pr->order;
    const uint32_t big = start[pr->cells], ns = (uint32_t)pr->ns;
    ahead ring[RING];
    for (size_t t = t0; t < t0 + 2 * D && t < t1; t++)
        look_ahead(pr, order[t], &ring[t % RING]);
    for (size_t t = t0; t < t0 + D && t < t1; t++)
        fetch_spheres(pr, &ring[t % RING]);
    for (size_t t = t0; t < t1; t++) {
        if (t + 8 * D < t1)
            __builtin_prefetch(pr->rows + 4 * (size_t)order[t + 8 * D]);
        if (t + 2 * D < t1)
            look_ahead(pr, order[t + 2 * D], &ring[(t + 2 * D) % RING]);
        if (t + D < t1)
            fetch_spheres(pr, &ring[(t + D) % RING]);
        const ahead *a = &ring[t % RING];
        const uint32_t k = ns + order[t];
        if (a->state == 1) {
            for (int r = 0; r < (dims == 3 ? 4 : 2); r++)
                runs_push(l, k, start[a->first[r]], start[a->first[r] + 2]);
        } else if (a->state == 2) {
            for (uint32_t iz = a->c0[2]; iz <= a->c1[2]; iz++)
                for (uint32_t iy = a->c0[1]; iy <= a->c1[1]; iy++) {
                    const uint64_t row = cell_at(pr, 0, iy, iz);
                    runs_push(l, k, start[row + a->c0[0]], start[row + a->c1[0] + 1]);
                }
        }
        runs_push(l, k, big, big + (uint32_t)pr->nbig);
    }
}

static uint64_t probe_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel,
                             sc_hits *hits, void *tls) {
    const sc_probe *pr = b->state;
    const sc_probe_data data = {pr->sx, pr->sy, pr->sz, pr->sr, pr->rows, (uint32_t)pr->ns};
    run_list *l = tls;
    l->n = 0;
    l->test = sc_kernels_of(kernel)->probe_runs;
    l->data = &data;
    l->hits = hits;
    l->tests = 0;
    const size_t t0 = chunk * CHUNK, t1 = pr->nc - t0 > CHUNK ? t0 + CHUNK : pr->nc;
    if (pr->dims == 3)
        probe_chunk(pr, t0, t1, l, 3);
    else
        probe_chunk(pr, t0, t1, l, 2);
    runs_flush(l);
    return l->tests;
}

/* Not a registered peer: only the scheduler runs it (no build, no options). */
static const sc_peer probe_peer = {
    .name = "probe", .tls_bytes = sizeof(run_list), .search = probe_search};

sc_status sc_probe_build(sc_context *c, sc_prepared *p, void *arg) {
    _Static_assert(sizeof(sc_probe) <= SC_PEER_STATE_BYTES, "the probe fits the peer state");
    const sc_probe *pr = arg;
    memcpy(c->peer_state, pr, sizeof *pr);
    p->peer = &probe_peer;
    p->view.n = pr->ns + pr->nc;
    /* the sinks read the index only (work_r: periodic images, not here) */
    p->built.work = (sc_work){pr->ns + pr->nc, NULL, NULL, NULL, NULL, pr->index};
    p->built.nchunks = (pr->nc + CHUNK - 1) / CHUNK;
    p->built.state = c->peer_state;
    p->built.cells = pr->cells;
    p->built.levels = 1;
    p->built.cell_size = pr->cell;
    c->stats.spheres = pr->ns + pr->nc;
    return SC_OK;
}
