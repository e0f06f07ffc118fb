/*
 * test_stages.c: unit tests of the pipeline stages through their internal
 * interfaces: radix sort against qsort (random, all-equal, n = 0 and 1,
 * narrow and full-width keys, several thread counts), key encoding (nesting
 * of levels, exact power-of-two regime, level assignment), cell table
 * row table invariants, the two kernels against each other (same pairs, same
 * order) and against the predicate, the checksum mix, and the BVH's
 * node walks (scalar and AVX2) against a recursive brute force, and the
 * huge-page policy's balloon probe on made-up sysfs trees.
 */
#include "internal.h"
#include "counting_alloc.h"
#include "context.h"
#include "peer.h"
#include "kernels.h"
#include "algo/grid/grid.h"
#include "boxfilter.h"
#include "bvh4.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A working copy of n spheres (and the padding) in mem's 4 (n + SC_PAD)
 * doubles, as sc_work_reserve lays it out. */
static sc_work work_in(double *mem, size_t n) {
    sc_work w = {0};
    w.x = mem;
    w.y = mem + n + SC_PAD;
    w.z = mem + 2 * (n + SC_PAD);
    w.r = mem + 3 * (n + SC_PAD);
    return w;
}

typedef struct kv {
    uint64_t key;
    uint32_t index;
} kv;

static int cmp_kv(const void *a, const void *b) {
    const kv *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index; /* stable: by original index */
}

/* 64-byte aligned room for n elements of `size` bytes, plus `shift` bytes
 * in front when shift > 0 (then the array itself is not line-aligned). */
static void *lines_alloc(size_t n, size_t size, size_t shift, void **base) {
    *base = aligned_alloc(64, (n * size + shift + 63) / 64 * 64 + 64);
    return (char *)*base + shift;
}

/* first = 1: the caller counts digit 0 per block and leaves the index
 * unwritten, as the keys stage does (sc_radix_first). ib > 0: the words
 * key << ib | k through sc_radix_sort_packed. stream = 1: the streaming
 * scatter, on line-aligned arrays; stream = 2: asked for on arrays that
 * are not line-aligned, where the sort must scatter plainly. */
static void sort_case(size_t n, int key_bits, int mode, int threads, int first, int ib,
                      int stream) {
    const int packed = ib > 0;
    const size_t shift = stream == 2 ? 8 : 0;
    void *bk, *btk, *bi, *bti;
    uint64_t *keys = lines_alloc(n + 1, 8, shift, &bk), *tk = lines_alloc(n + 1, 8, shift, &btk);
    uint32_t *idx = lines_alloc(n + 1, 4, shift, &bi), *ti = lines_alloc(n + 1, 4, shift, &bti);
    kv *ref = malloc(sizeof(kv) * (n + 1));
    uint32_t *counts = malloc(sc_radix_sort_scratch(threads, stream != 0));
    const uint64_t mask = key_bits >= 64 ? ~0ull : ((1ull << key_bits) - 1);
    for (size_t k = 0; k < n; k++) {
        uint64_t key = mode == 0 ? next() & mask : mode == 1 ? 42 & mask : (next() % 7) & mask;
        keys[k] = packed ? key << ib | k : key;
        idx[k] = first ? 0xDEADBEEFu : (uint32_t)k; /* must not be read when first */
        ref[k].key = key;
        ref[k].index = (uint32_t)k;
    }
    qsort(ref, n, sizeof(kv), cmp_kv);
    sc_radix_first f = {counts, 0, true, 0, stream != 0, false, false, 0};
    sc_radix_first plain_stream = {NULL, 0,     false, 0,
                                   true, false, false, 0}; /* no counts, only the stream */
    if (first) {
        const int blocks = sc_radix_blocks(n, threads);
        const size_t buckets = (size_t)1 << sc_radix_digit_bits(key_bits);
        memset(counts, 0, sizeof(uint32_t) * buckets * (size_t)blocks);
        for (int b = 0; b < blocks; b++)
            for (size_t k = n * (size_t)b / (size_t)blocks;
                 k < n * (size_t)(b + 1) / (size_t)blocks; k++) {
                const unsigned at = (unsigned)ib;
                counts[(size_t)b * buckets + ((keys[k] >> at) & (buckets - 1))]++;
                f.varying |= (keys[k] >> at) ^ (keys[0] >> at);
            }
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    f.identity = !packed;
    const sc_radix_first *fp = first ? &f : stream ? &plain_stream : NULL;
    const bool in_tmp =
        packed ? sc_radix_sort_packed(keys, tk, n, key_bits, ib, counts, threads, fp)
               : sc_radix_sort_pairs(keys, idx, tk, ti, n, key_bits, counts, threads, fp);
    const uint64_t *rk = in_tmp ? tk : keys;
    const uint32_t *ri = in_tmp ? ti : idx;
    int ok = 1;
    for (size_t k = 0; k < n; k++)
        ok &= packed ? rk[k] == (ref[k].key << ib | ref[k].index)
                     : rk[k] == ref[k].key && ri[k] == ref[k].index;
    CHECK(ok,
          "radix sort n=%zu bits=%d mode=%d threads=%d first=%d index bits=%d stream=%d "
          "differs from qsort",
          n, key_bits, mode, threads, first, ib, stream);
    free(bk);
    free(btk);
    free(bi);
    free(bti);
    free(ref);
    free(counts);
}

static void test_radix(void) {
    const size_t sizes[] = {0, 1, 2, 17, 4095, 4096, 100000};
    /* the index field: the bits of n - 1 (at least 1), if the key fits beside them */
    CHECK(sc_pack_bits(0, 10) == 1 && sc_pack_bits(2, 10) == 1 && sc_pack_bits(3, 10) == 2,
          "pack bits, tiny n");
    CHECK(sc_pack_bits(1u << 20, 27) == 20 && sc_pack_bits((1u << 20) + 1, 27) == 21,
          "pack bits around 2^20");
    CHECK(sc_pack_bits(100000, 47) == 17 && sc_pack_bits(100000, 48) == 0, "pack bits, 64 in all");
    CHECK(sc_pack_bits((size_t)1 << 32, 32) == 32 && sc_pack_bits(((size_t)1 << 32) + 1, 8) == 0,
          "pack bits at the index type's limit");
    const int bits[] = {1, 11, 21, 32, 33, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
            for (int mode = 0; mode < 3; mode++)
                for (int t = 1; t <= 3; t += 2)
                    for (int first = 0; first < 2; first++) {
                        /* pairs; packed with the narrowest index field; with 32 bits */
                        const int ib = sc_pack_bits(sizes[s], bits[b]);
                        sort_case(sizes[s], bits[b], mode, t, first, 0, 0);
                        if (ib)
                            sort_case(sizes[s], bits[b], mode, t, first, ib, 0);
                        if (bits[b] <= 32 && ib != 32)
                            sort_case(sizes[s], bits[b], mode, t, first, 32, 0);
                    }
    /* The streaming scatter (the engine asks for it on large sorts on some
     * CPUs only, so here on every machine): runs shorter than a line, runs
     * shared between blocks and digits, constant keys, 1 to 16 blocks;
     * pairs with the index written or read, packed; and its refusal on
     * arrays that are not line-aligned. */
    const size_t ssizes[] = {1, 17, 4095, 4096, 100000, 300001};
    const int sbits[] = {5, 11, 21, 33, 64};
    static const int sthreads[] = {1, 3, 8, 16};
    for (size_t s = 0; s < sizeof ssizes / sizeof ssizes[0]; s++)
        for (size_t b = 0; b < sizeof sbits / sizeof sbits[0]; b++)
            for (int mode = 0; mode < 3; mode++)
                for (size_t t = 0; t < sizeof sthreads / sizeof sthreads[0]; t++)
                    for (int first = 0; first < 2; first++) {
                        if (ssizes[s] > 100000 && sthreads[t] > 3)
                            continue; /* long runs: a few blocks are enough */
                        const int ib = sc_pack_bits(ssizes[s], sbits[b]);
                        sort_case(ssizes[s], sbits[b], mode, sthreads[t], first, 0, 1);
                        if (ib)
                            sort_case(ssizes[s], sbits[b], mode, sthreads[t], first, ib, 1);
                    }
    sort_case(100000, 33, 0, 3, 0, 0, 2);
    sort_case(100000, 21, 0, 3, 1, sc_pack_bits(100000, 21), 2);
#ifdef _OPENMP
    omp_set_num_threads(omp_get_num_procs());
#endif
}

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The repair of nearly sorted keys (radix_repair.c) against qsort:
 * ascending keys, then a share of them swapped with a neighbour (a sphere
 * past the next in its row) and a share swapped with a key far away (a
 * sphere into another row), or runs rotated across the blocks' seams; 1 to
 * 16 blocks. Packed: distinct words key << b | k, kb bits of key. Pairs:
 * keys of kb bits (few bits: long runs of equal keys), sorted with their
 * input index, which must come out as a stable sort's (by key, then
 * index). A repair must give qsort's order; one that gives up (too many
 * out of place for the side buffer) must leave the keys as they were, and
 * light damage must not give up. */
typedef struct key_at {
    uint64_t key;
    uint32_t index;
} key_at;

static int cmp_key_at(const void *a, const void *b) {
    const key_at *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->index > y->index) - (x->index < y->index);
}

static void repair_case(bool pairs, int kb, size_t n, double near, double far, int rotate,
                        int threads, int want_repair) {
    const int ib = pairs ? 0 : sc_pack_bits(n, kb);
    const size_t cap = n / 4;
    uint64_t *w = malloc(8 * (n + 1)), *tmp = malloc(8 * (n + 1)), *want = malloc(8 * (n + 1));
    uint64_t *side = malloc(8 * (cap + 1)), *side_tmp = malloc(8 * (cap + 1));
    uint32_t *index = malloc(4 * (n + 1)), *tmp_index = malloc(4 * (n + 1));
    uint32_t *side_index = malloc(4 * (cap + 1)), *side_tmp_index = malloc(4 * (cap + 1));
    uint32_t *counts = malloc(sc_radix_sort_scratch(threads, false));
    key_at *ka = malloc(sizeof *ka * (n + 1));
    for (size_t k = 0; k < n; k++)
        want[k] = next() & (((uint64_t)1 << kb) - 1);
    qsort(want, n, 8, cmp_u64);
    for (size_t k = 0; k < n; k++)
        w[k] = pairs ? want[k] : want[k] << ib | k;
    for (size_t k = 0; k + 1 < n; k++) {
        const double u = (double)(next() >> 11) * 0x1p-53;
        size_t j = k + 1;
        if (u < far)
            j = (size_t)(next() % n);
        else if (u >= far + near)
            continue;
        const uint64_t t = w[k];
        w[k] = w[j];
        w[j] = t;
    }
    if (rotate && n > 2) { /* the first third moved to the end */
        memcpy(tmp, w, 8 * n);
        for (size_t k = 0; k < n; k++)
            w[k] = tmp[(k + n / 3) % n];
    }
    for (size_t k = 0; k < n; k++)
        ka[k] = (key_at){w[k], (uint32_t)k};
    qsort(ka, n, sizeof *ka, cmp_key_at);
    uint64_t *in = malloc(8 * (n + 1));
    memcpy(in, w, 8 * n);
    memcpy(tmp, w, 8 * n);
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    const bool done =
        pairs ? sc_radix_repair_pairs(w, index, tmp, tmp_index, n, kb, side, side_index, side_tmp,
                                      side_tmp_index, cap, counts, threads)
              : sc_radix_repair_packed(w, tmp, n, kb, ib, side, side_tmp, cap, counts, threads);
    bool ordered = true;
    for (size_t k = 0; k < n && done; k++)
        ordered &= w[k] == ka[k].key && (!pairs || index[k] == ka[k].index);
    CHECK(done ? ordered : memcmp(w, in, 8 * n) == 0,
          "repair %s kb=%d n=%zu near=%g far=%g rotate=%d threads=%d: %s",
          pairs ? "pairs" : "packed", kb, n, near, far, rotate, threads,
          done ? "not in order" : "gave up and changed the keys");
    CHECK(want_repair < 0 || done == (want_repair != 0),
          "repair %s kb=%d n=%zu near=%g far=%g rotate=%d threads=%d: %s",
          pairs ? "pairs" : "packed", kb, n, near, far, rotate, threads,
          done ? "repaired a shuffle" : "gave up on light damage");
    free(w);
    free(tmp);
    free(want);
    free(side);
    free(side_tmp);
    free(index);
    free(tmp_index);
    free(side_index);
    free(side_tmp_index);
    free(counts);
    free(ka);
    free(in);
}

