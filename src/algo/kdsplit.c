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

const sc_peer sc_peer_kdsplit = {"kdsplit", SC_LEAF_TLS, kdsplit_build, sc_spacetree_search};
