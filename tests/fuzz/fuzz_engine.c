/*
 * fuzz_engine.c: the differential engine harness. Bytes become a small
 * sphere set with adversarial values (a common binary scale anywhere from
 * 2^-1074 to the accepted limit, small integer lattices so exact touching
 * is common, zero, subnormal and huge radii, duplicates, outliers at
 * +-SC_MAX_ABS_VALUE); float32 or float64, rows, separate arrays, or rows
 * of centres with the radii apart (r_stride), 2-D or 3-D; as generated, or
 * laid out in the grid's cell order (sc_cell_order), whose sort the default
 * grids then skip, or in that order with a few spheres swapped, whose sort
 * they repair. Every algorithm and kernel, at 1 and several threads, must
 * return the oracle's pair set: the same count, checksum and pairs as a
 * brute-force double loop written here. The same spheres cut in two (a prefix and the
 * rest, often one at least 4 times the other, so the larger set's filter
 * decides) must give the two-set query the oracle's pairs across the cut;
 * the neighbour lists, half and full, the oracle's pairs row by row;
 * in a periodic box drawn from the input (bounds of the set's scale, up to
 * SC_MAX_BOX_VALUE), the header's minimum-image expression's pairs, for
 * the set and for a cut of it in two.
 *
 * Built as a libFuzzer target with clang (SC_FUZZ=ON), or, with any
 * compiler, as a program that replays files (tests/fuzz/driver.c): the
 * committed corpus runs in every ctest build.
 *
 * SPDX-License-Identifier: MIT
 */
#include "spherecollide.h"
#include "spherecollide_study.h" /* Morton rows: linked with spherecollide_study */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 48

typedef struct input {
    const uint8_t *p;
    size_t left;
} input;

static unsigned byte(input *in) {
    if (in->left == 0)
        return 0;
    in->left--;
    return *in->p++;
}

static void fuzz_fail(const char *what, const char *config, unsigned long long a,
                      unsigned long long b) {
    fprintf(stderr, "fuzz_engine: %s (%s): engine %llu, oracle %llu\n", what, config, a, b);
    abort();
}

/* One value from the scale, the lattice and the byte. */
static double value(input *in, int e0, int radius) {
    const unsigned k = byte(in);
    switch (k >> 5) { /* top three bits: the kind */
    case 0:
    case 1:
    case 2:
    case 3: /* a lattice value at the common scale: exact touching, duplicates */
        return ldexp((double)((int)(k & 63) - (radius ? 0 : 32)), e0);
    case 4: /* at a nearby scale */
        return ldexp((double)(k & 15), e0 + (int)((k >> 4) & 1) * 8 - 4);
    case 5: /* zero, or the smallest subnormals */
        return (k & 1) ? 0.0 : ldexp((double)(k & 31), -1074);
    case 6: /* a random mantissa at the scale */
    {
        uint64_t m = 0;
        for (int b = 0; b < 6; b++)
            m = m << 8 | byte(in);
        return ldexp((double)(m & ((1ull << 48) - 1)), e0 - 44) * ((!radius && (k & 1)) ? -1 : 1);
    }
    default: /* far away: the limits and wide scales */
        switch (k & 7) {
        case 0: return SC_MAX_ABS_VALUE;
        case 1: return radius ? 1e-300 : -SC_MAX_ABS_VALUE;
        case 2: return 1e150 * 0.999;
        case 3: return 1e-300;
        case 4: return ldexp(1.0, (int)byte(in) * 4 - 540); /* 2^-540 .. 2^480 */
        default: return ldexp((double)(k & 7), e0 + 20);
        }
    }
}

