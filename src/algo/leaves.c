/*
 * leaves.c: what the peers that copy spheres into regions share (the 1-D
 * partition, the octree, the median split): the all-pairs search of one
 * leaf through the kernels with the reference-point filter of peer.h, and
 * the cut of a list of leaves into chunks of equal work.
 */
#include "peer.h"

static inline double max2(double a, double b) {
    return a > b ? a : b;
}

/* Keeps the pairs whose reference point lies in the region. */
static void leaf_flush(sc_hits *h) {
    sc_leaf_hits *L = h->owner;
    const sc_work *w = L->w;
    const sc_region *g = L->region;
    sc_hits_reserve(L->out, h->count);
    uint32_t *out = L->out->pairs + 2 * L->out->count;
    size_t kept = 0;
    for (size_t k = 0; k < h->count; k++) {
        const uint32_t a = h->pairs[2 * k], b = h->pairs[2 * k + 1];
        const double *c[3] = {w->x, w->y, w->z};
        bool in = true;
        for (int ax = 0; ax < L->axes; ax++) {
            const double p = max2(sc_box_lo(c[ax][a], w->r[a]), sc_box_lo(c[ax][b], w->r[b]));
            in &= p >= g->lo[ax] && p < g->hi[ax];
        }
        out[2 * kept] = a;
        out[2 * kept + 1] = b;
        kept += in;
    }
    L->out->count += kept;
    h->count = 0;
}

uint64_t sc_leaf_pairs(const sc_work *w, uint32_t a, uint32_t b, const sc_region *region, int axes,
                       sc_kernel_fn kernel, sc_hits *out, void *scratch) {
    sc_leaf_hits *L = scratch;
    L->local.pairs = L->buf;
    L->local.count = 0;
    L->local.capacity = SC_LEAF_HITS;
    L->local.flush = leaf_flush;
    L->local.owner = L;
    L->out = out;
    L->w = w;
    L->region = region;
    L->axes = axes;
    uint32_t *list = (uint32_t *)(void *)(L + 1);
    const uint64_t tests = sc_range_pairs(w, a, b, b, kernel, &L->local, list);
    leaf_flush(&L->local);
    return tests;
}

size_t sc_chunk_units(const uint32_t *start, size_t count, size_t max_chunks, uint32_t *first) {
    double total = 0.0;
    for (size_t k = 0; k < count; k++) {
        const double m = (double)(start[k + 1] - start[k]);
        total += 0.5 * m * m + m;
    }
    /* at least about 2^16 tests' worth per chunk: a scheduler step is cheap
     * but not free */
    double target = total / (double)max_chunks;
    target = target > 65536.0 ? target : 65536.0;
    size_t c = 0;
    double acc = 0.0;
    first[0] = 0;
    for (size_t k = 0; k < count; k++) {
        const double m = (double)(start[k + 1] - start[k]);
        acc += 0.5 * m * m + m;
        if (acc >= target && c + 1 < max_chunks && k + 1 < count) {
            first[++c] = (uint32_t)(k + 1);
            acc = 0.0;
        }
    }
    first[++c] = (uint32_t)count;
    return count ? c : 0;
}
