/*
 * test_between.c: two-set queries (sc_count/stream/fill_between) against a
 * double loop over A x B written here: every generator with the small set
 * spread over the large one's region, gathered in a corner, of comparable
 * size, swapped and identical; every peer, kernels, threads 1..4; sorted
 * and unsorted streams, counts and checksums; float32 against float64,
 * 2-D; extreme values where the larger set's filter decides (underflow,
 * the 1e150 limits, pairs touching exactly and one ulp apart, spheres far
 * larger than the small set's); and the API's contracts.
 *
 * Usage: test_between [GROUP]   (GROUP: generators, threads, extremes, api,
 * filter, probe, all; default all)
 */
#include "sc_gen.h"
#include "spherecollide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "counting_alloc.h"
#include "pair_runs.h"

/* ---- oracle ---------------------------------------------------------------- */

/* Rows (x, y, z, r) in double: the caller's values, widened. */
static int meets(const double *a, const double *b) {
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    const double d2 = (dx * dx + dy * dy) + dz * dz;
    const double s = a[3] + b[3];
    return d2 <= s * s;
}

/* Lexicographic (i, j): what the sorted stream must give. */
static void oracle(const double *a, size_t na, const double *b, size_t nb, pairs *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (meets(a + 4 * i, b + 4 * j))
                push(out, (uint32_t)i, (uint32_t)j);
}

/* The oracle's pairs by a sweep along x, for sets too large for the
 * double loop: the same predicate on every (i, j) whose centres are
 * within 1.25 (ri + the largest rj) on x. Complete for the sets it is
 * given (ordinary magnitudes): meets() accepting puts |xi - xj| within
 * (ri + rj)(1 + 4u) (each operation rounds by at most u), and the
 * window's own rounding is far inside the 25% it has to spare. */
static const double *sweep_rows;
static int by_x(const void *p, const void *q) {
    const double x = sweep_rows[4 * *(const uint32_t *)p], y = sweep_rows[4 * *(const uint32_t *)q];
    return x < y ? -1 : x > y;
}
static int by_index(const void *p, const void *q) {
    const uint32_t x = *(const uint32_t *)p, y = *(const uint32_t *)q;
    return x < y ? -1 : x > y;
}
static void oracle_sweep(const double *a, size_t na, const double *b, size_t nb, pairs *out) {
    memset(out, 0, sizeof *out);
    uint32_t *order = malloc(nb * sizeof *order), *hit = malloc(nb * sizeof *hit);
    double *rows = malloc(4 * nb * sizeof *rows), rmax = 0.0; /* b in x order */
    for (size_t j = 0; j < nb; j++) {
        order[j] = (uint32_t)j;
        rmax = b[4 * j + 3] > rmax ? b[4 * j + 3] : rmax;
    }
    sweep_rows = b;
    qsort(order, nb, sizeof *order, by_x);
    for (size_t k = 0; k < nb; k++)
        memcpy(rows + 4 * k, b + 4 * (size_t)order[k], 4 * sizeof *rows);
    for (size_t i = 0; i < na; i++) {
        const double *p = a + 4 * i, w = 1.25 * (p[3] + rmax);
        size_t lo = 0, hi = nb, m = 0;
        while (lo < hi) { /* the first in x order at or past x - w */
            const size_t mid = lo + (hi - lo) / 2;
            if (rows[4 * mid] < p[0] - w)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < nb && rows[4 * k] <= p[0] + w; k++)
            if (meets(p, rows + 4 * k))
                hit[m++] = order[k];
        qsort(hit, m, sizeof *hit, by_index);
        for (size_t k = 0; k < m; k++)
            push(out, (uint32_t)i, hit[k]);
    }
    free(rows);
    free(order);
    free(hit);
}

/* ---- library runs ----------------------------------------------------------- */

static sc_context *context_for(const run *r) {
    sc_options o = sc_options_default();
    o.algorithm = r->algo;
    o.kernel = r->kernel;
    o.threads = r->threads;
    o.sorted = r->sorted;
    o.hashgrid.max_tests = INFINITY;
    sc_context *ctx = NULL;
    return sc_context_create(&o, &ctx) == SC_OK ? ctx : NULL;
}

/* Streams and counts A x B on one run's settings and checks them against
 * the oracle: the sorted stream pair for pair, the unsorted one as a set. */
static void check_run(const char *name, const sc_spheres *a, const sc_spheres *b, const pairs *want,
                      const run *r) {
    sc_context *ctx = context_for(r);
    CHECK(ctx != NULL, "%s: context", name);
    if (!ctx)
        return;
    check_calls(name, ctx, a, b, want, r, 0);
    sc_context_destroy(ctx);
}

/* Every peer (kernel, threads and sorting varying with it) on A x B. */
static void check_sets(const char *name, const double *a, size_t na, const double *b, size_t nb) {
    pairs want;
    oracle(a, na, b, nb, &want);
    const sc_spheres va = sc_spheres_rows_f64(na, 3, a), vb = sc_spheres_rows_f64(nb, 3, b);
    for (size_t k = 0; k < NALGOS; k++) {
        const run r = {algos[k], kernel_for(k), 1 + (int)(k % 3), (int)(k % 2)};
        check_run(name, &va, &vb, &want, &r);
    }
    free(want.p);
}

