/*
 * test_engine.c: differential tests of the whole engine against a brute-force
 * double oracle written here, independent of the library: every generator,
 * several sizes, both kernels, threads 1..4, float64 and float32 input,
 * rows and SoA views, 2-D, and pathological layouts. Pair sets, checksums
 * and the streamed order must match exactly.
 *
 * Usage: test_engine [GROUP]   (GROUP: api, pathological, extremes,
 * generators, peers, options, order, all; default all)
 */
#include "sc_gen.h"
#include "spherecollide.h"
#include "spherecollide_sim.h"
#ifdef SC_STUDY /* test_engine_study: the study build's switches too */
#include "spherecollide_study.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "counting_alloc.h"

/* ---- oracle ---------------------------------------------------------------- */

typedef struct pairs {
    uint32_t *p; /* i, j interleaved */
    size_t n, cap;
} pairs;

static void pairs_push(pairs *v, uint32_t i, uint32_t j) {
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 1024;
        v->p = realloc(v->p, 2 * v->cap * sizeof(uint32_t));
        if (!v->p)
            abort();
    }
    v->p[2 * v->n] = i;
    v->p[2 * v->n + 1] = j;
    v->n++;
}

static uint64_t mix(uint32_t i, uint32_t j) {
    uint64_t z = ((uint64_t)i << 32) | j;
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Spheres as double (x, y, z, r) rows: the values the caller gave, widened. */
typedef struct dataset {
    const char *name;
    size_t n;
    double *rows;
} dataset;

/* The predicate, in lexicographic (i, j) order. Compiled with
 * -ffp-contract=off, so no FMA sneaks in. */
static void oracle(const dataset *d, pairs *out, uint64_t *checksum) {
    out->n = 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < d->n; i++) {
        const double *a = d->rows + 4 * i;
        for (size_t j = i + 1; j < d->n; j++) {
            const double *b = d->rows + 4 * j;
            double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
            double d2 = (dx * dx + dy * dy) + dz * dz;
            double s = a[3] + b[3];
            if (d2 <= s * s) {
                pairs_push(out, (uint32_t)i, (uint32_t)j);
                sum += mix((uint32_t)i, (uint32_t)j);
            }
        }
    }
    *checksum = sum;
}

/* ---- engine runs --------------------------------------------------------- */

/* The chunk size the streaming contexts ask for: every call must hold at
 * least one and at most this many pairs. */
static size_t chunk_limit = SIZE_MAX;

static int collect(const uint32_t *p, size_t count, void *user) {
    pairs *v = user;
    if (count == 0 || count > chunk_limit)
        return 1; /* the test sees SC_ERR_STOPPED */
    for (size_t k = 0; k < count; k++) {
        if (p[2 * k] >= p[2 * k + 1])
            return 1; /* i < j must hold: stop, the test will see it */
        pairs_push(v, p[2 * k], p[2 * k + 1]);
    }
    return 0;
}

static int cmp_pair(const void *a, const void *b) {
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1])
        return x[1] < y[1] ? -1 : 1;
    return 0;
}

static int same_pairs(const pairs *a, const pairs *b) {
    return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, 2 * a->n * sizeof(uint32_t)) == 0);
}

typedef struct config {
    sc_kernel kernel;
    int threads;
    sc_algorithm algo;
    int max_levels;
    double cell_factor;
    int levels;   /* 0: cost model */
    int indirect; /* study build: the grid reads the caller's arrays */
    int morton;   /* study build: the grid's rows along a Morton curve */
    int variant;  /* peers: 0 their defaults, 1 the other options (see make_ctx) */
    int sides;    /* study build: the grid's cross-level sides (sc_grid_sides) */
} config;

/* Every peer of the library but the grid (which the groups above run in
 * every shape): algorithms 1 .. sc_algorithm_count() - 1, so a peer added
 * to the registry is tested without an edit here. */
#define NPEERS ((size_t)sc_algorithm_count() - 1)
static sc_algorithm peer_at(size_t k) {
    return (sc_algorithm)(k + 1);
}

static sc_context *make_ctx(const config *c, int sorted, size_t chunk_pairs, size_t pairs_hint) {
    sc_options o = sc_options_default();
    o.kernel = c->kernel;
    o.threads = c->threads;
    o.algorithm = c->algo;
    o.pin = SC_PIN_NONE;
    o.sorted = sorted;
    if (c->max_levels)
        o.grid.max_levels = c->max_levels;
    if (c->cell_factor > 0)
        o.grid.cell_factor = c->cell_factor;
    o.grid.levels = c->levels;
    if (c->variant) { /* the seeds' other settings, and small leaves that copy a lot */
        o.partition1d.width = SC_SEGMENT_MAX_DIAMETER;
        o.octree.max_depth = 11;
        o.octree.leaf_size = 1;
        o.kdsplit.split = SC_SPLIT_MEAN;
        o.kdsplit.leaf_size = 2;
        o.bvh.leaf_size = 3;
        o.segtree.cutoff = 3; /* deep recursion in every dimension */
    }
    if (chunk_pairs)
        o.chunk_pairs = chunk_pairs;
    if (sorted) /* force about three windows */
        o.sorted_window_bytes = pairs_hint * 24 / 3 > 4096 ? pairs_hint * 24 / 3 : 4096;
    sc_context *ctx = NULL;
    sc_status st = sc_context_create(&o, &ctx);
#ifdef SC_STUDY
    if (st == SC_OK)
        st = sc_study_set_layout(ctx, c->indirect ? SC_LAYOUT_INDIRECT : SC_LAYOUT_GATHERED);
    if (st == SC_OK)
        st = sc_study_set_traversal(ctx, c->morton ? SC_TRAVERSAL_MORTON : SC_TRAVERSAL_ROWS);
    if (st == SC_OK)
        st = sc_study_set_grid_sides(ctx, (sc_grid_sides)c->sides);
#endif
    if (st != SC_OK) {
        fprintf(stderr, "context: %s\n", sc_status_string(st));
        abort();
    }
    return ctx;
}

/* Runs one configuration on a view; compares with the oracle. `stream_ref`
 * holds the unsorted stream order of the first configuration run on this
 * dataset (empty before), which every later one must reproduce. */
static void check_config(const dataset *d, const sc_spheres *view, const config *c,
                         const pairs *want, uint64_t want_sum, pairs *stream_ref,
                         const char *what) {
    char tag[160];
    snprintf(tag, sizeof tag,
             "%s n=%zu %s kernel=%s threads=%d algo=%s/%d max_levels=%d levels=%d factor=%g",
             d->name, d->n, what, sc_kernel_name(c->kernel), c->threads, sc_algorithm_name(c->algo),
             c->variant, c->max_levels, c->levels, c->cell_factor);

    /* count */
    sc_context *ctx = make_ctx(c, 0, 0, 0);
    sc_summary s;
    sc_status st = sc_count_pairs(ctx, view, &s);
    CHECK(st == SC_OK, "%s: count status %s", tag, sc_status_string(st));
    CHECK(s.pairs == want->n, "%s: count %llu, oracle %zu", tag, (unsigned long long)s.pairs,
          want->n);
    CHECK(s.checksum == want_sum, "%s: checksum %016llx, oracle %016llx", tag,
          (unsigned long long)s.checksum, (unsigned long long)want_sum);
    sc_stats stats = {.size = sizeof stats};
    sc_context_stats(ctx, &stats);
    const sc_kernel expect_kernel = c->indirect                   ? SC_KERNEL_SCALAR
                                    : c->kernel == SC_KERNEL_AUTO ? sc_kernel_auto()
                                                                  : c->kernel;
    CHECK(stats.pairs == want->n && stats.kernel == expect_kernel, "%s: stats pairs %llu kernel %s",
          tag, (unsigned long long)stats.pairs, sc_kernel_name(stats.kernel));

    /* stream, unsorted, small chunks so that buffers wrap and threads wait */
    sc_context_destroy(ctx);
    ctx = make_ctx(c, 0, 97, 0);
    pairs got = {0};
    chunk_limit = 97;
    st = sc_stream_pairs(ctx, view, collect, &got, &s);
    chunk_limit = SIZE_MAX;
    CHECK(st == SC_OK, "%s: stream status %s", tag, sc_status_string(st));
    CHECK(s.pairs == want->n && got.n == want->n, "%s: stream %zu pairs, summary %llu, oracle %zu",
          tag, got.n, (unsigned long long)s.pairs, want->n);
    if (stream_ref->n == 0 && got.n > 0) {
        stream_ref->n = 0;
        for (size_t k = 0; k < got.n; k++)
            pairs_push(stream_ref, got.p[2 * k], got.p[2 * k + 1]);
    } else {
        CHECK(same_pairs(&got, stream_ref), "%s: stream order differs from the first run", tag);
    }
    if (got.n > 0) /* got.p is NULL when there are no pairs */
        qsort(got.p, got.n, 2 * sizeof(uint32_t), cmp_pair);
    CHECK(same_pairs(&got, want), "%s: streamed pair set differs from the oracle", tag);
    free(got.p);
    sc_context_destroy(ctx);

    /* fill, sorted: exactly the oracle's list */
    ctx = make_ctx(c, 1, 0, want->n);
    size_t cap = want->n + 1;
    uint32_t *buf = malloc(2 * cap * sizeof(uint32_t));
    size_t needed = 0;
    st = sc_fill_pairs(ctx, view, buf, cap, &needed, &s);
    CHECK(st == SC_OK && needed == want->n, "%s: fill status %s needed %zu", tag,
          sc_status_string(st), needed);
    pairs f = {buf, needed, cap};
    CHECK(same_pairs(&f, want), "%s: sorted fill differs from the oracle", tag);
    /* too small a buffer reports the size needed */
    if (want->n > 0) {
        st = sc_fill_pairs(ctx, view, buf, want->n - 1, &needed, NULL);
        CHECK(st == SC_ERR_BUFFER_TOO_SMALL && needed == want->n,
              "%s: small buffer status %s needed %zu", tag, sc_status_string(st), needed);
    }
    free(buf);
    sc_context_destroy(ctx);
}

static const sc_kernel kernels[] = {SC_KERNEL_SCALAR, SC_KERNEL_AVX2};
static const int thread_counts[] = {1, 2, 3, 4};

/* The pathological and extreme inputs run every peer too. */
static int peers_here = 1;
/* check_dataset_f32 and _2d run the peers instead of the grid's shapes. */
static int peers_only = 0;

static void run_peers(const dataset *d, const sc_spheres *view, const pairs *want, uint64_t sum,
                      const char *what) {
    for (size_t k = 0; k < NPEERS; k++) {
        config pc = {SC_KERNEL_AUTO, 3, peer_at(k), 0, 0, 0, 0, 0, (int)(k & 1), 0};
        pairs own = {0};
        check_config(d, view, &pc, want, sum, &own, what);
        free(own.p);
    }
}

