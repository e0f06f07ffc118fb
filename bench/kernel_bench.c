/*
 * kernel_bench.c: narrowphase kernel throughput alone, in candidate tests
 * per second, for every kernel this CPU runs. The search around the kernels
 * (windows, candidate lists) is the same for all of them and is left out, so
 * the ratio compares the kernels themselves; sc_bench's per-query figures
 * (tests / search seconds) include that shared work.
 *
 * Workload: blocks of 4 home spheres and lists of candidates drawn so that
 * 6 to 8% of tests are pairs, the rate the search sees on the uniform
 * scenario (971,093 pairs in about 16 million tests at 10^6). One thread;
 * median of the repeats. Output: one line per kernel and a CSV row each.
 *
 * Where the AVX2 kernel runs, the study's float32 prototype (kernel_f32.c)
 * runs too, once per coordinate range L: the double pool is moved so that
 * its coordinates reach L from the float32 copy's origin (8.25: an origin
 * per neighbourhood; 324 and 698: one origin for the whole box of uniform
 * 10^6 and 10^7), and the rows report tests/s and the share of tests decided
 * again in double. Every kernel's pair stream (pairs, in order) is hashed;
 * kernel_bench exits 1 if the prototype's differs from the AVX2 kernel's on
 * the same pool.
 *
 * Rounds (--rounds R, default 3): the scalar and AVX2 kernels are timed in
 * turn, R times each, and each reports the median of its rounds' medians, so
 * a slow phase of the host falls on both sides of their ratio (the float32
 * rows are timed once, after them).
 *
 * Replay (--replay N, default 10^6; 0 skips it): the engine's own kernel
 * calls on uniform N, recorded from one single-threaded count (the blocks,
 * their partly filled lanes, the candidate lists as the search built them)
 * and played back through each double kernel on the same working copy, so
 * the ratio is the kernels' on the engine's real workload, without the
 * window scans around them. Both kernels must produce the same pair stream.
 *
 *   kernel_bench [--tests N] [--repeat R] [--rounds R] [--replay N] [--csv PATH]
 */
#define _POSIX_C_SOURCE 200809L
#include "kernel.h"
#include "spherecollide_study.h"
#include "sc_gen.h"
#ifdef SC_HAVE_F32_PROTO
#include "kernel_f32.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIST 2048
#define PAD 8          /* kernels read up to a block past the end (src/core/internal.h SC_PAD) */
#define POOL (1 << 16) /* spheres: 2 MiB of working copy, L2/L3 resident like a row neighbourhood */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double u01(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