static uint64_t mix(uint32_t i, uint32_t j) {
    uint64_t z = ((uint64_t)i << 32) | j;
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct pairlist {
    uint32_t p[2 * MAX_N * (MAX_N - 1) / 2];
    size_t n;
} pairlist;

static int collect(const uint32_t *pairs, size_t count, void *user) {
    pairlist *l = user;
    for (size_t k = 0; k < count; k++) {
        if (l->n >= MAX_N * (MAX_N - 1) / 2)
            return 1;
        l->p[2 * l->n] = pairs[2 * k];
        l->p[2 * l->n + 1] = pairs[2 * k + 1];
        l->n++;
    }
    return 0;
}

static int cmp_pair(const void *a, const void *b) {
    const uint32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

typedef struct config {
    sc_algorithm algo;
    sc_kernel kernel;
    int threads, max_levels, levels;
    double cell_factor;
    int sorted, morton;
    const char *name;
    int sides; /* the grid's cross-level sides (sc_grid_sides) */
} config;

/* Contexts live across inputs: every run after the first is a warm query on
 * scratch shaped by other inputs, as a library caller's would be. The first
 * three and every other peer run on every input; one of the shaped grids
 * (picked by the input) runs too. */
static const config configs[] = {
    {SC_ALGO_GRID, SC_KERNEL_SCALAR, 1, 0, 0, 1.0, 0, 0, "grid scalar 1 thread", 0},
    {SC_ALGO_GRID, SC_KERNEL_AVX2, 3, 0, 0, 1.0, 0, 0, "grid avx2 3 threads", 0},
    {SC_ALGO_BRUTE, SC_KERNEL_AUTO, 2, 0, 0, 1.0, 0, 0, "brute 2 threads", 0},
    {SC_ALGO_GRID, SC_KERNEL_AUTO, 2, 16, 16, 1.0, 1, 0, "grid, 16 levels forced, sorted", 0},
    {SC_ALGO_GRID, SC_KERNEL_AUTO, 2, 1, 0, 3.7, 0, 0, "grid, one level, cell factor 3.7", 0},
    {SC_ALGO_GRID, SC_KERNEL_SCALAR, 2, 4, 3, 1.0, 1, 1, "grid, 3 levels, Morton rows, sorted", 0},
    {SC_ALGO_GRID, SC_KERNEL_AVX2, 3, 16, 16, 1.0, 0, 0, "grid, 16 levels, coarser side",
     SC_SIDES_DOWN},
    {SC_ALGO_GRID, SC_KERNEL_AUTO, 2, 16, 0, 1.0, 1, 1, "grid, Morton, coarser side, sorted",
     SC_SIDES_DOWN},
    {SC_ALGO_GRID, SC_KERNEL_AUTO, 2, 0, 0, 1.0, 0, 0, "grid, finer side", SC_SIDES_UP},
    /* the other peers: every one runs on every input */
    {SC_ALGO_PARTITION1D, SC_KERNEL_SCALAR, 3, 0, 0, 1.0, 0, 0, "partition1d 3 threads", 0},
    {SC_ALGO_SAP, SC_KERNEL_AVX2, 2, 0, 0, 1.0, 1, 0, "sap avx2, sorted", 0},
    {SC_ALGO_SAP, SC_KERNEL_SCALAR, 3, 0, 0, 1.0, 0, 0, "sap warm (repairs the last input's order)",
     0},
    {SC_ALGO_HASHGRID, SC_KERNEL_AUTO, 2, 0, 0, 1.0, 0, 0, "hashgrid 2 threads", 0},
    {SC_ALGO_OCTREE, SC_KERNEL_SCALAR, 2, 0, 0, 1.0, 0, 0, "octree, leaf 1", 0},
    {SC_ALGO_KDSPLIT, SC_KERNEL_AVX2, 3, 0, 0, 1.0, 1, 0, "kdsplit, mean split, sorted", 0},
    {SC_ALGO_BVH, SC_KERNEL_SCALAR, 2, 0, 0, 1.0, 0, 0,
     "bvh, leaves of 3, refit (the last input's tree)", 0},
    {SC_ALGO_SEGTREE, SC_KERNEL_AVX2, 3, 0, 0, 1.0, 1, 0, "segtree, cutoff 1, sorted", 0},
};
#define FIRST_PEER 9
#define NCONFIG (sizeof configs / sizeof configs[0])
static sc_context *contexts[NCONFIG];

static sc_options options_of(const config *cf) {
    sc_options o = sc_options_default();
    o.algorithm = cf->algo;
    o.kernel = sc_kernel_available(cf->kernel) ? cf->kernel : SC_KERNEL_AUTO;
    o.threads = cf->threads;
    o.pin = SC_PIN_NONE;
    o.sorted = cf->sorted;
    o.chunk_pairs = 7; /* many chunks, so buffers wrap */
    if (cf->max_levels)
        o.grid.max_levels = cf->max_levels;
    o.grid.levels = cf->levels;
    o.grid.cell_factor = cf->cell_factor;
    o.octree.leaf_size = 1; /* many copies: the reference-point filter at work */
    o.kdsplit.split = SC_SPLIT_MEAN;
    o.kdsplit.leaf_size = 2;
    o.bvh.leaf_size = 3;
    o.segtree.cutoff = 1;
    o.sap.warm = cf->algo == SC_ALGO_SAP && !cf->sorted;
    o.bvh.refit = cf->algo == SC_ALGO_BVH;
    return o;
}

static sc_context *context_of(size_t c) {
    if (contexts[c] == NULL) {
        const config *cf = &configs[c];
        const sc_options o = options_of(cf);
        if (sc_context_create(&o, &contexts[c]) != SC_OK ||
            sc_study_set_traversal(contexts[c],
                                   cf->morton ? SC_TRAVERSAL_MORTON : SC_TRAVERSAL_ROWS) != SC_OK ||
            sc_study_set_grid_sides(contexts[c], (sc_grid_sides)cf->sides) != SC_OK)
            fuzz_fail("context", cf->name, 0, 0);
    }
    return contexts[c];
}

/* Adds (i, j) to the oracle's list and its checksum. */
static void want_pair(pairlist *want, uint64_t *sum, size_t i, size_t j) {
    want->p[2 * want->n] = (uint32_t)i;
    want->p[2 * want->n + 1] = (uint32_t)j;
    want->n++;
    *sum += mix((uint32_t)i, (uint32_t)j);
}

/* One config's count and stream (got: the streamed pairs) against the
 * oracle's list, sorted when the config's output is not. */
static void expect_oracle(const char *what, const config *cf, sc_status cst, const sc_summary *cs,
                          sc_status sst, pairlist *got, const pairlist *want, uint64_t want_sum) {
    char name[96];
    snprintf(name, sizeof name, "%s, %s", what, cf->name);
    if (cst != SC_OK)
        fuzz_fail("count status", name, (unsigned long long)cst, 0);
    if (cs->pairs != want->n)
        fuzz_fail("count", name, cs->pairs, want->n);
    if (cs->checksum != want_sum)
        fuzz_fail("checksum", name, cs->checksum, want_sum);
    if (sst != SC_OK)
        fuzz_fail("stream status", name, (unsigned long long)sst, 0);
    if (!cf->sorted && got->n > 1)
        qsort(got->p, got->n, 2 * sizeof(uint32_t), cmp_pair);
    if (got->n != want->n ||
        (got->n && memcmp(got->p, want->p, 2 * got->n * sizeof(uint32_t)) != 0))
        fuzz_fail("streamed pairs differ", name, got->n, want->n);
}

/* The spheres cut in two at k, picked by `how`: A = [0, k) and B = the
 * rest as rows views, or swapped (bit 1); half the cuts (bit 0) leave one
 * side at most a fifth of the other, so the larger set's filter decides. */
typedef struct cut {
    sc_spheres a, b;
    size_t k, na, nb;
    int swap;
} cut;

static cut cut_of(unsigned how, size_t n, int dims, int f32, const float *rows32,
                  const double *rows64) {
    cut c;
    c.k = (how & 1) ? (how >> 2) % (n / 5 + 1) : (how >> 2) % (n + 1);
    c.swap = (how >> 1) & 1;
    const size_t cols = (size_t)dims + 1, k = c.k;
    const sc_spheres lo =
        f32 ? sc_spheres_rows_f32(k, dims, rows32) : sc_spheres_rows_f64(k, dims, rows64);
    const sc_spheres hi = f32 ? sc_spheres_rows_f32(n - k, dims, rows32 + k * cols)
                              : sc_spheres_rows_f64(n - k, dims, rows64 + k * cols);
    c.a = c.swap ? hi : lo;
    c.b = c.swap ? lo : hi;
    c.na = c.swap ? n - k : k;
    c.nb = c.swap ? k : n - k;
    return c;
}

/* The two-set query on the spheres cut at k: A = [0, k), B = [k, n) as
 * rows views, queried as (A, B) or (B, A) by a bit of `how`; every config
 * that ran above must give the double loop's pairs across the cut. */
static void check_between(const double (*v)[4], size_t n, int dims, int f32, const float *rows32,
                          const double *rows64, unsigned how, size_t shaped) {
    const cut ct = cut_of(how, n, dims, f32, rows32, rows64);
    const size_t k = ct.k, na = ct.na, nb = ct.nb;
    const int swap = ct.swap;
    static pairlist want, got;
    want.n = 0;
    uint64_t want_sum = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            const double *a = v[swap ? k + i : i], *b = v[swap ? j : k + j];
            const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
            const double d2 = (dx * dx + dy * dy) + dz * dz, s = a[3] + b[3];
            if (d2 <= s * s)
                want_pair(&want, &want_sum, i, j);
        }
    for (size_t c = 0; c < NCONFIG; c++) {
        if (c >= 3 && c < FIRST_PEER && c != shaped)
            continue;
        const config *cf = &configs[c];
        sc_context *ctx = context_of(c);
        const sc_spheres *a = &ct.a, *b = &ct.b;
        sc_summary s, ss;
        const sc_status cst = sc_count_between(ctx, a, b, &s);
        got.n = 0;
        const sc_status sst = sc_stream_between(ctx, a, b, collect, &got, &ss);
        expect_oracle("two sets", cf, cst, &s, sst, &got, &want, want_sum);
    }
}

/* The neighbour lists on one of the fixed configs (picked by `how`, which
 * also picks 32- or 64-bit grouped words): the half list's rows, row by
 * row, are the oracle's lexicographic pairs; the full list holds each pair
 * in both rows, each row sorted. */
static void check_neighbors(const sc_spheres *view, size_t n, const pairlist *want, unsigned how) {
    const config *cf = &configs[how % 3];
    sc_context *ctx = context_of(how % 3);
    /* the grouped words as past 2^21 spheres (64 bits) on every other input */
    if (sc_study_set_list_words(ctx, (how >> 2) & 1 ? SC_LIST_WORDS_WIDE : SC_LIST_WORDS_AUTO) !=
        SC_OK)
        fuzz_fail("list words", cf->name, 0, 0);
    static uint64_t off[MAX_N + 1];
    static uint32_t idx[MAX_N * MAX_N];
    for (int full = 0; full < 2; full++) {
        const sc_nbr_spec spec = {full, 0.0, SC_NBR_NONE};
        if (sc_neighbors_count(ctx, view, &spec, off) != SC_OK)
            fuzz_fail("neighbors count status", cf->name, 0, 0);
        if (off[n] != (full ? 2 : 1) * want->n)
            fuzz_fail("neighbors entries", cf->name, off[n], want->n);
        if (sc_neighbors_fill(ctx, view, &spec, off, idx, NULL) != SC_OK)
            fuzz_fail("neighbors fill status", cf->name, 0, 0);
        size_t k = 0; /* the oracle's pairs, in order, are the half list */
        for (size_t i = 0; i < n; i++)
            for (uint64_t g = off[i]; g < off[i + 1]; g++) {
                if (g > off[i] && idx[g] <= idx[g - 1])
                    fuzz_fail("a neighbour row not sorted", cf->name, i, g);
                if (!full && (k >= want->n || want->p[2 * k] != i || want->p[2 * k + 1] != idx[g]))
                    fuzz_fail("half list differs from the oracle", cf->name, i, idx[g]);
                k += !full;
            }
    }
}

/* The header's wrap(x) on a periodic axis. */
static double wrap_into(double x, double lo, double hi) {
    const double L = hi - lo;
    if (x >= lo && x < hi)
        return x;
    const double t = x - floor((x - lo) / L) * L;
    return t < lo || t >= hi ? lo : t;
}

/* The header's periodic predicate for wrapped rows p, q (x, y, z, r): the
 * minimum image's d2 against (rp + rq)^2. */
static int box_meets(const sc_box *box, const double *p, const double *q) {
    double d[3];
    for (int a = 0; a < 3; a++) {
        const double L = box->hi[a] - box->lo[a];
        d[a] = q[a] - p[a];
        if (box->periodic[a] && d[a] > 0.5 * L)
            d[a] = d[a] - L;
        else if (box->periodic[a] && d[a] < -0.5 * L)
            d[a] = d[a] + L;
    }
    const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2], s = p[3] + q[3];
    return d2 <= s * s;
}