/* full: every kernel x threads 1..4 (else threads 1 and 3). */
static void check_dataset(const dataset *d, int full) {
    pairs want = {0}, ref = {0};
    uint64_t sum;
    oracle(d, &want, &sum);
    sc_spheres view = sc_spheres_rows_f64(d->n, 3, d->rows);
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        if (!sc_kernel_available(kernels[k])) {
            fprintf(stderr, "note: kernel %s not available on this CPU; its runs are skipped\n",
                    sc_kernel_name(kernels[k]));
            continue;
        }
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            if (!full && thread_counts[t] != 1 && thread_counts[t] != 3)
                continue;
            config c = {kernels[k], thread_counts[t], SC_ALGO_GRID, 0, 0, 0, 0, 0, 0, 0};
            check_config(d, &view, &c, &want, sum, &ref, "rows-f64");
        }
    }
    /* the brute-force peer and grid variants */
    config extra[] = {
        {SC_KERNEL_AUTO, 2, SC_ALGO_BRUTE, 0, 0, 0, 0, 0, 0, 0},
        {SC_KERNEL_AUTO, 2, SC_ALGO_GRID, 1, 0, 0, 0, 0, 0, 0},
        {SC_KERNEL_AUTO, 2, SC_ALGO_GRID, 3, 1.7, 0, 0, 0, 0, 0},
        {SC_KERNEL_SCALAR, 3, SC_ALGO_GRID, 0, 0, 16, 0, 0, 0, 0},
#ifdef SC_STUDY
        /* rows along a Morton curve: other row order, same pairs */
        {SC_KERNEL_AUTO, 3, SC_ALGO_GRID, 0, 0, 0, 0, 1, 0, 0},
        {SC_KERNEL_SCALAR, 2, SC_ALGO_GRID, 0, 0, 16, 0, 1, 0, 0},
        /* pairs across levels all from the finer side, or all
                       * from the coarser one (with Morton rows too) */
        {SC_KERNEL_AUTO, 2, SC_ALGO_GRID, 0, 0, 16, 0, 0, 0, SC_SIDES_UP},
        {SC_KERNEL_AUTO, 3, SC_ALGO_GRID, 0, 0, 16, 0, 0, 0, SC_SIDES_DOWN},
        {SC_KERNEL_SCALAR, 2, SC_ALGO_GRID, 0, 0, 0, 0, 1, 0, SC_SIDES_DOWN},
#endif
    };
    /* A different algorithm or grid shape may stream in another order; each
     * variant only has to be exact (and its own order is checked by SoA). */
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        pairs own = {0};
        check_config(d, &view, &extra[k], &want, sum, &own, "variant");
        free(own.p);
    }
    /* every peer, defaults and variant options (generators: group peers) */
    for (size_t k = 0; peers_here && k < NPEERS; k++)
        for (int var = 0; var < 2; var++) {
            config pc = {SC_KERNEL_AUTO, 2, peer_at(k), 0, 0, 0, 0, 0, var, 0};
            pairs own = {0};
            check_config(d, &view, &pc, &want, sum, &own, "peer");
            free(own.p);
        }
    /* the same data as separate arrays (SoA) */
    double *soa = malloc(4 * (d->n + 1) * sizeof(double));
    for (size_t i = 0; i < d->n; i++)
        for (int a = 0; a < 4; a++)
            soa[a * d->n + i] = d->rows[4 * i + a];
    sc_spheres sv = sc_spheres_soa_f64(d->n, soa, soa + d->n, soa + 2 * d->n, soa + 3 * d->n);
    config c = {SC_KERNEL_AUTO, 2, SC_ALGO_GRID, 0, 0, 0, 0, 0, 0, 0};
    check_config(d, &sv, &c, &want, sum, &ref, "soa-f64");
    /* NumPy's usual pair: an (n, 3) array of centres and an (n,) array of
     * radii, read through r_stride; z first and x last in each row so no
     * row-layout fast path can mistake it for (x, y, z, r) records */
    double *cen = malloc(3 * (d->n + 1) * sizeof(double)),
           *rad = malloc((d->n + 1) * sizeof(double));
    for (size_t i = 0; i < d->n; i++) {
        for (int a = 0; a < 3; a++)
            cen[3 * i + 2 - a] = d->rows[4 * i + a];
        rad[i] = d->rows[4 * i + 3];
    }
    const sc_spheres cr = {d->n, SC_F64, 3 * sizeof(double), cen + 2, cen + 1,
                           cen,  rad,    sizeof(double)};
    check_config(d, &cr, &c, &want, sum, &ref, "centres-radii-f64");
    if (peers_here)
        run_peers(d, &cr, &want, sum, "peer-centres-radii");
#ifdef SC_STUDY
    /* indirect reads of separate arrays: same pairs in the same order */
    c.indirect = 1;
    check_config(d, &sv, &c, &want, sum, &ref, "soa-f64-indirect");
    check_config(d, &cr, &c, &want, sum, &ref, "centres-radii-indirect");
#endif
    free(cen);
    free(rad);
    free(soa);
    free(want.p);
    free(ref.p);
}

/* float32 input: the oracle runs on the float values widened to double. */
static void check_dataset_f32(const dataset *d) {
    float *rows32 = malloc(4 * (d->n + 1) * sizeof(float));
    dataset w = {d->name, d->n, malloc(4 * (d->n + 1) * sizeof(double))};
    for (size_t k = 0; k < 4 * d->n; k++) {
        rows32[k] = (float)d->rows[k];
        w.rows[k] = (double)rows32[k];
    }
    pairs want = {0}, ref = {0};
    uint64_t sum;
    oracle(&w, &want, &sum);
    sc_spheres view = sc_spheres_rows_f32(d->n, 3, rows32);
    if (peers_only) {
        run_peers(&w, &view, &want, sum, "peer-f32");
        free(want.p);
        free(w.rows);
        free(rows32);
        return;
    }
    for (size_t k = 0; k < 2; k++) {
        if (!sc_kernel_available(kernels[k]))
            continue;
        config c = {kernels[k], 3, SC_ALGO_GRID, 0, 0, 0, 0, 0, 0, 0};
        check_config(&w, &view, &c, &want, sum, &ref, "rows-f32");
    }
    /* centres (n, 3) and radii (n,) as separate float arrays */
    float *cen = malloc(3 * (d->n + 1) * sizeof(float)), *rad = malloc((d->n + 1) * sizeof(float));
    for (size_t i = 0; i < d->n; i++) {
        for (int a = 0; a < 3; a++)
            cen[3 * i + a] = rows32[4 * i + a];
        rad[i] = rows32[4 * i + 3];
    }
    const sc_spheres crs = {d->n,    SC_F32, 3 * sizeof(float), cen, cen + 1,
                            cen + 2, rad,    sizeof(float)};
    config cc = {SC_KERNEL_AUTO, 2, SC_ALGO_GRID, 0, 0, 0, 0, 0, 0, 0};
    check_config(&w, &crs, &cc, &want, sum, &ref, "centres-radii-f32");
    free(cen);
    free(rad);
#ifdef SC_STUDY
    config ci = {SC_KERNEL_AUTO, 2, SC_ALGO_GRID, 0, 0, 0, 1, 0, 0, 0};
    check_config(&w, &view, &ci, &want, sum, &ref, "rows-f32-indirect");
#endif
    free(want.p);
    free(ref.p);
    free(w.rows);
    free(rows32);
}

/* 2-D circles: (x, y, r) rows; the oracle sees z = 0. */
static void check_dataset_2d(const dataset *d) {
    double *rows3 = malloc(3 * (d->n + 1) * sizeof(double));
    dataset w = {d->name, d->n, malloc(4 * (d->n + 1) * sizeof(double))};
    for (size_t i = 0; i < d->n; i++) {
        rows3[3 * i] = d->rows[4 * i];
        rows3[3 * i + 1] = d->rows[4 * i + 1];
        rows3[3 * i + 2] = d->rows[4 * i + 3];
        w.rows[4 * i] = d->rows[4 * i];
        w.rows[4 * i + 1] = d->rows[4 * i + 1];
        w.rows[4 * i + 2] = 0.0;
        w.rows[4 * i + 3] = d->rows[4 * i + 3];
    }
    pairs want = {0}, ref = {0};
    uint64_t sum;
    oracle(&w, &want, &sum);
    sc_spheres view = sc_spheres_rows_f64(d->n, 2, rows3);
    if (peers_only) {
        run_peers(&w, &view, &want, sum, "peer-2d");
        free(want.p);
        free(w.rows);
        free(rows3);
        return;
    }
    config c = {SC_KERNEL_AUTO, 2, SC_ALGO_GRID, 0, 0, 0, 0, 0, 0, 0};
    check_config(&w, &view, &c, &want, sum, &ref, "2d");
#ifdef SC_STUDY
    c.indirect = 1; /* z == NULL read through the view */
    check_config(&w, &view, &c, &want, sum, &ref, "2d-indirect");
#endif
    free(want.p);
    free(ref.p);
    free(w.rows);
    free(rows3);
}

/* ---- groups -------------------------------------------------------------- */

static void group_generators(void) {
    const char *const *names = sc_gen_names();
    const size_t sizes[] = {0, 1, 2, 300, 3000, 20000};
    for (int g = 0; names[g]; g++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            if (strcmp(names[g], "dense") == 0 && n > 700)
                n = s + 1 == sizeof sizes / sizeof sizes[0] ? 2000 : 700; /* K = n(n-1)/2 */
            dataset d = {names[g], n, malloc(4 * (n + 1) * sizeof(double))};
            CHECK(sc_gen_generate(names[g], n, 7 + s, d.rows) == 0, "generate %s", names[g]);
            check_dataset(&d, sizes[s] == 3000);
            if (sizes[s] == 3000) {
                check_dataset_f32(&d);
                check_dataset_2d(&d);
            }
            free(d.rows);
        }
    }
}

/* Every peer on every generator at several sizes, threads 1..4 at n = 3000
 * (the streamed order must be the same for each), both kernels, 2-D and
 * float32 input, defaults and the other options. */
static void group_peers(void) {
    const char *const *names = sc_gen_names();
    const size_t sizes[] = {0, 1, 2, 300, 3000};
    for (int g = 0; names[g]; g++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const size_t n = strcmp(names[g], "dense") == 0 && sizes[s] > 700 ? 700 : sizes[s];
            dataset d = {names[g], n, malloc(4 * (n + 1) * sizeof(double))};
            CHECK(sc_gen_generate(names[g], n, 7 + s, d.rows) == 0, "generate %s", names[g]);
            pairs want = {0};
            uint64_t sum;
            oracle(&d, &want, &sum);
            sc_spheres view = sc_spheres_rows_f64(d.n, 3, d.rows);
            for (size_t k = 0; k < NPEERS; k++)
                for (int var = 0; var < 2; var++) {
                    pairs own = {0};
                    for (size_t t = 0; t < 4; t++) {
                        if (sizes[s] != 3000 && t != 1)
                            continue;
                        const sc_kernel kern = kernels[(t + (size_t)var) % 2];
                        config c = {sc_kernel_available(kern) ? kern : SC_KERNEL_SCALAR,
                                    thread_counts[t],
                                    peer_at(k),
                                    0,
                                    0,
                                    0,
                                    0,
                                    0,
                                    var,
                                    0};
                        check_config(&d, &view, &c, &want, sum, &own, "peer");
                    }
                    free(own.p);
                }
            free(want.p);
            if (sizes[s] == 300) { /* 2-D and float32 through every peer */
                peers_only = 1;
                check_dataset_2d(&d);
                check_dataset_f32(&d);
                peers_only = 0;
            }
            free(d.rows);
        }
}

#ifdef SC_STUDY
/* The study build's switches (indirect layout, Morton rows) on every
 * generator at n = 3000, f64, f32, SoA and 2-D views. */
static void group_knobs(void) {
    const char *const *names = sc_gen_names();
    peers_here = 0;
    for (int g = 0; names[g]; g++) {
        const size_t n = strcmp(names[g], "dense") == 0 ? 700 : 3000;
        dataset d = {names[g], n, malloc(4 * (n + 1) * sizeof(double))};
        CHECK(sc_gen_generate(names[g], n, 11, d.rows) == 0, "generate %s", names[g]);
        check_dataset(&d, 0);
        check_dataset_f32(&d);
        check_dataset_2d(&d);
        free(d.rows);
    }
    peers_here = 1;
}
#endif

static uint64_t rng_state = 12345;
static double urand(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * 0x1p-53;
}

static void run_rows(const char *name, size_t n, double *rows) {
    dataset d = {name, n, rows};
    check_dataset(&d, 0);
}

/* Counts on one algorithm's default context: the summary and the
 * candidate tests. */
static sc_status count_on(sc_algorithm a, const sc_spheres *v, sc_summary *sum, uint64_t *tests) {
    sc_options o = sc_options_default();
    o.algorithm = a;
    sc_context *c = NULL;
    sc_status st = sc_context_create(&o, &c);
    if (st == SC_OK)
        st = sc_count_pairs(c, v, sum);
    sc_stats s = {.size = sizeof s};
    *tests = st == SC_OK && sc_context_stats(c, &s) == SC_OK ? s.candidate_tests : 0;
    sc_context_destroy(c);
    return st;
}