/* ---- groups -------------------------------------------------------------------- */

static void group_generators(void) {
    const char *const *names = sc_gen_names();
    for (int g = 0; names[g]; g++) {
        const int dense = strcmp(names[g], "dense") == 0;
        const size_t nl = dense ? 600 : 3000, ns = dense ? 40 : 150;
        double *big = generate(names[g], nl, 21);
        double *other = generate(names[g], nl, 22);  /* spread: its first ns */
        double *corner = generate(names[g], ns, 23); /* the generator's region for ns */
        char name[96];
        snprintf(name, sizeof name, "%s: spread small x large", names[g]);
        check_sets(name, other, ns, big, nl);
        snprintf(name, sizeof name, "%s: large x spread small", names[g]);
        check_sets(name, big, nl, other, ns);
        snprintf(name, sizeof name, "%s: gathered small x large", names[g]);
        check_sets(name, corner, ns, big, nl);
        snprintf(name, sizeof name, "%s: comparable", names[g]);
        check_sets(name, other, nl / 2, big, nl);
        snprintf(name, sizeof name, "%s: a set with itself", names[g]);
        check_sets(name, corner, ns, corner, ns);
        snprintf(name, sizeof name, "%s: one sphere x large", names[g]);
        check_sets(name, other + 4 * 7, 1, big, nl);
        snprintf(name, sizeof name, "%s: empty x large", names[g]);
        check_sets(name, other, 0, big, nl);
        free(big);
        free(other);
        free(corner);
    }
}

/* float32 A against float64 B (the oracle sees A widened), and 2-D sets. */
static void group_f32_2d(void) {
    const size_t nl = 2500, ns = 100;
    double *big = generate("wide", nl, 31), *small = generate("wide", nl, 32);
    float *f = malloc(4 * ns * sizeof(float));
    double *w = malloc(4 * ns * sizeof(double));
    for (size_t k = 0; k < 4 * ns; k++)
        w[k] = (double)(f[k] = (float)small[k]);
    pairs want;
    oracle(w, ns, big, nl, &want);
    sc_spheres va = sc_spheres_rows_f32(ns, 3, f), vb = sc_spheres_rows_f64(nl, 3, big);
    for (size_t k = 0; k < NALGOS; k += 2) {
        const run r = {algos[k], kernel_for(k), 2, 1};
        check_run("f32 x f64", &va, &vb, &want, &r);
    }
    free(want.p);
    /* 2-D: (x, y, r) rows; the oracle's z is 0 */
    double *a2 = malloc(3 * ns * sizeof(double)), *b2 = malloc(3 * nl * sizeof(double));
    for (size_t k = 0; k < nl; k++) {
        b2[3 * k] = big[4 * k];
        b2[3 * k + 1] = big[4 * k + 1];
        b2[3 * k + 2] = big[4 * k + 3];
        big[4 * k + 2] = 0.0;
        if (k < ns) {
            a2[3 * k] = small[4 * k];
            a2[3 * k + 1] = small[4 * k + 1];
            a2[3 * k + 2] = small[4 * k + 3];
            small[4 * k + 2] = 0.0;
        }
    }
    oracle(small, ns, big, nl, &want);
    CHECK(want.n > 0, "2-D pairs exist (%zu)", want.n);
    va = sc_spheres_rows_f64(ns, 2, a2);
    vb = sc_spheres_rows_f64(nl, 2, b2);
    for (size_t k = 1; k < NALGOS; k += 2) {
        const run r = {algos[k], kernel_for(k), 3, 0};
        check_run("2-D", &va, &vb, &want, &r);
    }
    free(want.p);
    free(a2);
    free(b2);
    free(f);
    free(w);
    free(big);
    free(small);
}

/* The unsorted stream's sequence is the same for threads 1..4 and both
 * kernels (a larger set, several chunks). */
static void group_threads(void) {
    const size_t nl = 60000, ns = 3000;
    /* two draws of one uniform cube: the small set spread over the large */
    double *big = generate("uniform", nl, 41), *small = generate("uniform", nl, 42);
    const sc_spheres va = sc_spheres_rows_f64(ns, 3, small), vb = sc_spheres_rows_f64(nl, 3, big);
    pairs want;
    oracle(small, ns, big, nl, &want);
    CHECK(want.n > ns, "threads: enough pairs to compare orders (%zu)", want.n);
    pairs first = {0};
    for (int t = 1; t <= 4; t++)
        for (int k = 0; k < 2; k++) {
            const run r = {SC_ALGO_GRID, kernel_for((size_t)k), t, 0};
            sc_context *ctx = context_for(&r);
            pairs got = {0};
            CHECK(sc_stream_between(ctx, &va, &vb, collect, &got, NULL) == SC_OK, "stream t%d", t);
            if (!first.p) {
                first = got;
                got.p = NULL;
            } else {
                CHECK(got.n == first.n && memcmp(got.p, first.p, 2 * got.n * sizeof(uint32_t)) == 0,
                      "t%d k%d: the same sequence as t1", t, k);
            }
            free(got.p);
            sc_context_destroy(ctx);
        }
    if (first.n)
        qsort(first.p, first.n, 2 * sizeof(uint32_t), cmp_pair);
    CHECK(first.n == want.n && first.n &&
              memcmp(first.p, want.p, 2 * want.n * sizeof(uint32_t)) == 0,
          "the sequence is the oracle's set (%zu vs %zu)", first.n, want.n);
    free(first.p);
    free(want.p);
    free(big);
    free(small);
}

