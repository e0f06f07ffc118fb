/*
 * kernel_f32.h: the float32 narrowphase prototype of the study
 * (bench/kernel_f32.c); kernel_bench measures it against the engine's double
 * kernels. Not part of the library.
 */
#ifndef SC_KERNEL_F32_H
#define SC_KERNEL_F32_H

#include "kernel.h"

typedef struct sc_f32_args {
    const float *xf, *yf, *zf, *rf; /* float32 copy, coordinates minus an origin */
    const double *x, *y, *z, *r;    /* the double copy, for the recheck */
    uint32_t i0;                    /* home block i0 .. i0 + 3 (always 4 here) */
    const uint32_t *cand;           /* candidates, an even count */
    uint32_t ncand;
    float band_abs, band_rel; /* recheck when |d2 - s^2| <= abs + rel (d2 + s^2) */
} sc_f32_args;

/* Same pairs in the same order as sc_narrow_avx2 on a full block without an
 * own-row triangle; adds the lanes decided in double to *rechecked. Returns
 * the candidate tests run. */
uint64_t sc_proto_f32(const sc_f32_args *a, sc_hits *hits, uint64_t *rechecked);

#endif