static void test_radix_repair(void) {
    const size_t sizes[] = {0, 1, 2, 3, 17, 4095, 4096, 100000};
    static const int threads[] = {1, 2, 3, 8, 16};
    /* packed words of 30 key bits (few ties) and 9 and 2 (runs of about
     * 200 equal keys at 10^5; four keys), which the displaced words' sort
     * on the key alone must put in index order; pairs of 40, 9 and 2 bits */
    static const struct {
        bool pairs;
        int kb;
    } forms[] = {{false, 30}, {false, 9}, {false, 2}, {true, 40}, {true, 9}, {true, 2}};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
                const bool p = forms[f].pairs;
                const int kb = forms[f].kb, th = threads[t];
                const size_t n = sizes[s];
                const int light = n >= 4096 ? 1 : -1; /* small n: too few words for a share */
                const int heavy = n >= 4096 ? 0 : -1;
                repair_case(p, kb, n, 0.0, 0.0, 0, th, n > 0 ? 1 : -1); /* in order already */
                repair_case(p, kb, n, 0.03, 0.01, 0, th, light);        /* a few steps later */
                repair_case(p, kb, n, 0.08, 0.0, 0, th, light);         /* many local swaps */
                repair_case(p, kb, n, 0.15, 0.0, 0, th, light);         /* a quarter out of place */
                repair_case(p, kb, n, 0.0, 0.02, 0, th, light);         /* far moves only */
                repair_case(p, kb, n, 0.01, 0.0, 1, th, -1);            /* a rotated order */
                /* too many out of place, and a shuffle: give up, but among
                 * runs of equal keys most swaps with a neighbour change
                 * nothing, and with four keys most swaps at all */
                repair_case(p, kb, n, 0.4, 0.0, 0, th, kb > 9 ? heavy : -1);
                repair_case(p, kb, n, 0.0, 1.0, 0, th, kb > 2 ? heavy : -1);
            }
#ifdef _OPENMP
    omp_set_num_threads(omp_get_num_procs());
#endif
}

static void test_keys(void) {
    /* level assignment: every radius fits its level, and not the one below */
    static sc_bounds b; /* large (radius histogram): not on the stack */
    memset(&b, 0, sizeof b);
    b.hi[0] = 100, b.hi[1] = 50, b.hi[2] = 10, b.rmin = 0.01, b.rmax = 5.0;
    sc_grid_plan p;
    sc_grid_plan_make(&b, 1.0, SC_MAX_LEVELS, SC_MAX_LEVELS, &p);    /* all the levels it can */
    CHECK(p.levels == 9, "levels for r in [0.01, 5]: %d", p.levels); /* 5 / 2^8 < 0.01 */
    CHECK(!p.pow2, "origin regime expected");
    CHECK(p.radius_limit[p.levels - 1] >= 5.0, "top level holds r_max");
    for (int k = 0; k < 10000; k++) {
        double r = 0.01 + 4.99 * (double)(next() >> 11) * 0x1p-53;
        int l = sc_grid_level(&p, r);
        CHECK(r <= p.radius_limit[l] && (l == 0 || r > p.radius_limit[l - 1]), "level of r=%g: %d",
              r, l);
        CHECK(2.0 * r < p.cell[l], "cell holds the sphere");
    }
    /* nesting: the level-l key fields are the level-0 coordinates >> l */
    for (int k = 0; k < 1000; k++) {
        double pt[3] = {100.0 * (double)(next() >> 11) * 0x1p-53,
                        50.0 * (double)(next() >> 11) * 0x1p-53,
                        10.0 * (double)(next() >> 11) * 0x1p-53};
        int64_t q[3];
        sc_grid_coords(&p, pt, q);
        for (int l = 0; l < p.levels; l++) {
            uint64_t key = sc_grid_key(&p, l, q);
            CHECK((int)(key >> p.level_shift) == l, "level field");
            /* X: the fine x at every level; y, z: level-0 cells >> l */
            uint64_t fx = (key >> p.shift[0]) & ((1ull << p.bits[0]) - 1);
            CHECK(fx == ((uint64_t)q[0] & ((1ull << p.bits[0]) - 1)), "X field");
            double q8 = ldexp(p.cell[0], -SC_XFINE);
            double xlo = p.origin[0] + (double)q[0] * q8;
            CHECK(pt[0] >= xlo - 1e-9 * q8 && pt[0] < xlo + q8 * (1 + 1e-9), "x in its 1/8 cell");
            for (int a = 1; a < 3; a++) {
                uint64_t f = (key >> p.shift[a]) & ((1ull << (p.bits[a] - l)) - 1);
                CHECK(f == (((uint64_t)q[a] >> l) & ((1ull << (p.bits[a] - l)) - 1)), "field %d",
                      a);
                double c = p.cell[l];
                double lo = p.origin[a] + (double)(q[a] >> l) * c;
                CHECK(pt[a] >= lo - 1e-9 * c && pt[a] < lo + c * (1 + 1e-9), "point in its cell");
            }
        }
    }
    /* the (z, y) field: row-major and Morton both invert exactly, and the
     * Morton code keeps every level's cells apart (axes of unequal widths) */
    for (int morton = 0; morton < 2; morton++) {
        sc_grid_plan m = p;
        m.morton = morton;
        const int widths[][2] = {{19, 19}, {19, 7}, {5, 17}, {3, 3}};
        for (int w = 0; w < 4; w++) {
            m.bits[1] = widths[w][0], m.bits[2] = widths[w][1];
            for (int l = 0; l < 3; l++) {
                const uint64_t ny = 1ull << (m.bits[1] - l), nz = 1ull << (m.bits[2] - l);
                for (int k = 0; k < 2000; k++) {
                    const uint64_t y = next() % ny, z = next() % nz;
                    const uint64_t f = sc_grid_zy(&m, l, z, y);
                    uint64_t z2, y2;
                    sc_grid_zy_split(&m, l, f, &z2, &y2);
                    CHECK(z2 == z && y2 == y, "zy round trip (morton %d, widths %d/%d, level %d)",
                          morton, m.bits[1], m.bits[2], l);
                    CHECK(f >> (m.bits[1] + m.bits[2]) == 0, "zy field width");
                }
                if (morton && m.bits[1] == m.bits[2])
                    CHECK(sc_grid_zy(&m, l, 1, 0) == 2 && sc_grid_zy(&m, l, 0, 1) == 1 &&
                              sc_grid_zy(&m, l, 1, 1) == 3 && sc_grid_zy(&m, l, 0, 2) == 4,
                          "Morton order of the first cells");
            }
        }
    }
    /* huge extent: power-of-two regime, coordinates exact even at 1e30 */
    static sc_bounds far;
    memset(&far, 0, sizeof far);
    far.lo[0] = -1e30, far.hi[0] = 1e30, far.hi[1] = far.hi[2] = 1, far.rmin = far.rmax = 1.0;
    sc_grid_plan_make(&far, 1.0, SC_MAX_LEVELS, 0, &p);
    CHECK(p.pow2 && p.levels == 1, "pow2 regime");
    CHECK(p.cell[0] == ldexp(1.0, p.pow2_exp) && p.cell[0] >= 2.0, "cell is a power of two >= 2");
    int64_t q[3];
    double tiny[3] = {-1e-300, 0.0, 0.0};
    sc_grid_coords(&p, tiny, q);
    CHECK(q[0] == -1 && q[1] == 0, "a tiny negative coordinate floors to -1: %lld",
          (long long)q[0]);
    double mid[3] = {3.999, -0.5, 0.0};
    sc_grid_coords(&p, mid, q);
    CHECK(q[0] == (int64_t)floor(3.999 * 8 / p.cell[0]) && q[1] == -1, "pow2 floor: %lld %lld",
          (long long)q[0], (long long)q[1]);
    /* at 1e30 adjacent doubles are 2^47 apart; their cells differ by exactly
     * 2^47 / cell, modulo the wrap */
    double at[3] = {1e30, 0, 0}, nb[3] = {nextafter(1e30, 2e30), 0, 0};
    int64_t q2[3];
    sc_grid_coords(&p, at, q);
    sc_grid_coords(&p, nb, q2);
    uint64_t m = (1ull << p.bits[0]) - 1;
    uint64_t d = ((uint64_t)q2[0] - (uint64_t)q[0]) & m;
    double cells = (nb[0] - at[0]) * 8 / p.cell[0]; /* X is in 1/8 cells */
    CHECK(d == ((uint64_t)cells & m), "exact wrap at 1e30: %llu vs %g", (unsigned long long)d,
          cells);
}

/* Row boxes (sc_grid_row_box): every centre lies inside the box of the
 * row its coordinates put it in, at every level, for values on and up to 8
 * ulps around the cell faces, with the data near the origin, far from it
 * (1e6 with cells of 1e-3) and below it; the boxes are no wider than a
 * cell and a whisker; and wrapped or power-of-two axes have none. The
 * search culls rows by these boxes, so a centre outside its box could lose
 * a pair. */
static void test_row_boxes(void) {
    static sc_bounds b;
    const double los[] = {0.0, 1e6, -3.7e4, 0.1, 1e6}; /* the last: too many cells, wrapped */
    const double exts[] = {100.0, 1.0, 5e3, 7.3, 4e3};
    const double rmaxs[] = {5.0, 1e-3, 0.75, 0.0137, 1e-3};
    for (int cfg = 0; cfg < 5; cfg++) {
        memset(&b, 0, sizeof b);
        for (int a = 0; a < 3; a++)
            b.lo[a] = los[cfg] + a, b.hi[a] = los[cfg] + a + exts[cfg];
        b.rmax = rmaxs[cfg], b.rmin = rmaxs[cfg] / 64;
        sc_grid_plan p;
        sc_grid_plan_make(&b, 1.0, SC_MAX_LEVELS, 4, &p);
        /* configs 0-3 fit 2^19 cells per axis; config 4 (2e6 cells) wraps */
        CHECK(!p.pow2 && p.row_box[1] == (cfg < 4) && p.row_box[2] == (cfg < 4) &&
                  p.wrap[1] == (cfg == 4),
              "row boxes in config %d", cfg);
        for (int l = 0; l < p.levels; l++)
            CHECK(p.rlevel[l] <= b.rmax && p.rlevel[l] <= p.radius_limit[l] &&
                      (l < p.levels - 1 || p.rlevel[l] == b.rmax),
                  "rlevel %d in config %d", l, cfg);
        const int64_t cells = (int64_t)(exts[cfg] / p.cell[0]);
        for (int k = 0; k < 40000; k++) {
            double pt[3];
            for (int a = 0; a < 3; a++) {
                /* a cell face, nudged by up to 8 ulps, or anywhere */
                const int64_t c = (int64_t)(next() % (uint64_t)(cells + 1));
                double v = b.lo[a] + (double)c * p.cell[0];
                const int ulps = (int)(next() % 17) - 8;
                for (int u = 0; u < (ulps < 0 ? -ulps : ulps); u++)
                    v = nextafter(v, ulps < 0 ? -HUGE_VAL : HUGE_VAL);
                if (k % 4 == 3)
                    v = b.lo[a] + exts[cfg] * (double)(next() >> 11) * 0x1p-53;
                pt[a] = v < b.lo[a] ? b.lo[a] : v > b.hi[a] ? b.hi[a] : v;
            }
            int64_t q[3];
            sc_grid_coords(&p, pt, q);
            for (int l = 0; l < p.levels; l++)
                for (int a = 1; a < 3; a++) {
                    double lo, hi;
                    sc_grid_row_box(&p, a, l, q[a] >> l, &lo, &hi);
                    CHECK(lo <= pt[a] && pt[a] <= hi,
                          "config %d: %.17g outside its level-%d row box [%.17g, %.17g] on axis %d",
                          cfg, pt[a], l, lo, hi, a);
                    CHECK(p.row_box[a] ? hi - lo <= p.cell[l] * (1.0 + 0x1p-10)
                                       : hi - lo == HUGE_VAL,
                          "config %d: row box %.17g wide, cell %.17g", cfg, hi - lo, p.cell[l]);
                }
        }
    }
    /* a 1e30 outlier: power-of-two cells, wrapped axes, no boxes */
    memset(&b, 0, sizeof b);
    b.hi[0] = b.hi[1] = b.hi[2] = 1e30, b.rmin = b.rmax = 1.0;
    sc_grid_plan p;
    sc_grid_plan_make(&b, 1.0, SC_MAX_LEVELS, 0, &p);
    double lo, hi;
    sc_grid_row_box(&p, 1, 0, 3, &lo, &hi);
    CHECK(p.pow2 && !p.row_box[1] && !p.row_box[2] && lo == -HUGE_VAL && hi == HUGE_VAL,
          "no row boxes in the power-of-two regime");
}

/* The keys stage's specialised loops (one level or several; packed or not)
 * write exactly sc_grid_key of each sphere's coordinates, per sphere, in
 * input order; the digit-0 histogram and the varying bits match. */
