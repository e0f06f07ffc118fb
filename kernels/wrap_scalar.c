/*
 * wrap_scalar.c: the reference of wrap_avx2.c (wrap.h), one lane at a
 * time: the same groups of four taken, the same rows, band list, image
 * counts, radius counts and bounds (kept per lane and reduced as the
 * vector's lanes are, so that even the signs of zero bounds agree), and
 * the same sphere returned where a group is refused.
 */
#include <string.h>

#include "load4_scalar.h"
#include "wrap.h"

size_t sc_wrap_scalar(const sc_wrap_box *b, const sc_src4 *s, size_t k0, size_t k1, size_t pos0,
                      double *rows, uint32_t *band, sc_wrap_found *f) {
    double vmax[4], vrmin[4], vlo[3][4], vhi[3][4], vimages[4] = {0, 0, 0, 0};
    for (int t = 0; t < 4; t++) {
        vmax[t] = f->rmax;
        vrmin[t] = f->rmin;
        for (int a = 0; a < 3; a++) {
            vlo[a][t] = f->lo[a];
            vhi[a][t] = f->hi[a];
        }
    }
    size_t banded = f->banded, k = k0;
    for (; k + 4 <= k1; k += 4) {
        double c[4][3], r[4];
        bool ok = true;
        for (int t = 0; t < 4; t++) {
            sc_load1(s, k + (size_t)t, c[t], &r[t]);
            /* a subnormal radius's octave is not its exponent bits' */
            const bool subnormal = r[t] > 0.0 && r[t] < 0x1p-1022;
            ok &= !subnormal && sc_load1_valid(c[t], r[t], b->limit);
        }
        if (!ok)
            break;
        const size_t pos = pos0 + (k - k0);
        for (int t = 0; t < 4; t++) {
            for (int a = 0; a < 3; a++)
                if (b->periodic[a])
                    c[t][a] = sc_load1_wrap(c[t][a], b->lo[a], b->hi[a], b->period[a]);
            /* the vector's max and min: a < b ? a : b, lane by lane */
            vmax[t] = vmax[t] > r[t] ? vmax[t] : r[t];
            vrmin[t] = vrmin[t] < r[t] ? vrmin[t] : r[t];
            for (int a = 0; a < 3; a++) {
                vlo[a][t] = vlo[a][t] < c[t][a] ? vlo[a][t] : c[t][a];
                vhi[a][t] = vhi[a][t] > c[t][a] ? vhi[a][t] : c[t][a];
            }
            uint64_t bits;
            memcpy(&bits, &r[t], sizeof bits);
            f->raw[(pos + (size_t)t) & 3][(bits >> 52) & 0x7ff]++;
            double *row = rows + 4 * (pos + (size_t)t);
            row[0] = c[t][0];
            row[1] = c[t][1];
            row[2] = c[t][2];
            row[3] = r[t];
            /* bands: width = g + g, or g + reach_g with one side */
            const double margin = ((r[t] + b->big) + b->reach) * 0x1p-44 + 0x1p-500;
            const double g = r[t] + margin;
            const double width = g + (b->one_side ? b->reach_g : g);
            double count = 1.0, half = 0.0;
            for (int a = 2; a >= 0; a--) {
                if (!b->periodic[a])
                    continue;
                const double plus = c[t][a] < b->lo[a] + width ? 1.0 : 0.0;
                const double sides = 1.0 + (plus + (c[t][a] >= b->hi[a] - width ? 1.0 : 0.0));
                half = half + plus * count;
                count = count * sides;
            }
            count = b->one_side ? half : count - 1.0;
            vimages[t] = vimages[t] + count;
            band[banded] = (uint32_t)(pos + (size_t)t);
            banded += count > 0.0;
        }
    }
    for (int t = 0; t < 4; t++) {
        f->rmax = vmax[t] > f->rmax ? vmax[t] : f->rmax;
        f->rmin = vrmin[t] < f->rmin ? vrmin[t] : f->rmin;
        f->images += (size_t)vimages[t];
    }
    for (int a = 0; a < 3; a++)
        for (int t = 0; t < 4; t++) {
            f->lo[a] = vlo[a][t] < f->lo[a] ? vlo[a][t] : f->lo[a];
            f->hi[a] = vhi[a][t] > f->hi[a] ? vhi[a][t] : f->hi[a];
        }
    f->banded = banded;
    return k;
}