/* Sets where the large one's filter decides: a few small spheres against
 * many, the pairs on the edge of the predicate. */
static void group_extremes(void) {
    enum { NS = 8, NL = 200 };
    double a[4 * NS], b[4 * NL];
    uint64_t st = 7;
    /* zero radii 1e-163 apart: d2 underflows to 0 <= 0; subnormal radii */
    for (int scale = 0; scale < 3; scale++) {
        const double unit = scale == 0 ? 1e-163 : scale == 1 ? 5e-324 : 1.0;
        for (size_t i = 0; i < NS + NL; i++) {
            double *row = i < NS ? a + 4 * i : b + 4 * (i - NS);
            for (int k = 0; k < 3; k++)
                row[k] = (double)(int)(lcg(&st) % 9) * unit * (lcg(&st) & 1 ? -1 : 1);
            const double u = (double)(lcg(&st) % 1000) / 1000.0;
            row[3] = u < 0.4 ? 0.0 : u * unit;
        }
        char name[64];
        snprintf(name, sizeof name, "cloud scale %g", unit);
        check_sets(name, a, NS, b, NL);
        check_sets(name, b, NL, a, NS);
    }
    /* pairs exactly at ri + rj along each axis, and one ulp beyond, at
     * ordinary and huge coordinates; the rest of B far away */
    for (int huge = 0; huge < 2; huge++) {
        const double base = huge ? 0.9e150 : 3.0, r0 = huge ? 1e148 : 0.25;
        for (size_t i = 0; i < NS; i++) {
            a[4 * i] = base - (double)i * 3 * r0 * 4;
            a[4 * i + 1] = a[4 * i + 2] = huge ? -0.5e150 : 0.5;
            a[4 * i + 3] = r0 + (double)i * r0 / 16;
        }
        for (size_t j = 0; j < NL; j++) {
            const size_t i = j % NS;
            const int axis = (int)(j / NS) % 3, beyond = (j / (3 * NS)) % 2;
            double *row = b + 4 * j;
            memcpy(row, a + 4 * i, 4 * sizeof(double));
            row[3] = r0 / 2;
            row[axis] = a[4 * i + axis] - (a[4 * i + 3] + row[3]);
            if (beyond)
                row[axis] = nextafter(row[axis], -INFINITY);
            if (j >= 6 * NS) /* the rest: far off on y */
                row[1] = huge ? 1e150 : 1e6 + (double)j;
        }
        const char *name = huge ? "touching at 1e150" : "touching";
        pairs want;
        oracle(a, NS, b, NL, &want);
        CHECK(want.n >= NS, "%s: touching pairs listed (%zu)", name, want.n);
        free(want.p);
        check_sets(name, a, NS, b, NL);
        /* a few large-set spheres much larger than the small set's (the
         * filter tests their boxes, or keeps them untested) */
        b[4 * 100 + 3] = huge ? 1e150 : 50.0;
        b[4 * 101 + 3] = huge ? 3e149 : 1e4;
        b[4 * 102 + 0] = a[0] + (huge ? 5e148 : 40.0);
        b[4 * 102 + 3] = huge ? 4.9e148 : 39.9;
        check_sets(huge ? "large spheres at 1e150" : "large spheres", a, NS, b, NL);
    }
}

/* The large set's filter four spheres at a time (kernels/filter_avx2.c)
 * against its scalar reference (the scalar kernel's): each layout it
 * reads (rows, separate arrays, rows of five values, gathered; double and
 * float), open and periodic boxes, 1 and 2 threads, with the spheres it leaves to the
 * reference mid-group: larger than the reach, outside the periodic box,
 * and not valid. Same status, same spheres searched (the filter kept the
 * same ones) and the same sorted pairs; open boxes also the oracle's. */
enum { FL = 4001, FS = 150 };
/* Layout kind 0-2 of rows (x, y, z, r) in double (kinds 3-5: the same in
 * float, the rows rounded to float first by the caller) in mem. */
static sc_spheres layout(int kind, const double *rows, size_t n, void *mem) {
    double *d = mem;
    float *f = mem;
    if (kind == 0)
        return sc_spheres_rows_f64(n, 3, rows);
    if (kind == 3) {
        for (size_t k = 0; k < 4 * n; k++)
            f[k] = (float)rows[k];
        return sc_spheres_rows_f32(n, 3, f);
    }
    if (kind == 1 || kind == 4) {
        for (size_t k = 0; k < n; k++)
            for (int a = 0; a < 4; a++) {
                if (kind == 1)
                    d[a * n + k] = rows[4 * k + a];
                else
                    f[a * n + k] = (float)rows[4 * k + a];
            }
        return kind == 1 ? sc_spheres_soa_f64(n, d, d + n, d + 2 * n, d + 3 * n)
                         : sc_spheres_soa_f32(n, f, f + n, f + 2 * n, f + 3 * n);
    }
    for (size_t k = 0; k < n; k++) /* (x, y, z, r, pad) */
        for (int a = 0; a < 5; a++) {
            if (kind == 2)
                d[5 * k + a] = a < 4 ? rows[4 * k + a] : -1.0;
            else
                f[5 * k + a] = a < 4 ? (float)rows[4 * k + a] : -1.0f;
        }
    sc_spheres v = kind == 2 ? sc_spheres_rows_f64(n, 3, d) : sc_spheres_rows_f32(n, 3, f);
    v.stride = v.r_stride = 5 * (kind == 2 ? sizeof(double) : sizeof(float));
    return v;
}

