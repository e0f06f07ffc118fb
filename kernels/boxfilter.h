/*
 * boxfilter.h: the sweep's box filter. Given one box i and the candidates'
 * boxes (SoA, sorted by their start on the sweep axis x), it lists, in
 * order, the candidates j in [j0, j1) whose boxes overlap box i's on all
 * three axes. The boxes are the double boxes of peer.h rounded outward
 * (to floats, and optionally further to 16-bit integers), so the filter
 * only drops pairs the exact test would reject. Each filter has a scalar
 * reference and an AVX2 version that return the same list and flag.
 */
#ifndef SC_BOXFILTER_H
#define SC_BOXFILTER_H

#include <stdint.h>

typedef struct sc_fbox {
    const float *xlo, *xhi;                   /* the sweep axis; xlo is sorted */
    const float *ylo, *yhi, *zlo, *zhi;       /* the other two axes */
    const int16_t *qylo, *qyhi, *qzlo, *qzhi; /* those quantized outward (for
                                                 the 16-bit filter), or NULL */
} sc_fbox;                                    /* every array padded: readable 16 past the end */

/* Writes the j in [j0, j1) with xlo_j <= xhi_i whose boxes overlap box i's
 * on y and z (lo_j <= hi_i and hi_j >= lo_i) to out (room for j1 - j0) and
 * returns how many; *done is 1 when some j in [j0, j1) starts past xhi_i
 * (so do all later ones: the sweep from i is over), else 0. The SIMD
 * versions skip the x test on the blocks whose last box starts before
 * xhi_i, since xlo is sorted. The 16-bit filter tests y and z on the
 * quantized boxes: 16 boxes per AVX2 register where floats fit 8. */
typedef uint32_t (*sc_boxfilter_fn)(const sc_fbox *b, uint32_t i, uint32_t j0, uint32_t j1,
                                    uint32_t *out, int *done);

#define SC_FILTER_DECL(name)                                                                       \
    uint32_t name(const sc_fbox *b, uint32_t i, uint32_t j0, uint32_t j1, uint32_t *out,           \
                  int *done) __attribute__((visibility("hidden")));
SC_FILTER_DECL(sc_boxfilter_scalar)
SC_FILTER_DECL(sc_boxfilter16_scalar)
#ifdef SC_HAVE_AVX2_KERNEL
SC_FILTER_DECL(sc_boxfilter_avx2)
SC_FILTER_DECL(sc_boxfilter16_avx2)
#endif
#undef SC_FILTER_DECL

#endif /* SC_BOXFILTER_H */