/* A peer's cost far from the origin (issue 52): 2,000 spheres on one x
 * at 1e16 or 1e20, radii below 0.02, spread in y and z. partition1d's
 * segments were narrower than the boxes' rounding there, so every sphere
 * was registered in every segment (3.8e9 candidate tests at 1e20 where
 * brute force makes 2e6); they are now never narrower than that rounding,
 * so it stays within a few times brute force's n (n - 1) / 2. */
static void offset_cost(void) {
    const size_t n = 2000;
    double *rows = malloc(4 * n * sizeof(double));
    const double offsets[2] = {1e16, 1e20};
    uint64_t u = 12345;
    for (int o = 0; o < 2; o++) {
        for (size_t i = 0; i < n; i++) {
            double f[3];
            for (int a = 0; a < 3; a++) {
                u = u * 6364136223846793005ull + 1442695040888963407ull;
                f[a] = (double)(u >> 11) * 0x1p-53;
            }
            rows[4 * i] = offsets[o];
            rows[4 * i + 1] = 100.0 * f[0];
            rows[4 * i + 2] = 100.0 * f[1];
            rows[4 * i + 3] = 0.005 + 0.015 * f[2];
        }
        const sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
        sc_summary sb = {0, 0}, sp = {0, 0};
        uint64_t tb = 0, tp = 0;
        const sc_status a = count_on(SC_ALGO_BRUTE, &v, &sb, &tb);
        const sc_status b = count_on(SC_ALGO_PARTITION1D, &v, &sp, &tp);
        CHECK(a == SC_OK && b == SC_OK && sb.pairs == sp.pairs && sb.checksum == sp.checksum,
              "offset %g: partition1d's pairs differ from brute force's", offsets[o]);
        CHECK(tp <= 4 * (uint64_t)(n * (n - 1) / 2),
              "offset %g: partition1d made %llu candidate tests, brute force %llu", offsets[o],
              (unsigned long long)tp, (unsigned long long)tb);
    }
    /* sap and segtree at 1e12 with radii of 0.02 in a unit cube: absolute
     * float box ends are 65536 apart there, so every box got one key and
     * they tested all n (n - 1) / 2 pairs; relative to the bounds they test
     * the pairs whose boxes (2 r plus 2^-48 |x|, about 0.044 wide) overlap */
    for (size_t i = 0; i < n; i++) {
        double f[3];
        for (int a = 0; a < 3; a++) {
            u = u * 6364136223846793005ull + 1442695040888963407ull;
            f[a] = (double)(u >> 11) * 0x1p-53;
        }
        rows[4 * i] = 1e12 + f[0];
        rows[4 * i + 1] = -1e12 + f[1];
        rows[4 * i + 2] = 1e12 + f[2];
        rows[4 * i + 3] = 0.02;
    }
    const sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    sc_summary sb = {0, 0};
    uint64_t tb = 0;
    const sc_status bs = count_on(SC_ALGO_BRUTE, &v, &sb, &tb);
    const sc_algorithm swept[2] = {SC_ALGO_SAP, SC_ALGO_SEGTREE};
    for (int k = 0; k < 2; k++) {
        sc_summary sp = {0, 0};
        uint64_t tp = 0;
        const sc_status ps = count_on(swept[k], &v, &sp, &tp);
        CHECK(bs == SC_OK && ps == SC_OK && sb.pairs > 0 && sb.pairs == sp.pairs &&
                  sb.checksum == sp.checksum,
              "offset 1e12: %s's pairs differ from brute force's", sc_algorithm_name(swept[k]));
        CHECK(tp <= (uint64_t)(n * (n - 1) / 2) / 20,
              "offset 1e12: %s made %llu candidate tests, brute force %llu",
              sc_algorithm_name(swept[k]), (unsigned long long)tp, (unsigned long long)tb);
    }
    free(rows);
}

static void group_pathological(void) {
    size_t n;
    double *rows;

    offset_cost();

    /* all spheres at one point, radius 0 and 1 mixed */
    n = 600;
    rows = calloc(4 * n, sizeof(double));
    for (size_t i = 0; i < n; i++)
        rows[4 * i + 3] = (i % 3 == 0) ? 0.0 : 1.0;
    run_rows("one-point", n, rows);
    free(rows);

    /* exactly touching: radius 0.5 on an integer lattice, d2 == s*s exactly,
     * shifted far from the origin so rounding of cells is tested */
    n = 12 * 12 * 12;
    rows = malloc(4 * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        rows[4 * i] = 1000.0 + (double)(i % 12);
        rows[4 * i + 1] = -517.0 + (double)((i / 12) % 12);
        rows[4 * i + 2] = 3.0 + (double)(i / 144);
        rows[4 * i + 3] = 0.5;
    }
    run_rows("touching-lattice", n, rows);
    /* the same, with a 1e30 outlier that forces power-of-two cells */
    rows[0] = 1e30;
    run_rows("touching-lattice+1e30", n, rows);

    /* the same lattice straddling the key wrap: a 1e30 outlier forces the
     * power-of-two regime (origin 0, 2^19 cells per axis), so a lattice
     * around 0 has cells -1 and 0 at opposite ends of the wrapped range, and
     * one around 2^20 (cell edge 2 for radius 0.5) crosses 2^19 cells;
     * blocks of 4 then have windows that wrap on both sides */
    const double centres[2] = {0.0, 1048576.0};
    for (int c = 0; c < 2; c++) {
        for (size_t i = 0; i < n; i++) {
            rows[4 * i] = centres[c] - 6.0 + (double)(i % 12);
            rows[4 * i + 1] = centres[c] - 6.0 + (double)((i / 12) % 12);
            rows[4 * i + 2] = -6.0 + (double)(i / 144);
            rows[4 * i + 3] = 0.5;
        }
        rows[4 * 77] = 1e30;
        run_rows(c == 0 ? "touching-lattice-wrap-0" : "touching-lattice-wrap-2^20", n, rows);
    }
    free(rows);

    /* one huge sphere among small ones, and radii spanning 10^4 */
    n = 4000;
    rows = malloc(4 * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            rows[4 * i + a] = 200.0 * urand() - 100.0;
        rows[4 * i + 3] = 0.05 + 0.5 * urand();
    }
    rows[3] = 60.0;
    rows[4 * 17 + 3] = 500.0;
    run_rows("huge-sphere", n, rows);
    for (size_t i = 0; i < n; i++)
        rows[4 * i + 3] = 0.01 * pow(10.0, 4.0 * urand() * urand());
    run_rows("radii-1e4", n, rows);
    /* pairs that only just touch across rows: big spheres of the largest
     * radius and, around each, smaller ones of radius rmax / 2^k (each just
     * inside its level's limit) at (R + r)(1 - 2^-30), mostly across y and
     * z, where the rows' boxes (search.c, add_nb) decide which neighbour
     * rows are looked up; a few at (R + r)(1 + 2^-30), not pairs */
    {
        /* an anchor at the origin makes the centres' lower bounds 0, so
         * the top level's cells (edge 16 (1 + 2^-19) for radius 8) have
         * faces at its multiples: half the big spheres sit on one, with
         * their small ones on either side of it */
        const double top = 16.0 * (1.0 + 0x1p-19);
        size_t m = 0;
        rows[4 * m] = rows[4 * m + 1] = rows[4 * m + 2] = 0.0;
        rows[4 * m++ + 3] = 0.5;
        for (int c = 0; c < 333; c++) {
            double *big = rows + 4 * m++;
            for (int a = 0; a < 3; a++)
                big[a] = 20.0 + 280.0 * urand();
            const int face = c % 2 ? 1 + c % 4 / 2 : 0; /* 0: none, 1: y, 2: z */
            if (face)
                big[face] = top * (double)(2 + (int)(16.0 * urand()));
            big[3] = 8.0;
            for (int k = 0; k < 11; k++) {
                double *f = rows + 4 * m++;
                const double r = ldexp(8.0, -1 - (k % 4));
                const double th = face ? (k % 2 ? 0.0 : 3.141592653589793) + 0.3 * (urand() - 0.5) +
                                             (face == 2 ? 1.5707963267948966 : 0.0)
                                       : 6.283185307179586 * urand();
                const double dx = 0.05 * (urand() - 0.5), dy = cos(th), dz = sin(th);
                const double len = sqrt(dx * dx + dy * dy + dz * dz);
                const double d = (8.0 + r) * (k == 10 ? 1.0 + 0x1p-30 : 1.0 - 0x1p-30) / len;
                f[0] = big[0] + d * dx, f[1] = big[1] + d * dy, f[2] = big[2] + d * dz;
                f[3] = r;
            }
        }
        run_rows("touching-across-rows", m, rows);
    }
    /* the same, tight: with radii 8 and about 0.49 the plan has five
     * levels when it may (the variants that force 16), cells 2^l (1 +
     * 2^-19) from an origin at 0. A big sphere sits on a top-level corner,
     * nudged down until its cells are the ones below both faces, and a
     * small one 6 finest cells up on y and z, nudged up until its cells
     * are the ones above: the two rows' boxes are then 6 sqrt(2) = 8.485
     * apart against a reach of 8.5. Three more small ones at the other
     * corners, unnudged. */
    {
        const double c0 = 1.0 + 0x1p-19, top = 16.0 * c0, inv = 1.0 / c0;
        size_t m = 0;
        rows[4 * m] = rows[4 * m + 1] = rows[4 * m + 2] = 0.0;
        rows[4 * m++ + 3] = 0.5;
        for (int c = 0; c < 300; c++) {
            double *big = rows + 4 * m++;
            double face[3];
            big[0] = 20.0 + 280.0 * urand();
            for (int a = 1; a < 3; a++) {
                const int64_t cell = 16 * (2 + (int64_t)(16.0 * urand()));
                face[a] = top * (double)(cell / 16);
                big[a] = face[a];
                while ((int64_t)(big[a] * inv) >= cell)
                    big[a] = nextafter(big[a], -HUGE_VAL);
            }
            big[3] = 8.0;
            for (int k = 0; k < 4; k++) {
                double *f = rows + 4 * m++;
                f[0] = big[0];
                for (int a = 1; a < 3; a++) {
                    const int up = k == 0 || (k >> (a - 1) & 1);
                    f[a] = (k == 0 ? face[a] : big[a]) + (up ? 6.0 : -6.0) * c0;
                    if (k == 0)
                        while ((int64_t)(f[a] * inv) < (int64_t)(face[a] * inv + 0.5) + 6)
                            f[a] = nextafter(f[a], HUGE_VAL);
                }
                const double dy = f[1] - big[1], dz = f[2] - big[2];
                f[3] = sqrt(dy * dy + dz * dz) * (1.0 + 0x1p-30) - 8.0;
            }
        }
        run_rows("touching-at-corners", m, rows);
    }
    /* radii over 2^16: every one of the 16 levels in use, top level included
     * (the top level's key range once overflowed and looked empty) */
    for (size_t i = 0; i < n; i++) {
        /* 60 big spheres crowded in a corner, small ones over a box wide
         * enough (> 2^20 finest cells) to need 20 key bits per axis */
        for (int a = 0; a < 3; a++)
            rows[4 * i + a] = i < 60 ? 60.0 * urand() : 3000.0 * urand();
        rows[4 * i + 3] = i < 60 ? 5.0 + 5.0 * urand() : 1e-5 * pow(10.0, 6.0 * urand());
    }
    run_rows("radii-2^20-16-levels", n, rows);
    free(rows);

    /* two clusters far apart (1e9), and a few spheres at +-1e30 and 1e-300 */
    n = 3000;
    rows = malloc(4 * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        double off = (i & 1) ? 1e9 : -3.0;
        for (int a = 0; a < 3; a++)
            rows[4 * i + a] = off + 30.0 * urand();
        rows[4 * i + 3] = 1.0 + 0.5 * urand();
    }
    run_rows("far-clusters-1e9", n, rows);
    rows[0] = 1e30;
    rows[4 * 1 + 1] = -1e30;
    rows[4 * 2 + 2] = 1e30;
    rows[4 * 3] = 1e30; /* touches sphere 0 only if equal: make it equal */
    rows[4 * 3 + 1] = rows[1];
    rows[4 * 3 + 2] = rows[2];
    rows[4 * 5] = -1e-300;
    rows[4 * 6] = 1e-300;
    run_rows("outliers-1e30", n, rows);
    free(rows);

    /* A sparse set whose one-level cells are widened (occupancy.c: 16400
     * spheres, at least the 16384 it samples, in a cube of side 1024):
     * the x windows are then narrower than a cell (keys.c: xreach), and
     * 1000 pairs planted at exactly 2 r_max apart along x, the farthest any
     * pair reaches, must all be found, with 1000 more 2^-40 beyond it. */
    n = 16400;
    rows = malloc(4 * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            rows[4 * i + a] = 1023.0 * urand();
        rows[4 * i + 3] = 0.5;
    }
    for (size_t k = 0; k < 2000; k++) { /* spheres 2k and 2k + 1 */
        double *p = rows + 8 * k, *q = p + 4;
        p[0] = ldexp(floor(ldexp(1022.0 * urand(), 10)), -10); /* x + 1 is exact */
        q[0] = p[0] + (k < 1000 ? 1.0 : 1.0 + 0x1p-40);
        q[1] = p[1];
        q[2] = p[2];
    }
    run_rows("sparse-touching-x", n, rows);
    {
        sc_options o = sc_options_default();
        sc_context *ctx = NULL;
        sc_summary s = {0, 0};
        sc_stats st = {.size = sizeof st};
        const sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
        const int ok = sc_context_create(&o, &ctx) == SC_OK &&
                       sc_count_pairs(ctx, &v, &s) == SC_OK && sc_context_stats(ctx, &st) == SC_OK;
        CHECK(ok && st.levels == 1 && st.cell_size >= 8.0 && s.pairs >= 1000,
              "sparse-touching-x: widened cells (%g), %llu pairs", st.cell_size,
              (unsigned long long)s.pairs);
        sc_context_destroy(ctx);
    }
    free(rows);

    /* a column: every sphere on a line (high aspect ratio), and negative coords */
    n = 5000;
    rows = malloc(4 * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        rows[4 * i] = -5000.0 + 3.0 * (double)i * urand();
        rows[4 * i + 1] = 0.001 * urand();
        rows[4 * i + 2] = -7.0;
        rows[4 * i + 3] = 1.0 + urand();
    }
    run_rows("line", n, rows);
    free(rows);
}

