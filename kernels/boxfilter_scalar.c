/*
 * boxfilter_scalar.c: the reference box filter (boxfilter.h), built
 * without auto-vectorisation.
 */
#include "boxfilter.h"

uint32_t sc_boxfilter_scalar(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[4],
                             uint32_t *out) {
    uint32_t m = 0;
    for (uint32_t j = j0; j < j1; j++) {
        const int hit = b->ylo[j] <= q[1] && b->yhi[j] >= q[0] && b->zlo[j] <= q[3] && b->zhi[j] >= q[2];
        out[m] = j;
        m += (uint32_t)hit;
    }
    return m;
}
