/*
 * test_periodic.c: pair queries in a periodic box (options.box) against two
 * oracles written here from the header's text: the documented expression
 * (wrap, minimum image, the predicate) evaluated pair by pair, which the
 * library must match bit for bit on every input, and a brute force over the
 * 27 (9 in 2-D) images of each pair, which must agree with it on data away
 * from rounding ties. Every generator in boxes that fit, cut through and
 * wrap the data; every peer, kernels, threads 1..4, sorted and unsorted
 * streams, counts, checksums and fills; periodic and open axes mixed, 2-D,
 * float32; boxes small against the spheres (every sphere's 26 images,
 * pairs touching across two faces, spheres larger than the box); extremes
 * (the box limit, coordinates far outside the box, subnormal periods,
 * pairs exactly half a period apart, touching across a face and one ulp
 * beyond); the stream's order for every thread count; the API's statuses.
 *
 * Neighbour lists in the box (half, full, skins, values) against the
 * expression with the skin.
 *
 * Usage: test_periodic [GROUP]   (GROUP: generators, small, extremes,
 * threads, api, lists, layouts, one_side, all; default all)
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

/* ---- oracles ---------------------------------------------------------------- */

typedef struct box {
    int dims;
    sc_box b;
} box;

/* The header's wrap(x). */
static double wrap_of(double x, double lo, double hi) {
    const double L = hi - lo;
    if (x >= lo && x < hi)
        return x;
    const double t = x - floor((x - lo) / L) * L;
    return t < lo || t >= hi ? lo : t;
}

/* The header's predicate for rows i < j (x, y, z, r; z 0 in 2-D) whose
 * centres were wrapped on the periodic axes. */
static int expr_meets(const box *bx, const double *ri, const double *rj) {
    double d[3] = {0, 0, 0};
    for (int a = 0; a < bx->dims; a++) {
        const int per = bx->b.periodic[a];
        const double lo = bx->b.lo[a], hi = bx->b.hi[a], L = hi - lo;
        double t = rj[a] - ri[a];
        if (per && t > 0.5 * L)
            t = t - L;
        else if (per && t < -0.5 * L)
            t = t + L;
        d[a] = t;
    }
    const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
    const double s = ri[3] + rj[3];
    return d2 <= s * s;
}

/* Any of the pair's images meets (shifts -1, 0, 1 of each periodic axis on
 * the wrapped centres): the physical answer, equal to the minimum image's
 * in exact arithmetic. */
static int images_meet(const box *bx, const double *wi, const double *wj) {
    for (int s = 0; s < 27; s++) {
        const int sh[3] = {s % 3 - 1, s / 3 % 3 - 1, s / 9 - 1};
        double d[3] = {0, 0, 0};
        int ok = 1;
        for (int a = 0; a < 3; a++) {
            if (sh[a] && (a >= bx->dims || !bx->b.periodic[a]))
                ok = 0;
            if (a < bx->dims)
                d[a] = (wj[a] + sh[a] * (bx->b.hi[a] - bx->b.lo[a])) - wi[a];
        }
        if (!ok)
            continue;
        const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
        const double sr = wi[3] + wj[3];
        if (d2 <= sr * sr)
            return 1;
    }
    return 0;
}

/* Lexicographic (i, j), i < j, by the expression (images == 0) or the
 * 27-image brute force. */
static void oracle(const box *bx, const double *rows, size_t n, int images, pairs *out) {
    memset(out, 0, sizeof *out);
    double *w = malloc(4 * (n + 1) * sizeof(double)); /* wrapped once per sphere */
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 4; a++)
            w[4 * i + a] = a < 3 && a < bx->dims && bx->b.periodic[a]
                               ? wrap_of(rows[4 * i + a], bx->b.lo[a], bx->b.hi[a])
                               : rows[4 * i + a];
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (images ? images_meet(bx, w + 4 * i, w + 4 * j)
                       : expr_meets(bx, w + 4 * i, w + 4 * j))
                push(out, (uint32_t)i, (uint32_t)j);
    free(w);
}

/* ---- library runs ----------------------------------------------------------- */

static sc_context *context_for(const run *r, const box *bx) {
    sc_options o = sc_options_default();
    o.algorithm = r->algo;
    o.kernel = r->kernel;
    o.threads = r->threads;
    o.sorted = r->sorted;
    o.hashgrid.max_tests = INFINITY;
    o.box = bx->b;
    sc_context *ctx = NULL;
    return sc_context_create(&o, &ctx) == SC_OK ? ctx : NULL;
}

/* Streams, counts and fills one set (b NULL) or a x b on one run's
 * settings in the box, against the oracle: the sorted stream pair for
 * pair, the unsorted one as a set. */
static void check_run(const char *name, const box *bx, const sc_spheres *a, const sc_spheres *b,
                      const pairs *want, const run *r) {
    sc_context *ctx = context_for(r, bx);
    CHECK(ctx != NULL, "%s: context", name);
    if (!ctx)
        return;
    check_calls(name, ctx, a, b, want, r, 1);
    sc_context_destroy(ctx);
}

/* A view of rows (x, y, z, r), or in 2-D of (x, y, r) rows made from them
 * in *flat (freed by the caller). */
static sc_spheres view_of(int dims, const double *rows, size_t n, double **flat) {
    *flat = NULL;
    if (dims == 3)
        return sc_spheres_rows_f64(n, 3, rows);
    *flat = malloc(3 * (n + 1) * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        (*flat)[3 * i] = rows[4 * i];
        (*flat)[3 * i + 1] = rows[4 * i + 1];
        (*flat)[3 * i + 2] = rows[4 * i + 3];
    }
    return sc_spheres_rows_f64(n, 2, *flat);
}

/* A two-set query's pairs from the one-set oracle's: the predicate is
 * symmetric (negating d is exact, and so is its image shift), so (a, b),
 * a in A and b in B, is a pair exactly when the joint set's pair of their
 * spheres is. in_a[k]: sphere k is in A, at A's index pos[k] (else B's). */
static void cross_of(const pairs *all, const int *in_a, const uint32_t *pos, pairs *out) {
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < all->n; k++) {
        const uint32_t i = all->p[2 * k], j = all->p[2 * k + 1];
        if (in_a[i] == in_a[j])
            continue;
        const uint32_t a = in_a[i] ? i : j, b = in_a[i] ? j : i;
        push(out, pos[a], pos[b]);
    }
    if (out->n)
        qsort(out->p, out->n, 2 * sizeof(uint32_t), cmp_pair);
}

