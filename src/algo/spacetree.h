/*
 * spacetree.h: the builder the octree and the median split share: a tree
 * of binary cuts of space, each sphere copied into every child its box
 * overlaps, leaves searched with the reference-point filter (peer.h).
 */
#ifndef SC_SPACETREE_H
#define SC_SPACETREE_H

#include "peer.h"

typedef enum { SPACETREE_OCTREE, SPACETREE_KDSPLIT } spacetree_kind;

SC_INTERNAL sc_status sc_spacetree_build(const sc_peer_env *e, spacetree_kind kind,
                                         const sc_tree_options *o, sc_peer_built *out);
SC_INTERNAL uint64_t sc_spacetree_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel,
                                         sc_hits *hits, void *tls);

#endif
