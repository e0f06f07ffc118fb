/*
 * filter_avx2.c: a two-set query's filter, four large spheres at a time
 * (filter.h), with SIMDe AVX2. A batch of four groups has its cells found
 * in lanes and their bitmap words fetched ahead (the bitmap is read at
 * random), then tested. The cell is the reference's expression, operation
 * for operation (the build turns off FMA contraction): t = (x - lo) inv,
 * capped at k - 1 and truncated; the bit index is below 2^24 and so exact
 * in double.
 */
#include "filter.h"
#include "load4_avx2.h"

enum { GROUPS = 4 };

/* The reference's checks on a group as loaded: valid as the bounds stage
 * has it, the radius within the limit and the pad within the reach (a
 * centre outside a periodic box is wrapped, not refused: no box test). */
static inline bool group_taken(const simde__m256d c[3], simde__m256d r, simde__m256d pad,
                               simde__m256d rlim, simde__m256d reach, const simde__m256d blo[3],
                               const simde__m256d bhi[3]) {
    static const int open[3] = {0, 0, 0};
    return simde_mm256_movemask_pd(
               simde_mm256_and_pd(sc_load4_taken(c, r, rlim, open, blo, bhi),
                                  simde_mm256_cmp_pd(pad, reach, SIMDE_CMP_LE_OQ))) == 0xF;
}

size_t sc_filter_avx2(const sc_filter_grid *g, const sc_src4 *s, size_t k0, size_t k1,
                      uint32_t *idx, size_t *kept) {
    const sc_load4 ld = sc_load4_plan(s);
    const simde__m256d rlim = simde_mm256_set1_pd(g->limit);
    const simde__m256d reach = simde_mm256_set1_pd(g->reach), inv = simde_mm256_set1_pd(g->inv);
    const simde__m256d grow = simde_mm256_set1_pd(1.0 + 0x1p-46),
                       tiny = simde_mm256_set1_pd(0x1p-500);
    const simde__m256d k0v = simde_mm256_set1_pd((double)g->k0),
                       zsv = simde_mm256_set1_pd((double)g->zs);
    const simde__m256d never = simde_mm256_set1_pd((double)g->never);
    /* the pad bound that implies the radius limit too (pad >= r) */
    const simde__m256d quick = simde_mm256_set1_pd(g->reach < g->limit ? g->reach : g->limit);
    const bool periodic = g->periodic[0] || g->periodic[1] || g->periodic[2];
    simde__m256d lo[3], qlo[3], qhi[3], blo[3], bhi[3], bperiod[3], top[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = simde_mm256_set1_pd(g->lo[a]);
        /* the region's part within the values' limit (it may reach past) */
        qlo[a] = simde_mm256_set1_pd(g->lo[a] > -1e150 ? g->lo[a] : -1e150);
        qhi[a] = simde_mm256_set1_pd(g->hi[a] < 1e150 ? g->hi[a] : 1e150);
        blo[a] = simde_mm256_set1_pd(g->box_lo[a]);
        bhi[a] = simde_mm256_set1_pd(g->box_hi[a]);
        bperiod[a] = simde_mm256_set1_pd(g->box_period[a]);
        top[a] = simde_mm256_set1_pd(g->top[a]);
    }
    const uint64_t *bits = g->bits;
    size_t m = *kept, k = k0;
    /* batches of up to four groups: a batch's bits are found and fetched
     * while the one before it is tested, so that the fetches have a
     * batch's work to arrive in */
    int32_t bit[2][4 * GROUPS];
    size_t prev = 0, prev_k = k0; /* spheres in the batch waiting for its test, its first */
    bool stop = false;
    for (int cur = 0;; cur ^= 1) {
        size_t groups = 0;
        for (; !stop && groups < GROUPS && k + 4 * (groups + 1) <= k1; groups++) {
            simde__m256d c[3], r;
            sc_load4_at(&ld, k + 4 * groups, c, &r);
            /* as the reference: valid, the radius within the limit and the
             * pad within the reach; in a periodic box, checked as they are
             * and then wrapped */
            const simde__m256d pad = simde_mm256_add_pd(simde_mm256_mul_pd(r, grow), tiny);
            if (periodic) {
                if (!group_taken(c, r, pad, rlim, reach, blo, bhi)) {
                    stop = true;
                    break;
                }
                sc_load4_wrap(c, g->periodic, blo, bhi, bperiod);
            }
            /* in: inside the marked region (and the values' limit, which
             * it may reach past: a sphere in has a valid centre). Outside
             * a periodic box, a group all in, with 0 <= r and pads within
             * the reach and the radius limit, is taken as it is; otherwise
             * the full check decides. A valid sphere not in is outside the
             * region. */
            simde__m256d in = simde_mm256_and_pd(simde_mm256_cmp_pd(c[0], qlo[0], SIMDE_CMP_GE_OQ),
                                                 simde_mm256_cmp_pd(c[0], qhi[0], SIMDE_CMP_LE_OQ));
            for (int a = 1; a < 3; a++)
                in = simde_mm256_and_pd(
                    in, simde_mm256_and_pd(simde_mm256_cmp_pd(c[a], qlo[a], SIMDE_CMP_GE_OQ),
                                           simde_mm256_cmp_pd(c[a], qhi[a], SIMDE_CMP_LE_OQ)));
            const simde__m256d quick_ok =
                simde_mm256_and_pd(simde_mm256_cmp_pd(r, simde_mm256_setzero_pd(), SIMDE_CMP_GE_OQ),
                                   simde_mm256_cmp_pd(pad, quick, SIMDE_CMP_LE_OQ));
            const bool all = simde_mm256_movemask_pd(simde_mm256_and_pd(in, quick_ok)) == 0xF;
            if (!all && !periodic && !group_taken(c, r, pad, rlim, reach, blo, bhi)) {
                stop = true;
                break;
            }
            simde__m256d cell[3];
            for (int a = 0; a < 3; a++) {
                const simde__m256d t = simde_mm256_mul_pd(simde_mm256_sub_pd(c[a], lo[a]), inv);
                /* t < top ? t : top, as the reference's select (t is not NaN) */
                cell[a] =
                    simde_mm256_round_pd(simde_mm256_min_pd(t, top[a]), SIMDE_MM_FROUND_TO_ZERO);
            }
            simde__m256d b =
                simde_mm256_add_pd(simde_mm256_add_pd(simde_mm256_mul_pd(cell[2], zsv),
                                                      simde_mm256_mul_pd(cell[1], k0v)),
                                   cell[0]);
            b = simde_mm256_blendv_pd(never, b, in); /* outside the region: a clear bit */
            simde_mm_storeu_si128((simde__m128i *)(void *)(bit[cur] + 4 * groups),
                                  simde_mm256_cvttpd_epi32(b));
        }
        for (size_t t = 0; t < 4 * groups; t++)
            __builtin_prefetch(&bits[(uint32_t)bit[cur][t] >> 6]);
        for (size_t t = 0; t < prev; t++) {
            const uint32_t b = (uint32_t)bit[cur ^ 1][t];
            /* written always, kept when it meets: no branch to mispredict */
            idx[m] = (uint32_t)(prev_k + t);
            m += (bits[b >> 6] >> (b & 63)) & 1;
        }
        prev = 4 * groups;
        prev_k = k;
        k += 4 * groups;
        if (!prev)
            break;
    }
    *kept = m;
    return k;
}
