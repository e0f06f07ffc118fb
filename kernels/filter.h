/*
 * filter.h: a two-set query's filter (src/queries/between.c: filter_one_by_one,
 * the scalar reference) four large spheres at a time, for 3-D spheres,
 * double or float, at any strides. It takes a sphere that is valid and
 * whose pad is within the reach (most of them), and does for it what the
 * reference does: wraps its centre into the periodic box on the periodic
 * axes (sc_load4_wrap) and keeps its index when that centre's cell of the
 * small set's bitmap is marked. It stops at the
 * first group of four with a sphere it does not take, which the reference
 * then takes; the same indices in the same order either way.
 */
#ifndef SC_FILTER_H
#define SC_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "src4.h"

typedef struct sc_filter_grid {
    int periodic[3];
    double box_lo[3], box_hi[3], box_period[3]; /* the periodic box, on its periodic axes */
    double lo[3], hi[3];                        /* the marked region (2-D: z's are 0) */
    double inv, top[3], reach, limit;           /* limit: the largest radius taken */
    uint64_t k0, zs; /* bit (iz zs + iy k0 + ix) stands for cell (ix, iy, iz) */
    uint64_t never;  /* a bit past the cells, never set */
    const uint64_t *bits;
} sc_filter_grid;

/* Spheres k0.. (up to k1): the index of each one kept to idx[*kept..];
 * returns the first sphere not taken (k1 when all). */
size_t sc_filter_scalar(const sc_filter_grid *g, const sc_src4 *s, size_t k0, size_t k1,
                        uint32_t *idx, size_t *kept) __attribute__((visibility("hidden")));
size_t sc_filter_avx2(const sc_filter_grid *g, const sc_src4 *s, size_t k0, size_t k1,
                      uint32_t *idx, size_t *kept) __attribute__((visibility("hidden")));

#endif /* SC_FILTER_H */
