/*
 * celllist_pairs: a cell list as an HPC programmer writes it by hand, the
 * yardstick of issue 16's targets. One cell size for all (2 r_max, widened
 * by a rounding margin), dense bins over the bounding box, a counting sort
 * of the spheres into a SoA copy ordered by cell (OpenMP: cell ids and the
 * histogram in parallel with atomics, a serial prefix sum, a parallel
 * scatter), then the half stencil (the cell itself and its 13 forward
 * neighbours) over cells in parallel, the exact double predicate, and
 * count + checksum reductions. It does not link the library: the checksum
 * is splitmix64 written out (the same function as sc_pair_mix), so its
 * process pays only for libc, libm and libgomp, as a hand-written code does.
 *
 *   celllist_pairs FILE.npy [--repeat R] [--threads T]
 *
 * Each repeat runs the whole search (bounds, binning, sort, stencil) on
 * buffers allocated once before the first repeat, as a code that calls its
 * neighbour search every step reuses them; the file read is not timed. The
 * first repeat therefore touches fresh memory; `first=` on the result line
 * reports it apart from the median. A whole-process measurement runs it with
 * --repeat 1 and times the process from outside (bench/compare/run-oneshot.sh).
 *
 * Dense bins grow with the volume of the bounding box: when they would
 * exceed 4 cells per sphere, the cells are made coarser (still correct, a
 * larger stencil volume), as such codes do. Radii that vary widely make one
 * cell size quadratic; this runner is for the uniform regime it is meant for.
 * Prints "first=S" (the first repeat) on a line of its own, then the line of
 * runner_util.h, whose median is over the repeats after the first. Exit: 0 ok, 1 failure,
 * 2 usage.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy_rows.h"
#include "runner_util.h"

static void usage(const char *msg) {
    if (msg)
        fprintf(stderr, "celllist_pairs: %s\n", msg);
    fprintf(stderr, "usage: celllist_pairs FILE.npy [--repeat R] [--threads T]\n");
    exit(2);
}

static inline uint64_t mix(uint32_t i, uint32_t j) {
    uint64_t z = ((uint64_t)i << 32) | j;
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct cells {
    size_t n;
    const double *rows;
    uint32_t *cell;        /* n: each sphere's cell */
    uint32_t *start;       /* ncells + 1 */
    double *x, *y, *z, *r; /* n, in cell order */
    uint32_t *id;          /* n: original index, in cell order */
    size_t cap_cells;
} cells;

static int cells_alloc(cells *c, size_t n, const double *rows) {
    memset(c, 0, sizeof *c);
    c->n = n;
    c->rows = rows;
    c->cap_cells = 4 * n + 64;
    c->cell = malloc((n + 1) * sizeof *c->cell);
    c->start = malloc((c->cap_cells + 1) * sizeof *c->start);
    c->x = malloc((n + 1) * sizeof(double));
    c->y = malloc((n + 1) * sizeof(double));
    c->z = malloc((n + 1) * sizeof(double));
    c->r = malloc((n + 1) * sizeof(double));
    c->id = malloc((n + 1) * sizeof *c->id);
    return c->cell && c->start && c->x && c->y && c->z && c->r && c->id ? 0 : -1;
}

static void cells_free(cells *c) {
    free(c->cell);
    free(c->start);
    free(c->x);
    free(c->y);
    free(c->z);
    free(c->r);
    free(c->id);
}

/* One whole search: returns the pair count, *sum the checksum. */
static uint64_t search(cells *c, uint64_t *sum) {
    const size_t n = c->n;
    const double *v = c->rows;
    double lo0 = INFINITY, lo1 = INFINITY, lo2 = INFINITY;
    double hi0 = -INFINITY, hi1 = -INFINITY, hi2 = -INFINITY, rmax = 0.0;
#pragma omp parallel for schedule(static) reduction(min                                            \
                                                    : lo0, lo1, lo2)                               \
    reduction(max                                                                                  \
              : hi0, hi1, hi2, rmax)
    for (size_t i = 0; i < n; i++) {
        const double *p = v + 4 * i;
        lo0 = fmin(lo0, p[0]);
        hi0 = fmax(hi0, p[0]);
        lo1 = fmin(lo1, p[1]);
        hi1 = fmax(hi1, p[1]);
        lo2 = fmin(lo2, p[2]);
        hi2 = fmax(hi2, p[2]);
        rmax = fmax(rmax, p[3]);
    }
    if (n == 0) {
        *sum = 0;
        return 0;
    }
    /* Two spheres that touch differ by at most 2 r_max per axis, up to the
     * predicate's few ulps; the cell index (x - lo) / cell is rounded too.
     * Widening the cell by a relative and an absolute margin keeps every
     * touching pair in adjacent cells. */
    const double ext = fmax(hi0 - lo0, fmax(hi1 - lo1, hi2 - lo2));
    double cell = 2.0 * rmax * (1.0 + 0x1p-30) + ext * 0x1p-40 + 0x1p-1000;
    size_t nx, ny, nz;
    for (;;) {
        nx = (size_t)((hi0 - lo0) / cell) + 1;
        ny = (size_t)((hi1 - lo1) / cell) + 1;
        nz = (size_t)((hi2 - lo2) / cell) + 1;
        if ((double)nx * (double)ny * (double)nz <= (double)c->cap_cells)
            break;
        cell *= 1.25;
    }
    const size_t ncells = nx * ny * nz;
    const double inv = 1.0 / cell;
    uint32_t *start = c->start;
    memset(start, 0, (ncells + 1) * sizeof *start);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        const double *p = v + 4 * i;
        size_t ix = (size_t)((p[0] - lo0) * inv), iy = (size_t)((p[1] - lo1) * inv),
               iz = (size_t)((p[2] - lo2) * inv);
        ix = ix < nx ? ix : nx - 1;
        iy = iy < ny ? iy : ny - 1;
        iz = iz < nz ? iz : nz - 1;
        const uint32_t k = (uint32_t)((iz * ny + iy) * nx + ix);
        c->cell[i] = k;
