/*
 * hashgrid.c: the textbook uniform grid of seeds 002 and 004
 * (SC_ALGO_HASHGRID): cells of edge 2 r_max (of the boxes, peer.h), a hash
 * of the cell's integer coordinates to a table, and every sphere tested
 * against the spheres of the 27 cells around its own. It is the baseline
 * users write first: one cell size for all, so a few large spheres make
 * every cell hold many small ones (heavy-tailed radii are its weakness).
 *
 * Exactness: partners are at most 2 h_max apart per axis (peer.h), at most
 * one cell. The cell of a centre is floor((x - origin) / cell), computed
 * in double; the edge is raised so that the extent is at most 2^40 cells,
 * where that computation is off by less than 2^-12 of a cell, and the edge
 * carries a 2^-10 margin: partners' cells differ by at most one. Memory is
 * O(n) whatever the extent: the table has a slot per 1/2 sphere, and cells
 * are keyed by their coordinates, never allocated by volume.
 * Layout: spheres are sorted by (hash, cell) with the engine's radix sort,
 * so a cell's spheres are contiguous; a block of up to SC_BLOCK spheres of
 * one cell shares its candidates. A pair is tested from its earlier sphere
 * in that order only: later spheres of the 27 cells (a cell that shares a
 * hash is told apart by its coordinates).
 * Refusal: before searching, the build predicts the candidate tests from
 * the runs' sizes and returns SC_ERR_TOO_COSTLY above opt->hashgrid.max_tests
 * (a few huge radii make every cell hold thousands of small spheres, and
 * the search would run for hours where another peer takes seconds).
 */
#include "peer.h"

#include <math.h>
#include <string.h>

enum { WORK, KEYS, TMP_KEYS, INDEX, TMP_INDEX, COUNTS, CELLS, RUNS, TABLE };

typedef struct hg_state {
    const int64_t *cell;   /* 3 per working sphere */
    const uint32_t *run;   /* start of each run of equal cells; run[nruns] = n */
    const uint32_t *table; /* slot -> run + 1 (0: empty), open addressing */
    uint64_t mask;         /* table slots - 1 */
    size_t nruns, chunk_runs;
    int dims;
} hg_state;

static inline uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline uint64_t cell_hash(const int64_t c[3]) {
    return mix((uint64_t)c[0] * 0x9E3779B97F4A7C15ull ^
               mix((uint64_t)c[1] + 0x632BE59BD9B4E019ull) ^
               mix((uint64_t)c[2] * 0xD1B54A32D192ED03ull + 1));
}

/* The run of cell c, or SIZE_MAX. */
static size_t find_run(const hg_state *h, const int64_t c[3]) {
    uint64_t slot = cell_hash(c) & h->mask;
    for (;;) {
        const uint32_t r = h->table[slot];
        if (r == 0)
            return SIZE_MAX;
        const int64_t *q = h->cell + 3 * (size_t)h->run[r - 1];
        if (q[0] == c[0] && q[1] == c[1] && q[2] == c[2])
            return r - 1;
        slot = (slot + 1) & h->mask;
    }
}

/* The runs of the cells around run ri's (26 in 3-D, 8 in 2-D) that come
 * after it, in a fixed order; returns how many. Partners in those runs
 * and in run ri itself are all of ri's candidates. */
static int later_runs(const hg_state *h, size_t ri, size_t out[26]) {
    const int64_t dz = h->dims == 3; /* 2-D: every z cell is 0 */
    const int64_t *c = h->cell + 3 * (size_t)h->run[ri];
    int m = 0;
    for (int64_t oz = -dz; oz <= dz; oz++)
        for (int64_t oy = -1; oy <= 1; oy++)
            for (int64_t ox = -1; ox <= 1; ox++) {
                if (!(ox || oy || oz))
                    continue;
                const int64_t q[3] = {c[0] + ox, c[1] + oy, c[2] + oz};
                const size_t rq = find_run(h, q);
                if (rq != SIZE_MAX && rq > ri)
                    out[m++] = rq;
            }
    return m;
}

/* The candidate tests the search runs: a run of c spheres meets its own
 * c (c - 1) / 2 pairs and c times the spheres of each later neighbour run.
 * Cheap bound first: each of the at most 13 unordered neighbour pairs
 * {p, q} of a run adds c_p c_q <= (c_p^2 + c_q^2) / 2, so the sum is at
 * most 13.5 sum c^2; the exact count (26 lookups per run) only when that
 * bound is above the limit. */
