/*
 * boxfilter_scalar.c: the reference box filters (boxfilter.h), built
 * without auto-vectorisation: one box at a time, stopping at the first box
 * that starts past box i's end.
 */
#include "boxfilter.h"

uint32_t sc_boxfilter_scalar(const sc_fbox *b, uint32_t i, uint32_t j0, uint32_t j1, uint32_t *out,
                             int *done) {
    const float x1 = b->xhi[i], y0 = b->ylo[i], y1 = b->yhi[i], z0 = b->zlo[i], z1 = b->zhi[i];
    uint32_t m = 0;
    *done = 0;
    for (uint32_t k = j0; k < j1; k++) {
        if (b->xlo[k] > x1) {
            *done = 1;
            break;
        }
        const int hit = b->ylo[k] <= y1 && b->yhi[k] >= y0 && b->zlo[k] <= z1 && b->zhi[k] >= z0;
        out[m] = k;
        m += (uint32_t)hit;
    }
    return m;
}

uint32_t sc_boxfilter16_scalar(const sc_fbox *b, uint32_t i, uint32_t j0, uint32_t j1,
                               uint32_t *out, int *done) {
    const float x1 = b->xhi[i];
    const int16_t y0 = b->qylo[i], y1 = b->qyhi[i], z0 = b->qzlo[i], z1 = b->qzhi[i];
    uint32_t m = 0;
    *done = 0;
    for (uint32_t k = j0; k < j1; k++) {
        if (b->xlo[k] > x1) {
            *done = 1;
            break;
        }
        const int hit =
            b->qylo[k] <= y1 && b->qyhi[k] >= y0 && b->qzlo[k] <= z1 && b->qzhi[k] >= z0;
        out[m] = k;
        m += (uint32_t)hit;
    }
    return m;
}