static void test_keys_stage(void) {
    const size_t n = 20000;
    double *rows = malloc(4 * n * sizeof(double));
    float *rows32 = malloc(4 * n * sizeof(float));
    uint64_t *keys = malloc(8 * n);
    uint32_t *counts = malloc(sc_radix_sort_scratch(3, false));
    static sc_bounds b;
    for (int f32 = 0; f32 < 2; f32++) /* float input: the keys of its values widened */
        for (int levels = 1; levels <= 3; levels += 2)
            for (int packed = 0; packed < 2; packed++) {
                for (size_t k = 0; k < n; k++) {
                    for (int a = 0; a < 3; a++)
                        rows[4 * k + a] = -30.0 + 90.0 * (double)(next() >> 11) * 0x1p-53;
                    rows[4 * k + 3] = 0.1 + 1.9 * (double)(next() >> 11) * 0x1p-53;
                    for (int a = 0; a < 4 && f32; a++)
                        rows[4 * k + a] = rows32[4 * k + a] = (float)rows[4 * k + a];
                }
                sc_spheres s =
                    f32 ? sc_spheres_rows_f32(n, 3, rows32) : sc_spheres_rows_f64(n, 3, rows);
                sc_view v;
                CHECK(sc_view_make(&s, &v) == SC_OK &&
                          sc_bounds_compute(&v, &b, omp_get_max_threads()) == SC_OK,
                      "bounds");
                sc_grid_plan p;
                sc_grid_plan_make(&b, 1.0, SC_MAX_LEVELS, levels, &p);
                CHECK(p.levels == levels && !p.pow2, "plan: %d levels, origin-relative", p.levels);
                const int ib = packed ? sc_pack_bits(n, p.key_bits) : 0;
                CHECK(!packed || ib == 15, "index field %d", ib);
                sc_radix_first f = {counts, 0, false, ib, false, false, false, 0};
#ifdef _OPENMP
                omp_set_num_threads(3);
#endif
                const int blocks = sc_radix_blocks(n, 3);
                sc_keys_compute(&v, &p, keys, blocks, &f);
                const size_t buckets = (size_t)1 << sc_radix_digit_bits(p.key_bits);
                int ok = 1, hist_ok = 1;
                uint64_t vary = 0, k0 = 0;
                for (int bl = 0; bl < blocks; bl++) {
                    const size_t lo = n * (size_t)bl / (size_t)blocks,
                                 hi = n * (size_t)(bl + 1) / (size_t)blocks;
                    uint32_t *mine = malloc(4 * buckets);
                    memset(mine, 0, 4 * buckets);
                    for (size_t k = lo; k < hi; k++) {
                        int64_t q[3];
                        sc_grid_coords(&p, rows + 4 * k, q);
                        const uint64_t key = sc_grid_key(&p, sc_grid_level(&p, rows[4 * k + 3]), q);
                        ok &= keys[k] == (packed ? key << ib | k : key);
                        mine[key & (buckets - 1)]++;
                        if (k == 0)
                            k0 = key;
                        vary |= key ^ k0;
                    }
                    hist_ok &= memcmp(mine, counts + (size_t)bl * buckets, 4 * buckets) == 0;
                    free(mine);
                }
                CHECK(ok, "keys stage = sc_grid_key, %d level(s), packed %d, float %d", levels,
                      packed, f32);
                CHECK(hist_ok && vary == f.varying,
                      "digit-0 histogram and varying bits, %d level(s)", levels);
                CHECK(f.identity == !packed, "identity flag");
            }
    free(rows);
    free(rows32);
    free(keys);
    free(counts);
}

/* The row table against a serial reference, for key patterns that make
 * the threads' row counts very uneven (one long row, every sphere its own
 * row, one row then all distinct, a row per two spheres as in clustered
 * sets), at 1 to 4, 8 and 16 threads, packed or not, on one level or three
 * (the levels' first rows against the reference too). */
static void test_rows_table(void) {
    const size_t n = 3001;
    sc_grid_plan p;
    memset(&p, 0, sizeof p);
    p.bits[0] = 5;
    p.shift[1] = 5;
    p.level_shift = 40;
    uint64_t *keys = malloc(8 * n), *rkey = malloc(8 * n), *ref = malloc(8 * n),
             *sk = malloc(8 * n);
    uint32_t *rstart = malloc(4 * (n + 1)), *refs = malloc(4 * (n + 1)), *ss = malloc(4 * n);
    uint32_t *xq = malloc(4 * (n + SC_PAD)), *idx = malloc(4 * n);
    size_t offsets[17], ref_begin[SC_MAX_LEVELS + 1];
    static const int thread_counts[] = {1, 2, 3, 4, 8, 16};
    for (int levels = 1; levels <= 3; levels += 2)
        for (int pattern = 0; pattern < 5; pattern++)
            for (int ib = 0; ib <= 12; ib += 12) {
                p.levels = levels;
                uint64_t row = 0;
                for (size_t k = 0; k < n; k++) {
                    const int step = pattern == 0   ? 0
                                     : pattern == 1 ? 1
                                     : pattern == 2 ? k > n / 3
                                     : pattern == 3 ? (next() % 4 == 0)
                                                    : (int)(k % 2);
                    row += (uint64_t)step * (1 + next() % 3);
                    /* levels 1 and 2 of three hold the middle and last thirds */
                    const uint64_t level = levels == 1 ? 0 : (uint64_t)(3 * k / n);
                    const uint64_t key = level << p.level_shift | row << 5 | (k % 32);
                    keys[k] = ib ? key << ib | (k ^ 5) : key;
                }
                size_t nref = 0;
                for (size_t k = 0; k < n; k++)
                    if (k == 0 || (keys[k] >> (ib + 5)) != (keys[k - 1] >> (ib + 5))) {
                        ref[nref] = (keys[k] >> (ib + 5)) << 5;
                        refs[nref++] = (uint32_t)k;
                    }
                for (int l = 0; l <= SC_MAX_LEVELS; l++) {
                    ref_begin[l] = 0;
                    while (ref_begin[l] < nref &&
                           (l >= levels || (int)(ref[ref_begin[l]] >> p.level_shift) < l))
                        ref_begin[l]++;
                }
                for (size_t ti = 0; ti < sizeof thread_counts / sizeof *thread_counts; ti++) {
                    const int t = thread_counts[ti];
#ifdef _OPENMP
                    omp_set_num_threads(t);
#endif
                    sc_rows r;
                    r.key = rkey;
                    r.start = rstart;
                    memset(sk, 0xA5, 8 * n); /* and no earlier run's table left in place */
                    memset(rkey, 0xA5, 8 * n);
                    memset(rstart, 0xA5, 4 * (n + 1));
                    const size_t nc =
                        sc_rows_build(keys, n, &p, &r, xq, ib ? idx : NULL, ib, offsets, sk, ss);
                    int ok = nc == nref && r.count == nref && r.start[nc] == n;
                    for (size_t c = 0; c < nc && ok; c++)
                        ok &= r.key[c] == ref[c] && r.start[c] == refs[c];
                    for (size_t k = 0; k < n && ok; k++)
                        ok &= xq[k] == k % 32 && (!ib || idx[k] == (uint32_t)(k ^ 5));
                    for (int l = 0; l <= SC_MAX_LEVELS && ok; l++)
                        ok &= r.level_begin[l] == ref_begin[l];
                    CHECK(ok,
                          "row table, %d level(s), pattern %d, index bits %d, %d threads: %zu rows "
                          "(%zu expected)",
                          levels, pattern, ib, t, nc, nref);
                }
            }
#ifdef _OPENMP
    omp_set_num_threads(omp_get_num_procs());
#endif
    free(sk);
    free(ss);
    free(keys);
    free(rkey);
    free(ref);
    free(rstart);
    free(refs);
    free(xq);
    free(idx);
}

static void test_cells_and_kernels(void) {
    /* build a small grid by hand through the stages, then check invariants */
    const size_t n = 5000;
    double *rows = malloc(4 * n * sizeof(double));
    for (size_t k = 0; k < n; k++) {
        for (int a = 0; a < 3; a++)
            rows[4 * k + a] = 40.0 * (double)(next() >> 11) * 0x1p-53;
        rows[4 * k + 3] = (k % 10 == 0) ? 3.0 : 0.3 + 0.4 * (double)(next() >> 11) * 0x1p-53;
        if (k % 97 == 0) { /* exactly touching partner of the previous sphere */
            rows[4 * k] = rows[4 * (k - (k > 0))] + 1.0;
            rows[4 * k + 1] = rows[4 * (k - (k > 0)) + 1];
            rows[4 * k + 2] = rows[4 * (k - (k > 0)) + 2];
            rows[4 * k + 3] = 0.5;
            if (k > 0)
                rows[4 * (k - 1) + 3] = 0.5;
        }
    }
    sc_spheres s = sc_spheres_rows_f64(n, 3, rows);
    sc_view v;
    CHECK(sc_view_make(&s, &v) == SC_OK, "view");
    static sc_bounds b;
    CHECK(sc_bounds_compute(&v, &b, omp_get_max_threads()) == SC_OK, "bounds");
    uint64_t hist_total = 0;
    for (int e = 0; e < SC_EXP_BINS; e++)
        hist_total += b.rexp[e];
    CHECK(hist_total == n && b.n == n, "radius histogram counts every sphere");
    CHECK(b.rmax == 3.0 && b.lo[0] >= 0 && b.hi[0] <= 41.0, "bounds values");
    sc_grid_plan p;
    sc_grid_plan_make(&b, 1.0, SC_MAX_LEVELS, 3, &p);
    CHECK(p.levels == 3, "levels %d", p.levels);
    uint64_t *keys = malloc(8 * n), *tk = malloc(8 * n);
    uint32_t *xq = malloc(4 * (n + SC_PAD));
    uint32_t *idx = malloc(4 * (n + 1)), *ti = malloc(4 * (n + 1));
    uint32_t *counts = malloc(sc_radix_sort_scratch(4, false) + 8 * 5);
    sc_radix_first first = {counts, 0, false, 0, false, false, false, 0};
#ifdef _OPENMP
    omp_set_num_threads(4);
#endif
    sc_keys_compute(&v, &p, keys, sc_radix_blocks(n, 4), &first);
    CHECK(first.identity, "the keys stage leaves the index to the sort");
    if (sc_radix_sort_pairs(keys, idx, tk, ti, n, p.key_bits, counts, 4, &first)) {
        uint64_t *k2 = keys; /* the result is in the second buffers */
        keys = tk;
        tk = k2;
        uint32_t *i2 = idx;
        idx = ti;
        ti = i2;
    }
    {
        int perm = 1; /* the sorted index is a permutation of 0 .. n-1 */
        unsigned char *seen = calloc(n, 1);
        for (size_t k = 0; k < n; k++) {
            perm &= idx[k] < n && !seen[idx[k]];
            if (idx[k] < n)
                seen[idx[k]] = 1;
        }
        free(seen);
        CHECK(perm, "sorted index is a permutation");
        int match = 1; /* and each sorted key is the key of the sphere it names */
        for (size_t k = 0; k < n && perm; k++) {
            const double *sp = rows + 4 * (size_t)idx[k];
            int64_t q[3];
            sc_grid_coords(&p, sp, q);
            match &= keys[k] == sc_grid_key(&p, sc_grid_level(&p, sp[3]), q);
            match &= k == 0 || keys[k - 1] <= keys[k];
        }
        CHECK(match, "sorted keys ascend and belong to their spheres");
    }
    sc_rows rt;
    rt.key = tk;
    rt.start = ti;
    uint64_t *stage_key = malloc(8 * n);
    uint32_t *stage_start = malloc(4 * n);
    size_t *const row_offsets = (size_t *)((char *)counts + sc_radix_sort_scratch(4, false));
    size_t nc = sc_rows_build(keys, n, &p, &rt, xq, NULL, 0, row_offsets, stage_key, stage_start);
    CHECK(nc > 0 && nc <= n && rt.start[0] == 0 && rt.start[nc] == n, "row table ends");
    int ok = 1;
    const uint64_t xmask = (1ull << p.bits[0]) - 1;
    for (size_t c = 0; c < nc; c++) {
        ok &= rt.start[c] < rt.start[c + 1];
        ok &= c == 0 || rt.key[c - 1] < rt.key[c];
        ok &= (rt.key[c] & xmask) == 0;
        for (uint32_t k = rt.start[c]; k < rt.start[c + 1]; k++) {
            ok &= (keys[k] & ~xmask) == rt.key[c];
            ok &= k == rt.start[c] || (keys[k - 1] & xmask) <= (keys[k] & xmask);
            ok &= xq[k] == (keys[k] & xmask);
        }
    }
    CHECK(ok, "rows strictly ascending, non-empty, every sphere in its row, sorted by X");
    for (int l = 0; l < p.levels; l++)
        for (size_t c = rt.level_begin[l]; c < rt.level_begin[l + 1]; c++)
            CHECK((int)(rt.key[c] >> p.level_shift) == l, "level ranges");
    {
        /* The packed path (key << b | index in one word, as the engine runs
         * keys that fit with their index) gives the same order, index, rows
         * and X. */
        const int ib = sc_pack_bits(n, p.key_bits);
        CHECK(ib > 0, "this plan's keys pack: %d bits", p.key_bits);
        uint64_t *pw = malloc(8 * n), *pt = malloc(8 * n), *rkey = malloc(8 * n);
        uint32_t *pidx = malloc(4 * (n + 1)), *rstart = malloc(4 * (n + 1));
        uint32_t *pxq = malloc(4 * (n + SC_PAD));
        sc_radix_first pf = {counts, 0, false, ib, false, false, false, 0};
        sc_keys_compute(&v, &p, pw, sc_radix_blocks(n, 4), &pf);
        CHECK(!pf.identity, "packed words carry their index");
        if (sc_radix_sort_packed(pw, pt, n, p.key_bits, ib, counts, 4, &pf)) {
            uint64_t *t2 = pw;
            pw = pt;
            pt = t2;
        }
        sc_rows pr;
        pr.key = rkey;
        pr.start = rstart;
        size_t pnc =
            sc_rows_build(pw, n, &p, &pr, pxq, pidx, ib, row_offsets, stage_key, stage_start);
        int same = pnc == nc && memcmp(pr.level_begin, rt.level_begin, sizeof pr.level_begin) == 0;
        for (size_t k = 0; k < n && same; k++)
            same &= pw[k] >> ib == keys[k] && pidx[k] == idx[k] && pxq[k] == xq[k];
        for (size_t c = 0; c <= nc && same; c++)
            same &= pr.start[c] == rt.start[c] && (c == nc || pr.key[c] == rt.key[c]);
        CHECK(same, "packed keys, sort and rows equal the (key, index) path");
        free(pw);
        free(pt);
        free(rkey);
        free(pidx);
        free(rstart);
        free(pxq);
    }
    free(stage_key);
    free(stage_start);

    /* gather, then the two kernels on all-against-all must agree exactly */
    double *w = malloc(4 * 8 * (n + SC_PAD));
    sc_work wk = work_in(w, n);
    sc_gather(&v, idx, n, &wk);
    for (size_t k = 0; k < n; k++)
        CHECK(wk.x[k] == rows[4 * idx[k]] && wk.r[k] == rows[4 * idx[k] + 3], "gathered %zu", k);
    /* every block of 4 (and a last short one) against all later spheres:
     * the own-row triangle inside the block, the rest as a candidate list */
    uint32_t *cand = malloc(4 * (n + 8));
    uint32_t *buf[3];
    size_t found[3] = {0, 0, 0};
    uint64_t tests[3] = {0, 0, 0};
    sc_kernel_fn fns[3] = {sc_narrow_scalar, NULL, sc_narrow_indirect};
#ifdef SC_HAVE_AVX2_KERNEL
    if (sc_kernel_available(SC_KERNEL_AVX2))
        fns[1] = sc_narrow_avx2;
#endif
    for (int f = 0; f < 3; f++) {
        if (!fns[f])
            continue;
        size_t cap = 1 << 20;
        buf[f] = malloc(2 * cap * sizeof(uint32_t));
        sc_hits h = {buf[f], 0, cap, NULL, NULL};
        for (uint32_t i0 = 0; i0 < n; i0 += SC_BLOCK) {
            uint32_t ni = n - i0 < SC_BLOCK ? (uint32_t)n - i0 : SC_BLOCK;
            uint32_t m = 0;
            for (uint32_t j = i0 + ni; j < n; j++)
                cand[m++] = j;
            sc_kernel_args args = {.x = wk.x,
                                   .y = wk.y,
                                   .z = wk.z,
                                   .r = wk.r,
                                   .i0 = i0,
                                   .ni = ni,
                                   .tri_end = (uint32_t)n,
                                   .cand = cand,
                                   .ncand = m,
                                   /* the indirect kernel reads the input rows through idx */
                                   .perm = idx,
                                   .vx = (const char *)rows,
                                   .vy = (const char *)(rows + 1),
                                   .vz = (const char *)(rows + 2),
                                   .vr = (const char *)(rows + 3),
                                   .stride = 4 * sizeof(double),
                                   .rstride = 4 * sizeof(double),
                                   .f64 = 1};
            tests[f] += fns[f](&args, &h);
        }
        found[f] = h.count;
    }
    free(cand);
    CHECK(tests[0] == (uint64_t)n * (n - 1) / 2, "scalar tests %llu", (unsigned long long)tests[0]);
    if (fns[1]) {
        CHECK(tests[1] == tests[0], "avx2 tests %llu", (unsigned long long)tests[1]);
        CHECK(found[0] == found[1] && memcmp(buf[0], buf[1], 2 * found[0] * sizeof(uint32_t)) == 0,
              "kernels disagree: %zu vs %zu hits", found[0], found[1]);
        free(buf[1]);
    }
    CHECK(tests[2] == tests[0] && found[2] == found[0] &&
              memcmp(buf[0], buf[2], 2 * found[0] * sizeof(uint32_t)) == 0,
          "indirect kernel disagrees: %zu vs %zu hits", found[2], found[0]);
    free(buf[2]);
    /* and the scalar kernel's hits are exactly the predicate's */
    size_t want = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double dx = wk.x[i] - wk.x[j], dy = wk.y[i] - wk.y[j], dz = wk.z[i] - wk.z[j];
            double s2 = wk.r[i] + wk.r[j];
            want += (dx * dx + dy * dy) + dz * dz <= s2 * s2;
        }
    CHECK(found[0] == want && want > n / 97, "scalar hits %zu, predicate %zu", found[0], want);
    free(buf[0]);
    free(w);
    free(rows);
    free(keys);
    free(tk);
    free(xq);
    free(idx);
    free(ti);
    free(counts);
}

