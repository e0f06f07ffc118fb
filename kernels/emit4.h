/*
 * emit4.h: branch-free emission of one candidate's hits for the 4-lane SIMD
 * kernels (narrow_avx2.c, and bench/kernel_f32.c, the float32 prototype).
 * Include after <simde/x86/avx2.h>, in a translation unit built for AVX2.
 */
#ifndef SC_EMIT4_H
#define SC_EMIT4_H

#include <stddef.h>
#include <stdint.h>

/* For each 4-bit mask, its set lanes in order, each followed by a 0 (the
 * rest: zeros, don't care). Widened to 32 bits and added to (i0, j, i0,
 * j, ...), a row gives the pairs (i0 + lane, j) as they are stored. Bytes
 * keep a row at 8 bytes, an index scale x86 can address. */
static const uint8_t sc_lane_pairs[16][8] __attribute__((aligned(8))) = {
    {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 1, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 2, 0, 0, 0, 0, 0},
    {1, 0, 2, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 2, 0, 0, 0}, {3, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 3, 0, 0, 0, 0, 0}, {1, 0, 3, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 3, 0, 0, 0},
    {2, 0, 3, 0, 0, 0, 0, 0}, {0, 0, 2, 0, 3, 0, 0, 0}, {1, 0, 2, 0, 3, 0, 0, 0},
    {0, 0, 1, 0, 2, 0, 3, 0}};

/* vi0: i0 in every 32-bit lane. */
static inline simde__m256i sc_emit4_base(uint32_t i0) {
    return simde_mm256_set1_epi32((int)i0);
}

/* Writes the pairs (i0 + lane, j) for the lanes set in `mask` at out, lanes
 * in order, and returns the end of what counts: eight slots (four pairs)
 * are always written in one store (the rest are overwritten by the next
 * candidate), so there is no branch on hits. */
static inline uint32_t *sc_emit4(uint32_t *out, simde__m256i vi0, uint32_t j, unsigned mask) {
    const simde__m256i ij = simde_mm256_blend_epi32(vi0, simde_mm256_set1_epi32((int)j), 0xAA);
    const simde__m256i lanes = simde_mm256_cvtepu8_epi32(
        simde_mm_loadl_epi64((const simde__m128i *)(const void *)sc_lane_pairs[mask]));
    simde_mm256_storeu_si256((simde__m256i *)(void *)out, simde_mm256_add_epi32(ij, lanes));
    return out + 2 * (size_t)__builtin_popcount(mask);
}

#endif /* SC_EMIT4_H */