static uint64_t flushed; /* pairs dropped by flushes */
static uint64_t stream;  /* hash of the pairs, in order (untimed runs only) */
static int hashing;
static void drop(sc_hits *h) {
    for (size_t k = 0; hashing && k < h->count; k++)
        stream =
            (stream ^ (((uint64_t)h->pairs[2 * k] << 32) | h->pairs[2 * k + 1])) * 0x100000001B3ull;
    flushed += h->count;
    h->count = 0;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The pool: POOL spheres (plus padding) of the double working copy, and its
 * float32 copy relative to the origin 0. */
typedef struct pool {
    double *x, *y, *z, *r;
    float *xf, *yf, *zf, *rf;
} pool;

typedef struct result {
    double rate; /* tests per second, median */
    uint64_t tests, pairs, stream, rechecked;
} result;

typedef struct runner {
    sc_kernel_fn fn; /* a double kernel, or NULL: the float32 prototype */
    float band_abs, band_rel;
} runner;

/* One pass of a workload: runs the kernel calls, returns the candidate tests
 * and adds the lanes decided again in double to *again. */
typedef uint64_t (*pass_fn)(const void *work, sc_hits *hits, uint64_t *again);

/* Pass 0 hashes the pair stream (untimed); passes 1..repeat are timed and
 * the median gives the rate. */
static result measure(pass_fn pass, const void *work, int repeat) {
    static uint32_t hitbuf[2 * 4096];
    double *secs = malloc(sizeof(double) * (size_t)repeat);
    result res = {0};
    for (int rep = 0; rep <= repeat; rep++) {
        hashing = rep == 0;
        sc_hits h = {hitbuf, 0, 4096, drop, NULL};
        uint64_t again = 0;
        flushed = 0;
        stream = 0xCBF29CE484222325ull;
        const double t = now();
        res.tests = pass(work, &h, &again);
        const double dt = now() - t;
        drop(&h);
        if (rep == 0) {
            res.stream = stream;
            res.pairs = flushed;
        } else {
            secs[rep - 1] = dt;
        }
        res.rechecked = again;
    }
    qsort(secs, (size_t)repeat, sizeof(double), cmp_d);
    res.rate = (double)res.tests / secs[repeat / 2];
    free(secs);
    return res;
}

/* The synthetic workload: `calls` full blocks against the same list. */
typedef struct pool_work {
    const runner *k;
    const pool *p;
    const uint32_t *cand;
    size_t calls;
} pool_work;

static uint64_t pool_pass(const void *work, sc_hits *h, uint64_t *again) {
    const pool_work *w = work;
    const pool *p = w->p;
    uint64_t tests = 0;
    for (size_t c = 0; c < w->calls; c++) {
        const uint32_t i0 = (uint32_t)(c * 4 % (POOL - 8));
        if (w->k->fn) {
            sc_kernel_args a = {.x = p->x,
                                .y = p->y,
                                .z = p->z,
                                .r = p->r,
                                .i0 = i0,
                                .ni = 4,
                                .tri_end = 0,
                                .cand = w->cand,
                                .ncand = LIST};
            tests += w->k->fn(&a, h);
        }
#ifdef SC_HAVE_F32_PROTO
        else {
            sc_f32_args a = {.xf = p->xf,
                             .yf = p->yf,
                             .zf = p->zf,
                             .rf = p->rf,
                             .x = p->x,
                             .y = p->y,
                             .z = p->z,
                             .r = p->r,
                             .i0 = i0,
                             .cand = w->cand,
                             .ncand = LIST,
                             .band_abs = w->k->band_abs,
                             .band_rel = w->k->band_rel};
            tests += sc_proto_f32(&a, h, again);
        }
#endif
    }
    (void)again;
    return tests;
}

static result run(const runner *k, const pool *p, const uint32_t *cand, size_t calls, int repeat) {
    const pool_work w = {k, p, cand, calls};
    return measure(pool_pass, &w, repeat);
}

/* ---- replay of the engine's kernel calls ---------------------------------- */

typedef struct rec_call {
    uint32_t i0, ni, tri_end, ncand;
    size_t at; /* first candidate in rec.cand */
} rec_call;

static struct {
    rec_call *calls;
    size_t ncalls, cap_calls;
    uint32_t *cand;
    size_t ncand, cap_cand;
    const double *x, *y, *z, *r;
    int failed;
} rec;

/* The engine's kernel while recording: notes the call, then runs the scalar
 * reference so the query's answer stays whole. */
static uint64_t recorder(const sc_kernel_args *a, sc_hits *hits) {
    if (rec.ncalls == rec.cap_calls) {
        size_t cap = rec.cap_calls ? 2 * rec.cap_calls : 4096;
        rec_call *c = realloc(rec.calls, cap * sizeof *c);
        if (!c)
            rec.failed = 1;
        else
            rec.calls = c, rec.cap_calls = cap;
    }
    if (rec.ncand + a->ncand + 8 > rec.cap_cand) {
        size_t cap = rec.cap_cand ? 2 * rec.cap_cand : 65536;
        while (cap < rec.ncand + a->ncand + 8)
            cap *= 2;
        uint32_t *c = realloc(rec.cand, cap * sizeof *c);
        if (!c)
            rec.failed = 1;
        else
            rec.cand = c, rec.cap_cand = cap;
    }
    if (!rec.failed) {
        rec.calls[rec.ncalls++] = (rec_call){a->i0, a->ni, a->tri_end, a->ncand, rec.ncand};
        memcpy(rec.cand + rec.ncand, a->cand, sizeof(uint32_t) * a->ncand);
        rec.ncand += a->ncand;
        rec.x = a->x, rec.y = a->y, rec.z = a->z, rec.r = a->r;
    }
    return sc_narrow_scalar(a, hits);
}

typedef struct replay_work {
    sc_kernel_fn fn;
} replay_work;

static uint64_t replay_pass(const void *work, sc_hits *h, uint64_t *again) {
    const sc_kernel_fn fn = ((const replay_work *)work)->fn;
    uint64_t tests = 0;
    for (size_t k = 0; k < rec.ncalls; k++) {
        const rec_call *c = &rec.calls[k];
        sc_kernel_args a = {.x = rec.x,
                            .y = rec.y,
                            .z = rec.z,
                            .r = rec.r,
                            .i0 = c->i0,
                            .ni = c->ni,
                            .tri_end = c->tri_end,
                            .cand = rec.cand + c->at,
                            .ncand = c->ncand};
        tests += fn(&a, h);
    }
    (void)again;
    return tests;
}

static result replay(sc_kernel_fn fn, int repeat) {
    const replay_work w = {fn};
    return measure(replay_pass, &w, repeat);
}

/* Records one single-threaded count of uniform n; returns its pair count, or
 * -1 on failure. The context stays alive (its working copy is replayed). */
static long long record(size_t n, sc_context **ctx_out, double **rows_out) {
    double *rows = malloc(sizeof(double) * 4 * n);
    if (!rows || sc_gen_generate("uniform", n, 1, rows) != 0)
        return -1;
    sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    sc_options o = sc_options_default();
    o.threads = 1;
    sc_context *ctx = NULL;
    if (sc_context_create(&o, &ctx) != SC_OK)
        return -1;
    sc_summary want, got;
    if (sc_count_pairs(ctx, &v, &want) != SC_OK) /* the normal kernel first */
        return -1;
    sc_study_set_kernel(ctx, recorder);
    if (sc_count_pairs(ctx, &v, &got) != SC_OK || rec.failed || got.pairs != want.pairs ||
        got.checksum != want.checksum)
        return -1;
    *ctx_out = ctx;
    *rows_out = rows;
    return (long long)got.pairs;
}

/* Fills the pool: spheres of radius 1 to 1.5 in a cube of edge 8.25 whose
 * far corner is `reach` from the origin along each axis (the same random
 * draws every time), and the float32 copy. */
static void fill(pool *p, double reach) {
    const double edge = 8.25; /* 6% of random pairs intersect: (4/3 pi 2.5^3) / L^3 */
    rng = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < POOL + PAD; k++) {
        p->x[k] = (reach - edge) + edge * u01();
        p->y[k] = (reach - edge) + edge * u01();
        p->z[k] = (reach - edge) + edge * u01();
        p->r[k] = 1.0 + 0.5 * u01();
        p->xf[k] = (float)p->x[k];
        p->yf[k] = (float)p->y[k];
        p->zf[k] = (float)p->z[k];
        p->rf[k] = (float)p->r[k];
    }
}