static void test_mix(void) {
    /* splitmix64's first output for seed 0 is the finalizer of the golden gamma */
    CHECK(sc_pair_mix(0, 0) == 0xe220a8397b1dcdafull, "mix(0,0) = %016llx",
          (unsigned long long)sc_pair_mix(0, 0));
    CHECK(sc_pair_mix(1, 2) != sc_pair_mix(2, 1), "mix is ordered");
}

/* Bounds: the fast paths -- rows of double (x, y, z, r) records, separate
 * double arrays (SoA, 3-D and 2-D), and centres beside radii in double
 * and float (float rows, centres in rows of three, 2-D) -- against the
 * plain loop (the same values as (x, r, y, z) records, which no fast path
 * takes) on
 * radii over many octaves, zero, subnormal and -0 radii, and every kind of
 * bad value at several places, with 1 and 3 threads: same bounds, octave
 * histogram, status and first bad index. */
static int bounds_same(const sc_spheres *s, const sc_spheres *ref, const char *what, int threads) {
    sc_view v, vref;
    CHECK(sc_view_make(s, &v) == SC_OK && sc_view_make(ref, &vref) == SC_OK, "views");
    static sc_bounds b, bref;
    const sc_status st = sc_bounds_compute(&v, &b, omp_get_max_threads()),
                    stref = sc_bounds_compute(&vref, &bref, omp_get_max_threads());
    int same = st == stref && b.bad_index == bref.bad_index && b.n == bref.n;
    if (stref == SC_OK) {
        for (int a = 0; a < 3; a++)
            same &= b.lo[a] == bref.lo[a] && b.hi[a] == bref.hi[a];
        same &= b.rmin == bref.rmin && b.rmax == bref.rmax;
        same &= memcmp(b.rexp, bref.rexp, sizeof b.rexp) == 0;
    }
    CHECK(same, "bounds fast path = plain loop: %s, threads %d (status %d/%d, bad %zu/%zu)", what,
          threads, (int)st, (int)stref, b.bad_index, bref.bad_index);
    return same;
}