typedef struct filter_result {
    sc_status st;
    uint64_t searched;
    pairs got;
} filter_result;

static filter_result filter_run(const sc_spheres *a, const sc_spheres *b, sc_kernel kernel,
                                int threads, const sc_box *box) {
    sc_options o = sc_options_default();
    o.kernel = kernel;
    o.threads = threads;
    o.sorted = 1;
    if (box)
        o.box = *box;
    filter_result res = {SC_ERR_INVALID_ARGUMENT, 0, {0}};
    sc_context *ctx = NULL;
    if (sc_context_create(&o, &ctx) != SC_OK)
        return res;
    sc_summary s;
    res.st = sc_stream_between(ctx, a, b, collect, &res.got, &s);
    sc_stats stats = {.size = sizeof stats};
    sc_context_stats(ctx, &stats);
    res.searched = stats.spheres;
    sc_context_destroy(ctx);
    return res;
}

static void group_filter(void) {
    double *big = generate("uniform", FL, 71), *small = generate("uniform", FL, 72);
    /* values float holds exactly, so the float layouts are the same sets */
    for (size_t k = 0; k < 4 * FL; k++) {
        big[k] = (float)big[k];
        small[k] = (float)small[k];
    }
    void *mem = malloc(5 * FL * sizeof(double)), *smem = malloc(5 * FS * sizeof(double));
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t k = 0; k < FL; k++)
        for (int a = 0; a < 3; a++) {
            lo[a] = big[4 * k + a] < lo[a] ? big[4 * k + a] : lo[a];
            hi[a] = big[4 * k + a] > hi[a] ? big[4 * k + a] : hi[a];
        }
    /* past the reach, at each lane of a group */
    const size_t large[] = {5, 1002, 2999, 3996};
    for (size_t k = 0; k < sizeof large / sizeof *large; k++)
        big[4 * large[k] + 3] = 8.0 + (double)k;
    const int have_avx2 = sc_kernel_available(SC_KERNEL_AVX2);
    int compared = 0;
    for (int boxes = 0; boxes < 3; boxes++) {
        /* open; periodic on every axis; periodic on x, with spheres
         * outside the box on x (wrapped by the reference) */
        sc_box box = {{boxes > 0, boxes == 1, boxes == 1}, {0}, {0}};
        for (int a = 0; a < 3; a++) {
            box.lo[a] = lo[a];
            box.hi[a] = hi[a] + 0.5;
        }
        double *rows = malloc(4 * FL * sizeof(double));
        memcpy(rows, big, 4 * FL * sizeof(double));
        if (boxes == 2)
            for (size_t k = 7; k < FL; k += 499)
                rows[4 * k] += (k % 2 ? 1 : -1) * (box.hi[0] - box.lo[0]) * 1.3;
        pairs want = {0};
        if (!boxes)
            oracle(small, FS, rows, FL, &want);
        for (int kind = 0; kind < 6; kind++) {
            const sc_spheres vb = layout(kind, rows, FL, mem);
            const sc_spheres va = layout(kind, small, FS, smem);
            for (int threads = 1; threads <= 2; threads++) {
                const filter_result ref =
                    filter_run(&va, &vb, SC_KERNEL_SCALAR, threads, boxes ? &box : NULL);
                CHECK(ref.st == SC_OK && ref.searched > FS && ref.searched < FS + FL / 2,
                      "filter box %d layout %d t%d: reference %s, %llu searched", boxes, kind,
                      threads, sc_status_string(ref.st), (unsigned long long)ref.searched);
                if (!boxes)
                    CHECK(same(&ref.got, &want),
                          "filter layout %d t%d: reference %zu pairs, "
                          "want %zu",
                          kind, threads, ref.got.n, want.n);
                if (have_avx2) {
                    const filter_result v =
                        filter_run(&va, &vb, SC_KERNEL_AVX2, threads, boxes ? &box : NULL);
                    CHECK(v.st == SC_OK && v.searched == ref.searched && same(&v.got, &ref.got),
                          "filter box %d layout %d t%d: AVX2 %s, %llu searched and %zu pairs, "
                          "the reference %llu and %zu",
                          boxes, kind, threads, sc_status_string(v.st),
                          (unsigned long long)v.searched, v.got.n, (unsigned long long)ref.searched,
                          ref.got.n);
                    compared++;
                    free(v.got.p);
                }
                free(ref.got.p);
            }
            /* not valid, mid-group: the same refusal either way */
            for (int bad = 0; bad < 2; bad++) {
                const size_t at = bad ? 2001 : 3998;
                /* the value in the layout's own memory */
                const size_t slot = kind % 3 == 0   ? 4 * at + (bad ? 3 : 1)
                                    : kind % 3 == 1 ? (bad ? 3 : 1) * FL + at
                                                    : 5 * at + (bad ? 3 : 1);
                double *orig = kind == 0 ? rows + slot : (double *)mem + slot;
                float *origf = (float *)mem + slot;
                const double keep = kind < 3 ? *orig : (double)*origf;
                if (kind < 3)
                    *orig = bad ? -0.5 : NAN;
                else
                    *origf = bad ? -0.5f : NAN;
                const sc_status expect = bad ? SC_ERR_NEGATIVE_RADIUS : SC_ERR_NON_FINITE;
                for (int k = 0; k < 1 + have_avx2; k++) {
                    const filter_result v = filter_run(
                        &va, &vb, k ? SC_KERNEL_AVX2 : SC_KERNEL_SCALAR, 2, boxes ? &box : NULL);
                    CHECK(v.st == expect, "filter box %d layout %d kernel %d: bad %d gives %s",
                          boxes, kind, k, bad, sc_status_string(v.st));
                    free(v.got.p);
                }
                if (kind < 3)
                    *orig = keep;
                else
                    *origf = (float)keep;
            }
        }
        free(want.p);
        free(rows);
    }
    CHECK(!have_avx2 || compared == 36, "AVX2 filter compared %d times", compared);
    free(mem);
    free(smem);
    free(big);
    free(small);
}