#pragma omp atomic
        start[k + 1]++;
    }
    for (size_t k = 0; k < ncells; k++)
        start[k + 1] += start[k];
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        uint32_t at;
        const uint32_t k = c->cell[i];
#pragma omp atomic capture
        at = start[k]++;
        const double *p = v + 4 * i;
        c->x[at] = p[0];
        c->y[at] = p[1];
        c->z[at] = p[2];
        c->r[at] = p[3];
        c->id[at] = (uint32_t)i;
    }
    /* The scatter advanced start[k] to the end of cell k: shift back. */
    for (size_t k = ncells; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;

    const double *X = c->x, *Y = c->y, *Z = c->z, *R = c->r;
    const uint32_t *ID = c->id;
    uint64_t count = 0, check = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : count, check)
    for (size_t k = 0; k < ncells; k++) {
        const uint32_t a0 = start[k], a1 = start[k + 1];
        if (a0 == a1)
            continue;
        const size_t ix = k % nx, iy = (k / nx) % ny, iz = k / (nx * ny);
        /* The cell itself, then the 13 neighbours after it in (z, y, x) order. */
        for (uint32_t a = a0; a < a1; a++)
            for (uint32_t b = a + 1; b < a1; b++) {
                const double dx = X[a] - X[b], dy = Y[a] - Y[b], dz = Z[a] - Z[b];
                const double s = R[a] + R[b];
                if ((dx * dx + dy * dy) + dz * dz <= s * s) {
                    uint32_t i = ID[a], j = ID[b];
                    count++;
                    check += i < j ? mix(i, j) : mix(j, i);
                }
            }
        for (int s = 14; s < 27; s++) {
            const long ox = s % 3 - 1, oy = (s / 3) % 3 - 1, oz = s / 9 - 1;
            const long jx = (long)ix + ox, jy = (long)iy + oy, jz = (long)iz + oz;
            if (jx < 0 || jy < 0 || jz < 0 || jx >= (long)nx || jy >= (long)ny || jz >= (long)nz)
                continue;
            const size_t m = ((size_t)jz * ny + (size_t)jy) * nx + (size_t)jx;
            const uint32_t b0 = start[m], b1 = start[m + 1];
            for (uint32_t a = a0; a < a1; a++) {
                const double xa = X[a], ya = Y[a], za = Z[a], ra = R[a];
                for (uint32_t b = b0; b < b1; b++) {
                    const double dx = xa - X[b], dy = ya - Y[b], dz = za - Z[b];
                    const double sr = ra + R[b];
                    if ((dx * dx + dy * dy) + dz * dz <= sr * sr) {
                        uint32_t i = ID[a], j = ID[b];
                        count++;
                        check += i < j ? mix(i, j) : mix(j, i);
                    }
                }
            }
        }
    }
    *sum = check;
    return count;
}

int main(int argc, char **argv) {
    const char *path = NULL;
    int repeats = 3, threads = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--repeat") && a + 1 < argc)
            repeats = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
            usage(NULL);
        else if (!path && argv[a][0] != '-')
            path = argv[a];
        else
            usage("bad argument");
    }
    if (!path)
        usage("no input file");
    if (repeats < 1 || repeats > 1000 || threads < 0 || threads > 4096)
        usage("bad --repeat or --threads");
    if (threads > 0)
        omp_set_num_threads(threads);

    double *rows;
    size_t n;
    char err[512];
    if (npy_read_rows4(path, &rows, &n, err, sizeof err) != 0) {
        fprintf(stderr, "celllist_pairs: %s\n", err);
        return 1;
    }
    cells c;
    double *times = malloc((size_t)repeats * sizeof *times);
    if (!times || cells_alloc(&c, n, rows) != 0) {
        fprintf(stderr, "celllist_pairs: out of memory\n");
        return 1;
    }
    uint64_t pairs = 0, sum = 0;
    for (int r = 0; r < repeats; r++) {
        const double t0 = runner_now();
        uint64_t s;
        const uint64_t k = search(&c, &s);
        times[r] = runner_now() - t0;
        if (r > 0 && (k != pairs || s != sum)) {
            fprintf(stderr, "celllist_pairs: repeat %d disagrees with the first\n", r);
            return 1;
        }
        pairs = k;
        sum = s;
    }
    /* The first repeat on its own line, then the result line (last, as
     * run-compare.sh reads it), whose median is over the warm repeats. */
    printf("first=%.9g\n", times[0]);
    runner_print_result(pairs, sum, repeats > 1 ? times + 1 : times, repeats > 1 ? repeats - 1 : 1,
                        omp_get_max_threads());
    cells_free(&c);
    free(rows);
    free(times);
    return 0;
}