static void bounds_case(const double *rows, size_t n, int threads, const char *what) {
    const size_t m = n ? n : 1;
    double *soa = malloc(4 * sizeof(double) * m), *rxyz = malloc(4 * sizeof(double) * m),
           *rxy = malloc(3 * sizeof(double) * m);
    for (size_t k = 0; k < n; k++) {
        /* (x, r, y, z) records: x and y apart, which no fast path takes */
        static const int slot[4] = {0, 2, 3, 1};
        for (int a = 0; a < 4; a++) {
            soa[(size_t)a * n + k] = rows[4 * k + (size_t)a];
            rxyz[4 * k + (size_t)slot[a]] = rows[4 * k + (size_t)a];
        }
        /* 2-D: (x, r, y) records */
        rxy[3 * k] = rows[4 * k];
        rxy[3 * k + 1] = rows[4 * k + 3];
        rxy[3 * k + 2] = rows[4 * k + 1];
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    const sc_spheres plain = {n, SC_F64, 4 * sizeof(double), rxyz, rxyz + 2, rxyz + 3, rxyz + 1, 0};
    const sc_spheres plain2 = {n, SC_F64, 3 * sizeof(double), rxy, rxy + 2, NULL, rxy + 1, 0};
    const sc_spheres sr = sc_spheres_rows_f64(n, 3, rows);
    const sc_spheres sa = sc_spheres_soa_f64(n, soa, soa + n, soa + 2 * n, soa + 3 * n);
    const sc_spheres sa2 = sc_spheres_soa_f64(n, soa, soa + n, NULL, soa + 3 * n);
    bounds_same(&sr, &plain, what, threads);
    bounds_same(&sa, &plain, what, threads);
    bounds_same(&sa2, &plain2, what, threads);
    /* centres beside separate radii (NumPy's (N, 3) and (N,)), double */
    double *cen = malloc(3 * sizeof(double) * m), *rad = malloc(sizeof(double) * m);
    for (size_t k = 0; k < n; k++) {
        for (int a = 0; a < 3; a++)
            cen[3 * k + (size_t)a] = rows[4 * k + (size_t)a];
        rad[k] = rows[4 * k + 3];
    }
    const sc_spheres sc = {n,       SC_F64, 3 * sizeof(double), cen, cen + 1,
                           cen + 2, rad,    sizeof(double)};
    const sc_spheres sc2 = {n, SC_F64, 3 * sizeof(double), cen, cen + 1, NULL, rad, sizeof(double)};
    bounds_same(&sc, &plain, what, threads);
    bounds_same(&sc2, &plain2, what, threads);
    /* the same in float: rows, centres and radii, 2-D centres, against
     * float (x, r, y, z) and (x, r, y) records */
    float *f = malloc(4 * sizeof(float) * m), *fc = malloc(3 * sizeof(float) * m),
          *fr = malloc(sizeof(float) * m), *fp = malloc(4 * sizeof(float) * m),
          *fp2 = malloc(3 * sizeof(float) * m);
    for (size_t k = 0; k < n; k++) {
        for (int a = 0; a < 4; a++)
            f[4 * k + (size_t)a] = (float)rows[4 * k + (size_t)a];
        for (int a = 0; a < 3; a++)
            fc[3 * k + (size_t)a] = f[4 * k + (size_t)a];
        fr[k] = f[4 * k + 3];
        fp[4 * k] = fp2[3 * k] = f[4 * k];
        fp[4 * k + 1] = fp2[3 * k + 1] = f[4 * k + 3];
        fp[4 * k + 2] = fp2[3 * k + 2] = f[4 * k + 1];
        fp[4 * k + 3] = f[4 * k + 2];
    }
    const sc_spheres fplain = {n, SC_F32, 4 * sizeof(float), fp, fp + 2, fp + 3, fp + 1, 0};
    const sc_spheres fplain2 = {n, SC_F32, 3 * sizeof(float), fp2, fp2 + 2, NULL, fp2 + 1, 0};
    const sc_spheres fs = sc_spheres_rows_f32(n, 3, f);
    const sc_spheres fsc = {n, SC_F32, 3 * sizeof(float), fc, fc + 1, fc + 2, fr, sizeof(float)};
    const sc_spheres fsc2 = {n, SC_F32, 3 * sizeof(float), fc, fc + 1, NULL, fr, sizeof(float)};
    bounds_same(&fs, &fplain, what, threads);
    bounds_same(&fsc, &fplain, what, threads);
    bounds_same(&fsc2, &fplain2, what, threads);
    free(cen);
    free(rad);
    free(f);
    free(fc);
    free(fr);
    free(fp);
    free(fp2);
    free(soa);
    free(rxyz);
    free(rxy);
}

static void test_bounds(void) {
    const size_t n = 20000;
    double *rows = malloc(4 * sizeof(double) * n);
    for (int t = 1; t <= 3; t += 2) {
        for (size_t k = 0; k < n; k++) {
            for (int a = 0; a < 3; a++)
                rows[4 * k + (size_t)a] = ((double)(next() >> 11) * 0x1p-53 - 0.3) * 1e4;
            rows[4 * k + 3] =
                ldexp(1.0 + (double)(next() >> 11) * 0x1p-53, (int)(next() % 60) - 30);
        }
        bounds_case(rows, n, t, "radii over 60 octaves");
        bounds_case(rows, 0, t, "n = 0");
        bounds_case(rows, 1, t, "n = 1");
        bounds_case(rows, n - 1, t, "odd n");
        {
            const double keep = rows[4 * (n - 2)];
            rows[4 * (n - 2)] = NAN; /* the odd last value of a column */
            bounds_case(rows, n - 1, t, "odd n, NaN last");
            rows[4 * (n - 2)] = keep;
        }
        /* 1e-40: a float subnormal; 1e149: a float infinity */
        const double special_r[] = {0.0, -0.0, 0x1p-1070, 1e149, 1e-40};
        const char *special_name[] = {"zero radius", "-0 radius", "subnormal radius", "huge radius",
                                      "float subnormal radius"};
        for (int s = 0; s < 5; s++) {
            const double keep = rows[4 * 777 + 3];
            rows[4 * 777 + 3] = special_r[s];
            bounds_case(rows, n, t, special_name[s]);
            rows[4 * 777 + 3] = keep;
        }
        const double bad_v[] = {NAN, INFINITY, -INFINITY, 1e151, -2e200};
        const size_t at[] = {0, 5, 9999, 10000, 19999};
        for (int b = 0; b < 5; b++)
            for (int pos = 0; pos < 5; pos++)
                for (int a = 0; a < 4; a++) {
                    const size_t i = 4 * at[pos] + (size_t)a;
                    const double keep = rows[i];
                    rows[i] = bad_v[b];
                    bounds_case(rows, n, t, "a bad value");
                    rows[i] = keep;
                }
        const double keep = rows[4 * 12345 + 3];
        rows[4 * 12345 + 3] = -1.0;
        bounds_case(rows, n, t, "negative radius");
        rows[4 * 12345 + 3] = keep;
    }
    free(rows);
}

/* The front ends' counting sort (sc_counting_order): for every thread
 * count, the serial stable sort's order and bucket starts, on random keys
 * over few and many buckets (empty ones among them), n = 0 and 1, and all
 * keys equal. */
static void test_counting_sort(void) {
    const size_t sizes[] = {0, 1, 7, 5000, 100003};
    const uint32_t buckets[] = {1, 3, 1024, 80000};
    const size_t nmax = 100003;
    uint32_t *key = malloc(sizeof(uint32_t) * nmax), *order = malloc(sizeof(uint32_t) * nmax),
             *want = malloc(sizeof(uint32_t) * nmax), *start = malloc(sizeof(uint32_t) * 80001),
             *wstart = malloc(sizeof(uint32_t) * 80002);
    for (int si = 0; si < 5; si++)
        for (int bi = 0; bi < 4; bi++)
            for (int same = 0; same < 2; same++) {
                const size_t n = sizes[si];
                const uint32_t nb = buckets[bi];
                for (size_t k = 0; k < n; k++) /* a third of the buckets never used */
                    key[k] = same ? nb - 1 : (uint32_t)(next() % nb) / 3 * 3 % nb;
                /* the serial stable sort */
                memset(wstart, 0, sizeof(uint32_t) * (nb + 2));
                for (size_t k = 0; k < n; k++)
                    wstart[key[k] + 1]++;
                for (uint32_t q = 1; q <= nb; q++)
                    wstart[q] += wstart[q - 1];
                for (uint32_t q = 0; q <= nb; q++)
                    start[q] = wstart[q];
                for (size_t k = 0; k < n; k++)
                    want[start[key[k]]++] = (uint32_t)k;
                for (int threads = 1; threads <= 5; threads += 1 + (threads > 2)) {
                    void *scratch = malloc(sc_counting_scratch(threads, nb));
                    memset(order, 0xff, sizeof(uint32_t) * (n ? n : 1));
                    sc_counting_order(key, n, nb, threads, scratch, start, order);
                    CHECK(memcmp(order, want, sizeof(uint32_t) * n) == 0 &&
                              memcmp(start, wstart, sizeof(uint32_t) * (nb + 1)) == 0,
                          "counting sort: n %zu, %u buckets, same %d, %d threads", n, nb, same,
                          threads);
                    free(scratch);
                }
            }
    CHECK(sc_counting_threads(8, 1000, 4000) == 4 && sc_counting_threads(8, 1000, 10) == 1 &&
              sc_counting_threads(2, 1000, 1u << 20) == 2,
          "counting sort: threads within the room");
    free(key);
    free(order);
    free(want);
    free(start);
    free(wstart);
}

/* A periodic query's bounds, gathered by its wrap passes (the AVX2 pass
 * and the scalar reference, spheres and images) instead of the bounds
 * stage: after each query they must equal sc_bounds_compute's on the
 * joint rows the query searched, value for value and octave for octave.
 * Radii over many octaves with zeros (both signs) and subnormals, centres
 * inside and outside the box, an axis open (its bounds come from the
 * spheres alone), 2-D and 3-D, float and double rows, both kernels, 1 and
 * 2 threads. */
static void test_periodic_bounds(void) {
    const size_t n = 30011;
    double *rows = malloc(4 * sizeof(double) * n);
    float *rows32 = malloc(4 * sizeof(float) * n);
    for (size_t k = 0; k < n; k++) {
        for (int a = 0; a < 3; a++) /* about 1% outside [0, 100) */
            rows[4 * k + (size_t)a] = (double)(next() >> 11) * 0x1p-53 * 102.0 - 1.0;
        const unsigned kind = (unsigned)(next() % 64);
        rows[4 * k + 3] =
            kind == 0   ? 0.0
            : kind == 1 ? -0.0
            : kind == 2 ? 0x1p-1060 * (double)(1 + next() % 1000)
                        : ldexp(1.0 + (double)(next() >> 11) * 0x1p-53, (int)(next() % 12) - 10);
        for (int a = 0; a < 4; a++)
            rows32[4 * k + (size_t)a] = (float)rows[4 * k + (size_t)a];
    }
    for (int dims = 2; dims <= 3; dims++)
        for (int f32 = 0; f32 <= 1; f32++)
            for (int kern = 0; kern < 2; kern++)
                for (int threads = 1; threads <= 2; threads++) {
                    sc_options o = sc_options_default();
                    o.threads = threads;
                    o.kernel = kern ? SC_KERNEL_SCALAR : SC_KERNEL_AUTO;
                    o.box = (sc_box){.periodic = {1, 1, 0}, .lo = {0, 0, 0}, .hi = {100, 100, 0}};
                    if (dims == 3) {
                        o.box.periodic[2] = kern; /* z open with the AVX2 kernel */
                        o.box.hi[2] = 100;
                    }
                    sc_context *c = NULL;
                    CHECK(sc_context_create(&o, &c) == SC_OK, "periodic bounds: context");
                    if (!c)
                        continue;
                    /* rows of four either way, z skipped in 2-D */
                    const sc_spheres s = f32 ? (sc_spheres){n,
                                                            SC_F32,
                                                            4 * sizeof(float),
                                                            rows32,
                                                            rows32 + 1,
                                                            dims == 3 ? rows32 + 2 : NULL,
                                                            rows32 + 3,
                                                            4 * sizeof(float)}
                                             : (sc_spheres){n,
                                                            SC_F64,
                                                            4 * sizeof(double),
                                                            rows,
                                                            rows + 1,
                                                            dims == 3 ? rows + 2 : NULL,
                                                            rows + 3,
                                                            4 * sizeof(double)};
                    sc_summary sum;
                    CHECK(sc_count_pairs(c, &s, &sum) == SC_OK, "periodic bounds: query");
                    sc_stats st = {.size = sizeof st};
                    sc_context_stats(c, &st);
                    const size_t N = (size_t)st.spheres;
                    const double *j = c->joint.p;
                    const sc_spheres js = {N,
                                           SC_F64,
                                           4 * sizeof(double),
                                           j,
                                           j + 1,
                                           dims == 3 ? j + 2 : NULL,
                                           j + 3,
                                           4 * sizeof(double)};
                    sc_view v;
                    sc_bounds ref;
                    CHECK(sc_view_make(&js, &v) == SC_OK &&
                              sc_bounds_compute(&v, &ref, omp_get_max_threads()) == SC_OK,
                          "periodic bounds: the rows are valid");
                    const sc_bounds *got = &c->joint_bounds;
                    CHECK(N > n && got->n == N, "periodic bounds: %zu rows, bounds of %zu", N,
                          got->n);
                    for (int a = 0; a < 3; a++)
                        CHECK(got->lo[a] == ref.lo[a] && got->hi[a] == ref.hi[a],
                              "periodic bounds: axis %d [%.17g, %.17g], rows' [%.17g, %.17g] "
                              "(dims %d f32 %d kernel %d threads %d)",
                              a, got->lo[a], got->hi[a], ref.lo[a], ref.hi[a], dims, f32, kern,
                              threads);
                    CHECK(got->rmin == ref.rmin && got->rmax == ref.rmax,
                          "periodic bounds: radii [%g, %g], rows' [%g, %g]", got->rmin, got->rmax,
                          ref.rmin, ref.rmax);
                    int same = 1;
                    for (int e = 0; e < SC_EXP_BINS; e++)
                        same &= got->rexp[e] == ref.rexp[e];
                    CHECK(same,
                          "periodic bounds: radius octaves differ (dims %d f32 %d kernel %d "
                          "threads %d)",
                          dims, f32, kern, threads);
                    sc_context_destroy(c);
                }
    free(rows);
    free(rows32);
}

/* The wrap passes' rows: each sphere's centre wrapped into the box by the
 * header's expression, bit for bit, with the AVX2 pass and the scalar
 * reference, on values where the expression rounds (onto hi, just below
 * lo, from many periods away) mixed into groups of four with centres
 * inside; an open axis keeps its values. */
static double wrap_expr(double x, double lo, double hi) {
    const double L = hi - lo;
    if (x >= lo && x < hi)
        return x;
    const double t = x - floor((x - lo) / L) * L;
    return t < lo || t >= hi ? lo : t;
}

static void test_periodic_rows(void) {
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
                           0.4 + 5 * L,
                           -1e150,
                           1e150,
                           lo,
                           0.3};
    enum { N = 256 };
    const size_t ne = sizeof edge / sizeof edge[0];
    double rows[4 * N];
    for (size_t k = 0; k < N; k++) {
        for (int a = 0; a < 3; a++)
            rows[4 * k + (size_t)a] = edge[(k * (size_t)(a + 1) + next() % 3) % ne];
        rows[4 * k + 3] = 0.01;
    }
    for (int zopen = 0; zopen < 2; zopen++)
        for (int kern = 0; kern < 2; kern++) {
            sc_options o = sc_options_default();
            o.kernel = kern ? SC_KERNEL_SCALAR : SC_KERNEL_AUTO;
            o.box = (sc_box){.periodic = {1, 1, !zopen}, .lo = {lo, lo, lo}, .hi = {hi, hi, hi}};
            sc_context *c = NULL;
            CHECK(sc_context_create(&o, &c) == SC_OK, "periodic rows: context");
            if (!c)
                continue;
            const sc_spheres s = sc_spheres_rows_f64(N, 3, rows);
            sc_summary sum;
            CHECK(sc_count_pairs(c, &s, &sum) == SC_OK, "periodic rows: query");
            const double *j = c->joint.p;
            size_t wrong = 0, first = N;
            for (size_t k = 0; k < N; k++)
                for (int a = 0; a < 3; a++) {
                    const double x = rows[4 * k + (size_t)a];
                    const double want = a == 2 && zopen ? x : wrap_expr(x, lo, hi);
                    if (memcmp(&j[4 * k + (size_t)a], &want, sizeof want) != 0) {
                        wrong++;
                        first = k < first ? k : first;
                    }
                }
            CHECK(wrong == 0,
                  "periodic rows: %zu centres not wrapped as the expression (first "
                  "sphere %zu; z open %d, kernel %d)",
                  wrong, first, zopen, kern);
            sc_context_destroy(c);
        }
}

/* The BVH's walks (kernels/bvh4*.c): random 4-wide trees with boxes on a
 * coarse lattice (so bounds often touch exactly), empty slots and leaves
 * cut by `after`; both walks list exactly the leaves a recursive brute force
 * finds, in its order, whatever cap the caller gives. */
static void bvh4_expect(const sc_bvh4_node *nodes, uint32_t k, const double q[6], uint32_t after,
                        uint32_t *out, uint32_t *m) {
    uint32_t inner[4];
    int ni = 0;
    for (int c = 0; c < 4; c++) {
        const sc_bvh4_node *nd = &nodes[k];
        int hit = nd->last[c] >= after;
        for (int a = 0; a < 3; a++)
            hit = hit && nd->lo[a][c] <= q[3 + a] && q[a] <= nd->hi[a][c];
        if (!hit)
            continue;
        if (nd->child[c] & SC_BVH4_LEAF)
            out[(*m)++] = nd->child[c] & ~SC_BVH4_LEAF;
        else
            inner[ni++] = nd->child[c];
    }
    for (int c = 0; c < ni; c++)
        bvh4_expect(nodes, inner[c], q, after, out, m);
}

static void test_bvh4_walk(void) {
    enum { NODES = 300 };
    sc_bvh4_node *nodes = calloc(NODES, sizeof *nodes);
    uint32_t want[4 * NODES], got[4 * NODES];
    for (int round = 0; round < 200; round++) {
        /* node k's inner children are nodes after k: a tree rooted at 0 */
        uint32_t next_node = 1, leaf = 0;
        for (uint32_t k = 0; k < NODES; k++)
            for (int c = 0; c < 4; c++) {
                const uint64_t r = next();
                sc_bvh4_node *nd = &nodes[k];
                if (r % 7 == 0) { /* empty slot */
                    for (int a = 0; a < 3; a++)
                        nd->lo[a][c] = INFINITY, nd->hi[a][c] = -INFINITY;
                    nd->child[c] = SC_BVH4_LEAF;
                    nd->last[c] = 0;
                    continue;
                }
                for (int a = 0; a < 3; a++) {
                    const double x = (double)(next() % 16), w = (double)(next() % 5);
                    nd->lo[a][c] = x;
                    nd->hi[a][c] = x + w;
                }
                if (next_node < NODES && r % 3 == 0) {
                    nd->child[c] = next_node++;
                    nd->last[c] = (uint32_t)(next() % 200);
                } else {
                    nd->child[c] = SC_BVH4_LEAF | leaf;
                    nd->last[c] = leaf++ % 200;
                }
            }
        double q[6];
        for (int a = 0; a < 3; a++) {
            q[a] = (double)(next() % 16);
            q[3 + a] = q[a] + (double)(next() % 6);
        }
        const uint32_t after = (uint32_t)(next() % 150); /* 0: every leaf */
        uint32_t nw = 0;
        bvh4_expect(nodes, 0, q, after, want, &nw);
        sc_bvh4_walk_fn walks[2] = {sc_bvh4_walk_scalar, NULL};
#ifdef SC_HAVE_AVX2_KERNEL
        if (sc_kernel_available(SC_KERNEL_AVX2))
            walks[1] = sc_bvh4_walk_avx2;
#endif
        for (int v = 0; v < 2; v++) {
            if (!walks[v])
                continue;
            sc_bvh4_walk w;
            w.sp = 0;
            w.stack[w.sp++] = 0;
            uint32_t ng = 0;
            const uint32_t cap = 4 + (uint32_t)(next() % 9);
            while (w.sp > 0)
                ng += walks[v](nodes, q, after, &w, got + ng, cap);
            CHECK(ng == nw && memcmp(got, want, 4 * nw) == 0,
                  "bvh4 walk %s round %d: %u leaves listed, %u expected", v ? "avx2" : "scalar",
                  round, ng, nw);
        }
    }
    free(nodes);
}

/* The sweep's box filters (kernels/boxfilter*.c): random boxes on a small
 * integer lattice (so ends tie often), sorted by their start on x, with
 * 16-bit copies that are a monotone map of the floats; every filter must
 * list what the plain definition lists, with the same flag, for ranges
 * [j0, j1) of every length around the blocks of 8 and 16. */