/* The rows split into two sets, A the spheres with k % every == 0 (or,
 * with `swap`, the others), against the joint oracle's crossing pairs. */
static void check_split(const char *name, const box *bx, const double *rows, size_t n,
                        const pairs *all, size_t every, int swap, const run *r) {
    double *ra = malloc(4 * (n + 1) * sizeof(double)), *rb = malloc(4 * (n + 1) * sizeof(double));
    /* zeroed: GCC's Release build cannot see that n bounds the reads */
    int *in_a = calloc(n + 1, sizeof(int));
    uint32_t *pos = calloc(n + 1, sizeof(uint32_t));
    size_t na = 0, nb = 0;
    for (size_t k = 0; k < n; k++) {
        in_a[k] = (k % every == 0) != swap;
        double *to = in_a[k] ? ra + 4 * na : rb + 4 * nb;
        pos[k] = (uint32_t)(in_a[k] ? na++ : nb++);
        memcpy(to, rows + 4 * k, 4 * sizeof(double));
    }
    pairs want;
    cross_of(all, in_a, pos, &want);
    double *fa, *fb;
    const sc_spheres a = view_of(bx->dims, ra, na, &fa), b = view_of(bx->dims, rb, nb, &fb);
    char what[160];
    snprintf(what, sizeof what, "%s (A: %zu, B: %zu)", name, na, nb);
    check_run(what, bx, &a, &b, &want, r);
    free(want.p);
    free(fa);
    free(fb);
    free(pos);
    free(in_a);
    free(rb);
    free(ra);
}

/* Every peer (kernel, threads and sorting varying with it) on rows (x, y,
 * z, r); a 2-D box reads (x, y, r) views made from them. When `physical`,
 * the 27-image brute force must agree with the expression. The same
 * spheres split into two sets, one 4 times the other (the larger set
 * filtered by the smaller's occupancy) and halves (no filter), give the
 * joint oracle's crossing pairs. Returns the pair count. */
static size_t check_box(const char *name, const box *bx, const double *rows, size_t n,
                        int physical) {
    pairs want;
    oracle(bx, rows, n, 0, &want);
    if (physical) {
        pairs phys;
        oracle(bx, rows, n, 1, &phys);
        CHECK(same(&want, &phys), "%s: the expression agrees with the 27 images (%zu vs %zu)", name,
              want.n, phys.n);
        free(phys.p);
    }
    double *flat;
    const sc_spheres v = view_of(bx->dims, rows, n, &flat);
    for (size_t k = 0; k < NALGOS; k++) {
        const run r = {algos[k], kernel_for(k), 1 + (int)(k % 3), (int)(k % 2)};
        check_run(name, bx, &v, NULL, &want, &r);
        check_split(name, bx, rows, n, &want, 5, (int)(k % 2), &r);
        check_split(name, bx, rows, n, &want, 2, 0, &r);
    }
    const size_t found = want.n;
    free(want.p);
    free(flat);
    return found;
}

/* The centres' bounds per axis. */
static void bounds(const double *rows, size_t n, double lo[3], double hi[3]) {
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = rows[4 * i + a] < lo[a] ? rows[4 * i + a] : lo[a];
            hi[a] = rows[4 * i + a] > hi[a] ? rows[4 * i + a] : hi[a];
        }
}

/* A box over the bounds scaled by `scale` about their middle (< 1: the
 * data wraps), periodic on the axes of `mask`. */
static box box_of(int dims, int mask, const double lo[3], const double hi[3], double scale) {
    box bx = {dims, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
    for (int a = 0; a < 3; a++) {
        const double mid = 0.5 * (lo[a] + hi[a]), half = 0.5 * (hi[a] - lo[a]) * scale + 1e-9;
        bx.b.periodic[a] = (mask >> a) & 1;
        bx.b.lo[a] = mid - half;
        bx.b.hi[a] = mid + half;
    }
    return bx;
}

static double unit(uint64_t *s) {
    return (double)(lcg(s) >> 11) * 0x1p-42;
}

/* ---- groups -------------------------------------------------------------------- */

static void group_generators(void) {
    const char *const *names = sc_gen_names();
    for (int g = 0; names[g]; g++) {
        const int dense = strcmp(names[g], "dense") == 0;
        const size_t n = dense ? 150 : 1000; /* dense: every sphere has 26 images */
        double *rows = generate(names[g], n, 61);
        double lo[3], hi[3];
        bounds(rows, n, lo, hi);
        char name[128];
        /* the bounds' box, a box cutting through the data (spheres outside
         * wrap), open axes mixed in, and 2-D */
        const struct {
            int dims, mask;
            double scale;
            const char *what;
        } cases[] = {
            {3, 7, 1.0, "fitted box"}, {3, 7, 0.7, "wrapping box"}, {3, 5, 0.8, "x and z periodic"},
            {3, 2, 1.0, "y periodic"}, {2, 3, 0.9, "2-D"},          {2, 1, 1.0, "2-D, x periodic"}};
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            const box bx = box_of(cases[k].dims, cases[k].mask, lo, hi, cases[k].scale);
            snprintf(name, sizeof name, "%s: %s", names[g], cases[k].what);
            check_box(name, &bx, rows, n, 1);
        }
        free(rows);
    }
    /* float32: the box applies to the widened values */
    const size_t n = 1200;
    double *rows = generate("uniform", n, 62);
    float *f = malloc(4 * n * sizeof(float));
    for (size_t k = 0; k < 4 * n; k++)
        rows[k] = (double)(f[k] = (float)rows[k]);
    double lo[3], hi[3];
    bounds(rows, n, lo, hi);
    const box bx = box_of(3, 7, lo, hi, 0.9);
    pairs want;
    oracle(&bx, rows, n, 0, &want);
    CHECK(want.n > 0, "f32: pairs exist");
    const sc_spheres v = sc_spheres_rows_f32(n, 3, f);
    for (size_t k = 0; k < NALGOS; k += 2) {
        const run r = {algos[k], kernel_for(k), 2, 1};
        check_run("f32", &bx, &v, NULL, &want, &r);
    }
    /* two sets of different dtypes: A the first 200 spheres in float32,
     * B the rest in double (the same values) */
    {
        const size_t na = 200;
        int *in_a = malloc(n * sizeof(int));
        uint32_t *pos = malloc(n * sizeof(uint32_t));
        for (size_t k = 0; k < n; k++) {
            in_a[k] = k < na;
            pos[k] = (uint32_t)(k < na ? k : k - na);
        }
        pairs cross;
        cross_of(&want, in_a, pos, &cross);
        CHECK(cross.n > 0, "f32 x f64: pairs exist");
        const sc_spheres a = sc_spheres_rows_f32(na, 3, f);
        const sc_spheres b = sc_spheres_rows_f64(n - na, 3, rows + 4 * na);
        for (size_t k = 1; k < NALGOS; k += 2) {
            const run r = {algos[k], kernel_for(k), 2, 1};
            check_run("f32 x f64", &bx, &a, &b, &cross, &r);
        }
        free(cross.p);
        free(pos);
        free(in_a);
    }
    free(want.p);
    free(f);
    free(rows);
}

