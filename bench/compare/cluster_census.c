/*
 * cluster_census.c: how much work a GROMACS-style cluster-pair search would
 * do on a file, counted rather than estimated (issue 16, docs/design.md).
 *
 *   cluster_census FILE.npy [--cluster C]   (C = 4 or 8, default 4)
 *
 * The layout is nbnxm's: spheres binned into x-y columns whose edge makes a
 * cluster of C spheres about cubic at the file's mean density, sorted by z in
 * each column and cut into clusters of C consecutive spheres (the last one of
 * a column padded). Each cluster keeps the bounding box of its centres and
 * its largest radius. Cluster pair (a, b), a <= b in cluster order, is kept
 * when the boxes are within ra_max + rb_max of each other on every axis and
 * in Euclidean distance; a kept pair costs a C x C tile of sphere tests (the
 * self pair its C (C - 1) / 2 triangle), and on 4-wide double SIMD, C * C / 4
 * vector iterations (padding lanes included).
 *
 * Box tests count the cluster pairs looked at: those of the columns within
 * the largest reach whose z ranges meet (a bisection per column finds the
 * first); the columns themselves are not counted.
 *
 * It prints the counts per sphere beside the pairs the tiles find, evaluated
 * with the library's exact predicate, so the census can be checked against
 * `spherecollide pairs FILE --count-only`: same pairs, same checksum. No
 * timing: this is a census of work, not a competing engine. 3-D files only.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy_rows.h"

typedef struct cluster {
    double lo[3], hi[3];
    double rmax;
    uint32_t first, count; /* spheres [first, first + count) of the sorted copy */
} cluster;

typedef struct census {
    uint64_t box_tests, cluster_pairs, self_pairs, tests, vector_iters, pairs, checksum;
} census;

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The library's predicate, operation for operation (docs/api.md). */
static int touches(const double *a, const double *b) {
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2], s = a[3] + b[3];
    return (dx * dx + dy * dy) + dz * dz <= s * s;
}