static void test_boxfilter(void) {
    enum { N = 200, PAD = 16 };
    float a[6][N + PAD];
    int16_t q[4][N + PAD];
    uint32_t want[N], got[N + PAD];
    for (int round = 0; round < 300; round++) {
        float x = 0.0f;
        for (int k = 0; k < N; k++) {
            x += (float)(next() % 3 == 0); /* sorted starts, many equal */
            a[0][k] = x;
            a[1][k] = x + (float)(next() % (1 + round % 40));
            for (int c = 2; c < 6; c += 2) {
                a[c][k] = (float)(next() % 32);
                a[c + 1][k] = a[c][k] + (float)(next() % 6);
            }
            for (int c = 0; c < 4; c++) /* a monotone map, 2 floats per step */
                q[c][k] = (int16_t)((int)a[2 + c][k] / 2 - 20);
        }
        for (int c = 0; c < 6; c++)
            for (int k = N; k < N + PAD; k++)
                a[c][k] = 1e30f * (float)(next() % 2); /* padding: never listed */
        for (int c = 0; c < 4; c++)
            for (int k = N; k < N + PAD; k++)
                q[c][k] = (int16_t)(next() % 7);
        const sc_fbox b = {a[0], a[1], a[2], a[3], a[4], a[5], q[0], q[1], q[2], q[3]};
        const uint32_t i = (uint32_t)(next() % N);
        const uint32_t j0 = i + 1 + (uint32_t)(next() % 3);
        if (j0 > N)
            continue;
        const uint32_t j1 = j0 + (uint32_t)(next() % (N - j0 + 1));
        for (int bits = 0; bits < 2; bits++) {
            uint32_t nw = 0;
            int wdone = 0;
            for (uint32_t k = j0; k < j1; k++) {
                if (a[0][k] > a[1][i]) {
                    wdone = 1;
                    break;
                }
                const int hit = bits ? q[0][k] <= q[1][i] && q[1][k] >= q[0][i] &&
                                           q[2][k] <= q[3][i] && q[3][k] >= q[2][i]
                                     : a[2][k] <= a[3][i] && a[3][k] >= a[2][i] &&
                                           a[4][k] <= a[5][i] && a[5][k] >= a[4][i];
                if (hit)
                    want[nw++] = k;
            }
            sc_boxfilter_fn f[2] = {bits ? sc_boxfilter16_scalar : sc_boxfilter_scalar, NULL};
#ifdef SC_HAVE_AVX2_KERNEL
            if (sc_kernel_available(SC_KERNEL_AVX2))
                f[1] = bits ? sc_boxfilter16_avx2 : sc_boxfilter_avx2;
#endif
            for (int v = 0; v < 2; v++) {
                if (!f[v])
                    continue;
                int done = -1;
                const uint32_t ng = f[v](&b, i, j0, j1, got, &done);
                CHECK(ng == nw && memcmp(got, want, 4 * nw) == 0 && done == wdone,
                      "box filter %s %d-bit round %d [%u, %u): %u listed (done %d), %u expected "
                      "(done %d)",
                      v ? "avx2" : "scalar", bits ? 16 : 32, round, j0, j1, ng, done, nw, wdone);
            }
        }
    }
}

/* Writes text into dir/dev/name, making dir/dev if needed. */
static void put_file(const char *dir, const char *dev, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, dev);
    (void)mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/%s", dir, dev, name);
    FILE *f = fopen(path, "w");
    CHECK(f, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The huge-page policy's probe (alloc.c) on made-up sysfs trees: only a
 * virtio balloon (device 0x0005) with feature bit 5 set counts. */
static void test_balloon_probe(void) {
    char dir[] = "/tmp/sc-virtio-XXXXXX";
    CHECK(mkdtemp(dir), "mkdtemp");
    static const char *const files[][2] = {{"virtio0", "device"},
                                           {"virtio0", "features"},
                                           {"virtio1", "device"},
                                           {"virtio1", "features"}};
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none", dir);
    CHECK(!sc_balloon_reports_free_pages(missing), "a missing folder");
    CHECK(!sc_balloon_reports_free_pages(dir), "an empty folder");
    /* a block device with bit 5 set */
    put_file(dir, "virtio0", "device", "0x0002\n");
    put_file(dir, "virtio0", "features", "0110010100000000\n");
    CHECK(!sc_balloon_reports_free_pages(dir), "not a balloon");
    /* a balloon without reporting, then with */
    put_file(dir, "virtio1", "device", "0x0005\n");
    put_file(dir, "virtio1", "features", "0110000100000000\n");
    CHECK(!sc_balloon_reports_free_pages(dir), "a balloon without bit 5");
    put_file(dir, "virtio1", "features", "01100101000000000000000000000000100000\n");
    CHECK(sc_balloon_reports_free_pages(dir), "a balloon with bit 5");
    put_file(dir, "virtio1", "features", "01100");
    CHECK(!sc_balloon_reports_free_pages(dir), "features too short");
    put_file(dir, "virtio1", "features", "000001");
    CHECK(sc_balloon_reports_free_pages(dir), "bit 5 the last one given");
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s/%s", dir, files[k][0], files[k][1]);
        (void)unlink(path);
        if (k % 2) {
            snprintf(path, sizeof path, "%s/%s", dir, files[k][0]);
            (void)rmdir(path);
        }
    }
    CHECK(rmdir(dir) == 0, "cleanup of %s", dir);
}

/* The team a context takes under load (load.c), with the load held at one
 * busy processor of two: the sample is kept fresh, so no /proc reading
 * decides. Queries report the seconds each team is taken to cost. */
static int team_under_load(sc_load *l, size_t n) {
    l->sampled = true;
    l->at = HUGE_VAL; /* no /proc reading replaces it */
    l->busy = 1;
    l->allowed = 2;
    l->online = 2;
    return sc_load_team(l, 2, n);
}

/* Runs `queries` queries of 10^5 spheres on a fresh sample under load,
 * each taking t_free or t_full seconds by the team it got (the first
 * t_cold; every third full-team run t_stall, one that waited out a time
 * slice); returns how many got the full team, and the last one's team in
 * *last. */
static int choice_runs(int queries, double t_cold, double t_free, double t_full, double t_stall,
                       int *last) {
    sc_load l;
    memset(&l, 0, sizeof l);
    int full = 0;
    for (int q = 0; q < queries; q++) {
        *last = team_under_load(&l, 100000);
        full += *last == 2;
        const double t = *last == 2 ? (full % 3 == 0 ? t_stall : t_full) : q == 0 ? t_cold : t_free;
        sc_load_record(&l, 2, *last, 100000, t, q == 0);
    }
    return full;
}

static int choice_run(int queries, double t_free, double t_full, int *last) {
    return choice_runs(queries, t_free, t_free, t_full, t_full, last);
}

/* A sample under a held load is one reading: the readings again after a
 * pause (which cost a sleep behind whatever holds the core) are for a
 * count no recent sample has shown. A child spins meanwhile, so a reading
 * sees load. */
static void test_held_load(void) {
#ifdef __linux__
    const pid_t child = fork();
    if (child == 0) {
        const double end = sc_now() + 2.0; /* bounded, should the parent die */
        while (sc_now() < end)
            ;
        _exit(0);
    }
    CHECK(child > 0, "fork");
    const struct timespec settle = {0, 20000000};
    nanosleep(&settle, NULL);
    sc_load l;
    memset(&l, 0, sizeof l);
    l.sampled = true;
    l.at = sc_now() - 2 * SC_LOAD_RECHECK; /* stale for the sample, recent for its count */
    l.others = 1 << 20;
    (void)sc_load_busy(&l);
    CHECK(l.readings == 1, "a held load was read %u times", l.readings);
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
#endif
}

static void test_team_choice(void) {
    int last = 0;
    /* short queries stay on the free core, whatever the full team would do */
    int full = choice_run(40, 0.004, 0.001, &last);
    CHECK(full == 0, "short queries took the full team %d times", full);
    /* long ones pay SC_LOAD_RENT of warm free-core time (4 runs of 1/8 s
     * after the cold one), then try the full team (a widened run that is
     * not a measure, then SC_LOAD_SAMPLES runs) and keep it where its mean
     * is faster ... */
    const int rent_runs = (int)(SC_LOAD_RENT / 0.125);
    full = choice_run(40, 0.125, 0.0625, &last);
    CHECK(last == 2 && full == 40 - 1 - rent_runs, "a faster full team: last %d, %d of 40 full",
          last, full);
    /* ... or as fast (SC_LOAD_FULL_MARGIN: it leaves the busy cores a fair
     * share) ... */
    full = choice_run(40, 0.125, 0.125 * SC_LOAD_FULL_MARGIN, &last);
    CHECK(last == 2 && full == 40 - 1 - rent_runs,
          "a full team within the margin: last %d, %d of 40", last, full);
    /* ... but go back to the free cores where it is slower, and try again
     * after twice the rent each time it lost: in 80 queries the first try
     * (widened + 3 runs) after 4 free runs, then 3 runs after 8, 16 and 32
     * free runs (1 + 4 + 4 + 8 + 3 + 16 + 3 + 32 + 3 = 74; 6 free left) */
    full = choice_run(80, 0.125, 0.1875, &last);
    CHECK(last == 1 && full == 1 + 4 * SC_LOAD_SAMPLES,
          "a slower full team: last %d, %d of 80 full", last, full);
    /* a full team faster in most runs but waiting out a slice in every
     * third loses by its mean (0.0625, 0.0625, 0.5 against 0.125), as the
     * slower one does */
    full = choice_runs(80, 0.125, 0.125, 0.0625, 0.5, &last);
    CHECK(last == 1 && full == 1 + 4 * SC_LOAD_SAMPLES, "a stalling full team: last %d, %d of 80",
          last, full);
    /* a collapse is tried no more often */
    full = choice_run(80, 0.125, 1.0, &last);
    CHECK(last == 1 && full == 1 + 4 * SC_LOAD_SAMPLES, "a collapsing full team ran %d times",
          full);
    /* a process too short to pay the rent never tries it: ten queries of
     * 3/64 s on the free core (segtree at 10^5 in the load table's
     * `pairs --repeat 9`) */
    full = choice_run(10, 0.046875, 0.0234375, &last);
    CHECK(last == 1 && full == 0, "a short process tried the full team %d times", full);
    /* a first run made long by its first-touched scratch is not a measure:
     * the free core measured warm is short, and keeps the query */
    full = choice_runs(40, 0.020, 0.004, 0.003, 0.003, &last);
    CHECK(last == 1 && full == 0, "a short query after a long first run: last %d, %d of 40 full",
          last, full);
    sc_load l;
    /* a large first query: the full team for itself alone (its cold run
     * not a measure), then the free core until the rent is paid (two runs
     * of 1/4 s), the try, and the faster */
    memset(&l, 0, sizeof l);
    char teams[9] = "";
    for (int q = 0; q < 8; q++) {
        const int t = team_under_load(&l, SC_LOAD_FULL_FIRST);
        teams[q] = (char)('0' + t);
        sc_load_record(&l, 2, t, SC_LOAD_FULL_FIRST, t == 2 ? 0.1875 : 0.25, q == 0);
    }
    CHECK(strcmp(teams, "21122222") == 0, "a large first query's teams %s, not 21122222", teams);
    /* ... whose first run alone took the rent's time: the try goes on at
     * once (three runs), the free core once, then the faster */
    memset(&l, 0, sizeof l);
    for (int q = 0; q < 8; q++) {
        const int t = team_under_load(&l, SC_LOAD_FULL_FIRST);
        teams[q] = (char)('0' + t);
        const double cold = 2 * SC_LOAD_RENT;
        sc_load_record(&l, 2, t, SC_LOAD_FULL_FIRST,
                       q == 0   ? cold
                       : t == 2 ? 0.1875
                                : 0.25,
                       q == 0);
    }
    CHECK(strcmp(teams, "22221222") == 0, "a long large first query's teams %s, not 22221222",
          teams);
    /* a large batch starts on the full team; another size starts over */
    memset(&l, 0, sizeof l);
    CHECK(team_under_load(&l, SC_LOAD_FULL_FIRST) == 2, "a large first query: the full team");
    CHECK(team_under_load(&l, SC_LOAD_FULL_FIRST / 2 - 1) == 1,
          "a small first query: the free core");
    /* a quiet machine: every core, nothing recorded */
    memset(&l, 0, sizeof l);
    l.sampled = true;
    l.at = sc_now();
    CHECK(sc_load_team(&l, 2, 100000) == 2, "a quiet machine: every core");
}

/* Holds a context's load sample at `busy` of two processors for its next
 * query (stamped in the future, so no /proc reading replaces it), with no
 * measured choice (so a slow build's queries stay "short"). */
static void hold_load(sc_context *c, int busy) {
    memset(&c->load.choice, 0, sizeof c->load.choice);
    c->load.sampled = true;
    c->load.at = HUGE_VAL;
    c->load.busy = busy;
    c->load.allowed = 2;
    c->load.online = 2;
}

/* A context whose team narrows under load and widens when the load goes
 * reallocates nothing: per-thread scratch is sized for the widest team
 * (c->room) and each team lays out within it. Every query type, on a
 * context of two threads whatever this machine has. */
