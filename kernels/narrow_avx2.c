/*
 * narrow_avx2.c: the AVX2 narrowphase, written with SIMDe so it reads as
 * intrinsics and still builds where the native header is missing. This
 * translation unit alone is compiled with -mavx2 -mfma; the dispatcher runs it
 * only on CPUs that report AVX2. Four candidates per instruction, in double:
 * the same subtractions, multiplies and adds in the same order as the scalar
 * reference (no FMA), so both report identical pairs.
 */
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx2.h>

#include "kernel.h"

uint64_t sc_narrow_avx2(const sc_kernel_args *a, sc_hits *hits) {
    const double *X = a->x, *Y = a->y, *Z = a->z, *R = a->r;
    uint64_t tests = 0;
    for (int k = 0; k < a->nranges; k++) {
        const sc_range rg = a->ranges[k];
        for (uint32_t i = a->a0; i < a->a1; i++) {
            const simde__m256d xi = simde_mm256_set1_pd(X[i]), yi = simde_mm256_set1_pd(Y[i]);
            const simde__m256d zi = simde_mm256_set1_pd(Z[i]), ri = simde_mm256_set1_pd(R[i]);
            uint32_t j = rg.j0;
            if (rg.tri && j <= i)
                j = i + 1;
            while (j < rg.j1) {
                const uint32_t end = rg.j1 - j > SC_KERNEL_BLOCK ? j + SC_KERNEL_BLOCK : rg.j1;
                sc_hits_reserve(hits, end - j + 4);
                uint32_t *out = hits->pairs + 2 * hits->count;
                size_t found = 0;
                tests += end - j;
                for (; j < end; j += 4) {
                    /* Loads may run past `end` into the padding; lanes beyond it are masked. */
                    const simde__m256d dx = simde_mm256_sub_pd(xi, simde_mm256_loadu_pd(X + j));
                    const simde__m256d dy = simde_mm256_sub_pd(yi, simde_mm256_loadu_pd(Y + j));
                    const simde__m256d dz = simde_mm256_sub_pd(zi, simde_mm256_loadu_pd(Z + j));
                    const simde__m256d s = simde_mm256_add_pd(ri, simde_mm256_loadu_pd(R + j));
                    simde__m256d d2 = simde_mm256_add_pd(simde_mm256_mul_pd(dx, dx), simde_mm256_mul_pd(dy, dy));
                    d2 = simde_mm256_add_pd(d2, simde_mm256_mul_pd(dz, dz));
                    const simde__m256d hit = simde_mm256_cmp_pd(d2, simde_mm256_mul_pd(s, s), SIMDE_CMP_LE_OQ);
                    unsigned mask = (unsigned)simde_mm256_movemask_pd(hit);
                    const uint32_t left = end - j;
                    if (left < 4)
                        mask &= (1u << left) - 1u;
                    while (mask) {
                        const unsigned lane = (unsigned)__builtin_ctz(mask);
                        mask &= mask - 1;
                        out[2 * found] = i;
                        out[2 * found + 1] = j + lane;
                        found++;
                    }
                }
                j = end;
                hits->count += found;
            }
        }
    }
    return tests;
}