/* The extremes of double (issue 13, defect 1): differences whose squares
 * underflow (the predicate then accepts centres up to about 2^-537 apart
 * even with zero radii), subnormal radii, and tiny clusters next to huge
 * coordinates. Each failed before the finest cell edge had a floor. */
static void group_extremes(void) {
    double rows[4 * 64];
    /* two zero-radius spheres 1e-163 apart: d2 underflows to 0 <= 0 */
    memset(rows, 0, sizeof rows);
    rows[4] = 1e-163;
    run_rows("underflow-zero-radii", 2, rows);
    /* r = 2^-538, centres 0.1 .. 1.2 x (ri + rj) apart along y, starting
     * near the top of a cell: ten pairs, five of them two cells apart */
    memset(rows, 0, sizeof rows);
    const double r = 0x1p-538;
    for (int k = 0; k < 10; k++) {
        rows[8 * k] = 20 * k * r; /* pairs 10 (ri + rj) apart along x */
        rows[8 * k + 1] = 1.9 * r;
        rows[8 * k + 3] = r;
        rows[8 * k + 4] = 20 * k * r;
        rows[8 * k + 5] = (1.9 + (0.1 + 0.12 * k) * 2) * r;
        rows[8 * k + 7] = r;
    }
    rows[80] = -100 * r; /* sets the origin of y to 0: cells start at 0 */
    run_rows("radius-2^-538", 21, rows);
    /* subnormal radii: 1/cell is infinite and 0 * inf is NaN without a floor */
    memset(rows, 0, sizeof rows);
    rows[3] = 5e-324;
    rows[4] = 1.0;
    rows[7] = 5e-324;
    run_rows("subnormal-radii", 2, rows);
    rows[4] = 0.0;
    run_rows("subnormal-radii-same-point", 2, rows);
    /* a cloud at 1e-160 scale, zero and subnormal radii, duplicates, and
     * coordinates at the accepted limit */
    size_t n = 64;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            rows[4 * i + a] = (double)(int)(8.0 * urand()) * 1e-163 * (urand() < 0.5 ? -1 : 1);
        const double u = urand();
        rows[4 * i + 3] = u < 0.3   ? 0.0
                          : u < 0.6 ? 5e-324 * (double)(int)(100 * urand())
                                    : 1e-163 * u;
    }
    run_rows("cloud-1e-163", n, rows);
    rows[0] = SC_MAX_ABS_VALUE;
    rows[4 * 9 + 1] = -SC_MAX_ABS_VALUE;
    rows[4 * 10 + 3] = SC_MAX_ABS_VALUE;
    rows[4 * 11 + 2] = 0x1p-1000;
    run_rows("cloud-1e-163+limits", n, rows);
    /* the same cloud scaled by every power of two from 2^-1074 to 2^490 */
    double base[4 * 64];
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 4; a++)
            base[4 * i + a] = (double)(int)(16.0 * urand());
    for (int e = -1074; e <= 490; e += 37) {
        for (size_t k = 0; k < 4 * n; k++)
            rows[k] = ldexp(base[k], e) * ((k % 4 != 3 && (k / 4) % 3 == 0) ? -1 : 1);
        char name[64];
        snprintf(name, sizeof name, "lattice-2^%d", e);
        run_rows(name, n, rows);
    }
}

/* A stream whose chunks find no pair: more chunks than a thread may hold
 * unemitted (SC_QUEUE), every one empty, on 1 and 2 threads. The sink once
 * dropped emitted chunks from a thread's queue only when pairs moved, so
 * such a stream waited for room forever (found by the sparse generator). */
static void stream_without_pairs(void) {
    const size_t n = 20000;
    double *rows = malloc(4 * n * sizeof(double));
    for (size_t k = 0; k < n; k++) { /* a lattice of pitch 10, radius 1: no pair */
        rows[4 * k] = 10.0 * (double)(k % 100);
        rows[4 * k + 1] = 10.0 * (double)((k / 100) % 100);
        rows[4 * k + 2] = 10.0 * (double)(k / 10000);
        rows[4 * k + 3] = 1.0;
    }
    const sc_spheres view = sc_spheres_rows_f64(n, 3, rows);
    for (int t = 1; t <= 2; t++) {
        sc_options o = sc_options_default();
        o.algorithm = SC_ALGO_BRUTE; /* thousands of chunks */
        o.threads = t;
        o.pin = SC_PIN_NONE;
        sc_context *ctx = NULL;
        CHECK(sc_context_create(&o, &ctx) == SC_OK, "context");
        pairs got = {0};
        sc_summary sum = {1, 1};
        chunk_limit = SIZE_MAX;
        const sc_status st = sc_stream_pairs(ctx, &view, collect, &got, &sum);
        CHECK(st == SC_OK && got.n == 0 && sum.pairs == 0,
              "empty stream, %d threads: status %s, %zu pairs", t, sc_status_string(st), got.n);
        free(got.p);
        sc_context_destroy(ctx);
    }
    free(rows);
}

/* The ABI: a caller built against 0.1.0's spherecollide.h passes that
 * sc_options size and owns only that many bytes (a buffer of exactly that
 * size: AddressSanitizer sees a read past it); the fields after it take
 * their defaults. A larger size than this library's is a newer caller's. */
static void group_abi(void) {
    const size_t old = SC_OPTIONS_SIZE_0_1;
    CHECK(old < sizeof(sc_options) && old > 0, "0.1.0's size %zu, this one's %zu", old,
          sizeof(sc_options));
    const size_t n = 2000;
    dataset d = {"uniform", n, malloc(n * 4 * sizeof(double))};
    sc_gen_generate("uniform", n, 11, d.rows);
    pairs want = {0};
    uint64_t want_sum = 0;
    oracle(&d, &want, &want_sum);
    const sc_spheres v = sc_spheres_rows_f64(n, 3, d.rows);
    for (int algo = 0; algo < sc_algorithm_count(); algo++) {
        sc_options o = sc_options_default();
        o.size = old;
        o.threads = 1;
        o.sorted = 1; /* read: the pairs come in the oracle's order */
        o.algorithm = (sc_algorithm)algo;
        unsigned char *buf = malloc(old);
        memcpy(buf, &o, old);
        sc_context *ctx = NULL;
        sc_status st = sc_context_create((const sc_options *)(void *)buf, &ctx);
        free(buf); /* the context keeps its own copy */
        sc_summary sum = {0, 0};
        uint32_t *got = malloc(2 * (want.n + 1) * sizeof *got);
        size_t needed = 0;
        if (st == SC_OK)
            st = sc_fill_pairs(ctx, &v, got, want.n + 1, &needed, &sum);
        CHECK(st == SC_OK && sum.pairs == want.n && sum.checksum == want_sum &&
                  memcmp(got, want.p, 2 * want.n * sizeof *got) == 0,
              "%s, %s with 0.1.0's options: %s, %llu pairs (want %zu), in order: %d", d.name,
              sc_algorithm_name((sc_algorithm)algo), sc_status_string(st),
              (unsigned long long)sum.pairs, want.n,
              memcmp(got, want.p, 2 * want.n * sizeof *got) == 0);
        free(got);
        sc_context_destroy(ctx);
    }
    /* a newer caller, and sizes no header ever had */
    sc_options o = sc_options_default();
    sc_context *ctx = (sc_context *)&o; /* must come back NULL */
    o.size = sizeof o + 8;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_VERSION && ctx == NULL,
          "a size larger than this library's: not SC_ERR_VERSION");
    CHECK(strstr(sc_status_string(SC_ERR_VERSION), "newer") != NULL, "SC_ERR_VERSION's text: %s",
          sc_status_string(SC_ERR_VERSION));
    char info[512];
    CHECK(sc_system_info(&o, info, sizeof info) > 0, "sc_system_info on a newer caller's options");
#ifndef SC_STUDY /* the study's build links no simulation library */
    sc_sim_params sp = sc_sim_params_default();
    sp.n = 100;
    sc_sim *sim = NULL;
    CHECK(sc_sim_create(&sp, &o, &sim) == SC_ERR_VERSION && sim == NULL,
          "sc_sim_create on a newer caller's options");
    o.size = old;
    CHECK(sc_sim_create(&sp, &o, &sim) == SC_OK && sim != NULL,
          "sc_sim_create on 0.1.0's options: %s", sc_sim_problem());
    sc_sim_destroy(sim);
