/*
 * boxfilter.h: the sweep's box filter. Given one box's (y, z) extent and a
 * run of candidates' float boxes (SoA), it lists the candidates whose boxes
 * overlap on both axes, in order. The float boxes are the double boxes of
 * peer.h rounded outward, so the filter only drops pairs the exact test
 * would reject. The scalar reference and the AVX2 version (8 boxes per
 * iteration, as the best box-pruning codes do) return the same list.
 */
#ifndef SC_BOXFILTER_H
#define SC_BOXFILTER_H

#include <stdint.h>

typedef struct sc_fbox {
    const float *ylo, *yhi, *zlo, *zhi; /* padded: readable 8 past the end */
} sc_fbox;

/* Writes the j in [j0, j1) whose boxes overlap [qy0, qy1] x [qz0, qz1] to
 * out (room for j1 - j0 + 8) and returns how many. */
typedef uint32_t (*sc_boxfilter_fn)(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[4],
                                    uint32_t *out);

uint32_t sc_boxfilter_scalar(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[4],
                             uint32_t *out) __attribute__((visibility("hidden")));
#ifdef SC_HAVE_AVX2_KERNEL
uint32_t sc_boxfilter_avx2(const sc_fbox *b, uint32_t j0, uint32_t j1, const float q[4],
                           uint32_t *out) __attribute__((visibility("hidden")));
#endif

#endif /* SC_BOXFILTER_H */