static double hg_predicted_tests(const hg_state *h, double limit) {
    double bound = 0.0;
    for (size_t ri = 0; ri < h->nruns; ri++) {
        const double c = (double)(h->run[ri + 1] - h->run[ri]);
        bound += 13.5 * c * c;
    }
    if (bound <= limit)
        return bound;
    double exact = 0.0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : exact)
    for (size_t ri = 0; ri < h->nruns; ri++) {
        const double c = (double)(h->run[ri + 1] - h->run[ri]);
        size_t later[26];
        const int m = later_runs(h, ri, later);
        double others = 0.0;
        for (int k = 0; k < m; k++)
            others += (double)(h->run[later[k] + 1] - h->run[later[k]]);
        exact += c * (c - 1.0) / 2.0 + c * others;
    }
    return exact;
}

static sc_status hg_build(const sc_peer_env *e, sc_peer_built *out) {
    hg_state *h = e->state;
    const sc_view *v = e->view;
    const sc_bounds *b = e->bounds;
    const size_t n = v->n;
    const int dims = v->z ? 3 : 2;
    uint64_t slots = 16;
    while (slots < 2 * (uint64_t)n)
        slots <<= 1;
    if (!sc_keysort_reserve(e, KEYS, n) || !sc_env_reserve(e, CELLS, 24 * (n + 1)) ||
        !sc_env_reserve(e, RUNS, 4 * (n + 2)) || !sc_env_reserve(e, TABLE, 4 * slots) ||
        !sc_work_reserve(e, WORK, n, &out->work))
        return SC_ERR_OUT_OF_MEMORY;
    double t = sc_now();
    double cell = 2.0 * sc_box_half(n ? b->rmax : 0.0) * (1.0 + 0x1p-10);
    for (int a = 0; a < dims; a++) {
        const double ext = b->hi[a] - b->lo[a];
        if (n && ext * 0x1p-40 > cell)
            cell = ext * 0x1p-40;
    }
    const double inv = 1.0 / cell;
    /* keys: a hash of the cell (its coordinates break ties below) */
    uint64_t *keys = e->buf[KEYS].p;
    uint32_t *index = e->buf[INDEX].p;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        int64_t c[3] = {0, 0, 0};
        for (int a = 0; a < dims; a++) {
            const char *arr = a == 0 ? v->x : a == 1 ? v->y : v->z;
            c[a] = (int64_t)floor((sc_view_get(v, arr, k) - b->lo[a]) * inv);
        }
        keys[k] = cell_hash(c);
        index[k] = (uint32_t)k;
    }
    sc_env_stage(e, SC_STAGE_KEYS, t);
    sc_keysort_run(e, KEYS, n, 64);
    keys = e->buf[KEYS].p;
    index = e->buf[INDEX].p;
    t = sc_now();
    sc_gather(v, index, n, &out->work);
    int64_t *cells = e->buf[CELLS].p;
    const double *arrs[3] = {out->work.x, out->work.y, out->work.z};
    for (size_t k = 0; k < n; k++)
        for (int a = 0; a < 3; a++)
            cells[3 * k + a] = a < dims ? (int64_t)floor((arrs[a][k] - b->lo[a]) * inv) : 0;
    sc_env_stage(e, SC_STAGE_GATHER, t);
    t = sc_now();
    /* Equal hashes are contiguous, but two cells that share a hash may
     * interleave: order each such group by cell (a stable insertion sort of
     * the rare group, moving the working copy along). */
    for (size_t k0 = 0; k0 < n;) {
        size_t k1 = k0 + 1;
        while (k1 < n && keys[k1] == keys[k0])
            k1++;
        for (size_t k = k0 + 1; k < k1; k++) {
            size_t j = k;
            /* any total order groups equal cells: bytewise */
            while (j > k0 && memcmp(cells + 3 * (j - 1), cells + 3 * j, 24) > 0) {
                int64_t tc[3];
                memcpy(tc, cells + 3 * j, 24);
                memcpy(cells + 3 * j, cells + 3 * (j - 1), 24);
                memcpy(cells + 3 * (j - 1), tc, 24);
                double *wa[4] = {out->work.x, out->work.y, out->work.z, out->work.r};
                for (int a = 0; a < 4; a++) {
                    const double tv = wa[a][j];
                    wa[a][j] = wa[a][j - 1];
                    wa[a][j - 1] = tv;
                }
                const uint32_t ti = index[j];
                index[j] = index[j - 1];
                index[j - 1] = ti;
                j--;
            }
        }
        k0 = k1;
    }
    /* runs of equal cells, and the table */
    uint32_t *run = e->buf[RUNS].p, *table = e->buf[TABLE].p;
    memset(table, 0, 4 * slots);
    size_t nruns = 0;
    h->cell = cells;
    h->run = run;
    h->table = table;
    h->mask = slots - 1;
    for (size_t k = 0; k < n; k++)
        if (k == 0 || memcmp(cells + 3 * k, cells + 3 * (k - 1), 24) != 0) {
            run[nruns] = (uint32_t)k;
            uint64_t slot = keys[k] & h->mask;
            while (table[slot])
                slot = (slot + 1) & h->mask;
            table[slot] = (uint32_t)(nruns + 1);
            nruns++;
        }
    run[nruns] = (uint32_t)n;
    h->nruns = nruns;
    h->chunk_runs = nruns / 256 < 64 ? 64 : nruns / 256;
    out->nchunks = (nruns + h->chunk_runs - 1) / h->chunk_runs;
    h->dims = dims;
    out->predicted_tests = hg_predicted_tests(h, e->opt->hashgrid.max_tests);
    sc_env_stage(e, SC_STAGE_CELLS, t);
    if (out->predicted_tests > e->opt->hashgrid.max_tests)
        return SC_ERR_TOO_COSTLY;
    out->state = h;
    out->cells = nruns;
    out->levels = 1;
    out->cell_size = cell;
    return SC_OK;
}

