/*
 * kernel.h: the narrowphase kernel interface.
 *
 * A kernel tests the home spheres [a0, a1) of the cell-ordered working copy
 * against a list of contiguous candidate ranges and appends the sorted-order
 * index pairs (i, j) that satisfy the exact double predicate to a hit buffer.
 * A range flagged `tri` is the home cell's own row: j runs from i + 1.
 * Every kernel evaluates d2 = (dx*dx + dy*dy) + dz*dz and s*s in double with
 * separate multiplies and adds, so all kernels agree bit for bit with the
 * oracle. Kernels test j in blocks of at most SC_KERNEL_BLOCK and reserve
 * room for a whole block of hits first (sc_hits_reserve), so the hit buffer
 * only needs SC_KERNEL_BLOCK pairs of capacity, whatever the cell sizes.
 */
#ifndef SC_KERNEL_H
#define SC_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#define SC_KERNEL_BLOCK 1024

typedef struct sc_range {
    uint32_t j0, j1;
    uint32_t tri; /* 1: j starts at max(j0, i + 1) */
} sc_range;

typedef struct sc_hits {
    uint32_t *pairs;   /* 2 * capacity entries: i, j in sorted order */
    size_t count;
    size_t capacity;
    /* Called when fewer than `need` slots are free; empties the buffer. */
    void (*flush)(struct sc_hits *hits);
    void *owner;
} sc_hits;

typedef struct sc_kernel_args {
    const double *x, *y, *z, *r; /* cell-ordered, padded */
    uint32_t a0, a1;             /* home spheres */
    const sc_range *ranges;
    int nranges;
} sc_kernel_args;

/* Returns the number of candidate tests run. */
typedef uint64_t (*sc_kernel_fn)(const sc_kernel_args *args, sc_hits *hits);

uint64_t sc_narrow_scalar(const sc_kernel_args *args, sc_hits *hits)
    __attribute__((visibility("hidden")));
#ifdef SC_HAVE_AVX2_KERNEL
uint64_t sc_narrow_avx2(const sc_kernel_args *args, sc_hits *hits)
    __attribute__((visibility("hidden")));
#endif

/* Make room for `need` more pairs. */
static inline void sc_hits_reserve(sc_hits *h, size_t need) {
    if (h->capacity - h->count < need)
        h->flush(h);
}

#endif /* SC_KERNEL_H */
