/*
 * bvh4_scalar.c: the reference walk of bvh4.h, one child box at a time,
 * built without auto-vectorisation.
 */
#include "bvh4.h"

static inline unsigned node_mask(const sc_bvh4_node *nd, const double q[6]) {
    unsigned mask = 0;
    for (int c = 0; c < 4; c++) {
        const int hit = nd->lo[0][c] <= q[3] && q[0] <= nd->hi[0][c] && nd->lo[1][c] <= q[4] &&
                        q[1] <= nd->hi[1][c] && nd->lo[2][c] <= q[5] && q[2] <= nd->hi[2][c];
        mask |= (unsigned)hit << c;
    }
    return mask;
}

#define SC_BVH4_WALK sc_bvh4_walk_scalar
#define SC_BVH4_QUERY(q) (void)0
#define SC_BVH4_MASK(nd) node_mask(nd, q)
#include "bvh4_walk.h"
