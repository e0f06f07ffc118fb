/*
 * bvh4.h: the BVH's node test, several children at once. The binary tree
 * of algo/bvh.c is collapsed into nodes of up to four children whose boxes
 * sit side by side (SoA), so one AVX2 comparison per bound tests all four
 * (the way wide BVHs in ray tracers do). A walk lists the leaves from
 * leaf `after` on whose boxes overlap a query box, in a fixed order: the leaves of
 * a node in slot order, then its inner children, depth first, slot 0
 * first. The scalar reference and the AVX2 version return the same list.
 */
#ifndef SC_BVH4_H
#define SC_BVH4_H

#include <stdint.h>

#define SC_BVH4_LEAF 0x80000000u /* child = SC_BVH4_LEAF | leaf, else a node */
#define SC_BVH4_STACK 192        /* > 3 x the depth (at most 48) + 4 */

typedef struct sc_bvh4_node {
    double lo[3][4], hi[3][4]; /* the children's boxes per axis; an empty
                                  slot has lo = +inf, hi = -inf */
    uint32_t child[4];
    uint32_t last[4]; /* the last leaf under each child (0: empty slot,
                         whose empty box no query overlaps) */
} sc_bvh4_node;

/* A walk in progress: the caller pushes the root, then calls the walk until
 * sp is 0; each call lists at most cap leaves (cap >= 4). */
typedef struct sc_bvh4_walk {
    uint32_t stack[SC_BVH4_STACK];
    int sp;
} sc_bvh4_walk;

/* Lists into out the leaves lj >= after whose boxes overlap
 * q = {lo[3], hi[3]} (closed boxes), walking from w's stack; returns how
 * many (at most cap). */
typedef uint32_t (*sc_bvh4_walk_fn)(const sc_bvh4_node *nodes, const double q[6], uint32_t after,
                                    sc_bvh4_walk *w, uint32_t *out, uint32_t cap);

uint32_t sc_bvh4_walk_scalar(const sc_bvh4_node *nodes, const double q[6], uint32_t after,
                             sc_bvh4_walk *w, uint32_t *out, uint32_t cap)
    __attribute__((visibility("hidden")));
#ifdef SC_HAVE_AVX2_KERNEL
uint32_t sc_bvh4_walk_avx2(const sc_bvh4_node *nodes, const double q[6], uint32_t after,
                           sc_bvh4_walk *w, uint32_t *out, uint32_t cap)
    __attribute__((visibility("hidden")));
#endif

#endif /* SC_BVH4_H */
