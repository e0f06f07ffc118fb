/*
 * boxfilter_avx2.c: the box filters (boxfilter.h) with SIMDe AVX2. Since
 * the boxes are sorted by their start on x, a run of 16 whose last box
 * starts before box i ends needs no x test: the main loops test y and z
 * only and list the rare survivors from the mask. In the one block where
 * the sweep or [j0, j1) ends, a survivor is listed only while it lies in
 * the range and starts before box i ends (both hold for a prefix of the
 * block). Same lists and flags as the scalar references.
 */
#include <simde/x86/avx2.h>

#include "boxfilter.h"

/* the last block, at j: survivors in lane order from `mask`, which holds
 * `width` bits per lane */
static inline uint32_t list_tail(const sc_fbox *b, float x1, uint32_t j, uint32_t j1, uint32_t mask,
                                 int width, uint32_t *out, uint32_t m, int *done) {
    const uint32_t lanes = j1 - j < 16 ? j1 - j : 16;
    *done = b->xlo[j + lanes - 1] > x1;
    while (mask) {
        const uint32_t t = (uint32_t)__builtin_ctz(mask) / (uint32_t)width;
        if (t >= lanes || b->xlo[j + t] > x1)
            break;
        out[m++] = j + t;
        mask &= ~(((1u << width) - 1u) << (t * (uint32_t)width));
    }
    return m;
}

/* ---- float boxes: 8 per register ----------------------------------------- */
/* lanes of block j (boxes j .. j+7) that overlap box i on y and z */
#define YZ_MASK(j)                                                                                 \
    ((unsigned)simde_mm256_movemask_ps(simde_mm256_and_ps(                                         \
        simde_mm256_and_ps(                                                                        \
            simde_mm256_cmp_ps(simde_mm256_loadu_ps(ylo + (j)), qy1, SIMDE_CMP_LE_OQ),             \
            simde_mm256_cmp_ps(simde_mm256_loadu_ps(yhi + (j)), qy0, SIMDE_CMP_GE_OQ)),            \
        simde_mm256_and_ps(                                                                        \
            simde_mm256_cmp_ps(simde_mm256_loadu_ps(zlo + (j)), qz1, SIMDE_CMP_LE_OQ),             \
            simde_mm256_cmp_ps(simde_mm256_loadu_ps(zhi + (j)), qz0, SIMDE_CMP_GE_OQ)))))

static inline uint32_t list_lanes(unsigned mask, uint32_t j, uint32_t *out, uint32_t m) {
    while (mask) {
        out[m++] = j + (uint32_t)__builtin_ctz(mask);
        mask &= mask - 1u;
    }
    return m;
}

uint32_t sc_boxfilter_avx2(const sc_fbox *b, uint32_t i, uint32_t j0, uint32_t j1, uint32_t *out,
                           int *done) {
    /* local copies: the stores to out must not make the compiler reload them */
    const float *const xlo = b->xlo, *const ylo = b->ylo, *const yhi = b->yhi;
    const float *const zlo = b->zlo, *const zhi = b->zhi;
    const float x1 = b->xhi[i];
    const simde__m256 qy0 = simde_mm256_set1_ps(ylo[i]), qy1 = simde_mm256_set1_ps(yhi[i]);
    const simde__m256 qz0 = simde_mm256_set1_ps(zlo[i]), qz1 = simde_mm256_set1_ps(zhi[i]);
    uint32_t m = 0, j = j0;
    for (; j1 - j >= 16 && xlo[j + 15] <= x1; j += 16) {
        const unsigned mask = YZ_MASK(j) | YZ_MASK(j + 8) << 8;
        if (mask)
            m = list_lanes(mask, j, out, m);
    }
    *done = 0;
    if (j < j1)
        m = list_tail(b, x1, j, j1, YZ_MASK(j) | YZ_MASK(j + 8) << 8, 1, out, m, done);
    return m;
}

/* ---- 16-bit boxes: 16 per register ---------------------------------------- */
/* two bits per lane of block j (boxes j .. j+15), set where the box
 * overlaps box i on y and z: no bound of box i is past the other box's */
#define YZ_MASK16(j)                                                                               \
    (~(unsigned)simde_mm256_movemask_epi8(simde_mm256_or_si256(                                    \
        simde_mm256_or_si256(                                                                      \
            simde_mm256_cmpgt_epi16(simde_mm256_loadu_si256((const void *)(qylo + (j))), qy1),     \
            simde_mm256_cmpgt_epi16(qy0, simde_mm256_loadu_si256((const void *)(qyhi + (j))))),    \
        simde_mm256_or_si256(                                                                      \
            simde_mm256_cmpgt_epi16(simde_mm256_loadu_si256((const void *)(qzlo + (j))), qz1),     \
            simde_mm256_cmpgt_epi16(qz0, simde_mm256_loadu_si256((const void *)(qzhi + (j))))))))

uint32_t sc_boxfilter16_avx2(const sc_fbox *b, uint32_t i, uint32_t j0, uint32_t j1, uint32_t *out,
                             int *done) {
    const float *const xlo = b->xlo;
    const int16_t *const qylo = b->qylo, *const qyhi = b->qyhi;
    const int16_t *const qzlo = b->qzlo, *const qzhi = b->qzhi;
    const float x1 = b->xhi[i];
    const simde__m256i qy0 = simde_mm256_set1_epi16(qylo[i]), qy1 = simde_mm256_set1_epi16(qyhi[i]);
    const simde__m256i qz0 = simde_mm256_set1_epi16(qzlo[i]), qz1 = simde_mm256_set1_epi16(qzhi[i]);
    uint32_t m = 0, j = j0;
    for (; j1 - j >= 16 && xlo[j + 15] <= x1; j += 16) {
        unsigned mask = YZ_MASK16(j);
        while (mask) {
            const uint32_t t = (uint32_t)__builtin_ctz(mask) >> 1;
            out[m++] = j + t;
            mask &= ~(3u << (2 * t));
        }
    }
    *done = 0;
    if (j < j1)
        m = list_tail(b, x1, j, j1, YZ_MASK16(j), 2, out, m, done);
    return m;
}