/* The median rate of `rounds` results of one kernel (the rest from the first). */
static result median_rate(const result *r, int rounds) {
    double rates[16];
    for (int k = 0; k < rounds; k++)
        rates[k] = r[k].rate;
    qsort(rates, (size_t)rounds, sizeof(double), cmp_d);
    result m = r[0];
    m.rate = rates[rounds / 2];
    return m;
}

/* One function, though long: the kernel benchmark's sequence (arguments,
 * data, each kernel's rounds, the CSV and the table). */
int main(int argc, char **argv) {
    double want_tests = 2e8;
    int repeat = 5, rounds = 3;
    size_t replay_n = 1000000;
    const char *csv = NULL;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--tests") && k + 1 < argc)
            want_tests = atof(argv[++k]);
        else if (!strcmp(argv[k], "--repeat") && k + 1 < argc)
            repeat = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--rounds") && k + 1 < argc)
            rounds = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--csv") && k + 1 < argc)
            csv = argv[++k];
        else if (!strcmp(argv[k], "--replay") && k + 1 < argc)
            replay_n = (size_t)atof(argv[++k]);
        else {
            fprintf(stderr, "usage: kernel_bench [--tests N] [--repeat R] [--rounds R] [--replay "
                            "N] [--csv PATH]\n");
            return 2;
        }
    }
    if (repeat < 3)
        repeat = 3;
    if (rounds < 1 || rounds > 16)
        rounds = rounds < 1 ? 1 : 16;
    const size_t np = POOL + PAD;
    pool p;
    double *w = aligned_alloc(64, 4 * sizeof(double) * np);
    float *wf = aligned_alloc(64, 4 * sizeof(float) * np);
    p.x = w, p.y = w + np, p.z = w + 2 * np, p.r = w + 3 * np;
    p.xf = wf, p.yf = wf + np, p.zf = wf + 2 * np, p.rf = wf + 3 * np;
    uint32_t *cand = malloc(sizeof(uint32_t) * (LIST + 8));
    for (int k = 0; k < LIST; k++)
        cand[k] = 8 + (uint32_t)(u01() * (POOL - 16));
    const size_t calls = (size_t)(want_tests / (4.0 * LIST)) + 1;

    enum { NROWS = 8 };
    struct {
        char name[32];
        double reach;
        result res;
    } rows[NROWS];
    memset(rows, 0, sizeof rows);
    int nrows = 0, failed = 0;
    fill(&p, 8.25);
    runner ks[2] = {{sc_narrow_scalar, 0, 0}, {NULL, 0, 0}};
