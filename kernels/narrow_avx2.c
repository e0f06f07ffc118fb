/*
 * narrow_avx2.c: the AVX2 narrowphase, written with SIMDe. This translation
 * unit alone is compiled with -mavx2 -mfma; the dispatcher runs it only on
 * CPUs that report AVX2. The four home spheres of a block sit in the four
 * lanes; each candidate is broadcast and tested against all of them at once,
 * in double, with the same subtractions, multiplies and adds in the same
 * order as the scalar reference (no FMA), so both report identical pairs in
 * the same order. The loop over candidates has no data-dependent branch.
 */
#include <simde/x86/avx2.h>

#include "kernel.h"
#include "emit4.h"

typedef struct block {
    simde__m256d x, y, z, r;
} block;

static inline unsigned test4(const block *b, const double *X, const double *Y, const double *Z,
                             const double *R, uint32_t j) {
    const simde__m256d dx = simde_mm256_sub_pd(b->x, simde_mm256_broadcast_sd(X + j));
    const simde__m256d dy = simde_mm256_sub_pd(b->y, simde_mm256_broadcast_sd(Y + j));
    const simde__m256d dz = simde_mm256_sub_pd(b->z, simde_mm256_broadcast_sd(Z + j));
    const simde__m256d s = simde_mm256_add_pd(b->r, simde_mm256_broadcast_sd(R + j));
    simde__m256d d2 = simde_mm256_add_pd(simde_mm256_mul_pd(dx, dx), simde_mm256_mul_pd(dy, dy));
    d2 = simde_mm256_add_pd(d2, simde_mm256_mul_pd(dz, dz));
    return (unsigned)simde_mm256_movemask_pd(
        simde_mm256_cmp_pd(d2, simde_mm256_mul_pd(s, s), SIMDE_CMP_LE_OQ));
}

/* Candidates per block from which hits are emitted by groups of four. */
#define SC_GROUPED_MIN 48

uint64_t sc_narrow_avx2(const sc_kernel_args *a, sc_hits *hits) {
    const double *X = a->x, *Y = a->y, *Z = a->z, *R = a->r;
    const uint32_t i0 = a->i0;
    /* Lanes past ni read the next spheres or the padding; their x is made a
     * NaN, so no test on them passes and the candidate loop needs no mask. */
    const simde__m256i live = simde_mm256_cmpgt_epi64(simde_mm256_set1_epi64x((long long)a->ni),
                                                      simde_mm256_setr_epi64x(0, 1, 2, 3));
    const simde__m256d nan = simde_mm256_castsi256_pd(
        simde_mm256_andnot_si256(live, simde_mm256_set1_epi64x(0x7ff8000000000000LL)));
    const block b = {simde_mm256_or_pd(simde_mm256_loadu_pd(X + i0), nan),
                     simde_mm256_loadu_pd(Y + i0), simde_mm256_loadu_pd(Z + i0),
                     simde_mm256_loadu_pd(R + i0)};
    const simde__m256i vi0 = sc_emit4_base(i0);
    uint64_t tests = 0;
    /* Branch-free emission: a hit on some lane is common enough (about one
     * candidate in four on uniform data) that a branch on it mispredicts
     * often. Every candidate writes four (i, j) slots, lanes with a hit
     * first (from a table by mask), and the count moves by the hits. */
    {
        /* Own row inside the block: fixed work, lanes masked. */
        sc_hits_reserve(hits, 4 * SC_BLOCK);
        uint32_t *const start = hits->pairs + 2 * hits->count;
        uint32_t *out = start;
        const unsigned tri = sc_tri_lanes(a);
        tests += (uint64_t)__builtin_popcount(tri);
        for (uint32_t t = 1; t < SC_BLOCK; t++)
            out = sc_emit4(out, vi0, i0 + t,
                           (tri >> (4 * (t - 1)) & 15u) & test4(&b, X, Y, Z, R, i0 + t));
        hits->count += (size_t)(out - start) / 2;
    }
    const uint32_t *cand = a->cand;
    const uint32_t m = a->ncand;
    tests += (uint64_t)m * a->ni;
    for (uint32_t k0 = 0; k0 < m; k0 += 256) {
        const uint32_t k1 = m - k0 > 256 ? k0 + 256 : m;
        sc_hits_reserve(hits, 4 * (size_t)(k1 - k0) + 4);
        uint32_t *const start = hits->pairs + 2 * hits->count;
        uint32_t *out = start;
        /* Long lists (wide or heavy-tailed radii: 77-130 candidates a
         * block, a hit in about one in 25) go four candidates at a time,
         * emitted only when one of them hits: that branch predicts well and
         * the emission's work is skipped. Short lists (uniform: about 16, a
         * hit in one in four) keep the branch-free emission, which the
         * branch would slow by a quarter. */
        uint32_t k = k0;
        for (; m >= SC_GROUPED_MIN && k + 4 <= k1; k += 4) {
            const unsigned m0 = test4(&b, X, Y, Z, R, cand[k]);
            const unsigned m1 = test4(&b, X, Y, Z, R, cand[k + 1]);
            const unsigned m2 = test4(&b, X, Y, Z, R, cand[k + 2]);
            const unsigned m3 = test4(&b, X, Y, Z, R, cand[k + 3]);
            if (m0 | m1 | m2 | m3) {
                out = sc_emit4(out, vi0, cand[k], m0);
                out = sc_emit4(out, vi0, cand[k + 1], m1);
                out = sc_emit4(out, vi0, cand[k + 2], m2);
                out = sc_emit4(out, vi0, cand[k + 3], m3);
            }
        }
        for (; k < k1; k++) {
            const uint32_t j = cand[k];
            out = sc_emit4(out, vi0, j, test4(&b, X, Y, Z, R, j));
        }
        hits->count += (size_t)(out - start) / 2;
    }
    return tests;
}
