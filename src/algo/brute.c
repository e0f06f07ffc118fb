/*
 * brute.c: the brute-force peer (SC_ALGO_BRUTE). All n(n-1)/2 tests of the
 * spheres in input order, no structure: the fast twin of the test oracle,
 * and the right tool when nearly every pair intersects (dense sets) or n is
 * a few hundred. The triangle i < j is cut into chunks of rows with equal
 * numbers of tests; within a chunk, candidates come in tiles of SC_TILE
 * spheres that stay in L1 while the chunk's home blocks stream past
 * (sc_range_pairs), tested by the engine's kernels.
 */
#include "peer.h"

#include <math.h>

enum { WORK, INDEX, CUTS };

typedef struct brute_state {
    const uint32_t *cut; /* chunk c: home spheres [cut[c], cut[c + 1]) */
} brute_state;

/* Enough chunks for load balance and streaming, few enough that each one
 * has work worth a scheduler step: about 2^16 tests each, at most 4096. */
static size_t brute_chunks(size_t n) {
    const double tests = 0.5 * (double)n * (double)n;
    double c = ceil(tests / 65536.0);
    c = c < 1.0 ? 1.0 : c > 4096.0 ? 4096.0 : c;
    const size_t blocks = (n + SC_BLOCK - 1) / SC_BLOCK;
    return (size_t)c < blocks ? (size_t)c : (blocks ? blocks : 1);
}

static sc_status brute_build(const sc_peer_env *e, sc_peer_built *out) {
    brute_state *s = e->state;
    const size_t n = e->view->n;
    const size_t nchunks = n ? brute_chunks(n) : 0;
    if (!sc_work_reserve(e, WORK, n, &out->work) || !sc_env_reserve(e, INDEX, 4 * (n + 1)) ||
        !sc_env_reserve(e, CUTS, 4 * (nchunks + 1)))
        return SC_ERR_OUT_OF_MEMORY;
    double t = sc_now();
    uint32_t *index = e->buf[INDEX].p;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++)
        index[k] = (uint32_t)k;
    sc_gather(e->view, index, n, &out->work);
    sc_env_stage(e, SC_STAGE_GATHER, t);
    /* Row i has n - 1 - i tests: chunk c starts where the tests before it
     * are c / nchunks of all, n (1 - sqrt(1 - c / nchunks)), on a block
     * boundary. */
    uint32_t *cut = e->buf[CUTS].p;
    cut[0] = 0;
    for (size_t c = 1; c <= nchunks; c++) {
        const double f = (double)c / (double)nchunks;
        size_t i = (size_t)((double)n * (1.0 - sqrt(1.0 - f)));
        i = i / SC_BLOCK * SC_BLOCK;
        if (c == nchunks || i > n)
            i = n;
        if (i < cut[c - 1])
            i = cut[c - 1];
        cut[c] = (uint32_t)i;
    }
    s->cut = cut;
    out->state = s;
    out->nchunks = nchunks;
    out->cells = 1;
    out->levels = 1;
    return SC_OK;
}

static uint64_t brute_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel,
                             sc_hits *hits, void *tls) {
    const brute_state *s = b->state;
    return sc_range_pairs(&b->work, s->cut[chunk], s->cut[chunk + 1], (uint32_t)b->work.n, kernel,
                          hits, tls);
}

const sc_peer sc_peer_brute = {.id = SC_ALGO_BRUTE,
                               .name = "brute",
                               .stages = {[SC_STAGE_GATHER] = "working copy"},
                               .tls_bytes = 4 * (SC_TILE + 16),
                               .build = brute_build,
                               .search = brute_search};
