/*
 * kernel_f32.c: a float32 narrowphase prototype for the study (docs/study.md,
 * experiments 3(d) and 5), not used by the engine. It answers: how much
 * faster are candidate tests on a float32 working copy (16 bytes per sphere,
 * eight lanes), and what share of them must be decided again in double?
 *
 * Eight lanes: the block's four home spheres twice, against two candidates
 * at a time. Each test computes d2 and s*s in float32 from coordinates stored
 * relative to an origin; a lane whose float32 margin |d2 - s*s| is within the
 * error bound `band` is decided again from the double copy with the oracle's
 * exact expression, every other lane by its float32 sign. So the pairs equal
 * the double kernel's, in the same order (kernel_bench checks that).
 *
 * The bound (u = 2^-24; L bounds |coordinate - origin|; s~ is the float32
 * sum of radii): every stored coordinate is off by at most u L, so each
 * difference by at most 4.01 u L (|dx| <= 2 L), each square by
 * 4.01 u L (4 L + 4.01 u L), and the float sums add 3.01 u (2.01 L)^2 per
 * axis: |d2~ - d2| <= 85 u L^2. The radii sum and its square are off by at
 * most 5.1 u s~^2, and the double oracle itself by under 4 * 2^-53 (d2 + s^2).
 * band = 128 u L^2 + 16 u (d2~ + s~^2) covers all of it with room for the
 * float32 rounding of the band and of the margin.
 */
#include <simde/x86/avx2.h>

#include "kernel_f32.h"
#include "emit4.h"

/* The oracle's predicate, in double. */
static inline unsigned exact(const sc_f32_args *a, uint32_t i, uint32_t j) {
    const double dx = a->x[i] - a->x[j], dy = a->y[i] - a->y[j], dz = a->z[i] - a->z[j];
    const double d2 = (dx * dx + dy * dy) + dz * dz;
    const double s = a->r[i] + a->r[j];
    return d2 <= s * s;
}

static inline simde__m256 pair_of(const float *v, uint32_t j0, uint32_t j1) {
    return simde_mm256_set_m128(simde_mm_set1_ps(v[j1]), simde_mm_set1_ps(v[j0]));
}

uint64_t sc_proto_f32(const sc_f32_args *a, sc_hits *hits, uint64_t *rechecked) {
    const uint32_t i0 = a->i0;
    const simde__m128 x4 = simde_mm_loadu_ps(a->xf + i0), y4 = simde_mm_loadu_ps(a->yf + i0);
    const simde__m128 z4 = simde_mm_loadu_ps(a->zf + i0), r4 = simde_mm_loadu_ps(a->rf + i0);
    const simde__m256 hx = simde_mm256_set_m128(x4, x4), hy = simde_mm256_set_m128(y4, y4);
    const simde__m256 hz = simde_mm256_set_m128(z4, z4), hr = simde_mm256_set_m128(r4, r4);
    const simde__m256 babs = simde_mm256_set1_ps(a->band_abs),
                      brel = simde_mm256_set1_ps(a->band_rel);
    const simde__m256 signbit = simde_mm256_set1_ps(-0.0f);
    const simde__m256i vi0 = sc_emit4_base(i0);
    const uint32_t *cand = a->cand;
    const uint32_t m = a->ncand; /* even */
    uint64_t again = 0;
    for (uint32_t k0 = 0; k0 < m; k0 += 256) {
        const uint32_t k1 = m - k0 > 256 ? k0 + 256 : m;
        sc_hits_reserve(hits, 4 * (size_t)(k1 - k0) + 4);
        uint32_t *const start = hits->pairs + 2 * hits->count;
        uint32_t *out = start;
        for (uint32_t k = k0; k < k1; k += 2) {
            const uint32_t j0 = cand[k], j1 = cand[k + 1];
            const simde__m256 dx = simde_mm256_sub_ps(hx, pair_of(a->xf, j0, j1));
            const simde__m256 dy = simde_mm256_sub_ps(hy, pair_of(a->yf, j0, j1));
            const simde__m256 dz = simde_mm256_sub_ps(hz, pair_of(a->zf, j0, j1));
            const simde__m256 s = simde_mm256_add_ps(hr, pair_of(a->rf, j0, j1));
            simde__m256 d2 =
                simde_mm256_add_ps(simde_mm256_mul_ps(dx, dx), simde_mm256_mul_ps(dy, dy));
            d2 = simde_mm256_add_ps(d2, simde_mm256_mul_ps(dz, dz));
            const simde__m256 s2 = simde_mm256_mul_ps(s, s);
            const simde__m256 t = simde_mm256_sub_ps(d2, s2);
            const simde__m256 band =
                simde_mm256_add_ps(babs, simde_mm256_mul_ps(brel, simde_mm256_add_ps(d2, s2)));
            unsigned in = (unsigned)simde_mm256_movemask_ps(
                simde_mm256_cmp_ps(t, simde_mm256_xor_ps(band, signbit), SIMDE_CMP_LT_OQ));
            const unsigned unsure = (unsigned)simde_mm256_movemask_ps(
                simde_mm256_cmp_ps(simde_mm256_andnot_ps(signbit, t), band, SIMDE_CMP_LE_OQ));
            if (__builtin_expect(unsure != 0, 0)) {
                for (unsigned u = unsure; u; u &= u - 1) {
                    const unsigned lane = (unsigned)__builtin_ctz(u);
                    in |= exact(a, i0 + (lane & 3u), lane < 4 ? j0 : j1) << lane;
                    again++;
                }
            }
            out = sc_emit4(out, vi0, j0, in & 15u);
            out = sc_emit4(out, vi0, j1, in >> 4);
        }
        hits->count += (size_t)(out - start) / 2;
    }
    *rechecked += again;
    return (uint64_t)m * 4;
}
