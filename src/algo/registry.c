/*
 * registry.c: the table of peers, the one list of them. It names every
 * peer's declaration, and the core and the front ends look peers up in
 * it; no peer calls it.
 */
#include "peer.h"

/* Every peer, in sc_algorithm order (a peer's `id` is its place; a test
 * checks that they agree), one line each. Adding a peer: its file, its
 * line here and its CMake line; its id is the next number (SC_ALGO_COUNT
 * for the first that the public enum does not name yet). */
#define SC_PEERS(X)                                                                                \
    X(grid)                                                                                        \
    X(brute)                                                                                       \
    X(partition1d)                                                                                 \
    X(sap)                                                                                         \
    X(hashgrid)                                                                                    \
    X(octree)                                                                                      \
    X(kdsplit)                                                                                     \
    X(bvh)                                                                                         \
    X(segtree)                                                                                     \
    /* a new peer's line goes above */

#define DECLARE(name) extern const sc_peer sc_peer_##name;
SC_PEERS(DECLARE)
#define ENTRY(name) &sc_peer_##name,
static const sc_peer *const registry[] = {SC_PEERS(ENTRY)};

enum { PEERS = sizeof registry / sizeof registry[0] };
_Static_assert(PEERS >= SC_ALGO_COUNT, "a registry line for every sc_algorithm");

const sc_peer *sc_peer_of(sc_algorithm a) {
    return (unsigned)a < PEERS ? registry[a] : NULL;
}

int sc_algorithm_count(void) {
    return PEERS;
}
