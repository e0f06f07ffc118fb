/*
 * emit4.h: branch-free emission of one candidate's hits for the 4-lane SIMD
 * kernels (narrow_avx2.c, and bench/kernel_f32.c, the float32 prototype).
 * Include after <simde/x86/avx2.h>, in a translation unit built for AVX2.
 */
#ifndef SC_EMIT4_H
#define SC_EMIT4_H

#include <stddef.h>
#include <stdint.h>

/* The set lanes of each 4-bit mask, in order (the rest: don't care). */
static const uint32_t sc_lane_order[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0},
    {1, 2, 0, 0}, {0, 1, 2, 0}, {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};

/* Writes the pairs (i0 + lane, j) for the lanes set in `mask` at out, lanes
 * in order, and returns how many: four slots are always written (the rest
 * are overwritten by the next candidate), so there is no branch on hits. */
static inline size_t sc_emit4(uint32_t *out, simde__m128i vi0, uint32_t j, unsigned mask) {
    const simde__m128i iv = simde_mm_add_epi32(
        vi0, simde_mm_loadu_si128((const simde__m128i *)(const void *)sc_lane_order[mask]));
    const simde__m128i jv = simde_mm_set1_epi32((int)j);
    simde_mm_storeu_si128((simde__m128i *)(void *)out, simde_mm_unpacklo_epi32(iv, jv));
    simde_mm_storeu_si128((simde__m128i *)(void *)(out + 4), simde_mm_unpackhi_epi32(iv, jv));
    return (size_t)__builtin_popcount(mask);
}

#endif /* SC_EMIT4_H */
