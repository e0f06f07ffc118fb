/*
 * filter_scalar.c: the reference of filter_avx2.c (filter.h), one lane at
 * a time: the same groups of four taken or refused, the same cells and
 * bits, the same indices kept in the same order, and the same sphere
 * returned where a group is refused.
 */
#include "filter.h"
#include "load4_scalar.h"

size_t sc_filter_scalar(const sc_filter_grid *g, const sc_src4 *s, size_t k0, size_t k1,
                        uint32_t *idx, size_t *kept) {
    const bool periodic = g->periodic[0] || g->periodic[1] || g->periodic[2];
    /* the pad bound that implies the radius limit too (pad >= r) */
    const double quick = g->reach < g->limit ? g->reach : g->limit;
    double qlo[3], qhi[3];
    for (int a = 0; a < 3; a++) { /* the region's part within the values' limit */
        qlo[a] = g->lo[a] > -1e150 ? g->lo[a] : -1e150;
        qhi[a] = g->hi[a] < 1e150 ? g->hi[a] : 1e150;
    }
    size_t m = *kept, k = k0;
    for (; k + 4 <= k1; k += 4) {
        double c[4][3], r[4], pad[4];
        bool taken = true, all = true, in[4];
        for (int t = 0; t < 4; t++) {
            sc_load1(s, k + (size_t)t, c[t], &r[t]);
            pad[t] = r[t] * (1.0 + 0x1p-46) + 0x1p-500;
            taken &= sc_load1_valid(c[t], r[t], g->limit) && pad[t] <= g->reach;
        }
        if (periodic && !taken)
            break;
        for (int t = 0; t < 4; t++) {
            for (int a = 0; a < 3 && periodic; a++)
                if (g->periodic[a])
                    c[t][a] = sc_load1_wrap(c[t][a], g->box_lo[a], g->box_hi[a], g->box_period[a]);
            in[t] = true;
            for (int a = 0; a < 3; a++)
                in[t] &= c[t][a] >= qlo[a] && c[t][a] <= qhi[a];
            all &= in[t] && r[t] >= 0.0 && pad[t] <= quick;
        }
        if (!all && !periodic && !taken)
            break;
        for (int t = 0; t < 4; t++) {
            double cell[3];
            for (int a = 0; a < 3; a++) {
                const double u = (c[t][a] - g->lo[a]) * g->inv;
                cell[a] = trunc(u < g->top[a] ? u : g->top[a]);
            }
            const double b = in[t] ? (cell[2] * (double)g->zs + cell[1] * (double)g->k0) + cell[0]
                                   : (double)g->never;
            const uint32_t bit = (uint32_t)(int32_t)b;
            /* written always, kept when it meets */
            idx[m] = (uint32_t)(k + (size_t)t);
            m += (g->bits[bit >> 6] >> (bit & 63)) & 1;
        }
    }
    *kept = m;
    return k;
}
