/*
 * probe_runs_avx2.c: a two-set query's direct search's tests
 * (probe_runs.h), four S spheres at a time with SIMDe AVX2: the
 * candidate in every lane, four consecutive S spheres loaded from their
 * arrays, lanes past the run masked off. Most runs hold one or two
 * spheres, so one vector, its mask and a movemask replace a loop whose
 * count the branch predictor cannot know. The arithmetic is the
 * reference's, operation for operation (the build turns off FMA
 * contraction).
 */
#include <simde/x86/avx2.h>

#include "probe_runs.h"

uint64_t sc_probe_runs_avx2(const sc_probe_data *d, const sc_probe_run *runs, size_t n,
                            sc_hits *hits) {
    const simde__m256i lane = simde_mm256_setr_epi64x(0, 1, 2, 3);
    uint64_t tests = 0;
    for (size_t u = 0; u < n; u++) {
        const uint32_t k = runs[u].k, e = runs[u].e;
        uint32_t j = runs[u].j;
        tests += e - j;
        const double *q = d->rows + 4 * (size_t)(k - d->ns);
        const simde__m256d qx = simde_mm256_set1_pd(q[0]), qy = simde_mm256_set1_pd(q[1]);
        const simde__m256d qz = simde_mm256_set1_pd(q[2]), qr = simde_mm256_set1_pd(q[3]);
        do {
            const simde__m256d dx = simde_mm256_sub_pd(qx, simde_mm256_loadu_pd(d->x + j));
            const simde__m256d dy = simde_mm256_sub_pd(qy, simde_mm256_loadu_pd(d->y + j));
            const simde__m256d dz = simde_mm256_sub_pd(qz, simde_mm256_loadu_pd(d->z + j));
            const simde__m256d s = simde_mm256_add_pd(qr, simde_mm256_loadu_pd(d->r + j));
            const simde__m256d d2 = simde_mm256_add_pd(
                simde_mm256_add_pd(simde_mm256_mul_pd(dx, dx), simde_mm256_mul_pd(dy, dy)),
                simde_mm256_mul_pd(dz, dz));
            const simde__m256i in =
                simde_mm256_cmpgt_epi64(simde_mm256_set1_epi64x((int64_t)(e - j)), lane);
            const simde__m256d meet = simde_mm256_and_pd(
                simde_mm256_cmp_pd(d2, simde_mm256_mul_pd(s, s), SIMDE_CMP_LE_OQ),
                simde_mm256_castsi256_pd(in));
            unsigned m = (unsigned)simde_mm256_movemask_pd(meet);
            if (m) {
                sc_hits_reserve(hits, 4);
                size_t at = hits->count;
                for (; m; m &= m - 1) {
                    hits->pairs[2 * at] = k;
                    hits->pairs[2 * at + 1] = j + (uint32_t)__builtin_ctz(m);
                    at++;
                }
                hits->count = at;
            }
            j += 4;
        } while (j < e);
    }
    return tests;
}