#endif
    const size_t bad[3] = {0, sizeof(size_t), old - 1};
    for (int k = 0; k < 3; k++) {
        o.size = bad[k];
        CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && ctx == NULL,
              "size %zu: not refused", bad[k]);
    }
    /* the field 0.2.0 added: checked, and every core whatever the load */
    o = sc_options_default();
    o.team = (sc_team)7;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT, "team 7 accepted");
    o.team = SC_TEAM_EVERY_CORE;
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "SC_TEAM_EVERY_CORE refused");
    sc_summary sum = {0, 0};
    CHECK(sc_count_pairs(ctx, &v, &sum) == SC_OK && sum.pairs == want.n, "every core: %llu pairs",
          (unsigned long long)sum.pairs);
    /* sc_stats: the caller's size says how much is written */
    sc_stats st0 = {.size = sizeof st0};
    CHECK(sc_context_stats(ctx, &st0) == SC_OK && st0.size == sizeof st0 && st0.pairs == want.n &&
              st0.spheres == n,
          "stats: size %zu, %llu pairs", st0.size, (unsigned long long)st0.pairs);
    CHECK(SC_STATS_SIZE_0_2 <= sizeof(sc_stats), "0.2.0's stats size %zu, this one's %zu",
          (size_t)SC_STATS_SIZE_0_2, sizeof(sc_stats));
    struct { /* a newer caller: more fields after this library's */
        sc_stats s;
        unsigned char more[40];
    } newer;
    memset(&newer, 0xA5, sizeof newer);
    newer.s.size = sizeof newer;
    int untouched = 1;
    CHECK(sc_context_stats(ctx, &newer.s) == SC_OK && newer.s.size == sizeof(sc_stats) &&
              newer.s.pairs == want.n && newer.s.checksum == st0.checksum,
          "a newer caller's stats: size %zu (want %zu)", newer.s.size, sizeof(sc_stats));
    for (size_t k = 0; k < sizeof newer.more; k++)
        untouched &= newer.more[k] == 0xA5;
    CHECK(untouched, "a newer caller's fields past this library's were written");
    const size_t bad_stats[3] = {0, sizeof(size_t), SC_STATS_SIZE_0_2 - 1};
    for (int k = 0; k < 3; k++) {
        sc_stats b;
        memset(&b, 0xA5, sizeof b);
        b.size = bad_stats[k];
        CHECK(sc_context_stats(ctx, &b) == SC_ERR_INVALID_ARGUMENT && b.size == bad_stats[k] &&
                  b.pairs == 0xA5A5A5A5A5A5A5A5ull,
              "stats size %zu: not refused, or written", bad_stats[k]);
    }
    sc_context_destroy(ctx);
    free(want.p);
    free(d.rows);
}

/* A periodic query's order on one context (docs/api.md, "The three
 * searches"): the first call images both sides of each face, later ones
 * one-sided bands, so on the same spheres every call gives the same set
 * and the calls after the first one order. */
static void periodic_order(void) {
    enum { N = 3000 };
    double *rows = malloc(4 * N * sizeof *rows);
    for (size_t k = 0; k < N; k++) {
        for (int a = 0; a < 3; a++)
            rows[4 * k + a] = 20 * urand();
        rows[4 * k + 3] = 0.2 + 0.3 * urand();
    }
    const sc_spheres v = sc_spheres_rows_f64(N, 3, rows);
    for (int threads = 1; threads <= 2; threads++) {
        sc_options o = sc_options_default();
        o.threads = threads;
        o.pin = SC_PIN_NONE;
        o.box = (sc_box){{1, 1, 1}, {0, 0, 0}, {20, 20, 20}};
        sc_context *ctx = NULL;
        CHECK(sc_context_create(&o, &ctx) == SC_OK, "periodic order: context");
        pairs got[3] = {{0}, {0}, {0}};
        for (int call = 0; call < 3; call++)
            CHECK(sc_stream_pairs(ctx, &v, collect, &got[call], NULL) == SC_OK,
                  "periodic order: call %d", call);
        CHECK(got[0].n > 100 && same_pairs(&got[1], &got[2]),
              "periodic order, %d threads: calls 2 and 3 differ (%zu, %zu pairs)", threads,
              got[1].n, got[2].n);
        for (int call = 0; call < 3; call++)
            if (got[call].n)
                qsort(got[call].p, got[call].n, 2 * sizeof(uint32_t), cmp_pair);
        CHECK(same_pairs(&got[0], &got[1]), "periodic order, %d threads: the first call's set",
              threads);
        for (int call = 0; call < 3; call++)
            free(got[call].p);
        sc_context_destroy(ctx);
    }
    free(rows);
}

static void group_api(void) {
    stream_without_pairs();
    periodic_order();
    /* the checksum's documented worked values (docs/api.md) */
    CHECK(sc_pair_mix(0, 1) == 0x910a2dec89025cc1ull, "sc_pair_mix(0, 1)");
    CHECK(sc_pair_mix(1, 2) == 0xb3703ad894507022ull, "sc_pair_mix(1, 2)");
    {
        double two[3 * 4] = {0, 0, 0, 1, 1.5, 0, 0, 1, 3, 0, 0, 1}; /* 0-1 and 1-2 meet */
        const sc_spheres s3 = sc_spheres_rows_f64(3, 3, two);
        sc_context *c = NULL;
        sc_summary sum = {0, 0};
        CHECK(sc_context_create(NULL, &c) == SC_OK && sc_count_pairs(c, &s3, &sum) == SC_OK &&
                  sum.pairs == 2 && sum.checksum == 0x447a68c51d52cce3ull,
              "the documented checksum of {(0, 1), (1, 2)}: %llx",
              (unsigned long long)sum.checksum);
        sc_context_destroy(c);
    }
    /* bad input gives a status and the first bad index */
    double rows[4 * 4] = {0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 1, 3, 3, 3, 1};
    sc_spheres v = sc_spheres_rows_f64(4, 3, rows);
    size_t bad = 99;
    rows[4 * 2 + 3] = -1.0;
    CHECK(sc_spheres_validate(&v, &bad) == SC_ERR_NEGATIVE_RADIUS && bad == 2, "negative radius");
    rows[4 * 2 + 3] = 1.0;
    rows[4 * 1 + 1] = NAN;
    CHECK(sc_spheres_validate(&v, &bad) == SC_ERR_NON_FINITE && bad == 1, "nan");
    rows[4 * 1 + 1] = INFINITY;
    CHECK(sc_spheres_validate(&v, &bad) == SC_ERR_NON_FINITE && bad == 1, "inf");
    rows[4 * 1 + 1] = 1e200;
    CHECK(sc_spheres_validate(&v, &bad) == SC_ERR_OUT_OF_RANGE && bad == 1, "range");
    rows[4 * 1 + 1] = 1.0;
    CHECK(sc_spheres_validate(&v, &bad) == SC_OK, "valid");
    /* the context's validation: the same statuses and first index, on its
     * own threads, for a view large enough to be split between them */
    {
        enum { BIG = 100000 };
        double *big = calloc(4 * (size_t)BIG, sizeof *big);
        const sc_spheres vb = sc_spheres_rows_f64(BIG, 3, big);
        for (int threads = 1; big && threads <= 3; threads++) {
            sc_options o = sc_options_default();
            o.threads = threads;
            sc_context *vc = NULL;
            CHECK(sc_context_create(&o, &vc) == SC_OK, "context of %d threads", threads);
            size_t got = 99;
            CHECK(sc_context_validate(vc, &v, &got) == SC_OK, "context: valid (%d)", threads);
            rows[4 * 2 + 3] = -1.0;
            CHECK(sc_context_validate(vc, &v, &got) == SC_ERR_NEGATIVE_RADIUS && got == 2,
                  "context: negative radius (%d)", threads);
            rows[4 * 2 + 3] = 1.0;
            big[4 * 90001 + 2] = NAN, big[4 * 70001 + 3] = -2.0;
            CHECK(sc_context_validate(vc, &vb, &got) == SC_ERR_NEGATIVE_RADIUS && got == 70001,
                  "context: the first bad sphere of %d, not a later thread's (%d)", BIG, threads);
            big[4 * 70001 + 3] = 0.0;
            CHECK(sc_context_validate(vc, &vb, &got) == SC_ERR_NON_FINITE && got == 90001,
                  "context: NaN at 90001 (%d)", threads);
            big[4 * 90001 + 2] = 0.0;
            CHECK(sc_context_validate(vc, &vb, &got) == SC_OK, "context: valid big (%d)", threads);
            sc_context_destroy(vc);
        }
        CHECK(sc_context_validate(NULL, &v, &bad) == SC_ERR_INVALID_ARGUMENT, "context: NULL");
        free(big);
    }

    sc_context *ctx = NULL;
    CHECK(sc_context_create(NULL, &ctx) == SC_OK && ctx, "default context");
    sc_summary s;
    rows[3] = NAN;
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_ERR_NON_FINITE, "count rejects NaN");
    rows[3] = 1.0;
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_OK && s.pairs == 3, "context usable after an error");
    CHECK(sc_count_pairs(ctx, NULL, &s) == SC_ERR_INVALID_ARGUMENT, "NULL view");
    CHECK(sc_count_pairs(NULL, &v, &s) == SC_ERR_INVALID_ARGUMENT, "NULL context");
    sc_spheres toomany = v;
    toomany.count = (size_t)UINT32_MAX + 1;
    CHECK(sc_count_pairs(ctx, &toomany, &s) == SC_ERR_TOO_MANY_SPHERES, "too many spheres");
    sc_context_destroy(ctx);
    sc_context_destroy(NULL);

    sc_options o = sc_options_default();
    o.threads = -1;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx, "bad threads");
    o = sc_options_default();
    o.size = 3;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT, "bad size field");
    o = sc_options_default();
    o.algorithm = (sc_algorithm)sc_algorithm_count();
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx, "bad algorithm");
    o = sc_options_default();
    o.kdsplit.leaf_size = 0;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx, "bad kdsplit leaf size");
    o = sc_options_default();
    o.bvh.leaf_size = 5;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx, "bad bvh leaf size");
    o = sc_options_default();
    o.segtree.cutoff = 0;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx, "bad segtree cutoff");
    CHECK(sc_algorithm_count() >= SC_ALGO_COUNT, "%d algorithms, the header names %d",
          sc_algorithm_count(), SC_ALGO_COUNT);
    for (int a = 0; a < sc_algorithm_count(); a++) {
        sc_algorithm named = (sc_algorithm)-1;
        CHECK(sc_algorithm_named(sc_algorithm_name((sc_algorithm)a), &named) == SC_OK &&
                  named == (sc_algorithm)a,
              "sc_algorithm_named(\"%s\"): %d", sc_algorithm_name((sc_algorithm)a), (int)named);
        o = sc_options_default();
        o.algorithm = (sc_algorithm)a;
        const sc_status sa = sc_context_create(&o, &ctx);
        CHECK(sa == SC_OK && strcmp(sc_algorithm_name((sc_algorithm)a), "?") != 0,
              "algorithm %s: %s", sc_algorithm_name((sc_algorithm)a), sc_status_string(sa));
        sc_context_destroy(ctx);
        ctx = NULL;
    }
    {
        sc_algorithm untouched = SC_ALGO_BVH;
        CHECK(sc_algorithm_named("?", &untouched) == SC_ERR_INVALID_ARGUMENT &&
                  sc_algorithm_named("Grid", &untouched) == SC_ERR_INVALID_ARGUMENT &&
                  sc_algorithm_named(NULL, &untouched) == SC_ERR_INVALID_ARGUMENT &&
                  untouched == SC_ALGO_BVH,
              "sc_algorithm_named accepts what no algorithm is called");
    }
#ifdef SC_STUDY
    CHECK(sc_context_create(NULL, &ctx) == SC_OK &&
              sc_study_set_traversal(ctx, (sc_traversal)7) == SC_ERR_INVALID_ARGUMENT &&
              sc_study_set_layout(ctx, (sc_layout)7) == SC_ERR_INVALID_ARGUMENT &&
              sc_study_set_grid_sides(ctx, (sc_grid_sides)7) == SC_ERR_INVALID_ARGUMENT,
          "bad study switches");
    sc_context_destroy(ctx);
    {
        /* The study's plan replay is the engine's: the sparse set's cells
         * widen at the default edge (fewer key bits than at an edge that
         * turns the widening off) and uniform's do not; packing as the
         * engine packs (20000 spheres: 15 index bits). */
        const size_t n = 20000;
        double *prow = malloc(4 * n * sizeof(double));
        int kb[2][2] = {{0}}, lv = 0, pb[2][2] = {{0}};
        uint64_t var;
        const char *const gens[2] = {"sparse", "uniform"};
        for (int g = 0; g < 2; g++) {
            CHECK(prow && sc_gen_generate(gens[g], n, 3, prow) == 0, "generate %s", gens[g]);
            const sc_spheres sp = sc_spheres_rows_f64(n, 3, prow);
            for (int f = 0; f < 2; f++)
                CHECK(sc_study_grid_plan(&sp, f ? 1.0 + 0x1p-30 : 1.0, 0, &kb[g][f], &lv, &var,
                                         &pb[g][f]) == SC_OK &&
                          lv == 1,
                      "study plan replay, %s", gens[g]);
        }
        CHECK(kb[0][0] < kb[0][1] && kb[1][0] == kb[1][1],
              "study plan replay widens sparse cells only (%d/%d, %d/%d)", kb[0][0], kb[0][1],
              kb[1][0], kb[1][1]);
        CHECK(pb[0][0] == 15 && pb[1][0] == 15, "study plan replay packs (%d, %d)", pb[0][0],
              pb[1][0]);
        free(prow);
    }