/* The grid's direct search of a filtered larger set (src/queries/probe.c), told
 * apart from the joint search by the query's debug line, which also names
 * the smaller set's spheres past the grid's pad (its big list) and the
 * windows past two cells (the general path). */
typedef struct logbook {
    int probed, joint, big, in_cell_order;
    size_t wide;
} logbook;

static void note(sc_log_level level, const char *m, void *user) {
    (void)level;
    logbook *b = user;
    const char *p = strstr(m, "of the larger probed (");
    int big = 0;
    size_t wide = 0;
    if (p && sscanf(p, "of the larger probed (%d of the smaller past the grid's pad, %zu", &big,
                    &wide) == 2) {
        b->probed++;
        b->big = big;
        b->wide = wide;
        b->in_cell_order += strstr(p, "in cell order)") != NULL;
    }
    if (strstr(m, "of the larger searched"))
        b->joint++;
}

/* a x b on the grid, threads 1 and 2, sorted or not: the oracle's pairs,
 * and probed (with at least `big` big spheres and `wide` wide windows)
 * or searched jointly as expected. */
static int cell_order; /* probes expected in cell order (else index order) */
static void check_path(const char *name, const sc_spheres *a, const sc_spheres *b,
                       const pairs *want, int probed, int big, size_t wide) {
    pairs first = {0}; /* the unsorted sequence of the first run */
    for (int t = 1; t <= 2; t++)
        for (int sorted = 0; sorted < 2; sorted++) {
            logbook book = {0, 0, 0, 0, 0};
            sc_options o = sc_options_default();
            o.threads = t;
            o.sorted = sorted;
            /* the tests four at a time (AVX2) and their reference in turn */
            o.kernel = kernel_for((size_t)(t + sorted));
            o.log = note;
            o.log_user = &book;
            sc_context *ctx = NULL;
            CHECK(sc_context_create(&o, &ctx) == SC_OK, "%s: context", name);
            if (!ctx)
                continue;
            const run r = {SC_ALGO_GRID, o.kernel, t, sorted};
            check_calls(name, ctx, a, b, want, &r, 1);
            if (!sorted) { /* the same sequence for every thread count and kernel */
                pairs got = {0};
                CHECK(sc_stream_between(ctx, a, b, collect, &got, NULL) == SC_OK, "%s: stream",
                      name);
                if (!first.p && !first.n) {
                    first = got;
                    got.p = NULL;
                } else {
                    CHECK(got.n == first.n &&
                              (!got.n || memcmp(got.p, first.p, 2 * got.n * sizeof(uint32_t)) == 0),
                          "%s: %s: the first run's sequence", name, label(&r));
                }
                free(got.p);
            }
            if (probed)
                CHECK(book.probed == 3 + !sorted && book.joint == 0 && book.big >= big &&
                          book.wide >= wide && book.in_cell_order == cell_order * book.probed,
                      "%s: t%d: probed (%d calls, %d big, %zu wide, %d in cell order)", name, t,
                      book.probed, book.big, book.wide, book.in_cell_order);
            else
                CHECK(book.probed == 0 && book.joint == 3 + !sorted,
                      "%s: t%d: searched jointly (%d, %d)", name, t, book.joint, book.probed);
            sc_context_destroy(ctx);
        }
    free(first.p);
}

/* The filter's quick path takes a group whose centres lie in the small
 * set's marked region as valid; that region reaches past the values'
 * limit when small spheres lie near it, so a large centre there, past the
 * limit, must still be refused (at each lane of a group in turn), here
 * where the probe, which reads the candidates unchecked, runs. */
