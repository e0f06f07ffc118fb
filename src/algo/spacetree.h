/*
 * spacetree.h: the builder the octree and the median split share: a tree
 * of binary cuts of space, each sphere copied into every child its box
 * overlaps, leaves searched with the reference-point filter (peer.h).
 */
#ifndef SC_SPACETREE_H
#define SC_SPACETREE_H

#include "peer.h"

typedef enum { SPACETREE_OCTREE, SPACETREE_KDSPLIT } spacetree_kind;

/* A tree's options: depth 1..64, leaves of at least one sphere, a known split. */
static inline bool sc_tree_options_valid(const sc_tree_options *t) {
    return t->max_depth >= 1 && t->max_depth <= 64 && t->leaf_size >= 1 &&
           (t->split == SC_SPLIT_MEDIAN || t->split == SC_SPLIT_MEAN);
}

SC_INTERNAL sc_status sc_spacetree_build(const sc_peer_env *e, spacetree_kind kind,
                                         const sc_tree_options *o, sc_peer_built *out);
SC_INTERNAL uint64_t sc_spacetree_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel,
                                         sc_hits *hits, void *tls);

#endif