#endif
    o = sc_options_default();
    o.kernel = SC_KERNEL_AVX2;
    sc_status st = sc_context_create(&o, &ctx);
    CHECK(sc_kernel_available(SC_KERNEL_AVX2) ? st == SC_OK : st == SC_ERR_UNSUPPORTED,
          "forced avx2: %s", sc_status_string(st));
    sc_context_destroy(ctx);

    /* the callback can stop the search */
    size_t n = 2000;
    double *many = malloc(4 * n * sizeof(double));
    sc_gen_generate("dense", n, 1, many);
    sc_spheres mv = sc_spheres_rows_f64(n, 3, many);
    o = sc_options_default();
    o.chunk_pairs = 1000;
    o.threads = 2;
    sc_context_create(&o, &ctx);
    st = sc_stream_pairs(ctx, &mv, NULL, NULL, NULL);
    CHECK(st == SC_ERR_INVALID_ARGUMENT, "NULL callback");

    /* the cost model: one level for narrow radii, several for radii over
     * three decades; a forced count is honoured */
    {
        size_t m = 20000;
        double *rr = malloc(4 * m * sizeof(double));
        sc_options lo = sc_options_default();
        sc_context *lc = NULL;
        sc_context_create(&lo, &lc);
        sc_stats ls = {.size = sizeof ls};
        sc_summary sm;
        sc_spheres lv = sc_spheres_rows_f64(m, 3, rr);
        sc_gen_generate("uniform", m, 1, rr);
        sc_count_pairs(lc, &lv, &sm);
        sc_context_stats(lc, &ls);
        CHECK(ls.levels == 1, "uniform: %d levels", ls.levels);
        sc_gen_generate("powerlaw", m, 1, rr);
        sc_count_pairs(lc, &lv, &sm);
        sc_context_stats(lc, &ls);
        CHECK(ls.levels > 2, "powerlaw: %d levels", ls.levels);
        sc_context_destroy(lc);
        lo.grid.levels = 2;
        sc_context_create(&lo, &lc);
        sc_count_pairs(lc, &lv, &sm);
        sc_context_stats(lc, &ls);
        CHECK(ls.levels <= 2, "forced 2 levels: %d", ls.levels);
        sc_context_destroy(lc);
        lo.grid.levels = 17;
        CHECK(sc_context_create(&lo, &lc) == SC_ERR_INVALID_ARGUMENT, "levels 17 rejected");
        free(rr);
    }

    /* repeated queries: scratch stops growing */
    sc_summary s1, s2;
    sc_count_pairs(ctx, &mv, &s1);
    sc_stats a = {.size = sizeof a}, b = {.size = sizeof b};
    sc_context_stats(ctx, &a);
    sc_count_pairs(ctx, &mv, &s2);
    sc_context_stats(ctx, &b);
    CHECK(s1.pairs == s2.pairs && s1.checksum == s2.checksum && s1.pairs == n * (n - 1) / 2,
          "repeat: %llu %llu", (unsigned long long)s1.pairs, (unsigned long long)s2.pairs);
    CHECK(a.scratch_bytes == b.scratch_bytes && a.scratch_bytes > 0, "scratch reused");
    sc_context_destroy(ctx);
    free(many);
}

/* Allocation hooks: every allocation goes through them; queries after the
 * first allocate nothing new; a failing allocator gives OUT_OF_MEMORY and
 * leaves the context usable. */
/* counting_alloc.h: count_alloc, count_free */

static int count_cb(const uint32_t *p, size_t count, void *user) {
    (void)p;
    *(size_t *)user += count;
    return 0;
}

static int stop_cb(const uint32_t *p, size_t count, void *user) {
    (void)p;
    (void)count;
    return ++*(int *)user >= 2;
}

static void group_alloc(void) {
    size_t n = 20000;
    double *rows = malloc(4 * n * sizeof(double));
    sc_gen_generate("uniform", n, 3, rows);
    sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    counting cnt = {0, 0, -1};
    sc_options o = sc_options_default();
    o.allocator.alloc = count_alloc;
    o.allocator.free = count_free;
    o.allocator.user = &cnt;
    o.threads = 2;
    sc_context *ctx = NULL;
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "hooked context");
    sc_summary s0, s1;
    sc_count_pairs(ctx, &v, &s0);
    size_t streamed = 0;
    sc_stream_pairs(ctx, &v, count_cb, &streamed, &s1);
    long after_first = cnt.allocs;
    for (int k = 0; k < 3; k++) {
        sc_count_pairs(ctx, &v, &s1);
        streamed = 0;
        sc_stream_pairs(ctx, &v, count_cb, &streamed, &s1);
    }
    CHECK(cnt.allocs == after_first, "steady state allocates nothing: %ld then %ld", after_first,
          cnt.allocs);
    CHECK(s1.pairs == s0.pairs && streamed == s0.pairs, "hooked results agree");
    sc_context_destroy(ctx);
    CHECK(cnt.allocs == cnt.frees, "every block freed: %ld allocs, %ld frees", cnt.allocs,
          cnt.frees);

    /* failing allocations: status, then success once memory is back */
    for (long fail = 1; fail < 8; fail++) {
        counting c2 = {0, 0, fail};
        o.allocator.user = &c2;
        ctx = NULL;
        if (sc_context_create(&o, &ctx) != SC_OK)
            continue;
        sc_status st = sc_count_pairs(ctx, &v, &s1);
        CHECK(st == SC_OK || st == SC_ERR_OUT_OF_MEMORY, "fail_after %ld: %s", fail,
              sc_status_string(st));
        c2.fail_after = -1;
        st = sc_count_pairs(ctx, &v, &s1);
        CHECK(st == SC_OK && s1.pairs == s0.pairs, "fail_after %ld then ok: %s", fail,
              sc_status_string(st));
        sc_context_destroy(ctx);
        CHECK(c2.allocs == c2.frees, "fail_after %ld leaks", fail);
    }

    /* stopping from the callback */
    o = sc_options_default();
    o.chunk_pairs = 100;
    o.threads = 2;
    sc_context_create(&o, &ctx);
    int calls = 0;
    sc_status st = sc_stream_pairs(ctx, &v, stop_cb, &calls, NULL);
    CHECK(st == SC_ERR_STOPPED && calls == 2, "stop: %s after %d calls", sc_status_string(st),
          calls);
    CHECK(sc_count_pairs(ctx, &v, &s1) == SC_OK && s1.pairs == s0.pairs, "usable after stop");
    sc_context_destroy(ctx);
    free(rows);
}

/* ---- per-peer options: sap's warm mode, bvh's refit, hashgrid's refusal -- */

typedef struct log_seen {
    int repaired, gave_up, refused, q16;
} log_seen;
static void watch_log(sc_log_level level, const char *msg, void *user) {
    log_seen *s = user;
    (void)level;
    s->repaired +=
        strstr(msg, "sweep order repaired") != NULL || strstr(msg, "tree refitted") != NULL;
    s->gave_up += strstr(msg, "repair gave up") != NULL || strstr(msg, "refit gave up") != NULL;
    s->refused += strstr(msg, "refused") != NULL;
    s->q16 += strstr(msg, "16-bit boxes") != NULL;
}

/* One warm call: the pairs against the oracle, and the stream in the same
 * order as a warm context with 2 threads that saw the same calls (warm mode
 * may keep the last call's sweep axis or tree, so a cold call's order can
 * differ). */
static void warm_step(sc_context *warm, sc_context *ref, const dataset *d, int threads,
                      const char *what) {
    pairs want = {0};
    uint64_t sum;
    oracle(d, &want, &sum);
    const sc_spheres view = sc_spheres_rows_f64(d->n, 3, d->rows);
    pairs got = {0}, ref_got = {0};
    chunk_limit = SIZE_MAX;
    sc_status st = sc_stream_pairs(warm, &view, collect, &got, NULL);
    CHECK(st == SC_OK && got.n == want.n, "warm %s threads=%d: status %s, %zu pairs, oracle %zu",
          what, threads, sc_status_string(st), got.n, want.n);
    st = sc_stream_pairs(ref, &view, collect, &ref_got, NULL);
    CHECK(st == SC_OK && same_pairs(&got, &ref_got),
          "warm %s threads=%d: stream order differs from 2 threads'", what, threads);
    qsort(got.p, got.n, 2 * sizeof(uint32_t), cmp_pair);
    CHECK(same_pairs(&got, &want), "warm %s threads=%d: pairs differ from the oracle", what,
          threads);
    free(got.p);
    free(ref_got.p);
    free(want.p);
}

/* One count on a fresh context with options o; st (if not NULL) gets its
 * stats. Returns 1 when every call succeeded. */
static int count_once(const sc_options *o, const sc_spheres *view, sc_summary *out, sc_stats *st) {
    sc_context *ctx = NULL;
    const int ok = sc_context_create(o, &ctx) == SC_OK && sc_count_pairs(ctx, view, out) == SC_OK &&
                   (!st || sc_context_stats(ctx, st) == SC_OK);
    sc_context_destroy(ctx);
    return ok;
}