static void test_team_room(void) {
    const size_t n = 100000, nb = 5000;
    double *rows = malloc(4 * (n + nb) * sizeof(double));
    uint64_t u = 99;
    for (size_t i = 0; i < 4 * (n + nb); i++) {
        u = u * 6364136223846793005ull + 1442695040888963407ull;
        const double f = (double)(u >> 11) * 0x1p-53;
        rows[i] = i % 4 == 3 ? 0.5 + 0.5 * f : 150.0 * f;
    }
    const sc_spheres a = sc_spheres_rows_f64(n, 3, rows),
                     b = sc_spheres_rows_f64(nb, 3, rows + 4 * n);
    uint64_t *off = malloc((n + 1) * sizeof(uint64_t));
    uint32_t *idx = NULL;
    for (int kind = 0; kind < 4; kind++) {
        counting ca = {0, 0, -1};
        sc_options o = sc_options_default();
        o.allocator = (sc_allocator){count_alloc, count_free, &ca};
        if (kind == 3) /* periodic */
            for (int k = 0; k < 3; k++) {
                o.box.periodic[k] = 1;
                o.box.hi[k] = 150.0;
            }
        sc_context *c = NULL;
        CHECK(sc_context_create(&o, &c) == SC_OK, "context");
        if (!c)
            continue;
        c->threads = 2; /* two cores, whatever this machine has */
        sc_summary sum;
        const sc_nbr_spec spec = {0, 0.0, SC_NBR_NONE};
        long allocs = 0;
        int team[3] = {0, 0, 0};
        for (int q = 0; q < 3; q++) {
            hold_load(c, q < 2 ? 1 : 0); /* busy, busy, quiet */
            sc_status st = SC_OK;
            if (kind == 0 || kind == 3)
                st = sc_count_pairs(c, &a, &sum);
            else if (kind == 1)
                st = sc_count_between(c, &a, &b, &sum);
            else {
                st = sc_neighbors_count(c, &a, &spec, off);
                if (st == SC_OK && q == 0)
                    idx = realloc(idx, (off[n] + 1) * sizeof(uint32_t));
                hold_load(c, q < 2 ? 1 : 0);
                if (st == SC_OK)
                    st = sc_neighbors_fill(c, &a, &spec, off, idx, NULL);
            }
            CHECK(st == SC_OK, "kind %d query %d: %s", kind, q, sc_status_string(st));
            sc_stats stats = {.size = sizeof stats};
            sc_context_stats(c, &stats);
            team[q] = stats.threads;
            /* two sets: the filter and the search follow one choice, made
             * and measured for the query's whole size (keyed on each
             * stage's own size, it started over at every stage) */
            if (kind == 1 && q == 0)
                CHECK(c->load.choice.n == n + nb, "two sets: the load choice is for %zu spheres",
                      c->load.choice.n);
            if (q == 1)
                allocs = ca.allocs;
        }
        CHECK(team[0] == 1 && team[1] == 1 && team[2] == 2, "kind %d: teams %d %d %d, not 1 1 2",
              kind, team[0], team[1], team[2]);
        CHECK(ca.allocs == allocs, "kind %d: the widened team allocated %ld more", kind,
              ca.allocs - allocs);
        sc_context_destroy(c);
    }
    free(idx);
    free(off);
    free(rows);
}

static void run_team(void) {
    test_team_choice();
    test_held_load();
    test_team_room();
}

static void run_sort(void) {
    test_counting_sort();
    test_radix();
    test_radix_repair();
}

static void run_grid(void) {
    test_keys();
    test_row_boxes();
    test_keys_stage();
    test_rows_table();
    test_cells_and_kernels();
}

/* ---- the kernel tables: every SIMD entry against its scalar reference --- */

/* The SIMD tables this CPU and build can run, each with the scalar one as
 * reference; tables[0] is the scalar table itself. Returns the count. */
static int kernel_tables(const sc_kernels *tables[3]) {
    int n = 0;
    for (int k = SC_KERNEL_SCALAR; k <= SC_KERNEL_AVX2; k++) {
        sc_kernel kk = (sc_kernel)k;
        const sc_kernel_fn fn = sc_kernel_resolve(&kk);
        if (fn && kk == (sc_kernel)k)
            tables[n++] = sc_kernels_of(fn);
    }
    return n;
}

/* A value for a sphere's field: mostly ordinary, sometimes one that a
 * group pass must refuse or treat apart (NaN, past the limit, a negative
 * or subnormal radius, a centre far outside the box). */
static double wild(double ordinary, int radius, int rate) {
    if (next() % 1000 >= (uint64_t)rate)
        return ordinary;
    switch (next() % 6) {
    case 0: return NAN;
    case 1: return 2e150;
    case 2: return radius ? -0.5 : -7e3;
    case 3: return radius ? 0x1p-1060 : 1e9;
    case 4: return radius ? 0.0 : -0.0;
    default: return radius ? 1e149 : 3.5e2;
    }
}

/* n spheres in one of three layouts (rows, separate arrays, a stride of
 * 40 bytes), double or float, from v[4][n]; mem must hold 10 n doubles. */
static sc_src4 layout(double *mem, const double *v, size_t n, int how, bool f64) {
    const size_t es = f64 ? 8 : 4;
    char *base = (char *)mem;
    size_t stride = 4 * es, off[4] = {0, es, 2 * es, 3 * es}, rstride = stride;
    if (how == 1) {
        stride = rstride = es;
        for (int a = 0; a < 4; a++)
            off[a] = (size_t)a * (n + 4) * es;
    } else if (how == 2) {
        stride = rstride = 5 * es;
    }
    for (size_t k = 0; k < n + 4; k++)
        for (int a = 0; a < 4; a++) {
            const double x = k < n ? v[a * n + k] : 0.0;
            char *at = base + off[a] + k * stride;
            if (f64)
                memcpy(at, &x, 8);
            else {
                const float f = (float)x;
                memcpy(at, &f, 4);
            }
        }
    const sc_src4 src = {
        base + off[0], base + off[1], base + off[2], base + off[3], stride, rstride, f64};
    return src;
}

static void test_wrap_tables(void) {
    enum { N = 64 };
    const sc_kernels *tab[3];
    const int nt = kernel_tables(tab);
    static double v[4 * N], mem[10 * (N + 8)];
    static double rows[3][4 * (N + 8)] __attribute__((aligned(64)));
    static uint32_t band[3][N + 8], raw[3][4][2048];
    for (int round = 0; round < 600; round++) {
        sc_wrap_box b = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, 0, 0, 0, 1e150 / 2, 0};
        for (int a = 0; a < 3; a++) {
            b.periodic[a] = (int)(next() % 3 != 0);
            b.lo[a] = -10.0 + (double)(next() % 5);
            b.hi[a] = b.lo[a] + 4.0 + (double)(next() % 17);
            b.period[a] = b.hi[a] - b.lo[a];
        }
        b.big = 0.5 * (double)(next() % 40);
        b.one_side = (int)(next() % 2);
        b.reach = (double)(next() % 4);
        b.reach_g = b.reach * (1.0 + 0x1p-40);
        b.stream = (int)(next() % 2);
        const int rate = round % 3 == 0 ? 0 : 20;
        for (size_t k = 0; k < N; k++) {
            for (int a = 0; a < 3; a++)
                v[a * N + k] = wild(b.lo[a] - 3.0 + (double)(next() % 4096) / 128.0, 0, rate);
            v[3 * N + k] = wild((double)(next() % 1024) / 1024.0, 1, rate);
        }
        /* some centres on a band's edge: lo + width, to the last bit, and
         * its neighbours (width as the passes compute it) */
        for (size_t k = 0; k < N; k++) {
            const double r = v[3 * N + k];
            if (next() % 4 || !(r >= 0.0 && r < 1.0))
                continue;
            const double g = r + (((r + b.big) + b.reach) * 0x1p-44 + 0x1p-500);
            const double width = g + (b.one_side ? b.reach_g : g);
            const int a = (int)(next() % 3);
            double c = next() % 2 ? b.lo[a] + width : b.hi[a] - width;
            for (int step = (int)(next() % 3); step > 0; step--)
                c = nextafter(c, next() % 2 ? INFINITY : -INFINITY);
            v[a * N + k] = c;
        }
        const bool f64 = round % 4 != 3;
        const sc_src4 src = layout(mem, v, N, round % 3, f64);
        const size_t k0 = next() % 8, k1 = k0 + next() % (N - k0), pos0 = next() % 8;
        size_t ret[3] = {0, 0, 0};
        sc_wrap_found f[3];
        for (int t = 0; t < nt; t++) {
            memset(rows[t], 0, sizeof rows[t]);
            memset(band[t], 0, sizeof band[t]);
            memset(raw[t], 0, sizeof raw[t]);
            const sc_wrap_found f0 = {3,
                                      2,
                                      0.25,
                                      INFINITY,
                                      {INFINITY, INFINITY, INFINITY},
                                      {-INFINITY, -INFINITY, -INFINITY},
                                      raw[t]};
            f[t] = f0;
            ret[t] = tab[t]->wrap(&b, &src, k0, k1, pos0, rows[t], band[t], &f[t]);
        }
        for (int t = 1; t < nt; t++) {
            const size_t took = ret[0] - k0;
            int raw_same = 1;
            for (int e = 0; e < 2048; e++)
                raw_same &= raw[0][0][e] + raw[0][1][e] + raw[0][2][e] + raw[0][3][e] ==
                            raw[t][0][e] + raw[t][1][e] + raw[t][2][e] + raw[t][3][e];
            CHECK(ret[t] == ret[0] && f[t].images == f[0].images && f[t].banded == f[0].banded &&
                      memcmp(band[t], band[0], 4 * f[0].banded) == 0 &&
                      memcmp(rows[t] + 4 * pos0, rows[0] + 4 * pos0, 32 * took) == 0 &&
                      memcmp(&f[t].rmax, &f[0].rmax, 8) == 0 &&
                      memcmp(&f[t].rmin, &f[0].rmin, 8) == 0 && memcmp(f[t].lo, f[0].lo, 24) == 0 &&
                      memcmp(f[t].hi, f[0].hi, 24) == 0 && raw_same,
                  "wrap %s round %d: stopped at %zu (reference %zu), %zu images (%zu), %zu "
                  "listed (%zu), radius counts the same: %d",
                  sc_kernel_name(tab[t]->id), round, ret[t], ret[0], f[t].images, f[0].images,
                  f[t].banded, f[0].banded, raw_same);
        }
        /* the reference itself: it stops exactly at the first group of four
         * with a sphere it does not take */
        size_t stop = k0;
        for (; stop + 4 <= k1; stop += 4) {
            int bad = 0;
            for (size_t k = stop; k < stop + 4; k++) {
                const double r = f64 ? v[3 * N + k] : (double)(float)v[3 * N + k];
                bad |= !(r >= 0.0 && r <= b.limit) || (r > 0.0 && r < 0x1p-1022);
                for (int a = 0; a < 3; a++) {
                    const double c = f64 ? v[a * N + k] : (double)(float)v[a * N + k];
                    bad |= !(fabs(c) <= 1e150);
                }
            }
            if (bad)
                break;
        }
        CHECK(ret[0] == stop, "wrap reference round %d: stopped at %zu, not %zu", round, ret[0],
              stop);
    }
}

static void test_filter_tables(void) {
    enum { N = 64, KX = 5, KY = 4, KZ = 3 };
    const sc_kernels *tab[3];
    const int nt = kernel_tables(tab);
    static double v[4 * N], mem[10 * (N + 8)];
    uint64_t bits[(KX * KY * KZ + 1 + 63) / 64];
    for (int round = 0; round < 600; round++) {
        sc_filter_grid g;
        memset(&g, 0, sizeof g);
        const int periodic = round % 2;
        for (int a = 0; a < 3; a++) {
            g.periodic[a] = periodic && next() % 3 != 0;
            g.box_lo[a] = -8.0;
            g.box_hi[a] = 8.0 + (double)(next() % 3);
            g.box_period[a] = g.box_hi[a] - g.box_lo[a];
            g.lo[a] = -6.0 + (double)(next() % 3);
            g.hi[a] = g.lo[a] + 9.0;
        }
        const int k[3] = {KX, KY, KZ};
        g.inv = (double)KX / 9.0;
        for (int a = 0; a < 3; a++)
            g.top[a] = (double)(k[a] - 1);
        g.reach = 0.25 * (double)(1 + next() % 4);
        g.limit = periodic ? 1e150 / 2 : 1e150;
        g.k0 = KX;
        g.zs = KX * KY;
        g.never = KX * KY * KZ;
        for (size_t w = 0; w < sizeof bits / sizeof bits[0]; w++)
            bits[w] = next() & next();
        bits[g.never >> 6] &= ~(1ull << (g.never & 63));
        g.bits = bits;
        const int rate = round % 3 == 0 ? 0 : 15;
        for (size_t q = 0; q < N; q++) {
            /* mostly inside the marked region, so that whole groups are */
            for (int a = 0; a < 3; a++)
                v[a * N + q] = wild(next() % 8 ? g.lo[a] + (double)(next() % 4096) / 456.0
                                               : -12.0 + (double)(next() % 4096) / 160.0,
                                    0, rate);
            v[3 * N + q] = wild((double)(next() % 512) / 1024.0, 1, rate);
        }
        const bool f64 = round % 4 != 3;
        const sc_src4 src = layout(mem, v, N, round % 3, f64);
        const size_t k0 = next() % 8, k1 = k0 + next() % (N - k0);
        uint32_t idx[3][N + 8];
        size_t kept[3] = {0, 0, 0}, ret[3] = {0, 0, 0};
        for (int t = 0; t < nt; t++) {
            kept[t] = 1; /* appended after what is there */
            memset(idx[t], 0xff, sizeof idx[t]);
            ret[t] = tab[t]->filter(&g, &src, k0, k1, idx[t], &kept[t]);
        }
        for (int t = 1; t < nt; t++)
            CHECK(ret[t] == ret[0] && kept[t] == kept[0] &&
                      memcmp(idx[t] + 1, idx[0] + 1, 4 * (kept[0] - 1)) == 0,
                  "filter %s round %d: stopped at %zu (reference %zu), %zu kept (%zu)",
                  sc_kernel_name(tab[t]->id), round, ret[t], ret[0], kept[t], kept[0]);
        CHECK(ret[0] >= k0 && ret[0] <= k1 && (ret[0] - k0) % 4 == 0 && kept[0] >= 1 &&
                  kept[0] <= 1 + (ret[0] - k0),
              "filter reference round %d: stopped at %zu of [%zu, %zu), %zu kept", round, ret[0],
              k0, k1, kept[0]);
    }
}