/* The same spheres in a periodic box drawn from the input (each axis
 * periodic or not, bounds a few units of the set's scale, clamped to
 * SC_MAX_BOX_VALUE): the three configs that always run and one peer, on
 * fresh contexts with the box, must give the header's expression's pairs,
 * or SC_ERR_OUT_OF_RANGE when a radius is past SC_MAX_ABS_VALUE / 2. The
 * count makes images on both sides; the stream after it, on the same
 * context, for half the shifts where the radii are within a factor of 3
 * (periodic.c: image_radius). */
static void check_periodic(const double (*v)[4], size_t n, int dims, const sc_spheres *view,
                           int f32, const float *rows32, const double *rows64, input *in, int e0) {
    sc_box box = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    const unsigned axes = byte(in);
    int any = 0;
    for (int a = 0; a < dims; a++) {
        if (!((axes >> a) & 1))
            continue;
        const int e = e0 + (int)(byte(in) % 8);
        const double unit = ldexp(1.0, e < 497 ? e : 497);
        double lo = -(double)(byte(in) % 9) * unit, hi = lo + (double)(1 + byte(in) % 16) * unit;
        if (!(fabs(lo) <= SC_MAX_BOX_VALUE) || !(fabs(hi) <= SC_MAX_BOX_VALUE) || !(lo < hi)) {
            lo = -SC_MAX_BOX_VALUE;
            hi = SC_MAX_BOX_VALUE;
        }
        box.periodic[a] = 1;
        box.lo[a] = lo;
        box.hi[a] = hi;
        any = 1;
    }
    if (!any)
        return;
    double w[MAX_N][4];
    int too_big = 0;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 4; a++)
            w[i][a] = a < 3 && box.periodic[a] ? wrap_into(v[i][a], box.lo[a], box.hi[a]) : v[i][a];
        too_big |= v[i][3] > SC_MAX_ABS_VALUE / 2;
    }
    static pairlist want, got;
    want.n = 0;
    uint64_t want_sum = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (box_meets(&box, w[i], w[j]))
                want_pair(&want, &want_sum, i, j);
    const size_t peer = FIRST_PEER + byte(in) % (NCONFIG - FIRST_PEER);
    const size_t runs[4] = {0, 1, 2, peer};
    for (size_t k = 0; k < 4; k++) {
        const config *cf = &configs[runs[k]];
        sc_options o = options_of(cf);
        o.box = box;
        o.sap.warm = o.bvh.refit = 0; /* a fresh context: nothing to repair */
        sc_context *ctx = NULL;
        if (sc_context_create(&o, &ctx) != SC_OK)
            fuzz_fail("periodic context", cf->name, 0, 0);
        sc_summary s, ss;
        const sc_status cst = sc_count_pairs(ctx, view, &s);
        got.n = 0;
        const sc_status sst = sc_stream_pairs(ctx, view, collect, &got, &ss);
        sc_context_destroy(ctx);
        if (too_big) {
            if (cst != SC_ERR_OUT_OF_RANGE || sst != SC_ERR_OUT_OF_RANGE)
                fuzz_fail("periodic: a radius past the limit", cf->name, cst, sst);
            continue;
        }
        expect_oracle("periodic", cf, cst, &s, sst, &got, &want, want_sum);
    }
    if (too_big)
        return;
    /* two sets in the box: the spheres cut at k (A = [0, k), B = the rest,
     * or swapped; half the cuts leave one side at most a fifth of the
     * other, so the larger is filtered), on the three fixed configs and
     * the peer, against the double loop over A x B */
    const cut ct = cut_of(byte(in), n, dims, f32, rows32, rows64);
    const size_t k = ct.k, na = ct.na, nb = ct.nb;
    const int swap = ct.swap;
    const sc_spheres *sa = &ct.a, *sb = &ct.b;
    want.n = 0;
    want_sum = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (box_meets(&box, w[swap ? k + i : i], w[swap ? j : k + j]))
                want_pair(&want, &want_sum, i, j);
    for (size_t r = 0; r < 4; r++) {
        const config *cf = &configs[runs[r]];
        sc_options o = options_of(cf);
        o.box = box;
        o.sap.warm = o.bvh.refit = 0;
        sc_context *ctx = NULL;
        if (sc_context_create(&o, &ctx) != SC_OK)
            fuzz_fail("periodic context", cf->name, 0, 0);
        sc_summary s, ss;
        const sc_status cst = sc_count_between(ctx, sa, sb, &s);
        got.n = 0;
        const sc_status sst = sc_stream_between(ctx, sa, sb, collect, &got, &ss);
        sc_context_destroy(ctx);
        expect_oracle("periodic two sets", cf, cst, &s, sst, &got, &want, want_sum);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {data, size};
    const unsigned flags = byte(&in);
    const int dims = (flags & 1) ? 2 : 3;
    const int f32 = (flags >> 1) & 1;
    const int soa = (flags >> 2) & 1;
    const int apart = (flags >> 3) & 1; /* rows of centres, radii apart (r_stride) */
    /* the common scale: 2^-1074 .. 2^490 */
    const int e0 = (int)((byte(&in) << 8 | byte(&in)) % 1565) - 1074;
    size_t n = byte(&in) % (MAX_N + 1);
    double v[MAX_N][4];
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 4; a++) {
            double x = (a == 2 && dims == 2) ? 0.0 : value(&in, e0, a == 3);
            if (!(fabs(x) <= SC_MAX_ABS_VALUE))
                x = copysign(SC_MAX_ABS_VALUE, x);
            if (a == 3)
                x = fabs(x);
            if (f32) { /* what the engine sees: the float, widened */
                float fx = (float)x;
                x = isfinite(fx) ? (double)fx : 0.0;
            }
            v[i][a] = x;
        }
    }
    /* With flag 16, the spheres laid out in the grid's own cell order
     * (sc_cell_order on a default grid): the default grids' sorts then find
     * their keys ascending and skip, and every other check runs on it. */
    if ((flags >> 4) & 1 && n > 1) {
        static sc_context *order_ctx;
        sc_options o = sc_options_default();
        o.threads = 2;
        o.pin = SC_PIN_NONE;
        if (!order_ctx && sc_context_create(&o, &order_ctx) != SC_OK)
            fuzz_fail("context", "cell order", 0, 0);
        double tmp[MAX_N * 4], w[MAX_N][4];
        uint32_t ord[MAX_N];
        unsigned char seen[MAX_N] = {0};
        for (size_t i = 0; i < n; i++)
            for (int a = 0, c = 0; a < 4; a++)
                if (dims == 3 || a != 2)
                    tmp[i * (size_t)(dims + 1) + (size_t)c++] = v[i][a];
        const sc_spheres tv = sc_spheres_rows_f64(n, dims, tmp);
        if (sc_cell_order(order_ctx, &tv, ord) != SC_OK)
            fuzz_fail("cell order: status", "default grid", n, 0);
        for (size_t k = 0; k < n; k++) {
            if (ord[k] >= n || seen[ord[k]]++)
                fuzz_fail("cell order: not a permutation", "default grid", k, ord[k]);
            memcpy(w[k], v[ord[k]], sizeof w[k]);
        }
        memcpy(v, w, n * sizeof w[0]);
        /* With flag 32 as well, two spheres then swap places (one far
         * from its place, one a step): nearly in order, which the default
         * grids' sorts repair instead of sorting afresh. */
        if ((flags >> 5) & 1 && n > 3) {
            memcpy(w[0], v[1], sizeof w[0]);
            memcpy(v[1], v[n - 2], sizeof w[0]);
            memcpy(v[n - 2], w[0], sizeof w[0]);
            memcpy(w[0], v[n / 2], sizeof w[0]);
            memcpy(v[n / 2], v[n / 2 + 1], sizeof w[0]);
            memcpy(v[n / 2 + 1], w[0], sizeof w[0]);
        }
    }

    /* the input view */
    double rows64[MAX_N * 4], soa64[4][MAX_N];
    float rows32[MAX_N * 4], soa32[4][MAX_N];
    double cen64[MAX_N * 3];
    float cen32[MAX_N * 3];
    const int cols = dims + 1;
    for (size_t i = 0; i < n; i++)
        for (int a = 0, c = 0; a < 4; a++) {
            if (dims == 2 && a == 2)
                continue;
            rows64[i * (size_t)cols + (size_t)c] = v[i][a];
            rows32[i * (size_t)cols + (size_t)c] = (float)v[i][a];
            if (a < 3) {
                cen64[i * (size_t)dims + (size_t)c] = v[i][a];
                cen32[i * (size_t)dims + (size_t)c] = (float)v[i][a];
            }
            c++;
            soa64[a][i] = v[i][a];
            soa32[a][i] = (float)v[i][a];
        }
    sc_spheres view;
    if (soa)
        view =
            f32 ? sc_spheres_soa_f32(n, soa32[0], soa32[1], dims == 3 ? soa32[2] : NULL, soa32[3])
                : sc_spheres_soa_f64(n, soa64[0], soa64[1], dims == 3 ? soa64[2] : NULL, soa64[3]);
    else if (apart) {
        const size_t e = f32 ? sizeof(float) : sizeof(double);
        const char *cen = f32 ? (const char *)cen32 : (const char *)cen64;
        const sc_spheres cr = {n,
                               f32 ? SC_F32 : SC_F64,
                               (size_t)dims * e,
                               cen,
                               cen + e,
                               dims == 3 ? cen + 2 * e : NULL,
                               f32 ? (const void *)soa32[3] : (const void *)soa64[3],
                               e};
        view = cr;
    } else
        view = f32 ? sc_spheres_rows_f32(n, dims, rows32) : sc_spheres_rows_f64(n, dims, rows64);

    /* the oracle, in lexicographic order */
    static pairlist want, got;
    want.n = 0;
    uint64_t want_sum = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const double dx = v[i][0] - v[j][0], dy = v[i][1] - v[j][1], dz = v[i][2] - v[j][2];
            const double d2 = (dx * dx + dy * dy) + dz * dz, s = v[i][3] + v[j][3];
            if (d2 <= s * s)
                want_pair(&want, &want_sum, i, j);
        }

    /* which shaped grid joins the three that always run */
    const size_t shaped = 3 + byte(&in) % (FIRST_PEER - 3);
    for (size_t c = 0; c < NCONFIG; c++) {
        if (c >= 3 && c < FIRST_PEER && c != shaped)
            continue;
        const config *cf = &configs[c];
        sc_context *ctx = context_of(c);
        sc_summary s, ss;
        const sc_status cst = sc_count_pairs(ctx, &view, &s);
        got.n = 0;
        const sc_status sst = sc_stream_pairs(ctx, &view, collect, &got, &ss);
        expect_oracle("one set", cf, cst, &s, sst, &got, &want, want_sum);
    }
    check_neighbors(&view, n, &want, byte(&in));
    check_between(v, n, dims, f32, rows32, rows64, byte(&in), shaped);
    check_periodic(v, n, dims, &view, f32, rows32, rows64, &in, e0);
    return 0;
}