/* Boxes small against the spheres: with rmax >= a quarter period the
 * sinks check every pair (no direct trust), spheres get many images, a
 * pair can touch across two faces and a sphere its own image. */
static void group_small(void) {
    uint64_t st = 3;
    for (int round = 0; round < 6; round++) {
        const size_t n = (size_t)(6 + round * 11);
        double *rows = malloc(4 * n * sizeof(double));
        const double L = round % 2 ? 1.0 : 10.0;
        for (size_t i = 0; i < n; i++) {
            for (int a = 0; a < 3; a++)
                rows[4 * i + a] = (unit(&st) * 1.6 - 0.3) * L; /* some outside */
            rows[4 * i + 3] = unit(&st) * L * (round < 2 ? 0.3 : round < 4 ? 0.7 : 1.5);
        }
        for (int dims = 2; dims <= 3; dims++) {
            box bx = {dims, {{1, 1, 1}, {0, 0, 0}, {L, L, L}}};
            if (round == 5) /* a long thin box: one axis shorter than the spheres */
                bx.b.hi[1] = 0.05 * L;
            char name[64];
            snprintf(name, sizeof name, "small box %d, %d-D", round, dims);
            const size_t found = check_box(name, &bx, rows, n, 1);
            CHECK(found > 0, "%s: pairs exist", name);
        }
        free(rows);
    }
    /* a few spheres of 8-12 among many of 0.5-1 in a box of 100: the big
     * ones reach across the faces to small spheres deep inside the box,
     * which the two-set filter must keep (the big spheres' boxes tested
     * one period over) */
    {
        const size_t n = 2000;
        double *rows = malloc(4 * n * sizeof(double));
        for (size_t i = 0; i < n; i++) {
            for (int a = 0; a < 3; a++)
                rows[4 * i + a] = unit(&st) * 100.0;
            rows[4 * i + 3] = i % 25 == 3 ? 8.0 + 4.0 * unit(&st) : 0.5 + 0.5 * unit(&st);
        }
        for (int dims = 2; dims <= 3; dims++) {
            box bx = {dims, {{1, 1, 1}, {0, 0, 0}, {100, 100, 100}}};
            char name[64];
            snprintf(name, sizeof name, "big among small, %d-D", dims);
            CHECK(check_box(name, &bx, rows, n, 1) > 0, "%s: pairs exist", name);
        }
        free(rows);
    }
    /* two spheres touching across two faces at once (a box of 1, centres
     * 0.1 and 0.9 apart on x: 0.2 through the face, 0.8 inside); one
     * pair, reported once */
    double two[8] = {0.1, 0.5, 0.5, 0.45, 0.9, 0.5, 0.5, 0.45};
    box bx = {3, {{1, 1, 1}, {0, 0, 0}, {1, 1, 1}}};
    CHECK(check_box("across two faces", &bx, two, 2, 1) == 1, "across two faces: one pair");
    /* a single sphere larger than the box meets only its images: none */
    two[3] = 3.0;
    CHECK(check_box("one sphere, its images", &bx, two, 1, 1) == 0, "no self pair");
    CHECK(check_box("no spheres", &bx, two, 0, 1) == 0, "empty");
}

/* The edges of the expression: the library must match it bit for bit. */
static void group_extremes(void) {
    enum { N = 64 };
    double rows[4 * N];
    uint64_t st = 11;
    /* the box at its limit, spheres near its faces and far outside it */
    {
        const double M = SC_MAX_BOX_VALUE;
        box bx = {3, {{1, 1, 0}, {-M, -M, 0}, {M, M, 0}}};
        for (size_t i = 0; i < N; i++) {
            for (int a = 0; a < 3; a++) {
                const double u = unit(&st);
                rows[4 * i + a] = u < 0.3   ? -M + u * 1e147
                                  : u < 0.6 ? M - (u - 0.3) * 1e147
                                  : u < 0.8 ? (u - 0.7) * 2e150
                                            : (u - 0.9) * 1e149;
            }
            rows[4 * i + 3] = unit(&st) * 1e147;
        }
        CHECK(check_box("box at the limit", &bx, rows, N, 0) > 0, "box at the limit: pairs exist");
        for (size_t i = 0; i < N; i++)
            rows[4 * i + 3] = unit(&st) * (SC_MAX_ABS_VALUE / 2);
        check_box("radii at their limit", &bx, rows, N, 0);
    }
    /* subnormal and tiny periods, zero radii: d2 underflows */
    for (int k = 0; k < 3; k++) {
        const double L = k == 0 ? 1e-300 : k == 1 ? 0x1p-1060 : 1e-160;
        box bx = {3, {{1, 1, 1}, {0, 0, 0}, {L, L, L}}};
        for (size_t i = 0; i < N; i++) {
            for (int a = 0; a < 3; a++)
                rows[4 * i + a] = (double)(int)(lcg(&st) % 9) * L / 8;
            rows[4 * i + 3] = lcg(&st) % 3 == 0 ? 0.0 : unit(&st) * L / 4;
        }
        char name[64];
        snprintf(name, sizeof name, "tiny period %g", L);
        check_box(name, &bx, rows, N, 0);
    }
    /* centres exactly half a period apart (the minimum image's tie), pairs
     * touching exactly across a face and one ulp beyond, at ordinary and
     * huge scale */
    for (int huge = 0; huge < 2; huge++) {
        const double L = huge ? 1e149 : 8.0, r0 = L / 64;
        box bx = {3, {{1, 1, 1}, {0, 0, 0}, {L, L, L}}};
        for (size_t i = 0; i < N / 2; i++) {
            double *p = rows + 8 * i, *q = p + 4;
            const int axis = (int)(i % 3), kind = (int)(i / 3) % 4;
            for (int a = 0; a < 3; a++)
                p[a] = q[a] = L * (double)(1 + (lcg(&st) % 6)) / 8;
            p[3] = r0 * (1 + (double)(i % 5) / 7);
            q[3] = r0 / 2;
            const double s = p[3] + q[3];
            p[axis] = s / 3;
            if (kind == 0) { /* half a period apart, radii reaching it */
                q[axis] = p[axis] + 0.5 * L;
                q[3] = 0.5 * L - p[3];
            } else { /* across the face at lo: q at p - s, wrapped */
                q[axis] = p[axis] - s + L;
                if (kind == 2)
                    q[axis] = nextafter(q[axis], -INFINITY);
                if (kind == 3)
                    q[axis] = nextafter(q[axis], INFINITY);
            }
        }
        const char *name = huge ? "edges at 1e149" : "edges";
        CHECK(check_box(name, &bx, rows, N, 0) >= N / 8, "%s: touching pairs found", name);
    }
}

