/*
 * kdsplit.c: seed 003's space division (SC_ALGO_KDSPLIT): cut along
 * alternating axes at the median centre (a true median, by selection; the
 * seed's mean as an option), spheres straddling a cut go to both sides,
 * stop at max_depth, at leaf_size, or when a cut is useless (a child keeps
 * every sphere of its parent). The builder is spacetree.c's.
 */
#include "spacetree.h"

static sc_status kdsplit_build(const sc_peer_env *e, sc_peer_built *out) {
    sc_status st = sc_spacetree_build(e, SPACETREE_KDSPLIT, &e->opt->kdsplit, out);
    out->levels = e->opt->kdsplit.max_depth;
    return st;
}

static void kdsplit_defaults(sc_options *o) {
    o->kdsplit = (sc_tree_options){24, 32, SC_SPLIT_MEDIAN};
}

static bool kdsplit_valid(const sc_options *o) {
    return sc_tree_options_valid(&o->kdsplit);
}

const sc_peer sc_peer_kdsplit = {
    .id = SC_ALGO_KDSPLIT,
    .name = "kdsplit",
    .stages = {[SC_STAGE_GATHER] = "working copy", [SC_STAGE_CELLS] = "tree"},
    .tls_bytes = SC_LEAF_TLS,
    .defaults = kdsplit_defaults,
    .valid = kdsplit_valid,
    .build = kdsplit_build,
    .search = sc_spacetree_search};