#ifdef SC_HAVE_AVX2_KERNEL
    if (sc_kernel_available(SC_KERNEL_AVX2))
        ks[1].fn = sc_narrow_avx2;
#endif
    const char *names[2] = {"scalar", "avx2"};
    {
        result by_round[2][16];
        for (int r = 0; r < rounds; r++)
            for (int q = 0; q < 2; q++)
                if (ks[q].fn)
                    by_round[q][r] = run(&ks[q], &p, cand, calls, repeat);
        for (int q = 0; q < 2; q++) {
            if (!ks[q].fn)
                continue;
            snprintf(rows[nrows].name, sizeof rows[nrows].name, "%s", names[q]);
            rows[nrows].reach = 8.25;
            rows[nrows].res = median_rate(by_round[q], rounds);
            nrows++;
        }
    }
#ifdef SC_HAVE_F32_PROTO
    /* The float32 prototype against the AVX2 kernel on the same pool, for
     * three coordinate ranges L (see the top of the file). */
    if (ks[1].fn) {
        static const double reach[3] = {8.25, 324.0, 698.0};
        const double u = 0x1p-24;
        for (int q = 0; q < 3; q++) {
            fill(&p, reach[q]);
            const result ref = run(&ks[1], &p, cand, calls, 3);
            const runner f = {NULL, (float)(128.0 * u * reach[q] * reach[q]), (float)(16.0 * u)};
            const result got = run(&f, &p, cand, calls, repeat);
            if (got.stream != ref.stream || got.pairs != ref.pairs) {
                fprintf(stderr,
                        "kernel_bench: float32 prototype at L = %g: %llu pairs, stream %016llx; "
                        "avx2: %llu, %016llx\n",
                        reach[q], (unsigned long long)got.pairs, (unsigned long long)got.stream,
                        (unsigned long long)ref.pairs, (unsigned long long)ref.stream);
                failed = 1;
            }
            snprintf(rows[nrows].name, sizeof rows[nrows].name, "f32-L%g", reach[q]);
            rows[nrows].reach = reach[q];
            rows[nrows].res = got;
            nrows++;
        }
    }