/* The unsorted stream's sequence is the same for threads 1..4 and both
 * kernels (several chunks). */
static void group_threads(void) {
    const size_t n = 20000;
    double *rows = generate("uniform", n, 71);
    double lo[3], hi[3];
    bounds(rows, n, lo, hi);
    const box bx = box_of(3, 7, lo, hi, 0.95);
    const sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    pairs first = {0};
    for (int t = 1; t <= 4; t++)
        for (int k = 0; k < 2; k++) {
            const run r = {SC_ALGO_GRID, kernel_for((size_t)k), t, 0};
            sc_context *ctx = context_for(&r, &bx);
            pairs got = {0};
            CHECK(sc_stream_pairs(ctx, &v, collect, &got, NULL) == SC_OK, "stream t%d", t);
            if (!first.p) {
                first = got;
                got.p = NULL;
            } else {
                CHECK(same(&got, &first), "t%d k%d: the same sequence as t1", t, k);
            }
            free(got.p);
            sc_context_destroy(ctx);
        }
    /* the set: pairs across the faces included, against the expression */
    pairs want;
    oracle(&bx, rows, n, 0, &want);
    if (first.n)
        qsort(first.p, first.n, 2 * sizeof(uint32_t), cmp_pair);
    CHECK(want.n > n / 4 && same(&first, &want), "the sequence is the oracle's set (%zu vs %zu)",
          first.n, want.n);
    /* and more pairs than the open box has: some cross a face */
    const run r = {SC_ALGO_GRID, SC_KERNEL_AUTO, 2, 0};
    const box open = {3, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
    sc_context *ctx = context_for(&r, &open);
    sc_summary s;
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_OK && s.pairs < want.n,
          "pairs across the faces (%llu open, %zu periodic)", (unsigned long long)s.pairs, want.n);
    sc_context_destroy(ctx);
    free(want.p);
    free(first.p);
    free(rows);
}

/* Pass one's SIMD path (kernels/wrap.h) and its reference on every layout
 * it reads: rows (x, y, z, r), separate arrays, and centres in rows of
 * three beside their radii (gathered). The count is not a multiple of
 * four; boxes fitted (nearly every group of four taken) and smaller (many
 * groups left to the reference), one axis open; a bad value in the middle
 * of a group, and of two bad values the first one's status, whichever the
 * path that meets it. */
