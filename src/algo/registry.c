/*
 * registry.c: the table of peers, the one list of them. It names every
 * peer's declaration, and the core and the front ends look peers up in
 * it; no peer calls it.
 */
#include "peer.h"

/* Every peer, at its sc_algorithm (its `id`; a test checks that they
 * agree). Adding a peer: its file, its line here, its enum value and its
 * CMake line. */
static const sc_peer *const registry[] = {
    &sc_peer_grid,   &sc_peer_brute,   &sc_peer_partition1d, &sc_peer_sap,     &sc_peer_hashgrid,
    &sc_peer_octree, &sc_peer_kdsplit, &sc_peer_bvh,         &sc_peer_segtree,
};
_Static_assert(sizeof registry / sizeof registry[0] == SC_ALGO_COUNT,
               "one registry line per sc_algorithm");

const sc_peer *sc_peer_of(sc_algorithm a) {
    return (unsigned)a < SC_ALGO_COUNT ? registry[a] : NULL;
}