static void group_filter_limit(void) {
    enum { NS = 16, NL = 256 };
    double a[4 * NS], b[4 * NL];
    for (int side = -1; side <= 1; side += 2) { /* at x = -1e150, then 1e150 */
        const double sx = (double)side;
        for (size_t i = 0; i < NS; i++) { /* a 4 x 4 lattice with a face at the limit */
            a[4 * i] = sx * (1e150 - 1e141 * (double)(i % 4));
            a[4 * i + 1] = 1e141 * (double)(i / 4);
            a[4 * i + 2] = 0.0;
            a[4 * i + 3] = 1e140;
        }
        for (size_t j = 0; j < NL; j++) { /* each touching one small sphere */
            const size_t i = j % NS;
            b[4 * j] = a[4 * i] - sx * (5e139 - 1e138 * (double)(j / NS));
            b[4 * j + 1] = a[4 * i + 1] + 3e139;
            b[4 * j + 2] = 1e138 * (double)(j / NS);
            b[4 * j + 3] = 1e139;
        }
        const sc_spheres va = sc_spheres_rows_f64(NS, 3, a), vb = sc_spheres_rows_f64(NL, 3, b);
        pairs want;
        oracle(a, NS, b, NL, &want);
        CHECK(want.n == NL, "filter limit %d: every large sphere touches one (%zu)", side, want.n);
        check_path("filter limit", &va, &vb, &want, 1, 0, 0);
        free(want.p);
        for (int lane = 0; lane < 4; lane++) {
            const double keep = b[4 * (40 + lane)];
            b[4 * (40 + lane)] = sx * (1e150 + 1e140); /* in the region, past the limit */
            for (int k = 0; k < 2; k++)
                for (int threads = 1; threads <= 2; threads++) {
                    const sc_kernel kernel = k ? SC_KERNEL_AVX2 : SC_KERNEL_SCALAR;
                    if (!sc_kernel_available(kernel))
                        continue;
                    const filter_result v = filter_run(&va, &vb, kernel, threads, NULL);
                    CHECK(v.st == SC_ERR_OUT_OF_RANGE,
                          "filter limit %d: lane %d kernel %d t%d: a centre past the limit "
                          "gives %s",
                          side, lane, k, threads, sc_status_string(v.st));
                    free(v.got.p);
                }
            b[4 * (40 + lane)] = keep;
        }
    }
}

