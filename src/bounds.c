/*
 * bounds.c: stage 1. Takes the caller's view; validates every value (finite,
 * |v| <= SC_MAX_ABS_VALUE, r >= 0) and produces the centre bounds and the
 * radius range. One parallel streaming pass: O(n) reads, no writes.
 * On bad data the first offending sphere (lowest index) is reported, the
 * same for every thread count.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

typedef struct partial {
    double lo[3], hi[3], rmin, rmax;
    size_t bad;
    sc_status st;
} partial;

/* Octave of r from its exponent bits (no libm call in the hot loop);
 * subnormals share the lowest octave bin, zero and non-finite go to bin 0. */
static int exp_bin(double r) {
    uint64_t bits;
    memcpy(&bits, &r, sizeof bits);
    const int biased = (int)((bits >> 52) & 0x7ff);
    if (!(r > 0.0) || biased == 0x7ff)
        return 0;
    int e = (biased ? biased - 1023 : -1023) - SC_EXP_MIN;
    return e < 1 ? 1 : e >= SC_EXP_BINS ? SC_EXP_BINS - 1 : e;
}

static sc_status check_value(double v) {
    if (!isfinite(v))
        return SC_ERR_NON_FINITE;
    if (fabs(v) > SC_MAX_ABS_VALUE)
        return SC_ERR_OUT_OF_RANGE;
    return SC_OK;
}

static sc_status check_sphere(const double p[3], double r) {
    for (int a = 0; a < 3; a++) {
        sc_status st = check_value(p[a]);
        if (st != SC_OK)
            return st;
    }
    sc_status st = check_value(r);
    if (st != SC_OK)
        return st;
    return r < 0 ? SC_ERR_NEGATIVE_RADIUS : SC_OK;
}

sc_status sc_bounds_compute(const sc_view *v, sc_bounds *b) {
    const size_t n = v->n;
    partial all = {{HUGE_VAL, HUGE_VAL, HUGE_VAL}, {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL},
                   HUGE_VAL, -HUGE_VAL, SIZE_MAX, SC_OK};
    memset(b->rexp, 0, sizeof b->rexp);
#pragma omp parallel
    {
        partial my = all;
        uint64_t rexp[SC_EXP_BINS];
        memset(rexp, 0, sizeof rexp);
#pragma omp for schedule(static) nowait
        for (size_t k = 0; k < n; k++) {
            double p[3] = {sc_view_get(v, v->x, k), sc_view_get(v, v->y, k),
                           v->z ? sc_view_get(v, v->z, k) : 0.0};
            double r = sc_view_get(v, v->r, k);
            /* fmin/fmax would hide NaN; the check below catches it. */
            for (int a = 0; a < 3; a++) {
                my.lo[a] = p[a] < my.lo[a] ? p[a] : my.lo[a];
                my.hi[a] = p[a] > my.hi[a] ? p[a] : my.hi[a];
            }
            my.rmin = r < my.rmin ? r : my.rmin;
            my.rmax = r > my.rmax ? r : my.rmax;
            rexp[exp_bin(r)]++;
            if (k < my.bad) {
                sc_status st = check_sphere(p, r);
                if (st != SC_OK) {
                    my.bad = k;
                    my.st = st;
                }
            }
        }
#pragma omp critical(sc_bounds_merge)
        {
            for (int a = 0; a < 3; a++) {
                all.lo[a] = my.lo[a] < all.lo[a] ? my.lo[a] : all.lo[a];
                all.hi[a] = my.hi[a] > all.hi[a] ? my.hi[a] : all.hi[a];
            }
            all.rmin = my.rmin < all.rmin ? my.rmin : all.rmin;
            all.rmax = my.rmax > all.rmax ? my.rmax : all.rmax;
            if (my.bad < all.bad) {
                all.bad = my.bad;
                all.st = my.st;
            }
            for (int e = 0; e < SC_EXP_BINS; e++)
                b->rexp[e] += rexp[e];
        }
    }
    for (int a = 0; a < 3; a++) {
        b->lo[a] = n ? all.lo[a] : 0.0;
        b->hi[a] = n ? all.hi[a] : 0.0;
    }
    b->rmin = n ? all.rmin : 0.0;
    b->rmax = n ? all.rmax : 0.0;
    b->bad_index = all.bad;
    b->n = n;
    return all.st;
}