static void group_layouts(void) {
    const size_t n = 3001;
    double *rows = generate("uniform", n, 91);
    for (size_t k = 0; k < 4 * n; k++) /* values float holds: the float layouts are the same set */
        rows[k] = (float)rows[k];
    double lo[3], hi[3];
    bounds(rows, n, lo, hi);
    double *soa = malloc(4 * n * sizeof(double)), *centres = malloc(3 * n * sizeof(double)),
           *radii = malloc(n * sizeof(double));
    float *rows32 = malloc(4 * n * sizeof(float)), *soa32 = malloc(4 * n * sizeof(float));
    const box boxes[] = {box_of(3, 7, lo, hi, 1.0), box_of(3, 7, lo, hi, 0.93),
                         box_of(3, 5, lo, hi, 1.0)};
    for (size_t bxi = 0; bxi < sizeof boxes / sizeof boxes[0]; bxi++) {
        const box *bx = &boxes[bxi];
        pairs want;
        oracle(bx, rows, n, 0, &want);
        for (size_t i = 0; i < n; i++) {
            for (int a = 0; a < 3; a++) {
                soa[a * n + i] = rows[4 * i + a];
                centres[3 * i + a] = rows[4 * i + a];
            }
            soa[3 * n + i] = radii[i] = rows[4 * i + 3];
            for (int a = 0; a < 4; a++) {
                rows32[4 * i + a] = (float)rows[4 * i + a];
                soa32[a * n + i] = (float)rows[4 * i + a];
            }
        }
        const sc_spheres views[5] = {
            sc_spheres_rows_f64(n, 3, rows),
            sc_spheres_soa_f64(n, soa, soa + n, soa + 2 * n, soa + 3 * n),
            {n, SC_F64, 3 * sizeof(double), centres, centres + 1, centres + 2, radii,
             sizeof(double)},
            sc_spheres_rows_f32(n, 3, rows32),
            sc_spheres_soa_f32(n, soa32, soa32 + n, soa32 + 2 * n, soa32 + 3 * n)};
        static const char *const names[5] = {"rows", "arrays", "centres+radii", "float rows",
                                             "float arrays"};
        for (int v = 0; v < 5; v++)
            for (int k = 0; k < 2; k++)
                for (int t = 1; t <= 2; t++) {
                    char name[96];
                    snprintf(name, sizeof name, "layouts box %zu %s", bxi, names[v]);
                    const run r = {SC_ALGO_GRID, kernel_for((size_t)k), t, 0};
                    check_run(name, bx, &views[v], NULL, &want, &r);
                }
        free(want.p);
    }
    /* bad values: NaN at 1001 (a group's second), the radius past the
     * periodic limit at 2002 (a group's third), then the other way round */
    const size_t at[2] = {1001, 2002};
    for (int order = 0; order < 2; order++) {
        const size_t nan_at = at[order], big_at = at[1 - order];
        const sc_status first = order == 0 ? SC_ERR_NON_FINITE : SC_ERR_OUT_OF_RANGE;
        for (int v = 0; v < 3; v++) {
            double *y = v == 0 ? rows + 1 : v == 1 ? soa + n : centres + 1;
            const size_t ys = v == 0 ? 4 : v == 1 ? 1 : 3;
            double *r = v == 0 ? rows + 3 : v == 1 ? soa + 3 * n : radii;
            const size_t rs = v == 0 ? 4 : 1;
            const double y0 = y[ys * nan_at], r0 = r[rs * big_at];
            y[ys * nan_at] = NAN;
            r[rs * big_at] = 0.75 * SC_MAX_ABS_VALUE;
            const sc_spheres views[3] = {
                sc_spheres_rows_f64(n, 3, rows),
                sc_spheres_soa_f64(n, soa, soa + n, soa + 2 * n, soa + 3 * n),
                {n, SC_F64, 3 * sizeof(double), centres, centres + 1, centres + 2, radii,
                 sizeof(double)}};
            for (int k = 0; k < 2; k++) {
                const run rn = {SC_ALGO_GRID, kernel_for((size_t)k), 2, 0};
                sc_context *ctx = context_for(&rn, &boxes[0]);
                sc_summary sum;
                const sc_status st =
                    ctx ? sc_count_pairs(ctx, &views[v], &sum) : SC_ERR_OUT_OF_MEMORY;
                CHECK(st == first, "layouts %d, kernel %d, order %d: %s, want %s", v, rn.kernel,
                      order, sc_status_string(st), sc_status_string(first));
                sc_context_destroy(ctx);
            }
            y[ys * nan_at] = y0;
            r[rs * big_at] = r0;
        }
        /* float rows: NaN and a negative radius (float has no radius past
         * the limit), in either order */
        const sc_status first32 = order == 0 ? SC_ERR_NON_FINITE : SC_ERR_NEGATIVE_RADIUS;
        const float y32 = rows32[4 * nan_at + 1], r32 = rows32[4 * big_at + 3];
        rows32[4 * nan_at + 1] = NAN;
        rows32[4 * big_at + 3] = -1.0f;
        const sc_spheres v32 = sc_spheres_rows_f32(n, 3, rows32);
        for (int k = 0; k < 2; k++) {
            const run rn = {SC_ALGO_GRID, kernel_for((size_t)k), 2, 0};
            sc_context *ctx = context_for(&rn, &boxes[0]);
            sc_summary sum;
            const sc_status st = ctx ? sc_count_pairs(ctx, &v32, &sum) : SC_ERR_OUT_OF_MEMORY;
            CHECK(st == first32, "layouts float rows, kernel %d, order %d: %s, want %s", rn.kernel,
                  order, sc_status_string(st), sc_status_string(first32));
            sc_context_destroy(ctx);
        }
        rows32[4 * nan_at + 1] = y32;
        rows32[4 * big_at + 3] = r32;
    }
    /* rows past 16 MiB: the AVX2 pass writes them past the cache
     * (non-temporal stores, periodic.c's STREAM_BYTES); the reference
     * (the scalar kernel's) writes them as usual: the same pairs */
    {
        const size_t nb = 600001;
        double *many = generate("uniform", nb, 92);
        double blo[3], bhi[3];
        bounds(many, nb, blo, bhi);
        const box bb = box_of(3, 7, blo, bhi, 1.0);
        const sc_spheres vb = sc_spheres_rows_f64(nb, 3, many);
        sc_summary first = {0, 0};
        for (int k = 0; k < 2; k++)
            for (int t = 1; t <= 2; t++) {
                const run rn = {SC_ALGO_GRID, kernel_for((size_t)k), t, 0};
                sc_context *ctx = context_for(&rn, &bb);
                sc_summary sum = {0, 0};
                const sc_status st = ctx ? sc_count_pairs(ctx, &vb, &sum) : SC_ERR_OUT_OF_MEMORY;
                CHECK(st == SC_OK && sum.pairs > nb / 2,
                      "streamed rows, kernel %d, t%d: %s, %llu pairs", rn.kernel, t,
                      sc_status_string(st), (unsigned long long)sum.pairs);
                if (k == 0 && t == 1)
                    first = sum;
                else
                    CHECK(sum.pairs == first.pairs && sum.checksum == first.checksum,
                          "streamed rows, kernel %d, t%d: the reference's pairs (%llu, %llu)",
                          rn.kernel, t, (unsigned long long)sum.pairs,
                          (unsigned long long)first.pairs);
                sc_context_destroy(ctx);
            }
        free(many);
    }
    free(soa);
    free(centres);
    free(radii);
    free(rows32);
    free(soa32);
    free(rows);
}

