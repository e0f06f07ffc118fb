/*
 * load4_scalar.h: load4_avx2.h's steps one lane at a time, for the scalar
 * references of the four-at-a-time passes (wrap_scalar.c,
 * filter_scalar.c): the same values (float widened exactly), the same
 * checks and the same wrap, expression for expression.
 */
#ifndef SC_LOAD4_SCALAR_H
#define SC_LOAD4_SCALAR_H

#include <math.h>
#include <stdbool.h>

#include "src4.h"

/* Sphere k's centre and radius, as double. */
static inline void sc_load1(const sc_src4 *s, size_t k, double c[3], double *r) {
    const char *p[4] = {s->x + k * s->stride, s->y + k * s->stride, s->z + k * s->stride,
                        s->r + k * s->rstride};
    double v[4];
    for (int a = 0; a < 4; a++)
        v[a] = s->f64 ? *(const double *)(const void *)p[a]
                      : (double)*(const float *)(const void *)p[a];
    c[0] = v[0];
    c[1] = v[1];
    c[2] = v[2];
    *r = v[3];
}

/* sc_load4_taken with no box test: valid as the bounds stage has it
 * (|v| <= 1e150, which NaN fails too) and 0 <= r <= limit. */
static inline bool sc_load1_valid(const double c[3], double r, double limit) {
    return r >= 0.0 && r <= limit && fabs(c[0]) <= 1e150 && fabs(c[1]) <= 1e150 &&
           fabs(c[2]) <= 1e150;
}

/* sc_load4_wrap's lane: x wrapped into [lo, hi) as sc_wrap_x has it. */
static inline double sc_load1_wrap(double x, double lo, double hi, double period) {
    if (x >= lo && x < hi)
        return x;
    const double t = x - floor((x - lo) / period) * period;
    return t < lo || t >= hi ? lo : t;
}

#endif /* SC_LOAD4_SCALAR_H */