#define HG_LIST 2048

static uint64_t hg_search(const sc_peer_built *bt, size_t chunk, sc_kernel_fn kernel, sc_hits *hits,
                          void *tls) {
    const hg_state *h = bt->state;
    const sc_work *w = &bt->work;
    sc_cands cl = sc_cands_make(w, kernel, hits, tls, HG_LIST);
    const size_t r0 = chunk * h->chunk_runs;
    const size_t r1 = r0 + h->chunk_runs < h->nruns ? r0 + h->chunk_runs : h->nruns;
    for (size_t ri = r0; ri < r1; ri++) {
        const uint32_t a = h->run[ri], e = h->run[ri + 1];
        size_t later[26];
        const int m = later_runs(h, ri, later); /* once per cell, for all its blocks */
        for (uint32_t i0 = a; i0 < e; i0 += SC_BLOCK) {
            const uint32_t ni = e - i0 < SC_BLOCK ? e - i0 : SC_BLOCK;
            const uint32_t past = i0 + ni;
            cl.args.i0 = i0;
            cl.args.ni = ni;
            cl.args.tri_end = past;
            /* own cell: the spheres after the block */
            for (uint32_t j = past; j < e; j++)
                sc_cands_push(&cl, j);
            for (int k = 0; k < m; k++)
                for (uint32_t j = h->run[later[k]]; j < h->run[later[k] + 1]; j++)
                    sc_cands_push(&cl, j);
            sc_cands_flush(&cl); /* always: the block's own triangle */
        }
    }
    return cl.tests;
}

static void hg_defaults(sc_options *o) {
    o->hashgrid.max_tests = 0x1p36; /* about a minute of one core */
}

static bool hg_valid(const sc_options *o) {
    return o->hashgrid.max_tests > 0.0; /* NaN refused too */
}

const sc_peer sc_peer_hashgrid = {.id = SC_ALGO_HASHGRID,
                                  .name = "hashgrid",
                                  .stages = {[SC_STAGE_KEYS] = "cell hashes",
                                             [SC_STAGE_SORT] = "radix sort",
                                             [SC_STAGE_GATHER] = "working copy",
                                             [SC_STAGE_CELLS] = "cell table"},
                                  .tls_bytes = 4 * (HG_LIST + 16),
                                  .defaults = hg_defaults,
                                  .valid = hg_valid,
                                  .build = hg_build,
                                  .search = hg_search};
