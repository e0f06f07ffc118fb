/*
 * rows.c: the row table stage. Takes the sorted keys (or packed key << b | index
 * words, which it splits, writing the index) and the sorted input indices;
 * produces the row table (one entry per non-empty row: its key with the fine
 * x bits cleared and its first sphere, ascending, with start[count] = n,
 * plus where each level's rows begin), and the fine x of each sphere as a
 * 32-bit array, which the search's windows compare four at a time (the
 * working copy itself is the shared gather's, gather.c). Memory: 12 bytes
 * per row and 4 per sphere, both bounded by n, and staging room for the
 * rows that the caller lends (n entries of each).
 */
#include "grid.h"

#include <string.h>

/* First row whose key is >= key: the rows are ascending. */
static size_t lower_bound(const uint64_t *key, size_t count, uint64_t k) {
    size_t lo = 0, hi = count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (key[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t sc_rows_build(const uint64_t *keys, size_t n, const sc_grid_plan *plan, sc_rows *c,
                     uint32_t *xq, uint32_t *index, int index_bits, size_t *offsets,
                     uint64_t *stage_key, uint32_t *stage_start) {
    size_t count = 0;
    const unsigned ks = (unsigned)index_bits; /* where the key starts */
    const uint64_t imask = ks ? ((uint64_t)1 << ks) - 1 : 0;
    const unsigned xs = ks + (unsigned)plan->bits[0]; /* X is the key's low field */
    /* One pass over the sorted keys. Each thread finds the rows that start
     * in its range [b, e) (branch-free: the slot is rewritten until the row
     * changes). Thread 0's rows are the table's first: it writes them in
     * place. Another thread's place is known only once every thread before
     * it has counted, so it writes its rows at [b, b + m) of the staging
     * arrays and copies them to their place after the count. Every thread
     * copies at once: moving the tables down inside the table itself had to
     * go in thread order whenever the rows were dense (about one per two
     * spheres in clustered sets), one thread moving most of the table. */
    if (n > 0) {
#pragma omp parallel
        {
            const int t = sc_thread_id(), nt = sc_num_threads();
            const size_t b = n * (size_t)t / (size_t)nt, e = n * (size_t)(t + 1) / (size_t)nt;
            const uint64_t xmask = ((uint64_t)1 << plan->bits[0]) - 1;
            uint64_t *rkey = t == 0 ? c->key : stage_key + b;
            uint32_t *rstart = t == 0 ? c->start : stage_start + b;
            /* xs >= SC_XFINE: no row field equals UINT64_MAX */
            uint64_t prev = b == 0 ? UINT64_MAX : keys[b - 1] >> xs;
            size_t m = 0;
#define ROW_STEP(k)                                                                                \
    do {                                                                                           \
        const uint64_t row = keys[k] >> xs;                                                        \
        rkey[m] = row << (xs - ks);                                                                \
        rstart[m] = (uint32_t)(k);                                                                 \
        m += row != prev;                                                                          \
        prev = row;                                                                                \
    } while (0)
            if (ks)
                for (size_t k = b; k < e; k++) {
                    ROW_STEP(k);
                    xq[k] = (uint32_t)((keys[k] >> ks) & xmask);
                    index[k] = (uint32_t)(keys[k] & imask);
                }
            else
                for (size_t k = b; k < e; k++) {
                    ROW_STEP(k);
                    xq[k] = (uint32_t)(keys[k] & xmask);
                }
#undef ROW_STEP
            offsets[t + 1] = m;
#pragma omp barrier
#pragma omp single
            {
                offsets[0] = 0;
                for (int u = 0; u < nt; u++)
                    offsets[u + 1] += offsets[u];
                count = offsets[nt];
            }
            if (t > 0) {
                memcpy(c->key + offsets[t], rkey, m * sizeof *c->key);
                memcpy(c->start + offsets[t], rstart, m * sizeof *c->start);
            }
        }
    }
    for (size_t k = n; k < n + SC_PAD; k++)
        xq[k] = UINT32_MAX;
    c->count = count;
    c->start[count] = (uint32_t)n;
    /* Level l's rows: keys with level bits == l, contiguous since the level
     * is the most significant field. */
    for (int l = 0; l < plan->levels; l++)
        c->level_begin[l] = lower_bound(c->key, count, (uint64_t)l << plan->level_shift);
    /* No key for "level `levels`": with 16 levels it would overflow 64 bits. */
    for (int l = plan->levels; l <= SC_MAX_LEVELS; l++)
        c->level_begin[l] = count;
    return count;
}
