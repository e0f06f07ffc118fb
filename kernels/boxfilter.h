/*
 * boxfilter.h: the sweep's box filter. Given one box and the candidates'
 * float boxes (SoA, sorted by their start on the sweep axis x), it walks the
 * candidates from j0 while they start before the box ends on x and lists
 * those whose boxes overlap on all three axes, in order. The float boxes are the double boxes of
 * peer.h rounded outward, so the filter only drops pairs the exact test
 * would reject. The scalar reference and the AVX2 version (8 boxes per
 * iteration, as the best box-pruning codes do) return the same list.
 */
#ifndef SC_BOXFILTER_H
#define SC_BOXFILTER_H

#include <stdint.h>

typedef struct sc_fbox {
    const float *xlo, *ylo, *yhi, *zlo, *zhi; /* padded: readable 8 past the end */
} sc_fbox;

/* The query box: q = {x1, y0, y1, z0, z1} (its start on x does not matter:
 * every candidate starts after it). Walks j from j0 in steps of 8 while
 * j < j1 and xlo[j] <= x1; writes the j whose boxes overlap the query's
 * (xlo <= x1, ylo <= y1, yhi >= y0, zlo <= z1, zhi >= z0) to out (room for
 * j1 - j0 + 8) and returns how many; *stop is where the walk ended (j1, or
 * a j whose box starts past x1: so are all later ones). */
typedef uint32_t (*sc_boxfilter_fn)(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[5],
                                    uint32_t *out, uint32_t *stop);

uint32_t sc_boxfilter_scalar(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[5],
                             uint32_t *out, uint32_t *stop) __attribute__((visibility("hidden")));
#ifdef SC_HAVE_AVX2_KERNEL
uint32_t sc_boxfilter_avx2(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[5],
                           uint32_t *out, uint32_t *stop) __attribute__((visibility("hidden")));
#endif

#endif /* SC_BOXFILTER_H */