#endif
    /* The engine's own calls, replayed: scalar and AVX2. */
    result rep[2];
    int nrep = 0;
    double rep_lanes = 0;
    if (replay_n > 0) {
        sc_context *ctx = NULL;
        double *in = NULL;
        const long long pairs = record(replay_n, &ctx, &in);
        if (pairs < 0) {
            fprintf(stderr,
                    "kernel_bench: recording the engine's kernel calls on uniform %zu failed\n",
                    replay_n);
            failed = 1;
        } else {
            uint64_t lanes = 0;
            for (size_t k = 0; k < rec.ncalls; k++)
                lanes += rec.calls[k].ni;
            rep_lanes = rec.ncalls ? (double)lanes / (double)rec.ncalls : 0;
            result by_round[2][16];
            for (int r = 0; r < rounds; r++)
                for (int q = 0; q < 2; q++)
                    if (ks[q].fn)
                        by_round[q][r] = replay(ks[q].fn, repeat);
            for (int q = 0; q < 2; q++)
                if (ks[q].fn)
                    rep[nrep++] = median_rate(by_round[q], rounds);
            if (nrep == 2 && (rep[1].stream != rep[0].stream || rep[1].pairs != rep[0].pairs)) {
                fprintf(stderr, "kernel_bench: replay: avx2 pair stream differs from scalar's\n");
                failed = 1;
            }
            if (rep[0].pairs != (uint64_t)pairs) {
                fprintf(stderr, "kernel_bench: replay found %llu pairs, the query %lld\n",
                        (unsigned long long)rep[0].pairs, pairs);
                failed = 1;
            }
            sc_context_destroy(ctx);
            free(in);
        }
    }

    const double base = rows[0].res.rate;
    for (int q = 0; q < nrows; q++) {
        const result *r = &rows[q].res;
        printf("kernel %-10s %.3f Gtests/s (median of %d round(s) of %d, %llu tests, %.1f%% pairs, "
               "%.4f%% rechecked in double, %.2fx scalar)\n",
               rows[q].name, r->rate * 1e-9, rows[q].name[0] == 'f' ? 1 : rounds, repeat,
               (unsigned long long)r->tests, 100.0 * (double)r->pairs / (double)r->tests,
               100.0 * (double)r->rechecked / (double)r->tests, r->rate / base);
    }
    if (nrows > 1 && !strcmp(rows[1].name, "avx2"))
        printf("avx2 / scalar: %.2fx\n", rows[1].res.rate / base);
    for (int q = 0; q < nrep; q++)
        printf("replay %-7s %.3f Gtests/s (uniform %zu, the engine's %zu kernel calls, %.2f home "
               "spheres per block, %.1f%% pairs)\n",
               names[q], rep[q].rate * 1e-9, replay_n, rec.ncalls, rep_lanes,
               100.0 * (double)rep[q].pairs / (double)rep[q].tests);
    if (nrep == 2)
        printf("replay avx2 / scalar: %.2fx\n", rep[1].rate / rep[0].rate);
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (!f) {
            fprintf(stderr, "kernel_bench: cannot write %s\n", csv);
            return 1;
        }
        fprintf(f,
                "workload,kernel,gtests_per_s,pair_share,ratio_vs_scalar,coord_range,recheck_share,"
                "bytes_per_sphere,lanes_per_block\n");
        for (int q = 0; q < nrows; q++) {
            const result *r = &rows[q].res;
            fprintf(f, "synthetic,%s,%.4f,%.4f,%.3f,%g,%.6f,%d,4\n", rows[q].name, r->rate * 1e-9,
                    (double)r->pairs / (double)r->tests, r->rate / base, rows[q].reach,
                    (double)r->rechecked / (double)r->tests, rows[q].name[0] == 'f' ? 16 : 32);
        }
        for (int q = 0; q < nrep; q++)
            fprintf(f, "replay-uniform-%zu,%s,%.4f,%.4f,%.3f,,0,32,%.3f\n", replay_n, names[q],
                    rep[q].rate * 1e-9, (double)rep[q].pairs / (double)rep[q].tests,
                    rep[q].rate / rep[0].rate, rep_lanes);
        fclose(f);
    }
    free(w);
    free(wf);
    free(cand);
    free(rec.calls);
    free(rec.cand);
    return failed;
}
