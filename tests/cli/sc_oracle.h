/*
 * sc_oracle.h: the brute-force double oracle the I/O and CLI tests compare
 * against, written independently of the engine.
 *
 * sc_oracle_brute tests all n(n-1)/2 pairs with the header's predicate.
 * sc_oracle_sweep gives exactly the same pair set faster: it sorts by x and,
 * for each sphere, scans the spheres to its right while
 * fl(dx*dx) <= fl(smax*smax), smax = fl(r_i + r_max). That prune never drops a
 * pair, because rounding is monotone: d2 = fl(fl(fl(dx*dx) + fl(dy*dy)) +
 * fl(dz*dz)) >= fl(dx*dx), s = fl(r_i + r_j) <= smax so fl(s*s) <= fl(smax^2),
 * and fl(x_j - x_i) only grows along the sorted order, so the first sphere
 * past the bound ends the scan. Every candidate then gets the exact predicate
 * (symmetric in i and j: fl(a - b) = -fl(b - a)). Compile with
 * -ffp-contract=off, like the library.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SC_ORACLE_H
#define SC_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "spherecollide.h"

typedef struct sc_oracle_summary {
    uint64_t pairs;
    uint64_t checksum;
} sc_oracle_summary;

/* splitmix64 finalizer of (i << 32) | j, as the issue defines the checksum. */
static inline uint64_t sc_oracle_mix(uint32_t i, uint32_t j) {
    uint64_t z = ((uint64_t)i << 32) | j;
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Value k of a row array of dtype, as a double (float -> double is exact). */
static inline double sc_oracle_value(const void *rows, sc_dtype dtype, size_t k) {
    return dtype == SC_F32 ? (double)((const float *)rows)[k] : ((const double *)rows)[k];
}

typedef struct sc_oracle_sphere {
    double x, y, z, r;
    uint32_t index;
} sc_oracle_sphere;

static inline int sc_oracle_hits(const sc_oracle_sphere *a, const sc_oracle_sphere *b) {
    double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
    double d2 = (dx * dx + dy * dy) + dz * dz;
    double s = a->r + b->r;
    return d2 <= s * s;
}

static inline sc_oracle_sphere *sc_oracle_load(size_t n, int dims, sc_dtype dtype,
                                               const void *rows) {
    size_t cols = (size_t)dims + 1;
    sc_oracle_sphere *s = malloc((n ? n : 1) * sizeof *s);
    if (s == NULL)
        return NULL;
    for (size_t k = 0; k < n; k++) {
        s[k].x = sc_oracle_value(rows, dtype, k * cols);
        s[k].y = sc_oracle_value(rows, dtype, k * cols + 1);
        s[k].z = dims == 3 ? sc_oracle_value(rows, dtype, k * cols + 2) : 0.0;
        s[k].r = sc_oracle_value(rows, dtype, k * cols + (size_t)dims);
        s[k].index = (uint32_t)k;
    }
    return s;
}

static inline void sc_oracle_add(sc_oracle_summary *sum, uint32_t a, uint32_t b) {
    uint32_t i = a < b ? a : b, j = a < b ? b : a;
    sum->pairs++;
    sum->checksum += sc_oracle_mix(i, j);
}

/* All pairs, literally. Returns 0, or -1 if out of memory. */
static inline int sc_oracle_brute(size_t n, int dims, sc_dtype dtype, const void *rows,
                                  sc_oracle_summary *out) {
    out->pairs = out->checksum = 0;
    sc_oracle_sphere *s = sc_oracle_load(n, dims, dtype, rows);
    if (s == NULL)
        return -1;
    sc_oracle_summary sum = {0, 0};
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (sc_oracle_hits(&s[i], &s[j]))
                sc_oracle_add(&sum, (uint32_t)i, (uint32_t)j);
    free(s);
    *out = sum;
    return 0;
}

static inline int sc_oracle_cmp_x(const void *a, const void *b) {
    const sc_oracle_sphere *p = a, *q = b;
    if (p->x < q->x)
        return -1;
    if (p->x > q->x)
        return 1;
    return (p->index > q->index) - (p->index < q->index);
}

/* The same pair set as sc_oracle_brute (see the proof above), sorted by x. */
static inline int sc_oracle_sweep(size_t n, int dims, sc_dtype dtype, const void *rows,
                                  sc_oracle_summary *out) {
    out->pairs = out->checksum = 0;
    sc_oracle_sphere *s = sc_oracle_load(n, dims, dtype, rows);
    if (s == NULL)
        return -1;
    double rmax = 0.0;
    for (size_t k = 0; k < n; k++)
        if (s[k].r > rmax)
            rmax = s[k].r;
    qsort(s, n, sizeof *s, sc_oracle_cmp_x);
    sc_oracle_summary sum = {0, 0};
    for (size_t a = 0; a < n; a++) {
        double smax = s[a].r + rmax;
        double bound = smax * smax;
        for (size_t b = a + 1; b < n; b++) {
            double dx = s[b].x - s[a].x;
            if (dx * dx > bound)
                break;
            if (sc_oracle_hits(&s[a], &s[b]))
                sc_oracle_add(&sum, s[a].index, s[b].index);
        }
    }
    free(s);
    *out = sum;
    return 0;
}

#endif /* SC_ORACLE_H */