static void group_probe(void) {
    const size_t nl = 20000, ns = 1000;
    double *big = generate("uniform", nl, 61), *small = generate("uniform", nl, 62);
    sc_spheres va = sc_spheres_rows_f64(ns, 3, small), vb = sc_spheres_rows_f64(nl, 3, big);
    pairs want;
    oracle(small, ns, big, nl, &want);
    CHECK(want.n > ns / 2, "probe: pairs exist (%zu)", want.n);
    check_path("probe: spread", &va, &vb, &want, 1, 0, 0);
    free(want.p);
    oracle(big, nl, small, ns, &want);
    check_path("probe: swapped", &vb, &va, &want, 1, 0, 0);
    free(want.p);

    /* five small spheres eight times the others' radius: the big list */
    for (size_t i = 100; i < 105; i++)
        small[4 * i + 3] = 12.0;
    oracle(small, ns, big, nl, &want);
    check_path("probe: big list", &va, &vb, &want, 1, 5, 0);
    free(want.p);
    for (size_t i = 100; i < 105; i++)
        small[4 * i + 3] = 1.0;

    /* one large sphere in fifty: windows past two cells */
    for (size_t j = 0; j < nl; j += 50)
        big[4 * j + 3] = 8.0;
    oracle(small, ns, big, nl, &want);
    check_path("probe: wide windows", &va, &vb, &want, 1, 0, 1);
    free(want.p);

    /* every large sphere 30 times the small ones: the probes would cost
     * more than the budget, and the joint search runs */
    for (size_t j = 0; j < nl; j++)
        big[4 * j + 3] = 30.0;
    oracle(small, 200, big, 2000, &want);
    const sc_spheres va2 = sc_spheres_rows_f64(200, 3, small),
                     vb2 = sc_spheres_rows_f64(2000, 3, big);
    check_path("probe: too costly", &va2, &vb2, &want, 0, 0, 0);
    free(want.p);
    free(big);
    free(small);

    /* pairs exactly at ri + rj along each axis and one ulp beyond: a
     * sparse lattice of small spheres, six large ones about each */
    {
        enum { LS = 300 };
        double *ls = malloc(4 * LS * sizeof(double)), *ll = malloc(4 * 6 * LS * sizeof(double));
        for (size_t i = 0; i < LS; i++) {
            double *a = ls + 4 * i;
            a[0] = 20.0 * (double)(i % 7);
            a[1] = 20.0 * (double)(i / 7 % 7);
            a[2] = 20.0 * (double)(i / 49);
            a[3] = 0.25 + (double)(i % 16) * 0.25 / 16;
            for (int axis = 0; axis < 3; axis++)
                for (int beyond = 0; beyond < 2; beyond++) {
                    double *b = ll + 4 * (6 * i + 2 * (size_t)axis + (size_t)beyond);
                    memcpy(b, a, 4 * sizeof(double));
                    b[3] = 0.125;
                    b[axis] = a[axis] - (a[3] + b[3]);
                    if (beyond)
                        b[axis] = nextafter(b[axis], -INFINITY);
                }
        }
        oracle(ls, LS, ll, 6 * LS, &want);
        CHECK(want.n >= 3 * LS, "probe: touching pairs listed (%zu)", want.n);
        const sc_spheres vs = sc_spheres_rows_f64(LS, 3, ls),
                         vt = sc_spheres_rows_f64(6 * LS, 3, ll);
        check_path("probe: touching", &vs, &vt, &want, 1, 0, 0);
        free(want.p);
        free(ls);
        free(ll);
    }

    /* 2-D, and a float32 larger set */
    big = generate("uniform", nl, 63);
    small = generate("uniform", nl, 64);
    double *a2 = malloc(3 * ns * sizeof(double)), *b2 = malloc(3 * nl * sizeof(double));
    float *bf = malloc(4 * nl * sizeof(float));
    for (size_t k = 0; k < nl; k++) {
        for (int c = 0; c < 4; c++)
            big[4 * k + c] = bf[4 * k + c] = (float)big[4 * k + c]; /* the oracle's: widened */
        b2[3 * k] = big[4 * k];
        b2[3 * k + 1] = big[4 * k + 1];
        b2[3 * k + 2] = big[4 * k + 3];
        if (k < ns) {
            a2[3 * k] = small[4 * k];
            a2[3 * k + 1] = small[4 * k + 1];
            a2[3 * k + 2] = small[4 * k + 3];
        }
    }
    oracle(small, ns, big, nl, &want);
    va = sc_spheres_rows_f64(ns, 3, small);
    vb = sc_spheres_rows_f32(nl, 3, bf);
    check_path("probe: float32 larger set", &va, &vb, &want, 1, 0, 0);
    free(want.p);
    for (size_t k = 0; k < nl; k++) {
        big[4 * k + 2] = 0.0;
        if (k < ns)
            small[4 * k + 2] = 0.0;
    }
    /* the cube seen along z: its circles (60 small ones, sparse enough
     * in their bounds for the probe) */
    oracle(small, 60, big, nl, &want);
    CHECK(want.n > 0, "probe: 2-D pairs exist (%zu)", want.n);
    va = sc_spheres_rows_f64(60, 2, a2);
    vb = sc_spheres_rows_f64(nl, 2, b2);
    check_path("probe: 2-D", &va, &vb, &want, 1, 0, 0);
    free(want.p);
    /* all 1000: dense in their bounds, searched jointly */
    oracle(small, ns, big, nl, &want);
    va = sc_spheres_rows_f64(ns, 2, a2);
    check_path("probe: 2-D, dense", &va, &vb, &want, 0, 0, 0);
    free(want.p);
    free(a2);
    free(b2);
    free(bf);
    free(big);
    free(small);

    /* a smaller set too large to stay in cache: the candidates are probed
     * in order of their cell (the sweep oracle checked against the double
     * loop on a set both can take first) */
    {
        double *l1 = generate("uniform", 6000, 63), *s1 = generate("uniform", 6000, 64);
        pairs loop, sweep;
        oracle(s1, 1500, l1, 6000, &loop);
        oracle_sweep(s1, 1500, l1, 6000, &sweep);
        CHECK(loop.n > 100 && same(&loop, &sweep), "probe: sweep oracle %zu pairs, loop %zu",
              sweep.n, loop.n);
        free(loop.p);
        free(sweep.p);
        free(l1);
        free(s1);
    }
    {
        /* parts of two draws of 2e6: the smaller set 5% of that density */
        const size_t nl2 = 360000, ns2 = 90000, from = 2000000;
        double *l2 = generate("uniform", from, 65), *s2 = generate("uniform", from, 66);
        const sc_spheres vs = sc_spheres_rows_f64(ns2, 3, s2), vl = sc_spheres_rows_f64(nl2, 3, l2);
        oracle_sweep(s2, ns2, l2, nl2, &want);
        CHECK(want.n > ns2 / 4, "probe: cell order: pairs exist (%zu)", want.n);
        cell_order = 1;
        check_path("probe: cell order", &vs, &vl, &want, 1, 0, 0);
        cell_order = 0;
        free(want.p);
        free(l2);
        free(s2);
    }
}

static int stop_after_one(const uint32_t *p, size_t count, void *user) {
    (void)p;
    (void)count;
    (void)user;
    return 1;
}

