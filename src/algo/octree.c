/*
 * octree.c: the octree peer (SC_ALGO_OCTREE), seed 002's quadtree in 3-D
 * (and a quadtree for 2-D input): cells cut at their middle into 2^dims
 * children, a sphere copied into every child its box overlaps, leaves at
 * leaf_size spheres or max_depth levels (seed 002: depth 8 / leaf 20 and
 * depth 11 / leaf 30). The builder is spacetree.c's.
 */
#include "spacetree.h"

static sc_status octree_build(const sc_peer_env *e, sc_peer_built *out) {
    sc_status st = sc_spacetree_build(e, SPACETREE_OCTREE, &e->opt->octree, out);
    out->levels = e->opt->octree.max_depth;
    return st;
}

const sc_peer sc_peer_octree = {"octree", SC_LEAF_TLS, octree_build, sc_spacetree_search};
