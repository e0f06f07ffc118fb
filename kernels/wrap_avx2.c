/*
 * wrap_avx2.c: pass one of a periodic query, four spheres at a time
 * (wrap.h), with SIMDe AVX2: the values loaded as load4_avx2.h can, checked
 * and compared in lanes, the rows written by a 4 x 4 transpose. The band
 * test and the image radius are the reference's expressions, operation for
 * operation (the build turns off FMA contraction), so the same spheres are
 * listed with the same counts.
 */
#include "load4_avx2.h"
#include "wrap.h"

/* One function, though long: a SIMD pass keeps its running bounds, counts
 * and constants in vector registers across the loop; split, they would go
 * through memory at each call. */
size_t sc_wrap_avx2(const sc_wrap_box *b, const sc_src4 *s, size_t k0, size_t k1, size_t pos0,
                    double *rows, uint32_t *band, sc_wrap_found *f) {
    const sc_load4 ld = sc_load4_plan(s);
    const simde__m256d one = simde_mm256_set1_pd(1.0);
    const simde__m256d big = simde_mm256_set1_pd(b->big), zero = simde_mm256_setzero_pd();
    const simde__m256d rlim = simde_mm256_set1_pd(b->limit);
    const int one_side = b->one_side;
    const simde__m256d reach = simde_mm256_set1_pd(b->reach);
    const simde__m256d g_reach = simde_mm256_set1_pd(b->reach_g);
    simde__m256d lo[3], hi[3], period[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = simde_mm256_set1_pd(b->lo[a]);
        hi[a] = simde_mm256_set1_pd(b->hi[a]);
        period[a] = simde_mm256_set1_pd(b->period[a]);
    }
    const int open[3] = {0, 0, 0}; /* validity alone: centres outside are wrapped */
    /* locals: the row stores could alias *b, which the loop would read again */
    const int periodic[3] = {b->periodic[0], b->periodic[1], b->periodic[2]};
    /* a positive radius below this is subnormal: its octave is not its
     * exponent bits' (the reference takes it) */
    const simde__m256d normal = simde_mm256_set1_pd(0x1p-1022);
    simde__m256d vmax = simde_mm256_set1_pd(f->rmax), vimages = zero;
    simde__m256d vrmin = simde_mm256_set1_pd(f->rmin), vlo[3], vhi[3];
    for (int a = 0; a < 3; a++) {
        vlo[a] = simde_mm256_set1_pd(f->lo[a]);
        vhi[a] = simde_mm256_set1_pd(f->hi[a]);
    }
    uint32_t(*raw)[2048] = f->raw;
    /* Radii counted by exponent: most share one (the first group's first
     * lane's), counted in lanes; the others go to the tables one by one.
     * An increment in memory per radius would chain through the table. */
    const simde__m256i emask = simde_mm256_set1_epi64x(0x7ff);
    simde__m256i ecount = simde_mm256_setzero_si256(), ecommon = simde_mm256_setzero_si256();
    int64_t common = -1;
    size_t banded = f->banded, k = k0;
    for (; k + 4 <= k1; k += 4) {
        simde__m256d c[3], r;
        sc_load4_at(&ld, k, c, &r);
        const simde__m256d subnormal =
            simde_mm256_and_pd(simde_mm256_cmp_pd(r, zero, SIMDE_CMP_GT_OQ),
                               simde_mm256_cmp_pd(r, normal, SIMDE_CMP_LT_OQ));
        const simde__m256d ok =
            simde_mm256_andnot_pd(subnormal, sc_load4_taken(c, r, rlim, open, lo, hi));
        if (simde_mm256_movemask_pd(ok) != 0xF)
            break;
        sc_load4_wrap(c, periodic, lo, hi, period);
        vmax = simde_mm256_max_pd(vmax, r);
        vrmin = simde_mm256_min_pd(vrmin, r);
        for (int a = 0; a < 3; a++) { /* taken: the rows' values are c's */
            vlo[a] = simde_mm256_min_pd(vlo[a], c[a]);
            vhi[a] = simde_mm256_max_pd(vhi[a], c[a]);
        }
        {
            const simde__m256i ev = simde_mm256_and_si256(
                simde_mm256_srli_epi64(simde_mm256_castpd_si256(r), 52), emask);
            if (common < 0) {
                common = simde_mm256_extract_epi64(ev, 0);
                ecommon = simde_mm256_set1_epi64x(common);
            }
            const simde__m256i same = simde_mm256_cmpeq_epi64(ev, ecommon);
            ecount = simde_mm256_sub_epi64(ecount, same); /* a match is -1 */
            unsigned other =
                ~(unsigned)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(same)) & 0xFu;
            if (other) {
                uint64_t e[4];
                simde_mm256_storeu_si256((simde__m256i *)(void *)e, ev);
                const size_t q = (pos0 + (k - k0)) & 3; /* the reference's table of each row */
                for (; other; other &= other - 1) {
                    const unsigned t = (unsigned)__builtin_ctz(other);
                    raw[(q + t) & 3][e[t]]++;
                }
            }
        }
        /* rows: (x, y, z, r) per sphere */
        const simde__m256d t0 = simde_mm256_unpacklo_pd(c[0], c[1]); /* x0 y0 x2 y2 */
        const simde__m256d t1 = simde_mm256_unpackhi_pd(c[0], c[1]); /* x1 y1 x3 y3 */
        const simde__m256d t2 = simde_mm256_unpacklo_pd(c[2], r);    /* z0 r0 z2 r2 */
        const simde__m256d t3 = simde_mm256_unpackhi_pd(c[2], r);    /* z1 r1 z3 r3 */
        double *row = rows + 4 * (pos0 + (k - k0));
        const simde__m256d r0 = simde_mm256_permute2f128_pd(t0, t2, 0x20),
                           r1 = simde_mm256_permute2f128_pd(t1, t3, 0x20),
                           r2 = simde_mm256_permute2f128_pd(t0, t2, 0x31),
                           r3 = simde_mm256_permute2f128_pd(t1, t3, 0x31);
        if (b->stream) { /* rows are 32-byte aligned: the buffer is, and a row is 32 bytes */
            simde_mm256_stream_pd(row, r0);
            simde_mm256_stream_pd(row + 4, r1);
            simde_mm256_stream_pd(row + 8, r2);
            simde_mm256_stream_pd(row + 12, r3);
        } else {
            simde_mm256_storeu_pd(row, r0);
            simde_mm256_storeu_pd(row + 4, r1);
            simde_mm256_storeu_pd(row + 8, r2);
            simde_mm256_storeu_pd(row + 12, r3);
        }
        /* bands: width = g + g, or g + reach_g with one side, g = r +
         * (2^-44 ((r + big) + reach) + 2^-500), as image_radius */
        const simde__m256d margin = simde_mm256_add_pd(
            simde_mm256_mul_pd(simde_mm256_add_pd(simde_mm256_add_pd(r, big), reach),
                               simde_mm256_set1_pd(0x1p-44)),
            simde_mm256_set1_pd(0x1p-500));
        const simde__m256d g = simde_mm256_add_pd(r, margin);
        const simde__m256d width = simde_mm256_add_pd(g, one_side ? g_reach : g);
        /* count: the product of the axes' choices, less one; with one side
         * the sum over axes a of a's +1 times the later axes' choices */
        simde__m256d count = one, half = zero;
        for (int a = 2; a >= 0; a--) {
            if (!periodic[a])
                continue;
            const simde__m256d near_lo =
                simde_mm256_cmp_pd(c[a], simde_mm256_add_pd(lo[a], width), SIMDE_CMP_LT_OQ);
            const simde__m256d near_hi =
                simde_mm256_cmp_pd(c[a], simde_mm256_sub_pd(hi[a], width), SIMDE_CMP_GE_OQ);
            const simde__m256d plus = simde_mm256_and_pd(near_lo, one);
            const simde__m256d sides =
                simde_mm256_add_pd(one, simde_mm256_add_pd(plus, simde_mm256_and_pd(near_hi, one)));
            half = simde_mm256_add_pd(half, simde_mm256_mul_pd(plus, count));
            count = simde_mm256_mul_pd(count, sides);
        }
        count = one_side ? half : simde_mm256_sub_pd(count, one);
        vimages = simde_mm256_add_pd(vimages, count);
        const unsigned m =
            (unsigned)simde_mm256_movemask_pd(simde_mm256_cmp_pd(count, zero, SIMDE_CMP_GT_OQ));
        /* near a face: listed in order, each position written and kept
         * when it has images (no branch: about one group in six has one) */
        const uint32_t at = (uint32_t)(pos0 + (k - k0));
        for (unsigned t = 0; t < 4; t++) {
            band[banded] = at + t;
            banded += (m >> t) & 1u;
        }
    }
    if (b->stream) /* the streamed rows visible to the threads that read them next */
        simde_mm_sfence();
    if (common >= 0) {
        uint64_t n4[4];
        simde_mm256_storeu_si256((simde__m256i *)(void *)n4, ecount);
        raw[0][common] += (uint32_t)(n4[0] + n4[1] + n4[2] + n4[3]);
    }
    double lanes[4], imgs[4], mins[4];
    simde_mm256_storeu_pd(lanes, vmax);
    simde_mm256_storeu_pd(imgs, vimages);
    simde_mm256_storeu_pd(mins, vrmin);
    for (int t = 0; t < 4; t++) {
        f->rmax = lanes[t] > f->rmax ? lanes[t] : f->rmax;
        f->rmin = mins[t] < f->rmin ? mins[t] : f->rmin;
        f->images += (size_t)imgs[t];
    }
    for (int a = 0; a < 3; a++) {
        double l4[4], h4[4];
        simde_mm256_storeu_pd(l4, vlo[a]);
        simde_mm256_storeu_pd(h4, vhi[a]);
        for (int t = 0; t < 4; t++) {
            f->lo[a] = l4[t] < f->lo[a] ? l4[t] : f->lo[a];
            f->hi[a] = h4[t] > f->hi[a] ? h4[t] : f->hi[a];
        }
    }
    f->banded = banded;
    return k;
}
