/*
 * kernel_bench.c: narrowphase kernel throughput alone, in candidate tests
 * per second, for every kernel this CPU runs. The search around the kernels
 * (windows, candidate lists) is the same for all of them and is left out, so
 * the ratio compares the kernels themselves; sc_bench's per-query figures
 * (tests / search seconds) include that shared work.
 *
 * Workload: blocks of 4 home spheres and lists of candidates drawn so that
 * about 6% of tests are pairs, the rate the search sees on the uniform
 * scenario (971,093 pairs in about 16 million tests at 10^6). One thread;
 * median of the repeats. Output: one line per kernel and a CSV row each.
 *
 *   kernel_bench [--tests N] [--repeat R] [--csv PATH]
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

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
static void drop(sc_hits *h) {
    flushed += h->count;
    h->count = 0;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
    /* Spheres of radius 1 to 1.5 in a cube whose edge makes 6% of random
     * pairs intersect: P(d <= ~2.5) = (4/3 pi 2.5^3) / L^3 = 0.06. */
    const double edge = 8.25;
    double *w = aligned_alloc(64, 4 * sizeof(double) * (POOL + SC_PAD));
    double *X = w, *Y = w + POOL + SC_PAD, *Z = w + 2 * (POOL + SC_PAD), *R = w + 3 * (POOL + SC_PAD);
    for (size_t k = 0; k < POOL + SC_PAD; k++) {
        X[k] = edge * u01();
        Y[k] = edge * u01();
        Z[k] = edge * u01();
        R[k] = 1.0 + 0.5 * u01();
    }
    uint32_t *cand = malloc(sizeof(uint32_t) * (LIST + 8));
    for (int k = 0; k < LIST; k++)
        cand[k] = 8 + (uint32_t)(u01() * (POOL - 16));
    static uint32_t hitbuf[2 * 4096];

    struct {
        const char *name;
        sc_kernel_fn fn;
    } ks[2] = {{"scalar", sc_narrow_scalar}, {"avx2", NULL}};
#ifdef SC_HAVE_AVX2_KERNEL
    if (sc_kernel_available(SC_KERNEL_AVX2))
        ks[1].fn = sc_narrow_avx2;
#endif
    const size_t calls = (size_t)(want_tests / (4.0 * LIST)) + 1;
    double rate[2] = {0, 0}, share[2] = {0, 0};
    for (int q = 0; q < 2; q++) {
        if (!ks[q].fn)
            continue;
        double *secs = malloc(sizeof(double) * (size_t)repeat);
        uint64_t tests = 0, hits = 0;
        for (int rep = 0; rep < repeat; rep++) {
            sc_hits h = {hitbuf, 0, 4096, drop, NULL};
            tests = 0;
            flushed = 0;
            double t = now();
            for (size_t c = 0; c < calls; c++) {
                sc_kernel_args a = {.x = X, .y = Y, .z = Z, .r = R,
                                    .i0 = (uint32_t)(c * 4 % (POOL - 8)), .ni = 4, .tri_end = 0,
                                    .cand = cand, .ncand = LIST};
                tests += ks[q].fn(&a, &h);
            }
            secs[rep] = now() - t;
            hits = flushed + h.count;
        }
        qsort(secs, (size_t)repeat, sizeof(double), cmp_d);
        rate[q] = (double)tests / secs[repeat / 2];
        share[q] = (double)hits / (double)tests;
        printf("kernel %-7s %.3f Gtests/s (median of %d, %llu tests, %.1f%% pairs)\n", ks[q].name,
               rate[q] * 1e-9, repeat, (unsigned long long)tests, 100.0 * share[q]);
        free(secs);
    }
    if (rate[1] > 0)
        printf("avx2 / scalar: %.2fx\n", rate[1] / rate[0]);
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (!f) {
            fprintf(stderr, "kernel_bench: cannot write %s\n", csv);
            return 1;
        }
        fprintf(f, "kernel,gtests_per_s,pair_share,ratio_vs_scalar\n");
        for (int q = 0; q < 2; q++)
            if (rate[q] > 0)
                fprintf(f, "%s,%.4f,%.4f,%.3f\n", ks[q].name, rate[q] * 1e-9, share[q],
                        rate[q] / rate[0]);
        fclose(f);
    }
    free(w);
    free(cand);
    return 0;
}