static void group_api(void) {
    const size_t nl = 20000, ns = 500;
    double *big = generate("uniform", nl, 51), *small = generate("uniform", nl, 52);
    sc_spheres va = sc_spheres_rows_f64(ns, 3, small), vb = sc_spheres_rows_f64(nl, 3, big);
    sc_options o = sc_options_default();
    counting ca = {0, 0, -1};
    o.allocator = (sc_allocator){count_alloc, count_free, &ca};
    sc_context *ctx = NULL;
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "create");
    sc_summary s = {1, 1};
    CHECK(sc_count_between(NULL, &va, &vb, &s) == SC_ERR_INVALID_ARGUMENT, "NULL ctx");
    CHECK(sc_count_between(ctx, NULL, &vb, &s) == SC_ERR_INVALID_ARGUMENT, "NULL a");
    CHECK(sc_count_between(ctx, &va, NULL, &s) == SC_ERR_INVALID_ARGUMENT, "NULL b");
    CHECK(sc_count_between(ctx, &va, &vb, NULL) == SC_ERR_INVALID_ARGUMENT, "NULL out");
    CHECK(sc_stream_between(ctx, &va, &vb, NULL, NULL, NULL) == SC_ERR_INVALID_ARGUMENT, "NULL fn");
    CHECK(sc_fill_between(ctx, &va, NULL, NULL, 0, NULL, NULL) == SC_ERR_INVALID_ARGUMENT,
          "fill, NULL b");
    double flat[3 * 4] = {0};
    sc_spheres v2 = sc_spheres_rows_f64(4, 2, flat);
    CHECK(sc_count_between(ctx, &va, &v2, &s) == SC_ERR_INVALID_ARGUMENT, "3-D x 2-D");
    sc_spheres none2 = sc_spheres_rows_f64(0, 2, flat);
    CHECK(sc_count_between(ctx, &va, &none2, &s) == SC_OK && s.pairs == 0, "3-D x empty 2-D");

    /* a bad sphere: a's first, else b's, whichever set is filtered */
    big[4 * 9000 + 3] = -1.0;
    CHECK(sc_count_between(ctx, &va, &vb, &s) == SC_ERR_NEGATIVE_RADIUS && s.pairs == 0,
          "negative radius in the large set");
    sc_stats stats = {.size = sizeof stats};
    sc_context_stats(ctx, &stats);
    CHECK(stats.pairs == 0 && stats.spheres == 0, "statistics zeroed on error");
    small[4 * 400 + 1] = NAN;
    CHECK(sc_count_between(ctx, &va, &vb, &s) == SC_ERR_NON_FINITE, "a's NaN first");
    CHECK(sc_count_between(ctx, &vb, &va, &s) == SC_ERR_NEGATIVE_RADIUS, "then b's");
    small[4 * 400 + 1] = 0.0;
    big[4 * 9000 + 3] = 1.0;
    big[4 * 19999] = 2e150;
    CHECK(sc_count_between(ctx, &va, &vb, &s) == SC_ERR_OUT_OF_RANGE, "out of range, last");
    big[4 * 19999] = 0.0;
    small[4 * 3 + 2] = INFINITY;
    CHECK(sc_count_between(ctx, &vb, &va, &s) == SC_ERR_NON_FINITE, "small set's, filtered");
    CHECK(sc_count_between(ctx, &va, &va, &s) == SC_ERR_NON_FINITE, "comparable sets");
    small[4 * 3 + 2] = 0.0;

    /* fill: too small, then sized; the callback's stop */
    pairs want;
    oracle(small, ns, big, nl, &want);
    CHECK(want.n > 10, "pairs exist (%zu)", want.n);
    size_t needed = 0;
    uint32_t *buf = malloc(2 * (want.n + 1) * sizeof(uint32_t));
    CHECK(sc_fill_between(ctx, &va, &vb, buf, 3, &needed, &s) == SC_ERR_BUFFER_TOO_SMALL &&
              needed == want.n && s.pairs == want.n,
          "fill too small: needed %zu", needed);
    CHECK(sc_fill_between(ctx, &va, &vb, buf, want.n, &needed, &s) == SC_OK &&
              s.checksum == checksum(&want),
          "fill");
    qsort(buf, want.n, 2 * sizeof(uint32_t), cmp_pair);
    CHECK(memcmp(buf, want.p, 2 * want.n * sizeof(uint32_t)) == 0, "fill's pairs");
    CHECK(sc_stream_between(ctx, &va, &vb, stop_after_one, NULL, NULL) == SC_ERR_STOPPED, "stop");

    /* steady state: another query on the same sizes allocates nothing */
    CHECK(sc_count_between(ctx, &va, &vb, &s) == SC_OK, "count");
    const long frees = ca.frees;
    CHECK(sc_count_between(ctx, &va, &vb, &s) == SC_OK && s.pairs == want.n, "count again");
    CHECK(sc_fill_between(ctx, &va, &vb, buf, want.n, &needed, &s) == SC_OK, "fill again");
    CHECK(ca.frees == frees, "no reallocation in the steady state");
    sc_context_stats(ctx, &stats);
    CHECK(stats.spheres >= ns && stats.spheres < ns + nl / 2,
          "the filter kept part of the large set (%llu searched)",
          (unsigned long long)stats.spheres);
    free(want.p);
    free(buf);
    sc_context_destroy(ctx);
    free(big);
    free(small);
}

static void run_generators(void) {
    group_generators();
    group_f32_2d();
}

static void run_filter(void) {
    group_filter();
    group_filter_limit();
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"generators", run_generators}, {"threads", group_threads},
        {"extremes", group_extremes},   {"api", group_api},
        {"filter", run_filter},         {"probe", group_probe},
    };
    return sc_test_main(argc, argv, "test_between", groups, sizeof groups / sizeof groups[0]);
}