static void group_api(void) {
    const size_t n = 20000;
    double *rows = generate("uniform", n, 81);
    double lo[3], hi[3];
    bounds(rows, n, lo, hi);
    sc_options o = sc_options_default();
    sc_context *ctx = NULL;
    /* boxes the options refuse */
    const double bad[][2] = {{1, 1}, {2, 1}, {NAN, 1}, {0, INFINITY}, {0, 2 * SC_MAX_BOX_VALUE}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        o.box = (sc_box){{0, 1, 0}, {0, bad[k][0], 0}, {1, bad[k][1], 1}};
        CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx, "bad box %zu", k);
    }
    o.box = (sc_box){{0, 0, 0}, {0, NAN, 0}, {1, NAN, 1}}; /* open axes: not read */
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "open axes' bounds are not read");
    sc_context_destroy(ctx);

    const box bx = box_of(3, 7, lo, hi, 1.0);
    o.box = bx.b;
    counting ca = {0, 0, -1};
    o.allocator = (sc_allocator){count_alloc, count_free, &ca};
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "create");
    sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    sc_summary s = {1, 1};
    rows[4 * 900 + 3] = 0.6 * SC_MAX_ABS_VALUE;
    rows[4 * 1900 + 3] = -1.0;
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_ERR_OUT_OF_RANGE && s.pairs == 0,
          "a radius past half the limit: out of range");
    rows[4 * 900 + 3] = 0.01;
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_ERR_NEGATIVE_RADIUS, "then the negative radius");
    rows[4 * 1900 + 3] = 0.01;
    rows[4 * 5 + 1] = NAN;
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_ERR_NON_FINITE, "NaN");
    rows[4 * 5 + 1] = 2e150;
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_ERR_OUT_OF_RANGE, "a coordinate past the limit");
    rows[4 * 5 + 1] = 1e150; /* far outside the box, within the limit: wrapped */
    sc_stats stats = {.size = sizeof stats};
    sc_context_stats(ctx, &stats);
    CHECK(stats.pairs == 0 && stats.spheres == 0, "statistics zeroed on error");
    CHECK(sc_count_pairs(ctx, NULL, &s) == SC_ERR_INVALID_ARGUMENT, "NULL spheres");

    /* two sets: a refused sphere's status, A's first; the larger set
     * (filtered by the smaller's occupancy) is checked whole */
    const sc_spheres few = sc_spheres_rows_f64(50, 3, rows + 4 * (n - 50));
    rows[4 * 900 + 3] = 0.6 * SC_MAX_ABS_VALUE;
    CHECK(sc_count_between(ctx, &v, &few, &s) == SC_ERR_OUT_OF_RANGE && s.pairs == 0,
          "two sets: the larger A's radius past the limit");
    CHECK(sc_count_between(ctx, &few, &v, &s) == SC_ERR_OUT_OF_RANGE,
          "two sets: the larger B's radius past the limit");
    rows[4 * (n - 3) + 1] = INFINITY;
    CHECK(sc_count_between(ctx, &v, &few, &s) == SC_ERR_OUT_OF_RANGE,
          "two sets: A's problem before B's");
    CHECK(sc_count_between(ctx, &few, &v, &s) == SC_ERR_NON_FINITE,
          "two sets: the smaller A's problem first");
    rows[4 * (n - 3) + 1] = 0.5 * (lo[1] + hi[1]);
    rows[4 * 900 + 3] = 0.01;

    /* fill and the steady state */
    pairs want;
    oracle(&bx, rows, n, 0, &want);
    uint32_t *buf = malloc(2 * (want.n + 1) * sizeof(uint32_t));
    size_t needed = 0;
    CHECK(sc_fill_pairs(ctx, &v, buf, 2, &needed, &s) == SC_ERR_BUFFER_TOO_SMALL &&
              needed == want.n,
          "fill too small: needed %zu of %zu", needed, want.n);
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_OK && s.pairs == want.n &&
              s.checksum == checksum(&want),
          "count with a sphere wrapped from 1e150");
    const long frees = ca.frees;
    CHECK(sc_count_pairs(ctx, &v, &s) == SC_OK, "count again");
    CHECK(sc_fill_pairs(ctx, &v, buf, want.n, &needed, &s) == SC_OK, "fill");
    CHECK(ca.frees == frees, "no reallocation in the steady state");
    sc_context_stats(ctx, &stats);
    CHECK(stats.spheres > n && stats.spheres < 2 * n, "images searched (%llu spheres)",
          (unsigned long long)stats.spheres);
    /* few is v's last 50: each of its spheres meets at least its own
     * copy in v (two sets pair equal spheres) */
    CHECK(sc_count_between(ctx, &few, &v, &s) == SC_OK && s.pairs >= 50,
          "two sets: count (%llu pairs)", (unsigned long long)s.pairs);
    const long frees2 = ca.frees;
    CHECK(sc_count_between(ctx, &few, &v, &s) == SC_OK && ca.frees == frees2,
          "two sets: no reallocation in the steady state");
    sc_context_stats(ctx, &stats);
    CHECK(stats.spheres < n / 2, "two sets: the larger set filtered (%llu spheres searched)",
          (unsigned long long)stats.spheres);
    free(want.p);
    free(buf);
    sc_context_destroy(ctx);
    free(rows);
}

/* ---- neighbour lists ------------------------------------------------------------ */

/* The list's oracle: the expression with s = (ri + rj) + skin, rows sorted
 * (i < j found in order, so each row's columns come sorted); values from
 * the minimum image's d2, (ri + rj) - d or d, from the smaller index. */
typedef struct list {
    uint64_t *off;
    uint32_t *idx;
    double *val;
} list;

static void list_oracle(const box *bx, const double *rows, size_t n, const sc_nbr_spec *spec,
                        list *out) {
    double *w = malloc(4 * (n + 1) * sizeof(double));
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 4; a++)
            w[4 * i + a] = a < 3 && a < bx->dims && bx->b.periodic[a]
                               ? wrap_of(rows[4 * i + a], bx->b.lo[a], bx->b.hi[a])
                               : rows[4 * i + a];
    /* entries per row, then fill: two sweeps over the pairs */
    out->off = calloc(n + 1, sizeof(uint64_t));
    for (int pass = 0; pass < 2; pass++) {
        uint64_t *at = pass ? calloc(n + 1, sizeof(uint64_t)) : NULL;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                if (i == j || (!spec->full && j < i))
                    continue;
                const size_t a = i < j ? i : j, b = i < j ? j : i;
                double d[3] = {0, 0, 0};
                for (int k = 0; k < bx->dims; k++) {
                    const double L = bx->b.hi[k] - bx->b.lo[k];
                    double t = w[4 * b + k] - w[4 * a + k];
                    if (bx->b.periodic[k] && t > 0.5 * L)
                        t = t - L;
                    else if (bx->b.periodic[k] && t < -0.5 * L)
                        t = t + L;
                    d[k] = t;
                }
                const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
                const double sr = (w[4 * a + 3] + w[4 * b + 3]) + spec->skin;
                if (!(d2 <= sr * sr))
                    continue;
                if (!pass) {
                    out->off[i + 1]++;
                    continue;
                }
                const uint64_t g = out->off[i] + at[i]++;
                out->idx[g] = (uint32_t)j;
                const double dist = sqrt(d2);
                out->val[g] =
                    spec->value == SC_NBR_OVERLAP ? (w[4 * a + 3] + w[4 * b + 3]) - dist : dist;
            }
        if (!pass) {
            for (size_t i = 0; i < n; i++)
                out->off[i + 1] += out->off[i];
            out->idx = malloc((out->off[n] + 1) * sizeof(uint32_t));
            out->val = malloc((out->off[n] + 1) * sizeof(double));
        }
        free(at);
    }
    free(w);
}

