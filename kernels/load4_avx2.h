/*
 * load4_avx2.h: four 3-D spheres from a caller's view, double or float
 * (widened, exactly), as lanes of double (SIMDe AVX2), for the passes that
 * read the caller's spheres four at a time (wrap_avx2.c, filter_avx2.c).
 * Rows (x, y, z, r) load whole and transpose; separate arrays load four
 * values each; other strides are gathered (gathers alone were slower than
 * scalar loads on the EPYC we measure on, so the common layouts avoid
 * them).
 */
#ifndef SC_LOAD4_AVX2_H
#define SC_LOAD4_AVX2_H

#include <simde/x86/avx2.h>
#include <stdbool.h>
#include <stddef.h>

#include "src4.h"

typedef struct sc_load4 {
    const char *x, *y, *z, *r; /* the caller's values */
    size_t stride, rstride;    /* bytes */
    bool f64;                  /* double, else float (widened, exactly) */
    bool rows, soa;            /* the layouts with their own loads */
    simde__m256i at, rat;      /* the gather's offsets */
} sc_load4;

static inline sc_load4 sc_load4_plan(const sc_src4 *s) {
    const char *x = s->x, *y = s->y, *z = s->z, *r = s->r;
    const size_t stride = s->stride, rstride = s->rstride;
    const int64_t st = (int64_t)stride, rst = (int64_t)rstride;
    const size_t es = s->f64 ? sizeof(double) : sizeof(float);
    sc_load4 l = {x,
                  y,
                  z,
                  r,
                  stride,
                  rstride,
                  s->f64,
                  stride == 4 * es && rstride == stride && y == x + es && z == x + 2 * es &&
                      r == x + 3 * es,
                  stride == es && rstride == es,
                  simde_mm256_set_epi64x(3 * st, 2 * st, st, 0),
                  simde_mm256_set_epi64x(3 * rst, 2 * rst, rst, 0)};
    return l;
}

/* Spheres k .. k + 3 of float input, widened. Rows of (x, y, z, r) floats
 * load as four 16-byte rows and transpose. */
static inline void sc_load4_f32(const sc_load4 *l, size_t k, simde__m256d c[3], simde__m256d *r) {
    simde__m128 v[4];
    if (l->rows) {
        const float *p = (const float *)(const void *)(l->x + k * 16);
        __builtin_prefetch(p + 128); /* four blocks (512 bytes) ahead */
        const simde__m128 q0 = simde_mm_loadu_ps(p), q1 = simde_mm_loadu_ps(p + 4),
                          q2 = simde_mm_loadu_ps(p + 8), q3 = simde_mm_loadu_ps(p + 12);
        const simde__m128 t0 = simde_mm_unpacklo_ps(q0, q1); /* x0 x1 y0 y1 */
        const simde__m128 t1 = simde_mm_unpackhi_ps(q0, q1); /* z0 z1 r0 r1 */
        const simde__m128 t2 = simde_mm_unpacklo_ps(q2, q3); /* x2 x3 y2 y3 */
        const simde__m128 t3 = simde_mm_unpackhi_ps(q2, q3); /* z2 z3 r2 r3 */
        v[0] = simde_mm_movelh_ps(t0, t2);
        v[1] = simde_mm_movehl_ps(t2, t0);
        v[2] = simde_mm_movelh_ps(t1, t3);
        v[3] = simde_mm_movehl_ps(t3, t1);
    } else if (l->soa) {
        v[0] = simde_mm_loadu_ps((const float *)(const void *)(l->x + k * 4));
        v[1] = simde_mm_loadu_ps((const float *)(const void *)(l->y + k * 4));
        v[2] = simde_mm_loadu_ps((const float *)(const void *)(l->z + k * 4));
        v[3] = simde_mm_loadu_ps((const float *)(const void *)(l->r + k * 4));
    } else {
        v[0] =
            simde_mm256_i64gather_ps((const float *)(const void *)(l->x + k * l->stride), l->at, 1);
        v[1] =
            simde_mm256_i64gather_ps((const float *)(const void *)(l->y + k * l->stride), l->at, 1);
        v[2] =
            simde_mm256_i64gather_ps((const float *)(const void *)(l->z + k * l->stride), l->at, 1);
        v[3] = simde_mm256_i64gather_ps((const float *)(const void *)(l->r + k * l->rstride),
                                        l->rat, 1);
    }
    for (int a = 0; a < 3; a++)
        c[a] = simde_mm256_cvtps_pd(v[a]);
    *r = simde_mm256_cvtps_pd(v[3]);
}

