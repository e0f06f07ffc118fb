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

static void octree_defaults(sc_options *o) {
    o->octree = (sc_tree_options){8, 20, SC_SPLIT_MEDIAN}; /* seed 002's depth 8, leaf 20 */
}

static bool octree_valid(const sc_options *o) {
    return sc_tree_options_valid(&o->octree);
}

const sc_peer sc_peer_octree = {
    .id = SC_ALGO_OCTREE,
    .name = "octree",
    .stages = {[SC_STAGE_GATHER] = "working copy", [SC_STAGE_CELLS] = "tree"},
    .tls_bytes = SC_LEAF_TLS,
    .defaults = octree_defaults,
    .valid = octree_valid,
    .build = octree_build,
    .search = sc_spacetree_search};