static void group_options(void) {
    /* The grid widens its cells for sets that a sample shows nearly empty
     * (the sparse generator: 16x), and keeps 2 r_max for full ones and for
     * sets that only look empty from their bounding box (clustered blobs, a
     * shell); an explicit cell_factor is taken as given. Both answers are
     * checked against sap, and the widened plan must not depend on threads. */
    {
        static const struct {
            const char *dist;
            double min_factor, max_factor, cell_factor;
        } cases[] = {{"sparse", 8.0, 16.0, 1.0},   {"uniform", 1.0, 1.0, 1.0},
                     {"clustered", 1.0, 1.0, 1.0}, {"shell", 1.0, 1.0, 1.0},
                     {"sparse", 2.0, 2.0, 2.0},    {"sheet", 1.0, 1.0, 1.0}};
        const size_t n = 40000;
        double *rows = malloc(4 * (n + 1) * sizeof(double));
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            if (strcmp(cases[c].dist, "sheet") == 0) {
                /* a tilted plane, 0.0625 centres per unit area: sparse in its
                 * box, but a thinned sheet shares cells less often than the
                 * sheet itself, which the growth check has to see */
                for (size_t k = 0; k < n; k++) {
                    double *p = rows + 4 * k;
                    p[0] = 800.0 * urand();
                    p[1] = 800.0 * urand();
                    p[2] = 0.37 * p[0] + 0.21 * p[1];
                    p[3] = 1.0;
                }
            } else {
                CHECK(sc_gen_generate(cases[c].dist, n, 5, rows) == 0, "generate");
            }
            double rmax = 0.0;
            for (size_t k = 0; k < n; k++)
                rmax = rows[4 * k + 3] > rmax ? rows[4 * k + 3] : rmax;
            const sc_spheres view = sc_spheres_rows_f64(n, 3, rows);
            sc_summary want = {0, 0}, got = {0, 0};
            sc_options o = sc_options_default();
            o.algorithm = SC_ALGO_SAP;
            o.threads = 1;
            CHECK(count_once(&o, &view, &want, NULL), "sap on %s", cases[c].dist);
            double cell[2] = {0.0, 0.0};
            for (int t = 0; t < 2; t++) {
                o = sc_options_default();
                o.threads = t ? 3 : 1;
                o.grid.cell_factor = cases[c].cell_factor;
                sc_stats st = {.size = sizeof st};
                CHECK(count_once(&o, &view, &got, &st), "grid on %s", cases[c].dist);
                CHECK(got.pairs == want.pairs && got.checksum == want.checksum,
                      "%s, %d threads: %llu pairs, sap %llu", cases[c].dist, o.threads,
                      (unsigned long long)got.pairs, (unsigned long long)want.pairs);
                cell[t] = st.cell_size;
            }
            /* the cell edge is 2 r_max (plus a margin) times the factor */
            const double f = cell[0] / (2.0 * rmax);
            CHECK(f >= cases[c].min_factor && f <= cases[c].max_factor * 1.001 &&
                      cell[0] == cell[1],
                  "%s: cells of %g (%.3g x 2 r_max) on 1 thread, %g on 3; want %g..%g x",
                  cases[c].dist, cell[0], f, cell[1], cases[c].min_factor, cases[c].max_factor);
        }
        free(rows);
    }
    /* The level model's calibration (keys.c): on heavy-tailed radii at
     * 3e5 the 8-level plan is measured 12-20% faster than the 7-level one
     * (docs/one-shot.md), and the model must pick it; a row cost back at
     * its old value picks 7. Same answer as sap either way. */
    {
        const size_t n = 300000;
        double *rows = malloc(4 * (n + 1) * sizeof(double));
        CHECK(sc_gen_generate("heavytail", n, 1, rows) == 0, "generate");
        const sc_spheres view = sc_spheres_rows_f64(n, 3, rows);
        sc_summary want = {0, 0}, got = {0, 0};
        sc_options o = sc_options_default();
        o.algorithm = SC_ALGO_SAP;
        o.threads = 2;
        CHECK(count_once(&o, &view, &want, NULL), "sap on heavytail");
        sc_stats st[3] = {{.size = sizeof st[0]}, {.size = sizeof st[0]}, {.size = sizeof st[0]}};
        static const int forced[3] = {0, 7, 8};
        for (int k = 0; k < 3; k++) {
            o = sc_options_default();
            o.threads = 2;
            o.grid.levels = forced[k];
            CHECK(count_once(&o, &view, &got, &st[k]), "grid on heavytail, levels %d", forced[k]);
            CHECK(got.pairs == want.pairs && got.checksum == want.checksum,
                  "heavytail, levels %d: %llu pairs, sap %llu", forced[k],
                  (unsigned long long)got.pairs, (unsigned long long)want.pairs);
        }
        CHECK(st[1].cell_size == 2.0 * st[2].cell_size, "7 levels: cells of %g, 8 levels: %g",
              st[1].cell_size, st[2].cell_size);
        CHECK(st[0].cell_size == st[2].cell_size && st[0].levels == st[2].levels,
              "heavytail 3e5: the model's plan has cells of %g in %d levels, the 8-level plan %g "
              "in %d",
              st[0].cell_size, (int)st[0].levels, st[2].cell_size, (int)st[2].levels);
        free(rows);
    }
    /* segtree: scans too big for the box filter's buffers (a few huge
     * spheres span the quarters of the top segment, so their scans meet
     * 75,000 points each) take the plain walk and the indirect sort;
     * counted against sap (the grid is slow with huge spheres) */
    {
        const size_t n = 300000;
        double *rows = malloc(4 * (n + 1) * sizeof(double));
        CHECK(sc_gen_generate("uniform", n, 13, rows) == 0, "generate");
        rows[3] = rows[4 * 777 + 3] = 1e6;
        const sc_spheres view = sc_spheres_rows_f64(n, 3, rows);
        sc_summary want = {0, 0}, got = {0, 0};
        sc_options o = sc_options_default();
        o.threads = 2;
        o.algorithm = SC_ALGO_SAP;
        sc_context *ctx = NULL;
        CHECK(sc_context_create(&o, &ctx) == SC_OK && sc_count_pairs(ctx, &view, &want) == SC_OK,
              "sap on huge spheres");
        sc_context_destroy(ctx);
        for (int k = 0; k < 2; k++) {
            o.algorithm = SC_ALGO_SEGTREE;
            o.kernel = k ? SC_KERNEL_AUTO : SC_KERNEL_SCALAR;
            ctx = NULL;
            const sc_status st = sc_context_create(&o, &ctx) == SC_OK
                                     ? sc_count_pairs(ctx, &view, &got)
                                     : SC_ERR_INVALID_ARGUMENT;
            CHECK(st == SC_OK && got.pairs == want.pairs && got.checksum == want.checksum &&
                      want.pairs >= 2 * (n - 1) - 1,
                  "segtree kernel %d on huge spheres: %llu pairs, sap %llu", k,
                  (unsigned long long)got.pairs, (unsigned long long)want.pairs);
            sc_context_destroy(ctx);
        }
        free(rows);
    }
    /* sap's filter: 16-bit boxes where a typical box spans many of their
     * steps (uniform), floats where it does not (clusters far apart, zero
     * radii); exact either way, with the scalar and the SIMD kernel */
    const char *filters[3] = {"uniform", "farclusters", "zero radii"};
    for (int g = 0; g < 3; g++)
        for (int k = 0; k < 2; k++) {
            const size_t n = 3000;
            dataset d = {filters[g], n, malloc(4 * (n + 1) * sizeof(double))};
            CHECK(sc_gen_generate(g == 1 ? "farclusters" : "uniform", n, 11, d.rows) == 0,
                  "generate");
            for (size_t i = 0; g == 2 && i < n; i++)
                d.rows[4 * i + 3] = i % 3 ? 0.0 : d.rows[4 * i + 3];
            log_seen seen = {0, 0, 0, 0};
            sc_options o = sc_options_default();
            o.algorithm = SC_ALGO_SAP;
            o.threads = 2;
            o.kernel = k ? SC_KERNEL_AUTO : SC_KERNEL_SCALAR;
            o.log = watch_log;
            o.log_user = &seen;
            sc_context *ctx = NULL;
            CHECK(sc_context_create(&o, &ctx) == SC_OK, "sap context");
            pairs want = {0}, got = {0};
            uint64_t sum;
            oracle(&d, &want, &sum);
            const sc_spheres view = sc_spheres_rows_f64(n, 3, d.rows);
            chunk_limit = SIZE_MAX;
            const sc_status st = sc_stream_pairs(ctx, &view, collect, &got, NULL);
            qsort(got.p, got.n, 2 * sizeof(uint32_t), cmp_pair);
            CHECK(st == SC_OK && same_pairs(&got, &want), "sap %s kernel %d: %zu pairs, oracle %zu",
                  filters[g], k, got.n, want.n);
            CHECK(seen.q16 == (g == 0), "sap %s: 16-bit boxes %s", filters[g],
                  seen.q16 ? "used" : "not used");
            sc_context_destroy(ctx);
            free(got.p);
            free(want.p);
            free(d.rows);
        }

    /* sap warm and bvh refit: small moves are repaired (refitted), a
     * reshuffle gives up, another n or a trimmed context starts cold; every
     * call exact and in the order of a 2-thread context that saw the same
     * calls */
    for (int t = 1; t <= 3; t += 2)
        for (int bvh = 0; bvh <= 1; bvh++) {
            const char *peer = bvh ? "bvh refit" : "sap warm";
            const size_t n = 4000;
            dataset d = {"uniform", n, malloc(4 * (n + 1) * sizeof(double))};
            CHECK(sc_gen_generate("uniform", n, 5, d.rows) == 0, "generate");
            for (size_t i = 0; i < n; i += 7) /* exact ties on the sweep axis, kept below */
                d.rows[4 * i] = 0.25, d.rows[4 * i + 3] = 0.0;
            log_seen seen = {0, 0, 0, 0};
            sc_options o = sc_options_default();
            o.algorithm = bvh ? SC_ALGO_BVH : SC_ALGO_SAP;
            o.sap.warm = !bvh;
            o.bvh.refit = bvh;
            o.threads = t;
            o.pin = SC_PIN_NONE;
            o.log = watch_log;
            o.log_user = &seen;
            sc_context *ctx = NULL, *ref = NULL;
            CHECK(sc_context_create(&o, &ctx) == SC_OK, "warm sap context");
            o.threads = 2;
            o.log = NULL;
            CHECK(sc_context_create(&o, &ref) == SC_OK, "warm sap context");
            warm_step(ctx, ref, &d, t, "first call");
            CHECK(seen.repaired == 0 && seen.gave_up == 0, "%s: the first call is cold", peer);
            for (int frame = 0; frame < 3; frame++) { /* a small step of every sphere */
                for (size_t i = 0; i < n; i++)
                    for (int a = i % 7 == 0; a < 3; a++)
                        d.rows[4 * i + a] += (urand() - 0.5) * 0.02 * d.rows[4 * i + 3];
                warm_step(ctx, ref, &d, t, "small moves");
            }
            CHECK(seen.repaired == 3 && seen.gave_up == 0,
                  "%s: %d repairs, %d give-ups (want 3, 0)", peer, seen.repaired, seen.gave_up);
            const int before = seen.repaired;
            for (size_t i = n - 1; i > 0; i--) { /* same spheres, shuffled: same axis */
                const size_t j = (size_t)(urand() * (double)(i + 1));
                double tmp[4];
                memcpy(tmp, d.rows + 4 * i, sizeof tmp);
                memcpy(d.rows + 4 * i, d.rows + 4 * j, sizeof tmp);
                memcpy(d.rows + 4 * j, tmp, sizeof tmp);
            }
            warm_step(ctx, ref, &d, t, "reshuffled");
            CHECK(seen.gave_up == 1 && seen.repaired == before, "%s: a reshuffle gives up (%d)",
                  peer, seen.gave_up);
            dataset d2 = {"uniform", n - 100, d.rows};
            warm_step(ctx, ref, &d2, t, "fewer spheres");
            sc_context_trim(ctx);
            sc_context_trim(ref);
            warm_step(ctx, ref, &d2, t, "after trim");
            CHECK(seen.repaired == before && seen.gave_up == 1, "%s: other n and trim are cold",
                  peer);
            sc_context_destroy(ctx);
            sc_context_destroy(ref);
            free(d.rows);
        }
    sc_options o = sc_options_default();
    sc_context *ctx = NULL;
    o.sap.warm = 2;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx, "sap.warm = 2 refused");
    o = sc_options_default();
    o.bvh.refit = -1;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx, "bvh.refit = -1 refused");

    /* hashgrid: two huge spheres put every small one in one cell; a limit
     * below the predicted tests refuses before searching, the context stays
     * usable, and no limit gives the exact answer */
    const double bad_limits[] = {0.0, -1.0, NAN};
    for (int k = 0; k < 3; k++) {
        o = sc_options_default();
        o.hashgrid.max_tests = bad_limits[k];
        CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT, "max_tests %g refused",
              bad_limits[k]);
    }
    const size_t n = 2000;
    dataset d = {"two-huge", n, malloc(4 * n * sizeof(double))};
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            d.rows[4 * i + a] = urand() * 1000.0;
        d.rows[4 * i + 3] = i < 2 ? 400.0 : 1.0;
    }
    pairs want = {0};
    uint64_t sum;
    oracle(&d, &want, &sum);
    const sc_spheres view = sc_spheres_rows_f64(n, 3, d.rows);
    log_seen seen = {0, 0, 0, 0};
    o = sc_options_default();
    o.algorithm = SC_ALGO_HASHGRID;
    o.threads = 2;
    o.pin = SC_PIN_NONE;
    o.hashgrid.max_tests = 1e5; /* the cells predict n^2 / 2 = 2e6 */
    o.log = watch_log;
    o.log_user = &seen;
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "hashgrid context");
    sc_summary s = {1, 1};
    sc_status st = sc_count_pairs(ctx, &view, &s);
    CHECK(st == SC_ERR_TOO_COSTLY && s.pairs == 0 && seen.refused == 1,
          "hashgrid refusal: status %s, %llu pairs, %d log lines", sc_status_string(st),
          (unsigned long long)s.pairs, seen.refused);
    uint32_t buf[16];
    size_t needed = 7;
    st = sc_fill_pairs(ctx, &view, buf, 8, &needed, NULL);
    CHECK(st == SC_ERR_TOO_COSTLY, "hashgrid refusal through fill: %s", sc_status_string(st));
    dataset small = {"small", 500, d.rows + 8}; /* the small spheres alone pass */
    pairs want_small = {0};
    uint64_t sum_small;
    oracle(&small, &want_small, &sum_small);
    const sc_spheres view_small = sc_spheres_rows_f64(small.n, 3, small.rows);
    st = sc_count_pairs(ctx, &view_small, &s);
    CHECK(st == SC_OK && s.pairs == want_small.n && s.checksum == sum_small,
          "hashgrid after a refusal: %s, %llu pairs, oracle %zu", sc_status_string(st),
          (unsigned long long)s.pairs, want_small.n);
    sc_context_destroy(ctx);
    o.hashgrid.max_tests = INFINITY;
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "hashgrid context");
    st = sc_count_pairs(ctx, &view, &s);
    CHECK(st == SC_OK && s.pairs == want.n && s.checksum == sum,
          "hashgrid without a limit: %s, %llu pairs, oracle %zu", sc_status_string(st),
          (unsigned long long)s.pairs, want.n);
    sc_context_destroy(ctx);
    free(want.p);
    free(want_small.p);
    free(d.rows);
}

