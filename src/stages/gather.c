/*
 * gather.c: the working copy every peer searches. x, y, z, r of the
 * spheres in the peer's order (index[k] is the input index of working
 * sphere k; an index may repeat where a peer copies a sphere into several
 * leaves), as double, padded by SC_PAD zeros so a SIMD kernel may read a
 * whole vector past the end. Random reads of the input, streaming writes.
 */
#include "internal.h"

#include <stdbool.h>

/* Any other layout, double or float (f64 a constant where it is
 * inlined): each value read at its stride without the view's type test
 * per value, each sphere's values fetched ahead as the rows' records
 * are. */
static inline void gather_strided(const sc_view *v, const uint32_t *index, size_t n, sc_work *w,
                                  bool f64) {
    const char *px = v->x, *py = v->y, *pz = v->z, *pr = v->r;
    const size_t st = v->stride, rst = v->rstride;
#define LOAD(p)                                                                                    \
    (f64 ? *(const double *)(const void *)(p) : (double)*(const float *)(const void *)(p))
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        if (k + 16 < n) { /* each array's line: the same one for rows */
            const size_t a = index[k + 16];
            __builtin_prefetch(px + a * st);
            __builtin_prefetch(py + a * st);
            if (pz)
                __builtin_prefetch(pz + a * st);
            __builtin_prefetch(pr + a * rst);
        }
        const size_t s = index[k];
        w->x[k] = LOAD(px + s * st);
        w->y[k] = LOAD(py + s * st);
        w->z[k] = pz ? LOAD(pz + s * st) : 0.0;
        w->r[k] = LOAD(pr + s * rst);
    }
#undef LOAD
}

void sc_gather(const sc_view *v, const uint32_t *index, size_t n, sc_work *w) {
    w->n = n;
    w->index = index;
    const size_t st = v->stride;
    if (v->f64 && v->z && v->y == v->x + sizeof(double) && v->z == v->x + 2 * sizeof(double) &&
        v->r == v->x + 3 * sizeof(double) && v->rstride == st && st >= 4 * sizeof(double)) {
        /* (x, y, z, r) side by side in each record: 32-byte rows, or a
         * caller's larger struct (an id beside them). The four values may
         * straddle two lines; both are asked for ahead of time, as the
         * input is read in random order. */
        const char *rows = v->x;
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < n; k++) {
            if (k + 32 < n) {
                const char *a = rows + st * index[k + 32];
                __builtin_prefetch(a);
                __builtin_prefetch(a + 3 * sizeof(double));
            }
            const double *s = (const double *)(const void *)(rows + st * index[k]);
            w->x[k] = s[0];
            w->y[k] = s[1];
            w->z[k] = s[2];
            w->r[k] = s[3];
        }
    } else if (v->f64) {
        gather_strided(v, index, n, w, true);
    } else {
        gather_strided(v, index, n, w, false);
    }
    for (size_t k = n; k < n + SC_PAD; k++)
        w->x[k] = w->y[k] = w->z[k] = w->r[k] = 0.0;
}