/* Spheres k .. k + 3: centres c[0..2] and radii r, as double. */
static inline void sc_load4_at(const sc_load4 *l, size_t k, simde__m256d c[3], simde__m256d *r) {
    if (!l->f64) {
        sc_load4_f32(l, k, c, r);
        return;
    }
    if (l->rows) {
        const double *p = (const double *)(const void *)(l->x + k * 32);
        /* both lines of the group 16 groups (2 KiB) ahead: fetching one
         * line in two left the other to the hardware, and the pass waited */
        __builtin_prefetch(p + 256);
        __builtin_prefetch(p + 264);
        const simde__m256d q0 = simde_mm256_loadu_pd(p), q1 = simde_mm256_loadu_pd(p + 4),
                           q2 = simde_mm256_loadu_pd(p + 8), q3 = simde_mm256_loadu_pd(p + 12);
        const simde__m256d u0 = simde_mm256_unpacklo_pd(q0, q1); /* x0 x1 z0 z1 */
        const simde__m256d u1 = simde_mm256_unpackhi_pd(q0, q1); /* y0 y1 r0 r1 */
        const simde__m256d u2 = simde_mm256_unpacklo_pd(q2, q3); /* x2 x3 z2 z3 */
        const simde__m256d u3 = simde_mm256_unpackhi_pd(q2, q3); /* y2 y3 r2 r3 */
        c[0] = simde_mm256_permute2f128_pd(u0, u2, 0x20);
        c[1] = simde_mm256_permute2f128_pd(u1, u3, 0x20);
        c[2] = simde_mm256_permute2f128_pd(u0, u2, 0x31);
        *r = simde_mm256_permute2f128_pd(u1, u3, 0x31);
    } else if (l->soa) {
        c[0] = simde_mm256_loadu_pd((const double *)(const void *)(l->x + k * 8));
        c[1] = simde_mm256_loadu_pd((const double *)(const void *)(l->y + k * 8));
        c[2] = simde_mm256_loadu_pd((const double *)(const void *)(l->z + k * 8));
        *r = simde_mm256_loadu_pd((const double *)(const void *)(l->r + k * 8));
    } else {
        c[0] = simde_mm256_i64gather_pd((const double *)(const void *)(l->x + k * l->stride), l->at,
                                        1);
        c[1] = simde_mm256_i64gather_pd((const double *)(const void *)(l->y + k * l->stride), l->at,
                                        1);
        c[2] = simde_mm256_i64gather_pd((const double *)(const void *)(l->z + k * l->stride), l->at,
                                        1);
        *r = simde_mm256_i64gather_pd((const double *)(const void *)(l->r + k * l->rstride), l->rat,
                                      1);
    }
}

/* The lanes whose sphere the reference passes would take as they are:
 * valid as the bounds stage checks it (|v| <= 1e150, SC_MAX_ABS_VALUE,
 * which NaN fails too), 0 <= r <= limit, and inside [lo, hi) on the
 * periodic axes (where the reference's wrap leaves a centre as it is). */
static inline simde__m256d sc_load4_taken(const simde__m256d c[3], simde__m256d r,
                                          simde__m256d limit, const int periodic[3],
                                          const simde__m256d lo[3], const simde__m256d hi[3]) {
    const simde__m256d sign = simde_mm256_set1_pd(-0.0), amax = simde_mm256_set1_pd(1e150);
    simde__m256d ok =
        simde_mm256_and_pd(simde_mm256_cmp_pd(r, simde_mm256_setzero_pd(), SIMDE_CMP_GE_OQ),
                           simde_mm256_cmp_pd(r, limit, SIMDE_CMP_LE_OQ));
    for (int a = 0; a < 3; a++) {
        ok = simde_mm256_and_pd(
            ok, simde_mm256_cmp_pd(simde_mm256_andnot_pd(sign, c[a]), amax, SIMDE_CMP_LE_OQ));
        if (periodic[a])
            ok = simde_mm256_and_pd(
                ok, simde_mm256_and_pd(simde_mm256_cmp_pd(c[a], lo[a], SIMDE_CMP_GE_OQ),
                                       simde_mm256_cmp_pd(c[a], hi[a], SIMDE_CMP_LT_OQ)));
    }
    return ok;
}

/* Centres wrapped into [lo, hi) on the periodic axes as sc_wrap_x has it,
 * operation for operation (the kernels' build turns off FMA contraction):
 * a lane outside becomes x - floor((x - lo) / L) L, or lo where that rounds
 * outside; period = L, the box's hi - lo. Valid centres (finite). */
static inline void sc_load4_wrap(simde__m256d c[3], const int periodic[3], const simde__m256d lo[3],
                                 const simde__m256d hi[3], const simde__m256d period[3]) {
    for (int a = 0; a < 3; a++) {
        if (!periodic[a])
            continue;
        const simde__m256d in =
            simde_mm256_and_pd(simde_mm256_cmp_pd(c[a], lo[a], SIMDE_CMP_GE_OQ),
                               simde_mm256_cmp_pd(c[a], hi[a], SIMDE_CMP_LT_OQ));
        if (simde_mm256_movemask_pd(in) == 0xF)
            continue;
        simde__m256d t = simde_mm256_sub_pd(
            c[a], simde_mm256_mul_pd(simde_mm256_floor_pd(simde_mm256_div_pd(
                                         simde_mm256_sub_pd(c[a], lo[a]), period[a])),
                                     period[a]));
        const simde__m256d out = simde_mm256_or_pd(simde_mm256_cmp_pd(t, lo[a], SIMDE_CMP_LT_OQ),
                                                   simde_mm256_cmp_pd(t, hi[a], SIMDE_CMP_GE_OQ));
        t = simde_mm256_blendv_pd(t, lo[a], out);
        c[a] = simde_mm256_blendv_pd(t, c[a], in);
    }
}

#endif /* SC_LOAD4_AVX2_H */