static void check_lists(const char *name, const box *bx, const double *rows, size_t n) {
    const sc_nbr_spec specs[] = {{0, 0.0, SC_NBR_NONE},
                                 {1, 0.0, SC_NBR_OVERLAP},
                                 {0, 0.3, SC_NBR_DISTANCE},
                                 {1, 1.1, SC_NBR_OVERLAP}};
    const sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        const sc_nbr_spec *spec = &specs[k];
        list want = {NULL, NULL, NULL};
        list_oracle(bx, rows, n, spec, &want);
        for (size_t a = k % 3; a < NALGOS; a += 3) {
            const run r = {algos[a], kernel_for(a), 1 + (int)(a % 3), 0};
            sc_context *ctx = context_for(&r, bx);
            uint64_t *off = malloc((n + 1) * sizeof(uint64_t));
            sc_status st = sc_neighbors_count(ctx, &v, spec, off);
            const int off_ok =
                st == SC_OK && memcmp(off, want.off, (n + 1) * sizeof(uint64_t)) == 0;
            CHECK(off_ok, "%s: list %zu, %s: offsets (%s, %llu entries, want %llu)", name, k,
                  label(&r), sc_status_string(st), (unsigned long long)(st == SC_OK ? off[n] : 0),
                  (unsigned long long)want.off[n]);
            if (off_ok) {
                uint32_t *idx = malloc((want.off[n] + 1) * sizeof(uint32_t));
                double *val = malloc((want.off[n] + 1) * sizeof(double));
                st = sc_neighbors_fill(ctx, &v, spec, off, idx, val);
                CHECK(st == SC_OK && memcmp(idx, want.idx, want.off[n] * sizeof(uint32_t)) == 0,
                      "%s: list %zu, %s: indices (%s)", name, k, label(&r), sc_status_string(st));
                CHECK(spec->value == SC_NBR_NONE ||
                          memcmp(val, want.val, want.off[n] * sizeof(double)) == 0,
                      "%s: list %zu, %s: values bit for bit", name, k, label(&r));
                free(idx);
                free(val);
            }
            free(off);
            sc_context_destroy(ctx);
        }
        free(want.off);
        free(want.idx);
        free(want.val);
    }
}

/* Neighbour lists in periodic boxes: half, full with overlaps, skins with
 * distances, against the expression with the skin. */
static void group_lists(void) {
    const char *gens[] = {"uniform", "wide", "heavytail", "clustered"};
    for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
        const size_t n = 800;
        double *rows = generate(gens[g], n, 91);
        double lo[3], hi[3];
        bounds(rows, n, lo, hi);
        char name[96];
        const box fitted = box_of(3, 7, lo, hi, 1.0), cut = box_of(3, 3, lo, hi, 0.75);
        snprintf(name, sizeof name, "%s: fitted box", gens[g]);
        check_lists(name, &fitted, rows, n);
        snprintf(name, sizeof name, "%s: wrapping box, z open", gens[g]);
        check_lists(name, &cut, rows, n);
        free(rows);
    }
    /* a small box: many images, the skin reaching across several */
    uint64_t st = 5;
    const size_t n = 40;
    double rows[4 * 40];
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            rows[4 * i + a] = unit(&st) * 4.0 - 1.0;
        rows[4 * i + 3] = unit(&st) * 0.4;
    }
    const box small = {3, {{1, 1, 1}, {0, 0, 0}, {2, 2, 2}}};
    check_lists("small box", &small, rows, n);

    /* the wrap's own edges, where its expression rounds (onto hi, below
     * lo, from far outside), in every group of four and on every axis:
     * the distances must be the expression's bit for bit */
    {
        const double lo = 0.1, hi = 0.7, L = hi - lo;
        const double edge[] = {hi,
                               nextafter(lo, -INFINITY),
                               nextafter(hi, INFINITY),
                               nextafter(hi, -INFINITY),
                               lo - L,
                               nextafter(lo - L, -INFINITY),
                               lo + 3 * L,
                               nextafter(lo + 3 * L, -INFINITY),
                               nextafter(hi + 2 * L, INFINITY),
                               lo - 7 * L + 1e-17,
                               0.4,
                               0.4 + 5 * L};
        const size_t ne = sizeof edge / sizeof edge[0], m = 64;
        double er[4 * 64];
        for (size_t i = 0; i < m; i++) {
            for (int a = 0; a < 3; a++)
                er[4 * i + a] = edge[(i + 5 * (size_t)a) % ne];
            er[4 * i + 3] = 0.2 + 0.001 * (double)(i % 7);
        }
        /* spheres wrapped onto lo on every axis beside ones a hair from
         * it: their distances show any other rounding of the wrap */
        const double onto[4] = {nextafter(lo, -INFINITY), lo + 3e-10, hi, lo - L};
        for (size_t i = 0; i < 8; i++)
            for (int a = 0; a < 3; a++)
                er[4 * i + a] = i % 4 == 1 ? onto[1] + 1e-10 * (double)(i / 4) : onto[i % 4];
        const box eb = {3, {{1, 1, 1}, {lo, lo, lo}, {hi, hi, hi}}};
        check_lists("the wrap's edges", &eb, er, m);
        CHECK(check_box("the wrap's edges", &eb, er, m, 0) > 0, "the wrap's edges: pairs exist");
    }
}

/* ---- one side -------------------------------------------------------------- */

/* The count and pairs of one query on ctx against the oracle's; returns
 * the spheres it searched (images included). */
static uint64_t query_checked(const char *name, sc_context *ctx, const box *bx, const double *rows,
                              size_t n) {
    pairs want;
    oracle(bx, rows, n, 0, &want);
    double *flat;
    const sc_spheres v = view_of(bx->dims, rows, n, &flat);
    pairs got = {0};
    sc_summary s = {0, 0};
    const sc_status st = sc_stream_pairs(ctx, &v, collect, &got, &s);
    if (got.n)
        qsort(got.p, got.n, 2 * sizeof(uint32_t), cmp_pair);
    CHECK(st == SC_OK && want.n > 0 && same(&got, &want) && s.checksum == checksum(&want),
          "%s: %zu pairs, want %zu (%s)", name, got.n, want.n, sc_status_string(st));
    sc_stats stats = {.size = sizeof stats};
    sc_context_stats(ctx, &stats);
    free(got.p);
    free(want.p);
    free(flat);
    return stats.spheres;
}

