/*
 * wrap.h: pass one of a periodic query (src/queries/periodic.c: wrap_part,
 * which takes the spheres one by one where this pass does not) four
 * spheres at a time, for 3-D spheres, double or
 * float, at any strides. For each sphere it takes, it does what the
 * reference does for a valid sphere: its centre wrapped into the box on
 * the periodic axes (sc_wrap_x's expression, in lanes, where a group has a
 * centre outside), the sphere's row (x, y, z, r) to the joint rows, the
 * rows' bounds and radius counts, and, for a sphere near a periodic face,
 * its position in the band list and its images' count. It stops at the
 * first group of four with a sphere it does not take (not valid, or of a
 * subnormal radius), which wrap_part then takes; the same rows, list,
 * counts and bounds either way. wrap_scalar.c is the reference of
 * wrap_avx2.c, lane by lane (the radius counts may fall in other tables
 * of the four; their sums agree).
 */
#ifndef SC_WRAP_H
#define SC_WRAP_H

#include <stddef.h>
#include <stdint.h>

#include "src4.h"

typedef struct sc_wrap_box {
    int periodic[3];
    double lo[3], hi[3], period[3]; /* period: sc_wrap's, hi - lo */
    double big;                     /* sc_wrap's: the image radius's margin */
    int one_side;                   /* sc_wrap's: half the shifts, bands of g(r) + reach_g */
    double reach, reach_g;
    double limit; /* the largest radius taken (the periodic limit) */
    int stream;   /* write the rows past the cache (non-temporal stores,
                     fenced at the end): they are too many to stay in it
                     until the next pass reads them */
} sc_wrap_box;

/* The bounds of the rows written (their centres and radii), and the
 * radii counted by exponent bits into raw[pos & 3] at index e, the biased
 * exponent (0 for a zero radius: a subnormal radius is not taken). */
typedef struct sc_wrap_found {
    size_t images, banded;
    double rmax, rmin, lo[3], hi[3];
    uint32_t (*raw)[2048];
} sc_wrap_found;

/* Spheres k0.. (up to k1) at positions pos0.. : rows[4 pos ..], band[]
 * from f->banded on; returns the first sphere not taken (k1 when all). */
size_t sc_wrap_scalar(const sc_wrap_box *b, const sc_src4 *s, size_t k0, size_t k1, size_t pos0,
                      double *rows, uint32_t *band, sc_wrap_found *f)
    __attribute__((visibility("hidden")));
size_t sc_wrap_avx2(const sc_wrap_box *b, const sc_src4 *s, size_t k0, size_t k1, size_t pos0,
                    double *rows, uint32_t *band, sc_wrap_found *f)
    __attribute__((visibility("hidden")));

#endif /* SC_WRAP_H */