/* ---- the cell order (sc_cell_order) -------------------------------------- */

/* Queries whose sort was skipped, repaired, repaired as (key, index). */
static int repaired, repaired_pairs;
static void watch_skip(sc_log_level level, const char *msg, void *user) {
    (void)level;
    *(int *)user += strstr(msg, "sort skipped") != NULL;
    repaired += strstr(msg, "sort repaired") != NULL;
    repaired_pairs += strstr(msg, "sort repaired (key, index)") != NULL;
}

/* The pairs a grid context finds on d's spheres laid out as perm says (row
 * k is sphere perm[k]), mapped back to d's indices and sorted; *skipped
 * counts the queries whose sort was skipped, *cell gets the finest cell. */
static sc_status pairs_permuted(const dataset *d, const uint32_t *perm, int threads,
                                sc_kernel kernel, pairs *out, int *skipped, double *cell) {
    double *rows = malloc(4 * (d->n + 1) * sizeof(double));
    for (size_t k = 0; k < d->n; k++)
        memcpy(rows + 4 * k, d->rows + 4 * (size_t)perm[k], 4 * sizeof(double));
    sc_options o = sc_options_default();
    o.threads = threads;
    o.kernel = kernel;
    o.pin = SC_PIN_NONE;
    o.log = watch_skip;
    o.log_user = skipped;
    sc_context *ctx = NULL;
    sc_status st = sc_context_create(&o, &ctx);
    const sc_spheres view = sc_spheres_rows_f64(d->n, 3, rows);
    out->n = 0;
    chunk_limit = SIZE_MAX;
    if (st == SC_OK)
        st = sc_stream_pairs(ctx, &view, collect, out, NULL);
    sc_stats stats = {.size = sizeof stats};
    if (st == SC_OK && sc_context_stats(ctx, &stats) == SC_OK)
        *cell = stats.cell_size;
    sc_context_destroy(ctx);
    for (size_t k = 0; k < out->n; k++) {
        uint32_t i = perm[out->p[2 * k]], j = perm[out->p[2 * k + 1]];
        out->p[2 * k] = i < j ? i : j;
        out->p[2 * k + 1] = i < j ? j : i;
    }
    if (out->n)
        qsort(out->p, out->n, 2 * sizeof(uint32_t), cmp_pair);
    free(rows);
    return st;
}

/* The grid's order on every generator: a permutation, the same for 1, 2 and
 * 3 threads; the spheres laid out in it give the oracle's pairs, and their
 * sort is skipped when the plan is the same; the order with two spheres
 * swapped far apart (repaired), or cut and rotated, is sorted
 * again and gives the oracle's pairs too. Then the call's contracts. */
static void group_order(void) {
    const char *const *names = sc_gen_names();
    const size_t sizes[] = {0, 1, 2, 3000, 20000};
    int skipped_total = 0;
    for (int g = 0; names[g]; g++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const size_t n = sizes[s];
            const int uniform = strcmp(names[g], "uniform") == 0;
            /* the oracle is quadratic; sparse's cells widen from 16384 on */
            if (n > 3000 && !uniform && strcmp(names[g], "sparse") != 0)
                continue;
            dataset d = {names[g], n, malloc(4 * (n + 1) * sizeof(double))};
            CHECK(sc_gen_generate(names[g], n, 11 + s, d.rows) == 0, "generate %s", names[g]);
            pairs want = {0};
            uint64_t sum;
            oracle(&d, &want, &sum);
            const sc_spheres view = sc_spheres_rows_f64(n, 3, d.rows);
            uint32_t *ord[3];
            double cell = 0.0;
            for (int t = 0; t < 3; t++) {
                ord[t] = malloc(sizeof(uint32_t) * (n + 1));
                sc_options o = sc_options_default();
                o.threads = t + 1;
                o.pin = SC_PIN_NONE;
                sc_context *ctx = NULL;
                sc_status st = sc_context_create(&o, &ctx);
                if (st == SC_OK)
                    st = sc_cell_order(ctx, &view, ord[t]);
                sc_stats stats = {.size = sizeof stats};
                if (st == SC_OK && t == 0 && sc_context_stats(ctx, &stats) == SC_OK)
                    cell = stats.cell_size;
                CHECK(st == SC_OK, "order %s n=%zu threads=%d: %s", names[g], n, t + 1,
                      sc_status_string(st));
                sc_context_destroy(ctx);
            }
            CHECK(n == 0 ||
                      (memcmp(ord[0], ord[1], 4 * n) == 0 && memcmp(ord[0], ord[2], 4 * n) == 0),
                  "order %s n=%zu: differs between thread counts", names[g], n);
            unsigned char *seen = calloc(n + 1, 1);
            size_t dup = 0;
            for (size_t k = 0; k < n; k++)
                dup += ord[0][k] >= n || seen[ord[0][k]]++;
            CHECK(dup == 0, "order %s n=%zu: not a permutation (%zu bad)", names[g], n, dup);
            free(seen);

            /* In the order: the oracle's pairs, the same plan (the finest
             * cell; sparse's widened edge too, estimated from a sample at
             * other positions), and the sort skipped. */
            pairs got = {0};
            int skipped = 0;
            double cell_p = -1.0;
            sc_status st = pairs_permuted(&d, ord[0], 2, SC_KERNEL_AUTO, &got, &skipped, &cell_p);
            CHECK(st == SC_OK && same_pairs(&got, &want),
                  "order %s n=%zu: %s, %zu pairs, oracle %zu", names[g], n, sc_status_string(st),
                  got.n, want.n);
            CHECK(n < 3000 || (cell_p == cell && skipped == 1),
                  "order %s n=%zu: cell %.17g, in cell order %.17g, sort skipped %d times",
                  names[g], n, cell, cell_p, skipped);
            skipped_total += skipped;

            /* Two spheres swapped far apart (nearly in order: repaired),
             * and the order rotated by a third: sorted again, same pairs. */
            if (n >= 3000) {
                uint32_t *q = malloc(sizeof(uint32_t) * n);
                for (int variant = 0; variant < 2; variant++) {
                    if (variant == 0) {
                        memcpy(q, ord[0], 4 * n);
                        const size_t a = (n - 2) * 10 / 63 + 5, b = (n - 2) * 40 / 63 + 5;
                        const uint32_t tmp = q[a];
                        q[a] = q[b];
                        q[b] = tmp;
                    } else
                        for (size_t k = 0; k < n; k++)
                            q[k] = ord[0][(k + n / 3) % n];
                    skipped = 0;
                    const int repaired_before = repaired;
                    st = pairs_permuted(&d, q, variant ? 3 : 1,
                                        variant ? SC_KERNEL_SCALAR : SC_KERNEL_AUTO, &got, &skipped,
                                        &cell_p);
                    CHECK(st == SC_OK && same_pairs(&got, &want),
                          "order %s n=%zu %s: %s, %zu pairs, oracle %zu", names[g], n,
                          variant ? "rotated" : "swapped", sc_status_string(st), got.n, want.n);
                    CHECK(!uniform || skipped == 0, "order %s n=%zu %s: the sort was skipped",
                          names[g], n, variant ? "rotated" : "swapped");
                    /* two keys out of place: repaired, not sorted again */
                    CHECK(variant || cell_p != cell || repaired == repaired_before + 1,
                          "order %s n=%zu swapped: not repaired", names[g], n);
                }
                free(q);
            }
            free(got.p);
            free(want.p);
            for (int t = 0; t < 3; t++)
                free(ord[t]);
            free(d.rows);
        }
    CHECK(skipped_total >= 4, "order: the sort was skipped on only %d inputs", skipped_total);
    /* farclusters' keys do not fit one word with the index */
    CHECK(repaired >= 4 && repaired_pairs >= 1, "order: %d repairs, %d of (key, index) pairs",
          repaired, repaired_pairs);

    /* Contracts: the grid only; a bad sphere writes nothing; NULL order for
     * no spheres; a periodic box is ignored. */
    double rows[4 * 4] = {0, 0, 0, 1, 1, 0, 0, 1, 5, 0, 0, 1, 9, 0, 0, 1};
    const sc_spheres four = sc_spheres_rows_f64(4, 3, rows);
    uint32_t out[4] = {7, 7, 7, 7};
    sc_options o = sc_options_default();
    o.algorithm = SC_ALGO_SAP;
    sc_context *ctx = NULL;
    CHECK(sc_context_create(&o, &ctx) == SC_OK &&
              sc_cell_order(ctx, &four, out) == SC_ERR_UNSUPPORTED,
          "order: a sap context is refused");
    sc_context_destroy(ctx);
    o = sc_options_default();
    o.box.periodic[0] = 1;
    o.box.lo[0] = 0.0;
    o.box.hi[0] = 4.0;
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "order: context");
    CHECK(sc_cell_order(NULL, &four, out) == SC_ERR_INVALID_ARGUMENT, "order: NULL context");
    CHECK(sc_cell_order(ctx, &four, NULL) == SC_ERR_INVALID_ARGUMENT, "order: NULL order");
    CHECK(sc_cell_order(ctx, NULL, out) == SC_ERR_INVALID_ARGUMENT, "order: NULL spheres");
    const sc_spheres none = sc_spheres_rows_f64(0, 3, rows);
    CHECK(sc_cell_order(ctx, &none, NULL) == SC_OK, "order: no spheres, no order array");
    rows[4 * 2 + 1] = NAN;
    CHECK(sc_cell_order(ctx, &four, out) == SC_ERR_NON_FINITE && out[0] == 7 && out[3] == 7,
          "order: a NaN is refused and nothing is written");
    rows[4 * 2 + 1] = 0.0;
    CHECK(sc_cell_order(ctx, &four, out) == SC_OK && (out[0] | out[1] | out[2] | out[3]) < 4 &&
              out[0] + out[1] + out[2] + out[3] == 6,
          "order: a periodic context orders the centres as given");
    sc_context_destroy(ctx);
}

static void run_api(void) {
    group_api();
    group_alloc();
}

static void run_generators(void) {
    peers_here = 0; /* group peers runs them on the generators */
    group_generators();
    peers_here = 1;
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"api", run_api},
        {"pathological", group_pathological},
        {"extremes", group_extremes},
        {"generators", run_generators},
        {"peers", group_peers},
        {"options", group_options},
        {"order", group_order},
        {"abi", group_abi},
#ifdef SC_STUDY
        {"knobs", group_knobs},
#endif
    };
    return sc_test_main(argc, argv, "test_engine", groups, sizeof groups / sizeof groups[0]);
}
