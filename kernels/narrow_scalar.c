/*
 * narrow_scalar.c: the plain C reference narrowphase, always built, compiled
 * without auto-vectorisation so it stays the scalar baseline. It is the
 * definition every SIMD kernel must match pair for pair, in the same order.
 */
#include "kernel.h"

/* Tests candidate j against the home lanes in `lanes`. */
static uint64_t test_candidate(const sc_kernel_args *a, uint32_t j, unsigned lanes, sc_hits *hits) {
    const double *X = a->x, *Y = a->y, *Z = a->z, *R = a->r;
    const double xj = X[j], yj = Y[j], zj = Z[j], rj = R[j];
    uint64_t tests = 0;
    sc_hits_reserve(hits, SC_BLOCK);
    for (uint32_t k = 0; k < a->ni; k++) {
        if (!(lanes >> k & 1u))
            continue;
        const uint32_t i = a->i0 + k;
        tests++;
        const double dx = X[i] - xj, dy = Y[i] - yj, dz = Z[i] - zj;
        const double d2 = (dx * dx + dy * dy) + dz * dz;
        const double s = R[i] + rj;
        if (d2 <= s * s) {
            hits->pairs[2 * hits->count] = i;
            hits->pairs[2 * hits->count + 1] = j;
            hits->count++;
        }
    }
    return tests;
}

uint64_t sc_narrow_scalar(const sc_kernel_args *a, sc_hits *hits) {
    uint64_t tests = 0;
    for (uint32_t t = 1; t < SC_BLOCK; t++) {
        const unsigned lanes = sc_tri_lanes(a, t);
        if (lanes)
            tests += test_candidate(a, a->i0 + t, lanes, hits);
    }
    const unsigned all = (1u << a->ni) - 1u;
    for (uint32_t k = 0; k < a->ncand; k++)
        tests += test_candidate(a, a->cand[k], all, hits);
    return tests;
}
