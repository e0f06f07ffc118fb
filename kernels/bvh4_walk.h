/*
 * bvh4_walk.h: the walk of bvh4.h, written once. The including file
 * defines SC_BVH4_WALK (the function's name), SC_BVH4_QUERY(q) (sets up
 * the query, once per call) and SC_BVH4_MASK(node) (bit c set when child
 * slot c's box overlaps the query).
 */
uint32_t SC_BVH4_WALK(const sc_bvh4_node *nodes, const double q[6], uint32_t after, sc_bvh4_walk *w,
                      uint32_t *out, uint32_t cap) {
    SC_BVH4_QUERY(q);
    uint32_t m = 0;
    while (w->sp > 0 && cap - m >= 4) {
        const sc_bvh4_node *nd = &nodes[w->stack[--w->sp]];
        unsigned mask = (unsigned)(SC_BVH4_MASK(nd));
        for (int c = 0; c < 4; c++) /* subtrees with no leaf from `after` on: none */
            if (nd->last[c] < after)
                mask &= ~(1u << c);
        unsigned inner = 0;
        for (int c = 0; c < 4; c++)
            if (mask >> c & 1u) {
                if (nd->child[c] & SC_BVH4_LEAF)
                    out[m++] = nd->child[c] & ~SC_BVH4_LEAF;
                else
                    inner |= 1u << c;
            }
        for (int c = 3; c >= 0; c--) /* pushed last to first: slot 0 is walked first */
            if (inner >> c & 1u)
                w->stack[w->sp++] = nd->child[c];
    }
    return m;
}
