/*
 * boxfilter_avx2.c: the box filter (boxfilter.h) with SIMDe AVX2, eight
 * candidate boxes per iteration; the few survivors' lanes are listed in
 * order from the mask. Same list and stop as the scalar reference.
 */
#include <simde/x86/avx2.h>

#include "boxfilter.h"

uint32_t sc_boxfilter_avx2(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[5],
                           uint32_t *out, uint32_t *stop) {
    const simde__m256 qx1 = simde_mm256_set1_ps(q[0]);
    const simde__m256 qy0 = simde_mm256_set1_ps(q[1]), qy1 = simde_mm256_set1_ps(q[2]);
    const simde__m256 qz0 = simde_mm256_set1_ps(q[3]), qz1 = simde_mm256_set1_ps(q[4]);
    uint32_t m = 0, j = j0;
    for (; j < j1 && b->xlo[j] <= q[0]; j += 8) {
        const simde__m256 x = simde_mm256_cmp_ps(simde_mm256_loadu_ps(b->xlo + j), qx1, SIMDE_CMP_LE_OQ);
        const simde__m256 a = simde_mm256_cmp_ps(simde_mm256_loadu_ps(b->ylo + j), qy1, SIMDE_CMP_LE_OQ);
        const simde__m256 c = simde_mm256_cmp_ps(simde_mm256_loadu_ps(b->yhi + j), qy0, SIMDE_CMP_GE_OQ);
        const simde__m256 d = simde_mm256_cmp_ps(simde_mm256_loadu_ps(b->zlo + j), qz1, SIMDE_CMP_LE_OQ);
        const simde__m256 e = simde_mm256_cmp_ps(simde_mm256_loadu_ps(b->zhi + j), qz0, SIMDE_CMP_GE_OQ);
        unsigned mask = (unsigned)simde_mm256_movemask_ps(simde_mm256_and_ps(
            x, simde_mm256_and_ps(simde_mm256_and_ps(a, c), simde_mm256_and_ps(d, e))));
        if (j1 - j < 8)
            mask &= (1u << (j1 - j)) - 1u; /* lanes past the run */
        while (mask) {
            out[m++] = j + (uint32_t)__builtin_ctz(mask);
            mask &= mask - 1u;
        }
    }
    *stop = j < j1 ? j : j1;
    return m;
}
