/*
 * kernel.h: the narrowphase kernel interface.
 *
 * A kernel tests a block of up to SC_BLOCK consecutive home spheres
 * [i0, i0 + ni) of the sorted working copy against candidates of the same
 * copy and appends the pairs (i, j) that satisfy the exact double predicate
 * to a hit buffer. Candidates come in two parts: first the own row's spheres
 * inside the block (j = i0 + 1 .. i0 + ni - 1, below tri_end), each tested
 * only against home spheres i < j, so pairs inside a row are seen once; then
 * a flat list of candidate indices (the windows of the neighbour rows,
 * flattened by the search), tested against the whole block. Hits are emitted
 * for each candidate in that order, home spheres in order.
 * Every kernel evaluates d2 = (dx*dx + dy*dy) + dz*dz and s*s in double with
 * separate multiplies and adds, so all kernels agree bit for bit with the
 * oracle, and they emit in the same order. A kernel reserves room for the
 * hits of one candidate (SC_BLOCK pairs) before writing them. The working
 * copy must be readable SC_BLOCK elements past its end (padding).
 */
#ifndef SC_KERNEL_H
#define SC_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#define SC_BLOCK 4

typedef struct sc_hits {
    uint32_t *pairs; /* 2 * capacity entries: i, j in sorted order */
    size_t count;
    size_t capacity;
    /* Called when fewer than `need` slots are free; empties the buffer. */
    void (*flush)(struct sc_hits *hits);
    void *owner;
} sc_hits;

typedef struct sc_kernel_args {
    const double *x, *y, *z, *r; /* working copy, indexed by sorted index */
    uint32_t i0, ni;             /* home block: i0 .. i0 + ni - 1, ni <= SC_BLOCK */
    uint32_t tri_end;            /* own row candidates i0 + 1 .. min(tri_end, i0 + ni) - 1:
                                    tested only against home spheres i < j */
    const uint32_t *cand;        /* further candidates, tested against the whole block */
    uint32_t ncand;
    /* Indirect layout only (sc_narrow_indirect): the caller's arrays, read
     * at perm[k] for sorted index k; x, y, z, r above are then unused. */
    const uint32_t *perm;
    const char *vx, *vy, *vz, *vr; /* vz may be NULL (2-D) */
    size_t stride, rstride;        /* of vx, vy, vz; of vr */
    int f64;
} sc_kernel_args;

/* Returns the number of candidate tests run (home spheres x candidates that
 * were eligible). */
typedef uint64_t (*sc_kernel_fn)(const sc_kernel_args *args, sc_hits *hits);

uint64_t sc_narrow_scalar(const sc_kernel_args *args, sc_hits *hits)
    __attribute__((visibility("hidden")));
#ifdef SC_HAVE_AVX2_KERNEL
uint64_t sc_narrow_avx2(const sc_kernel_args *args, sc_hits *hits)
    __attribute__((visibility("hidden")));
#endif
uint64_t sc_narrow_indirect(const sc_kernel_args *args, sc_hits *hits)
    __attribute__((visibility("hidden")));

/* Make room for `need` more pairs. */
static inline void sc_hits_reserve(sc_hits *h, size_t need) {
    if (h->capacity - h->count < need)
        h->flush(h);
}

/* The lanes of the block that own-row candidate j = i0 + t (1 <= t <
 * SC_BLOCK) is tested against, for all t at once: bits 4 (t - 1) .. 4 t - 1
 * hold home spheres i0 .. i0 + t - 1 if j is a candidate (t < ni and
 * j < tri_end), else nothing. */
static inline unsigned sc_tri_lanes(const sc_kernel_args *a) {
    _Static_assert(SC_BLOCK == 4, "the table below is for 4-sphere blocks");
    static const uint16_t masks[SC_BLOCK + 1] = {0, 0, 0x1, 0x31, 0x731};
    const uint32_t below = a->tri_end > a->i0 ? a->tri_end - a->i0 : 0;
    return masks[below < a->ni ? below : a->ni];
}

#endif /* SC_KERNEL_H */