/* The checksum spherecollide reports for a pair of original indices. */
static uint64_t pair_mix(uint64_t i, uint64_t j) {
    if (i > j) {
        const uint64_t t = i;
        i = j;
        j = t;
    }
    uint64_t z = (i << 32 | j) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double box_gap(const cluster *a, const cluster *b, int axis) {
    const double g1 = b->lo[axis] - a->hi[axis], g2 = a->lo[axis] - b->hi[axis];
    const double g = g1 > g2 ? g1 : g2;
    return g > 0 ? g : 0;
}

/* One function, though long: a one-off census script in C (read, cluster,
 * merge, print), kept as one readable sequence. */
int main(int argc, char **argv) {
    const char *path = NULL;
    int C = 4;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--cluster") && k + 1 < argc)
            C = atoi(argv[++k]);
        else if (argv[k][0] != '-' && !path)
            path = argv[k];
        else {
            fprintf(stderr, "usage: cluster_census FILE.npy [--cluster 4|8]\n");
            return 2;
        }
    }
    if (!path || (C != 4 && C != 8)) {
        fprintf(stderr, "usage: cluster_census FILE.npy [--cluster 4|8]\n");
        return 2;
    }
    double *rows;
    size_t n;
    char err[256];
    if (npy_read_rows4(path, &rows, &n, err, sizeof err) != 0) {
        fprintf(stderr, "cluster_census: %s\n", err);
        return 3;
    }
    if (n < 2 || n >= UINT32_MAX) {
        fprintf(stderr, "cluster_census: %s: %zu spheres (2 .. 2^32 - 2 wanted)\n", path, n);
        return 3;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], rows[4 * i + a]);
            hi[a] = fmax(hi[a], rows[4 * i + a]);
        }
        rmax = fmax(rmax, rows[4 * i + 3]);
    }
    const double vol =
        fmax(hi[0] - lo[0], 1e-300) * fmax(hi[1] - lo[1], 1e-300) * fmax(hi[2] - lo[2], 1e-300);
    /* Column edge: C spheres of a column fill about a cube of that edge. */
    double edge = cbrt((double)C * vol / (double)n);
    size_t nx = (size_t)((hi[0] - lo[0]) / edge) + 1, ny = (size_t)((hi[1] - lo[1]) / edge) + 1;
    while (nx * ny > 4 * n + 16) { /* flat sets: fewer, wider columns */
        edge *= 2;
        nx = (size_t)((hi[0] - lo[0]) / edge) + 1;
        ny = (size_t)((hi[1] - lo[1]) / edge) + 1;
    }
    /* Sort by (column, z) through one 64-bit key each: column in the top
     * bits, the rank of z below (z is sorted first to get its rank). */
    uint64_t *zk = malloc(n * sizeof *zk), *key = malloc(n * sizeof *key);
    uint32_t *zrank = malloc(n * sizeof *zrank);
    double *s = malloc(4 * (n + 8) * sizeof *s);
    uint32_t *orig = malloc(n * sizeof *orig);
    if (!zk || !key || !zrank || !s || !orig) {
        fprintf(stderr, "cluster_census: out of memory\n");
        return 4;
    }
    {
        /* rank of z: sort (z bits made order-preserving, index) */
        for (size_t i = 0; i < n; i++) {
            double z = rows[4 * i + 2];
            uint64_t b;
            memcpy(&b, &z, 8);
            b = (b >> 63) ? ~b : b | 0x8000000000000000ull;
            zk[i] = b;
        }
        /* sort indices by zk with a pair array */
        uint64_t *pairs2 = malloc(2 * n * sizeof *pairs2);
        if (!pairs2)
            return 4;
        for (size_t i = 0; i < n; i++) {
            pairs2[2 * i] = zk[i];
            pairs2[2 * i + 1] = i;
        }
        qsort(pairs2, n, 2 * sizeof *pairs2, cmp_u64); /* sorts on the first word */
        for (size_t r = 0; r < n; r++)
            zrank[pairs2[2 * r + 1]] = (uint32_t)r;
        free(pairs2);
    }
    for (size_t i = 0; i < n; i++) {
        size_t cx = (size_t)((rows[4 * i] - lo[0]) / edge),
               cy = (size_t)((rows[4 * i + 1] - lo[1]) / edge);
        cx = cx < nx ? cx : nx - 1;
        cy = cy < ny ? cy : ny - 1;
        key[i] = (uint64_t)(cy * nx + cx) << 32 | zrank[i];
    }
    for (size_t i = 0; i < n; i++)
        zk[i] = key[i];
    qsort(zk, n, sizeof *zk, cmp_u64);
    /* zk now holds keys in order; recover each sphere from its z rank. */
    {
        uint32_t *by_rank = malloc(n * sizeof *by_rank);
        if (!by_rank)
            return 4;
        for (size_t i = 0; i < n; i++)
            by_rank[zrank[i]] = (uint32_t)i;
        for (size_t k = 0; k < n; k++) {
            const uint32_t i = by_rank[(uint32_t)zk[k]];
            orig[k] = i;
            memcpy(s + 4 * k, rows + 4 * i, 4 * sizeof *s);
        }
        free(by_rank);
    }
    /* Clusters, and where each column's clusters begin. */
    const size_t ncol = nx * ny;
    size_t *col_first = calloc(ncol + 1, sizeof *col_first);
    cluster *cl = malloc((n + ncol) * sizeof *cl); /* at most one padded cluster per column */
    if (!col_first || !cl)
        return 4;
    size_t ncl = 0;
    for (size_t k = 0; k < n;) {
        const uint64_t col = zk[k] >> 32;
        size_t e = k;
        while (e < n && zk[e] >> 32 == col)
            e++;
        for (size_t f = k; f < e; f += (size_t)C) {
            cluster *q = &cl[ncl++];
            q->first = (uint32_t)f;
            q->count = (uint32_t)((e - f) < (size_t)C ? e - f : (size_t)C);
            q->rmax = 0;
            for (int a = 0; a < 3; a++) {
                q->lo[a] = INFINITY;
                q->hi[a] = -INFINITY;
            }
            for (uint32_t t = 0; t < q->count; t++) {
                const double *p = s + 4 * (f + t);
                for (int a = 0; a < 3; a++) {
                    q->lo[a] = fmin(q->lo[a], p[a]);
                    q->hi[a] = fmax(q->hi[a], p[a]);
                }
                q->rmax = fmax(q->rmax, p[3]);
            }
        }
        k = e;
    }
    /* col_first[c] = first cluster of column c (clusters are in column order). */
    {
        size_t q = 0;
        for (size_t c = 0; c <= ncol; c++) {
            while (q < ncl && (zk[cl[q].first] >> 32) < c)
                q++;
            col_first[c] = q;
        }
    }
    census cs = {0};
    const int reach_cols = (int)ceil(2 * rmax / edge) + 1;
    for (size_t a = 0; a < ncl; a++) {
        const cluster *A = &cl[a];
        const size_t acol = (size_t)(zk[A->first] >> 32);
        const long ax = (long)(acol % nx), ay = (long)(acol / nx);
        const double reach = A->rmax + rmax;
        for (long dy = -reach_cols; dy <= reach_cols; dy++) {
            const long yy = ay + dy;
            if (yy < 0 || yy >= (long)ny)
                continue;
            for (long dx = -reach_cols; dx <= reach_cols; dx++) {
                const long xx = ax + dx;
                if (xx < 0 || xx >= (long)nx)
                    continue;
                const size_t c = (size_t)yy * nx + (size_t)xx;
                /* clusters of the column whose z range meets A's, reach apart:
                 * both ends ascend with the cluster order in a column */
                const size_t b1 = col_first[c + 1];
                size_t l = col_first[c], h = b1;
                while (l < h) {
                    const size_t m = l + (h - l) / 2;
                    if (cl[m].hi[2] < A->lo[2] - reach)
                        l = m + 1;
                    else
                        h = m;
                }
                for (size_t b = l > a ? l : a; b < b1 && cl[b].lo[2] <= A->hi[2] + reach; b++) {
                    const cluster *B = &cl[b];
                    cs.box_tests++;
                    const double lim = A->rmax + B->rmax;
                    const double gx = box_gap(A, B, 0), gy = box_gap(A, B, 1),
                                 gz = box_gap(A, B, 2);
                    if (gx > lim || gy > lim || gz > lim ||
                        (gx * gx + gy * gy) + gz * gz > lim * lim)
                        continue;
                    if (b == a) {
                        cs.self_pairs++;
                        cs.tests += (uint64_t)C * (uint64_t)(C - 1) / 2;
                    } else {
                        cs.cluster_pairs++;
                        cs.tests += (uint64_t)C * (uint64_t)C;
                    }
                    cs.vector_iters += (uint64_t)C * (uint64_t)C / 4;
                    for (uint32_t i = 0; i < A->count; i++)
                        for (uint32_t j = (b == a ? i + 1 : 0); j < B->count; j++)
                            if (touches(s + 4 * (A->first + i), s + 4 * (B->first + j))) {
                                cs.pairs++;
                                cs.checksum += pair_mix(orig[A->first + i], orig[B->first + j]);
                            }
                }
            }
        }
    }
    printf("file=%s n=%zu cluster=%d columns=%zux%zu edge=%.6g clusters=%zu fill=%.3f "
           "box_tests_per_cluster=%.2f cluster_pairs=%llu per_cluster=%.2f tests_per_sphere=%.2f "
           "vector_iters_per_sphere=%.3f "
           "pairs=%llu checksum=0x%016llx\n",
           path, n, C, nx, ny, edge, ncl, (double)n / ((double)ncl * C),
           (double)cs.box_tests / (double)ncl, (unsigned long long)cs.cluster_pairs,
           (double)(cs.cluster_pairs + cs.self_pairs) / (double)ncl, (double)cs.tests / (double)n,
           (double)cs.vector_iters / (double)n, (unsigned long long)cs.pairs,
           (unsigned long long)cs.checksum);
    free(rows);
    free(zk);
    free(key);
    free(zrank);
    free(s);
    free(orig);
    free(col_first);
    free(cl);
    return 0;
}
