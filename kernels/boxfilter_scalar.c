/*
 * boxfilter_scalar.c: the reference box filter (boxfilter.h), built
 * without auto-vectorisation. It walks in steps of eight like the SIMD
 * version, so both stop at the same place and list the same candidates.
 */
#include "boxfilter.h"

uint32_t sc_boxfilter_scalar(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[5],
                             uint32_t *out, uint32_t *stop) {
    uint32_t m = 0, j = j0;
    for (; j < j1 && b->xlo[j] <= q[0]; j += 8) {
        const uint32_t e = j1 - j < 8 ? j1 : j + 8;
        for (uint32_t k = j; k < e; k++) {
            const int hit = b->xlo[k] <= q[0] && b->ylo[k] <= q[2] && b->yhi[k] >= q[1] &&
                            b->zlo[k] <= q[4] && b->zhi[k] >= q[3];
            out[m] = k;
            m += (uint32_t)hit;
        }
    }
    *stop = j < j1 ? j : j1;
    return m;
}