static void test_probe_tables(void) {
    enum { NS = 40, NC = 30 };
    const sc_kernels *tab[3];
    const int nt = kernel_tables(tab);
    static double sx[NS + 4], sy[NS + 4], sz[NS + 4], sr[NS + 4], crow[4 * NC];
    static uint32_t out[3][2 * 4096];
    for (int round = 0; round < 300; round++) {
        for (int q = 0; q < NS + 4; q++) {
            sx[q] = (double)(next() % 64) / 8.0;
            sy[q] = (double)(next() % 64) / 8.0;
            sz[q] = round % 2 ? 0.0 : (double)(next() % 64) / 8.0;
            sr[q] = (double)(next() % 16) / 8.0;
        }
        for (int q = 0; q < 4 * NC; q++)
            crow[q] = (q % 4 == 3) ? (double)(next() % 16) / 8.0 : (double)(next() % 64) / 8.0;
        const sc_probe_data d = {sx, sy, sz, sr, crow, NS};
        sc_probe_run runs[24];
        const size_t nr = next() % 24;
        for (size_t u = 0; u < nr; u++) {
            const uint32_t j = (uint32_t)(next() % NS);
            runs[u].k = NS + (uint32_t)(next() % NC);
            runs[u].j = j;
            runs[u].e = j + 1 + (uint32_t)(next() % (NS - j));
        }
        uint64_t tests[3];
        size_t count[3];
        for (int t = 0; t < nt; t++) {
            sc_hits h = {out[t], 0, 4096, NULL, NULL};
            tests[t] = tab[t]->probe_runs(&d, runs, nr, &h);
            count[t] = h.count;
        }
        uint64_t want_tests = 0;
        size_t want = 0;
        for (size_t u = 0; u < nr; u++)
            for (uint32_t j = runs[u].j; j < runs[u].e; j++) {
                const double *c = crow + 4 * (runs[u].k - NS);
                const double dx = c[0] - sx[j], dy = c[1] - sy[j], dz = c[2] - sz[j];
                const double sum = c[3] + sr[j];
                want_tests++;
                want += (dx * dx + dy * dy) + dz * dz <= sum * sum;
            }
        for (int t = 0; t < nt; t++)
            CHECK(tests[t] == want_tests && count[t] == want &&
                      (t == 0 || memcmp(out[t], out[0], 8 * want) == 0),
                  "probe runs %s round %d: %zu pairs (want %zu), %llu tests (want %llu)",
                  sc_kernel_name(tab[t]->id), round, count[t], want, (unsigned long long)tests[t],
                  (unsigned long long)want_tests);
    }
}

/* The gather on every layout it tells apart: rows of (x, y, z, r) at 32
 * bytes and in larger records (an id after them, records straddling
 * lines), fields in another order, separate arrays, float, 2-D. Each
 * working value must be the input's, converted to double, in the
 * index's order, and the padding zero. */
static void test_gather_layouts(void) {
    enum { N = 203 };
    static double mem[7 * (N + 4)], out[4 * (N + SC_PAD)];
    static uint32_t idx[N];
    static const struct {
        size_t stride, off[4];
        bool f64, flat;
    } lay[] = {
        {32, {0, 8, 16, 24}, true, false}, /* rows */
        {40, {0, 8, 16, 24}, true, false}, /* records with an id */
        {56, {0, 8, 16, 24}, true, false},
        {40, {8, 16, 24, 32}, true, false}, /* the id first */
        {40, {16, 8, 0, 24}, true, false},  /* z, y, x */
        {8, {0}, true, true},               /* separate arrays */
        {20, {0, 4, 8, 12}, false, false},  /* float records */
    };
    for (size_t l = 0; l < sizeof lay / sizeof lay[0]; l++)
        for (int dims = 2; dims <= 3; dims++) {
            char *base = (char *)mem;
            const size_t es = lay[l].f64 ? 8 : 4;
            size_t off[4];
            for (int a = 0; a < 4; a++)
                off[a] = lay[l].flat ? (size_t)a * N * es : lay[l].off[a];
            for (size_t k = 0; k < N; k++) {
                idx[k] = (uint32_t)(next() % N);
                for (int a = 0; a < 4; a++) {
                    const double x = (double)(int64_t)(next() % 2001) - 1000.0 + 0.25 * a;
                    char *at = base + off[a] + k * lay[l].stride;
                    if (lay[l].f64)
                        memcpy(at, &x, 8);
                    else {
                        const float f = (float)x;
                        memcpy(at, &f, 4);
                    }
                }
            }
            const sc_view v = {N,
                               lay[l].stride,
                               lay[l].stride,
                               lay[l].f64,
                               base + off[0],
                               base + off[1],
                               dims == 3 ? base + off[2] : NULL,
                               base + off[3]};
            for (size_t k = 0; k < sizeof out / sizeof out[0]; k++)
                out[k] = -1.0;
            sc_work wk = work_in(out, N);
            sc_gather(&v, idx, N, &wk);
            const double *got_at[4] = {wk.x, wk.y, wk.z, wk.r};
            int bad = 0;
            for (size_t k = 0; k < N + SC_PAD; k++)
                for (int a = 0; a < 4; a++) {
                    const double got = got_at[a][k];
                    double want = 0.0;
                    if (k < N && (a != 2 || dims == 3))
                        want = sc_view_load(&v, (a == 0   ? v.x
                                                 : a == 1 ? v.y
                                                 : a == 2 ? v.z
                                                          : v.r) +
                                                    idx[k] * v.stride);
                    bad += got != want;
                }
            CHECK(!bad && wk.n == N && wk.index == idx, "gather, layout %zu, %d-D: %d values wrong",
                  l, dims, bad);
        }
}

static void run_kernels(void) {
    test_gather_layouts();
    test_balloon_probe();
    test_boxfilter();
    test_bvh4_walk();
    test_mix();
    test_wrap_tables();
    test_filter_tables();
    test_probe_tables();
}

static void run_bounds(void) {
    test_bounds();
    test_periodic_bounds();
    test_periodic_rows();
}

/* The registry: one peer per algorithm, at its own id, with a distinct
 * name that sc_algorithm_name gives, defaults its own check accepts and a
 * check that refuses what the options' doc refuses. */
static void run_registry(void) {
    const sc_options d = sc_options_default();
    for (int k = 0; k < sc_algorithm_count(); k++) {
        const sc_peer *p = sc_peer_of((sc_algorithm)k);
        CHECK(p && p->id == (sc_algorithm)k && p->name && p->build && p->search,
              "registry line %d: peer %s at id %d", k, p ? p->name : "(none)", p ? (int)p->id : -1);
        if (!p)
            continue;
        CHECK(strcmp(sc_algorithm_name((sc_algorithm)k), p->name) == 0, "%s: named %s", p->name,
              sc_algorithm_name((sc_algorithm)k));
        for (int j = 0; j < k; j++)
            CHECK(strcmp(sc_peer_of((sc_algorithm)j)->name, p->name) != 0, "%s twice", p->name);
        CHECK(!p->valid || p->valid(&d), "%s refuses its own defaults", p->name);
    }
    CHECK(sc_peer_of((sc_algorithm)sc_algorithm_count()) == NULL &&
              sc_peer_of((sc_algorithm)-1) == NULL,
          "a value outside the enum has a peer");
    /* a bad value of each peer's options: its check, through the context */
    sc_options o = d;
    o.grid.max_levels = 0;
    CHECK(!sc_peer_of(SC_ALGO_GRID)->valid(&o), "grid: max_levels 0 accepted");
    o = d;
    o.bvh.leaf_size = 5;
    CHECK(!sc_peer_of(SC_ALGO_BVH)->valid(&o), "bvh: leaf_size 5 accepted");
    o = d;
    o.kdsplit.max_depth = 65;
    CHECK(!sc_peer_of(SC_ALGO_KDSPLIT)->valid(&o) && sc_peer_of(SC_ALGO_OCTREE)->valid(&o),
          "kdsplit's depth 65: its check only");
    sc_context *ctx = NULL;
    CHECK(sc_context_create(&o, &ctx) == SC_ERR_INVALID_ARGUMENT,
          "a context took kdsplit depth 65");
    o = d;
    o.hashgrid.max_tests = NAN;
    CHECK(!sc_peer_of(SC_ALGO_HASHGRID)->valid(&o), "hashgrid: NaN max_tests accepted");
    /* the kernel tables: each resolved kernel finds its own, complete where
     * it has SIMD, and any other narrow kernel the scalar one */
    for (int k = SC_KERNEL_SCALAR; k <= SC_KERNEL_AVX2; k++) {
        sc_kernel kk = (sc_kernel)k;
        const sc_kernel_fn fn = sc_kernel_resolve(&kk);
        if (!fn)
            continue; /* not on this CPU or build: sc_kernel_available says so */
        const sc_kernels *ks = sc_kernels_of(fn);
        CHECK(ks->id == (sc_kernel)k && ks->narrow == fn && ks->boxfilter && ks->boxfilter16 &&
                  ks->bvh4_walk,
              "kernel table %s: id %d", sc_kernel_name((sc_kernel)k), (int)ks->id);
        CHECK(ks->probe_runs && ks->wrap && ks->filter, "kernel table %s: an entry missing",
              sc_kernel_name((sc_kernel)k));
    }
    CHECK(sc_kernels_of(sc_narrow_indirect)->id == SC_KERNEL_SCALAR, "the indirect kernel's table");
    /* each peer's stage clocks: a build stage it does not declare stays at
     * exactly zero (never timed), on a query and on a repeated one (the
     * peers that keep frames repair rather than rebuild) */
    enum { N = 3000 };
    static double rows[4 * N];
    uint64_t z = 12345;
    for (size_t k = 0; k < 4 * N; k++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        rows[k] = (k % 4 == 3) ? 0.2 + (double)(z >> 40) * 0x1p-25 : (double)(z >> 11) * 0x1p-47;
    }
    const sc_spheres view = sc_spheres_rows_f64(N, 3, rows);
    for (int a = 0; a < sc_algorithm_count(); a++) {
        const sc_peer *p = sc_peer_of((sc_algorithm)a);
        o = d;
        o.algorithm = (sc_algorithm)a;
        o.threads = 2;
        o.sap.warm = 1;
        o.bvh.refit = 1;
        ctx = NULL;
        sc_summary sum;
        int ok = sc_context_create(&o, &ctx) == SC_OK;
        for (int rep = 0; rep < 2 && ok; rep++) {
            sc_stats st = {.size = sizeof st};
            ok = sc_count_pairs(ctx, &view, &sum) == SC_OK && sc_context_stats(ctx, &st) == SC_OK;
            for (int s = 0; s < SC_STAGE_COUNT && ok; s++) {
                const char *what = sc_algorithm_stage((sc_algorithm)a, (sc_stage)s);
                const int engine =
                    s == SC_STAGE_BOUNDS || s == SC_STAGE_SEARCH || s == SC_STAGE_MERGE;
                CHECK(engine ? what && strcmp(what, sc_stage_name((sc_stage)s)) == 0
                             : what == p->stages[s],
                      "%s: stage %s named %s", p->name, sc_stage_name((sc_stage)s),
                      what ? what : "(none)");
                CHECK(what || st.seconds[s] == 0.0, "%s times %s, which it does not declare",
                      p->name, sc_stage_name((sc_stage)s));
            }
        }
        CHECK(ok, "%s: a query on %d spheres", p->name, N);
        sc_context_destroy(ctx);
    }
    CHECK(sc_algorithm_stage((sc_algorithm)sc_algorithm_count(), SC_STAGE_SEARCH) == NULL &&
              sc_algorithm_stage(SC_ALGO_GRID, SC_STAGE_COUNT) == NULL &&
              sc_algorithm_stage(SC_ALGO_BRUTE, SC_STAGE_SORT) == NULL,
          "sc_algorithm_stage outside its table");
    CHECK(sc_peer_of(SC_ALGO_GRID)->caps & SC_PEER_CELL_ORDER, "grid: no cell order");
    CHECK(!(sc_peer_of(SC_ALGO_BVH)->caps & SC_PEER_CELL_ORDER), "bvh: a cell order");
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"registry", run_registry}, {"team", run_team}, {"kernels", run_kernels},
        {"bounds", run_bounds},     {"sort", run_sort}, {"grid", run_grid},
    };
    return sc_test_main(argc, argv, "test_stages", groups, sizeof groups / sizeof groups[0]);
}
