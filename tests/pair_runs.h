/*
 * pair_runs.h: what the C tests of whole queries share: a growable pair
 * list with its checksum, order and equality; the stream callback that
 * collects into it; a run's settings (peer, kernel, threads, sorted) and
 * its label; the peers and the kernel each test pairs with them; the
 * generators' rows; a small LCG. Include after check.h (generate CHECKs).
 */
#ifndef SC_TEST_PAIR_RUNS_H
#define SC_TEST_PAIR_RUNS_H

#include "sc_gen.h"
#include "spherecollide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pairs {
    uint32_t *p; /* i, j */
    size_t n, cap;
} pairs;

static inline void push(pairs *l, uint32_t i, uint32_t j) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->p = realloc(l->p, 2 * l->cap * sizeof(uint32_t));
    }
    l->p[2 * l->n] = i;
    l->p[2 * l->n + 1] = j;
    l->n++;
}

static inline uint64_t checksum(const pairs *l) {
    uint64_t s = 0;
    for (size_t k = 0; k < l->n; k++)
        s += sc_pair_mix(l->p[2 * k], l->p[2 * k + 1]);
    return s;
}

static inline int same(const pairs *a, const pairs *b) {
    return a->n == b->n && (!a->n || memcmp(a->p, b->p, 2 * a->n * sizeof(uint32_t)) == 0);
}

static inline int cmp_pair(const void *x, const void *y) {
    const uint32_t *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

typedef struct run {
    sc_algorithm algo;
    sc_kernel kernel;
    int threads;
    int sorted;
} run;

static inline int collect(const uint32_t *p, size_t count, void *user) {
    pairs *l = user;
    for (size_t k = 0; k < count; k++)
        push(l, p[2 * k], p[2 * k + 1]);
    return 0;
}

static inline const char *label(const run *r) {
    static char buf[96];
    snprintf(buf, sizeof buf, "%s t%d k%d%s", sc_algorithm_name(r->algo), r->threads, r->kernel,
             r->sorted ? " sorted" : "");
    return buf;
}

static const sc_algorithm algos[] = {SC_ALGO_GRID,    SC_ALGO_BRUTE,    SC_ALGO_PARTITION1D,
                                     SC_ALGO_SAP,     SC_ALGO_HASHGRID, SC_ALGO_OCTREE,
                                     SC_ALGO_KDSPLIT, SC_ALGO_BVH,      SC_ALGO_SEGTREE};
#define NALGOS (sizeof algos / sizeof algos[0])

static inline sc_kernel kernel_for(size_t k) {
    return (k % 2 && sc_kernel_available(SC_KERNEL_AVX2)) ? SC_KERNEL_AVX2 : SC_KERNEL_SCALAR;
}

static inline double *generate(const char *dist, size_t n, uint64_t seed) {
    double *rows = malloc(4 * (n + 1) * sizeof(double));
    CHECK(sc_gen_generate(dist, n, seed, rows) == 0, "generate %s %zu", dist, n);
    return rows;
}

static inline uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

/* One context's stream, count and (with `fill`) fill against want: one
 * set (b NULL) or a x b; the sorted stream pair for pair, the unsorted one
 * as a set, the fill as a set. */
static inline void check_calls(const char *name, sc_context *ctx, const sc_spheres *a,
                               const sc_spheres *b, const pairs *want, const run *r, int fill) {
    const char *what = b ? "between " : "";
    pairs got = {0};
    sc_summary s = {0, 0};
    sc_status st = b ? sc_stream_between(ctx, a, b, collect, &got, &s)
                     : sc_stream_pairs(ctx, a, collect, &got, &s);
    CHECK(st == SC_OK, "%s: %s%s: %s", name, what, label(r), sc_status_string(st));
    if (!r->sorted && got.n)
        qsort(got.p, got.n, 2 * sizeof(uint32_t), cmp_pair);
    CHECK(same(&got, want), "%s: %s%s: %zu pairs, want %zu", name, what, label(r), got.n, want->n);
    CHECK(s.pairs == want->n && s.checksum == checksum(want), "%s: %s%s: stream summary", name,
          what, label(r));
    sc_summary cnt = {0, 0};
    st = b ? sc_count_between(ctx, a, b, &cnt) : sc_count_pairs(ctx, a, &cnt);
    CHECK(st == SC_OK && cnt.pairs == want->n && cnt.checksum == checksum(want),
          "%s: %s%s: count %llu, want %zu (%s)", name, what, label(r),
          (unsigned long long)cnt.pairs, want->n, sc_status_string(st));
    free(got.p);
    if (!fill)
        return;
    uint32_t *buf = malloc(2 * (want->n + 1) * sizeof(uint32_t));
    size_t needed = 0;
    st = b ? sc_fill_between(ctx, a, b, buf, want->n, &needed, NULL)
           : sc_fill_pairs(ctx, a, buf, want->n, &needed, NULL);
    if (want->n)
        qsort(buf, want->n, 2 * sizeof(uint32_t), cmp_pair);
    CHECK(st == SC_OK && needed == want->n &&
              (!want->n || memcmp(buf, want->p, 2 * want->n * sizeof(uint32_t)) == 0),
          "%s: %s%s: fill (%s)", name, what, label(r), sc_status_string(st));
    free(buf);
}

#endif