/* The spheres a fresh context searches for rows: images on both sides. */
static uint64_t searched_fresh(const run *r, const box *bx, const double *rows, size_t n) {
    sc_context *ctx = context_for(r, bx);
    double *flat;
    const sc_spheres v = view_of(bx->dims, rows, n, &flat);
    sc_summary s;
    sc_stats stats = {.size = sizeof stats};
    if (ctx && sc_count_pairs(ctx, &v, &s) == SC_OK)
        sc_context_stats(ctx, &stats);
    sc_context_destroy(ctx);
    free(flat);
    return stats.spheres;
}

/* Images for half the shifts (periodic.c: image_radius), which a context
 * takes once its last query's radii were within a factor of 3: spheres
 * crowded against every face, edge and corner, radii in [0.1, 0.3],
 * queried on one context as they are (both sides), again (one side: fewer
 * spheres searched), with radii grown past the bands (pass one finds it
 * and makes both sides), with radii spread to [0.01, 0.3] (one side still,
 * the last radii allowing it, each small sphere's band as wide as a large
 * one's) and again (both sides); every answer the oracle's, in 3-D and
 * 2-D, scalar and AVX2, on 1 and 2 threads. */
static void group_one_side(void) {
    const size_t n = 2500;
    const double lo = -3.0, hi = 5.0;
    double *rows = malloc(4 * n * sizeof(double)), *grown = malloc(4 * n * sizeof(double)),
           *spread = malloc(4 * n * sizeof(double));
    uint64_t seed = 97;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            const double u = unit(&seed), t = unit(&seed);
            /* two in three coordinates within 0.9 of a face */
            rows[4 * i + a] = t < 1.0 / 3   ? lo + 0.9 * u
                              : t < 2.0 / 3 ? hi - 0.9 * u
                                            : lo + (hi - lo) * u;
        }
        rows[4 * i + 3] = 0.1 + 0.2 * unit(&seed);
        for (int a = 0; a < 4; a++)
            grown[4 * i + a] = spread[4 * i + a] = rows[4 * i + a];
        grown[4 * i + 3] = 1.25 * rows[4 * i + 3];
        spread[4 * i + 3] = 0.01 + 0.29 * unit(&seed);
    }
    for (int dims = 3; dims >= 2; dims--)
        for (int k = 0; k < 4; k++) {
            const box bx = {dims, {{1, 1, dims == 3}, {lo, lo, lo}, {hi, hi, hi}}};
            const run r = {SC_ALGO_GRID, kernel_for((size_t)k), 1 + k / 2, 0};
            char name[160];
            snprintf(name, sizeof name, "one side, %d-D, %s", dims, label(&r));
            sc_context *ctx = context_for(&r, &bx);
            CHECK(ctx != NULL, "%s: context", name);
            if (!ctx)
                continue;
            const uint64_t both = query_checked(name, ctx, &bx, rows, n);
            const uint64_t one = query_checked(name, ctx, &bx, rows, n);
            CHECK(both > n && one > n && one < both && both == searched_fresh(&r, &bx, rows, n),
                  "%s: %llu spheres searched with one side, %llu with both", name,
                  (unsigned long long)one, (unsigned long long)both);
            const uint64_t past = query_checked(name, ctx, &bx, grown, n);
            CHECK(past == searched_fresh(&r, &bx, grown, n),
                  "%s: radii past the bands: both sides (%llu)", name, (unsigned long long)past);
            const uint64_t wide = query_checked(name, ctx, &bx, spread, n);
            const uint64_t again = query_checked(name, ctx, &bx, spread, n);
            CHECK(again == searched_fresh(&r, &bx, spread, n) && wide != again,
                  "%s: spread radii: one side (%llu), then both (%llu)", name,
                  (unsigned long long)wide, (unsigned long long)again);
            sc_context_destroy(ctx);
        }
    /* a list with a skin (the search on grown radii) counted twice on one
     * context, the second with one side, and filled from that count */
    const sc_nbr_spec spec = {1, 0.3, SC_NBR_DISTANCE};
    const box bx = {3, {{1, 1, 1}, {lo, lo, lo}, {hi, hi, hi}}};
    list want = {NULL, NULL, NULL};
    list_oracle(&bx, rows, n, &spec, &want);
    const sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    for (int k = 0; k < 2; k++) {
        const run r = {SC_ALGO_GRID, kernel_for((size_t)k), 2, 0};
        sc_context *ctx = context_for(&r, &bx);
        uint64_t *off = malloc((n + 1) * sizeof(uint64_t));
        uint32_t *idx = malloc((want.off[n] + 1) * sizeof(uint32_t));
        double *val = malloc((want.off[n] + 1) * sizeof(double));
        uint64_t searched[2] = {0, 0};
        sc_status st = SC_OK;
        for (int q = 0; q < 2 && st == SC_OK; q++) {
            st = sc_neighbors_count(ctx, &v, &spec, off);
            sc_stats stats = {.size = sizeof stats};
            sc_context_stats(ctx, &stats);
            searched[q] = stats.spheres;
        }
        const int off_ok = st == SC_OK && memcmp(off, want.off, (n + 1) * sizeof(uint64_t)) == 0;
        CHECK(off_ok && searched[1] < searched[0],
              "one side, list, %s: offsets (%s), %llu spheres searched, then %llu", label(&r),
              sc_status_string(st), (unsigned long long)searched[0],
              (unsigned long long)searched[1]);
        if (off_ok) {
            st = sc_neighbors_fill(ctx, &v, &spec, off, idx, val);
            CHECK(st == SC_OK && memcmp(idx, want.idx, want.off[n] * sizeof(uint32_t)) == 0 &&
                      memcmp(val, want.val, want.off[n] * sizeof(double)) == 0,
                  "one side, list, %s: indices and distances bit for bit (%s)", label(&r),
                  sc_status_string(st));
        }
        free(off);
        free(idx);
        free(val);
        sc_context_destroy(ctx);
    }
    free(want.off);
    free(want.idx);
    free(want.val);
    free(rows);
    free(grown);
    free(spread);
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"generators", group_generators},
        {"small", group_small},
        {"extremes", group_extremes},
        {"threads", group_threads},
        {"api", group_api},
        {"layouts", group_layouts},
        {"lists", group_lists},
        {"one_side", group_one_side},
    };
    return sc_test_main(argc, argv, "test_periodic", groups, sizeof groups / sizeof groups[0]);
}
