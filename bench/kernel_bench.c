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
 *   kernel_bench [--tests N] [--repeat R] [--csv PATH]
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#ifdef SC_HAVE_F32_PROTO
#include "kernel_f32.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIST 2048
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
        stream = (stream ^ (((uint64_t)h->pairs[2 * k] << 32) | h->pairs[2 * k + 1])) * 0x100000001B3ull;
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
    double rate;       /* tests per second, median */
    uint64_t tests, pairs, stream, rechecked;
} result;

typedef struct runner {
    sc_kernel_fn fn;   /* a double kernel, or NULL: the float32 prototype */
    float band_abs, band_rel;
} runner;

static result run(const runner *k, const pool *p, const uint32_t *cand, size_t calls, int repeat) {
    static uint32_t hitbuf[2 * 4096];
    double *secs = malloc(sizeof(double) * (size_t)repeat);
    result res = {0};
    /* Run 0 hashes the pair stream (untimed); runs 1..repeat are timed. */
    for (int rep = 0; rep <= repeat; rep++) {
        hashing = rep == 0;
        sc_hits h = {hitbuf, 0, 4096, drop, NULL};
        uint64_t tests = 0, again = 0;
        flushed = 0;
        stream = 0xCBF29CE484222325ull;
        double t = now();
        for (size_t c = 0; c < calls; c++) {
            const uint32_t i0 = (uint32_t)(c * 4 % (POOL - 8));
            if (k->fn) {
                sc_kernel_args a = {.x = p->x, .y = p->y, .z = p->z, .r = p->r, .i0 = i0, .ni = 4,
                                    .tri_end = 0, .cand = cand, .ncand = LIST};
                tests += k->fn(&a, &h);
            }
#ifdef SC_HAVE_F32_PROTO
            else {
                sc_f32_args a = {.xf = p->xf, .yf = p->yf, .zf = p->zf, .rf = p->rf,
                                 .x = p->x, .y = p->y, .z = p->z, .r = p->r, .i0 = i0,
                                 .cand = cand, .ncand = LIST, .band_abs = k->band_abs,
                                 .band_rel = k->band_rel};
                tests += sc_proto_f32(&a, &h, &again);
            }
#endif
        }
        const double dt = now() - t;
        drop(&h);
        if (rep == 0) {
            res.stream = stream;
            res.pairs = flushed;
        } else {
            secs[rep - 1] = dt;
        }
        res.tests = tests;
        res.rechecked = again;
    }
    qsort(secs, (size_t)repeat, sizeof(double), cmp_d);
    res.rate = (double)res.tests / secs[repeat / 2];
    free(secs);
    return res;
}

/* Fills the pool: spheres of radius 1 to 1.5 in a cube of edge 8.25 whose
 * far corner is `reach` from the origin along each axis (the same random
 * draws every time), and the float32 copy. */
static void fill(pool *p, double reach) {
    const double edge = 8.25; /* 6% of random pairs intersect: (4/3 pi 2.5^3) / L^3 */
    rng = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < POOL + SC_PAD; k++) {
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

int main(int argc, char **argv) {
    double want_tests = 2e8;
    int repeat = 5;
    const char *csv = NULL;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--tests") && k + 1 < argc)
            want_tests = atof(argv[++k]);
        else if (!strcmp(argv[k], "--repeat") && k + 1 < argc)
            repeat = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--csv") && k + 1 < argc)
            csv = argv[++k];
        else {
            fprintf(stderr, "usage: kernel_bench [--tests N] [--repeat R] [--csv PATH]\n");
            return 2;
        }
    }
    if (repeat < 3)
        repeat = 3;
    const size_t np = POOL + SC_PAD;
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
    int nrows = 0, failed = 0;
    fill(&p, 8.25);
    runner ks[2] = {{sc_narrow_scalar, 0, 0}, {NULL, 0, 0}};
#ifdef SC_HAVE_AVX2_KERNEL
    if (sc_kernel_available(SC_KERNEL_AVX2))
        ks[1].fn = sc_narrow_avx2;
#endif
    const char *names[2] = {"scalar", "avx2"};
    for (int q = 0; q < 2; q++) {
        if (!ks[q].fn)
            continue;
        snprintf(rows[nrows].name, sizeof rows[nrows].name, "%s", names[q]);
        rows[nrows].reach = 8.25;
        rows[nrows].res = run(&ks[q], &p, cand, calls, repeat);
        nrows++;
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
                fprintf(stderr, "kernel_bench: float32 prototype at L = %g: %llu pairs, stream %016llx; avx2: %llu, %016llx\n",
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
    const double base = rows[0].res.rate;
    for (int q = 0; q < nrows; q++) {
        const result *r = &rows[q].res;
        printf("kernel %-10s %.3f Gtests/s (median of %d, %llu tests, %.1f%% pairs, %.4f%% rechecked in double, %.2fx scalar)\n",
               rows[q].name, r->rate * 1e-9, repeat, (unsigned long long)r->tests,
               100.0 * (double)r->pairs / (double)r->tests,
               100.0 * (double)r->rechecked / (double)r->tests, r->rate / base);
    }
    if (nrows > 1 && !strcmp(rows[1].name, "avx2"))
        printf("avx2 / scalar: %.2fx\n", rows[1].res.rate / base);
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (!f) {
            fprintf(stderr, "kernel_bench: cannot write %s\n", csv);
            return 1;
        }
        fprintf(f, "kernel,gtests_per_s,pair_share,ratio_vs_scalar,coord_range,recheck_share,bytes_per_sphere\n");
        for (int q = 0; q < nrows; q++) {
            const result *r = &rows[q].res;
            fprintf(f, "%s,%.4f,%.4f,%.3f,%g,%.6f,%d\n", rows[q].name, r->rate * 1e-9,
                    (double)r->pairs / (double)r->tests, r->rate / base, rows[q].reach,
                    (double)r->rechecked / (double)r->tests, rows[q].name[0] == 'f' ? 16 : 32);
        }
        fclose(f);
    }
    free(w);
    free(wf);
    free(cand);
    return failed;
}
