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

static const sc_algorithm algos[] = {SC_ALGO_GRID,     SC_ALGO_BRUTE,   SC_ALGO_PARTITION1D,
                                     SC_ALGO_SAP,      SC_ALGO_HASHGRID, SC_ALGO_OCTREE,
                                     SC_ALGO_KDSPLIT,  SC_ALGO_BVH,     SC_ALGO_SEGTREE};
#define NALGOS (sizeof algos / sizeof algos[0])

static inline sc_kernel kernel_for(size_t k) {
    return (k % 2 && sc_kernel_available(SC_KERNEL_AVX2)) ? SC_KERNEL_AVX2 : SC_KERNEL_SCALAR;
}

static inline double *generate(const char *dist, size_t n, uint64_t seed) {
    double *rows = malloc(4 * (n + 1) * sizeof(double));
    CHECK(scgen_generate(dist, n, seed, rows) == 0, "generate %s %zu", dist, n);
    return rows;
}

static inline uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

#endif
