/*
 * toy.c: a peer that exists only to show what adding a peer takes
 * (scripts/toy-peer.sh copies it to src/algo/ in a scratch tree, adds its
 * registry line and its CMake line, and nothing else). It tests every
 * pair, as brute does, but in one chunk per 256 home spheres and without
 * tiles: the simplest search a peer can declare.
 */
#include "peer.h"

enum { WORK, INDEX };
#define TOY_ROWS 256

static sc_status toy_build(const sc_peer_env *e, sc_peer_built *out) {
    const size_t n = e->view->n;
    if (!sc_work_reserve(e, WORK, n, &out->work) || !sc_env_reserve(e, INDEX, 4 * (n + 1)))
        return SC_ERR_OUT_OF_MEMORY;
    const double t = sc_now();
    uint32_t *index = e->buf[INDEX].p;
    for (size_t k = 0; k < n; k++)
        index[k] = (uint32_t)k;
    sc_gather(e->view, index, n, &out->work);
    sc_env_stage(e, SC_STAGE_GATHER, t);
    out->state = NULL;
    out->nchunks = (n + TOY_ROWS - 1) / TOY_ROWS;
    out->cells = 1;
    out->levels = 1;
    return SC_OK;
}

static uint64_t toy_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel, sc_hits *hits,
                           void *tls) {
    const uint32_t n = (uint32_t)b->work.n, lo = (uint32_t)(chunk * TOY_ROWS);
    const uint32_t hi = n - lo < TOY_ROWS ? n : lo + TOY_ROWS;
    return sc_range_pairs(&b->work, lo, hi, n, kernel, hits, tls);
}

const sc_peer sc_peer_toy = {.id = SC_ALGO_COUNT, /* the first after the shipped peers */
                             .name = "toy",
                             .stages = {[SC_STAGE_GATHER] = "working copy"},
                             .tls_bytes = 4 * (SC_TILE + 16),
                             .build = toy_build,
                             .search = toy_search};
