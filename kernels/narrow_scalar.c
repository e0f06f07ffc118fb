/*
 * narrow_scalar.c: the plain C reference narrowphase, always built, compiled
 * without auto-vectorisation so it stays the scalar baseline. It is the
 * definition every SIMD kernel must match pair for pair.
 */
#include "kernel.h"

uint64_t sc_narrow_scalar(const sc_kernel_args *a, sc_hits *hits) {
    const double *X = a->x, *Y = a->y, *Z = a->z, *R = a->r;
    uint64_t tests = 0;
    for (int k = 0; k < a->nranges; k++) {
        const sc_range rg = a->ranges[k];
        for (uint32_t i = a->a0; i < a->a1; i++) {
            const double xi = X[i], yi = Y[i], zi = Z[i], ri = R[i];
            uint32_t j = rg.j0;
            if (rg.tri && j <= i)
                j = i + 1;
            while (j < rg.j1) {
                uint32_t end = rg.j1 - j > SC_KERNEL_BLOCK ? j + SC_KERNEL_BLOCK : rg.j1;
                sc_hits_reserve(hits, end - j);
                uint32_t *out = hits->pairs + 2 * hits->count;
                size_t found = 0;
                tests += end - j;
                for (; j < end; j++) {
                    const double dx = xi - X[j], dy = yi - Y[j], dz = zi - Z[j];
                    const double d2 = (dx * dx + dy * dy) + dz * dz;
                    const double s = ri + R[j];
                    if (d2 <= s * s) {
                        out[2 * found] = i;
                        out[2 * found + 1] = j;
                        found++;
                    }
                }
                hits->count += found;
            }
        }
    }
    return tests;
}
