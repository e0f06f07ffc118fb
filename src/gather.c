/*
 * gather.c: the working copy every peer searches. x, y, z, r of the
 * spheres in the peer's order (index[k] is the input index of working
 * sphere k; an index may repeat where a peer copies a sphere into several
 * leaves), as double, padded by SC_PAD zeros so a SIMD kernel may read a
 * whole vector past the end. Random reads of the input, streaming writes.
 */
#include "internal.h"

void sc_gather(const sc_view *v, const uint32_t *index, size_t n, sc_work *w) {
    w->n = n;
    w->index = index;
    if (v->f64 && v->stride == 4 * sizeof(double) && v->z && v->y == v->x + sizeof(double) &&
        v->z == v->x + 2 * sizeof(double) && v->r == v->x + 3 * sizeof(double) && v->rstride == v->stride) {
        /* Rows of (x, y, z, r): one 32-byte record per sphere, one cache line. */
        const double *rows = (const double *)(const void *)v->x;
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < n; k++) {
            /* The input is read in random order: ask for it ahead of time. */
            if (k + 16 < n)
                __builtin_prefetch(rows + 4 * (size_t)index[k + 16]);
            const double *s = rows + 4 * (size_t)index[k];
            w->x[k] = s[0];
            w->y[k] = s[1];
            w->z[k] = s[2];
            w->r[k] = s[3];
        }
    } else {
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < n; k++) {
            const size_t s = index[k];
            w->x[k] = sc_view_get(v, v->x, s);
            w->y[k] = sc_view_get(v, v->y, s);
            w->z[k] = v->z ? sc_view_get(v, v->z, s) : 0.0;
            w->r[k] = sc_view_r(v, s);
        }
    }
    for (size_t k = n; k < n + SC_PAD; k++)
        w->x[k] = w->y[k] = w->z[k] = w->r[k] = 0.0;
}
