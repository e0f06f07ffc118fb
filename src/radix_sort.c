/*
 * radix_sort.c: stage 3. Sorts n (key, index) pairs by key, stable, with a
 * parallel LSD radix sort: digits of up to 11 bits over the key's significant
 * bits only; one counting read first finds the digits that are equal for every
 * key and those passes are skipped. Each pass: per-thread histograms of a
 * static block, an exclusive prefix over (digit, thread), a stable scatter.
 * Cost per pass: read 12 and write 12 bytes per element.
 * Result lands in keys/index (copied back if the pass count is odd).
 */
#include "internal.h"

#include <string.h>

#define MAX_DIGIT_BITS 11
#define MAX_PASSES 6 /* 64 / 11, rounded up */

static void block_of(size_t n, int t, int nt, size_t *b, size_t *e) {
    *b = n * (size_t)t / (size_t)nt;
    *e = n * (size_t)(t + 1) / (size_t)nt;
}

size_t sc_radix_sort_scratch(int nthreads) {
    return sizeof(size_t) * ((size_t)1 << MAX_DIGIT_BITS) * (size_t)(nthreads > 0 ? nthreads : 1);
}

void sc_radix_sort_pairs(uint64_t *keys, uint32_t *index, uint64_t *tmp_keys, uint32_t *tmp_index,
                         size_t n, int key_bits, size_t *count, int nthreads) {
    if (n < 2 || key_bits <= 0)
        return;
    int passes = (key_bits + MAX_DIGIT_BITS - 1) / MAX_DIGIT_BITS;
    const int dbits = (key_bits + passes - 1) / passes;
    const size_t buckets = (size_t)1 << dbits;
    const uint64_t dmask = buckets - 1;

    /* Which digits vary? Compare every key with the first, OR the differences. */
    uint64_t varying = 0;
    const uint64_t first = keys[0];
#pragma omp parallel for schedule(static) reduction(| : varying)
    for (size_t k = 0; k < n; k++)
        varying |= keys[k] ^ first;

    if (n < 4096)
        nthreads = 1;
    uint64_t *src_k = keys, *dst_k = tmp_keys;
    uint32_t *src_i = index, *dst_i = tmp_index;
    bool in_tmp = false;

    for (int pass = 0; pass < passes; pass++) {
        const int shift = pass * dbits;
        if (((varying >> shift) & dmask) == 0)
            continue;
#pragma omp parallel num_threads(nthreads)
        {
            const int t = sc_thread_id();
            const int nt = sc_num_threads();
            size_t b, e;
            block_of(n, t, nt, &b, &e);
            size_t *mine = count + (size_t)t * buckets;
            memset(mine, 0, sizeof(size_t) * buckets);
            for (size_t k = b; k < e; k++)
                mine[(src_k[k] >> shift) & dmask]++;
#pragma omp barrier
#pragma omp single
            {
                size_t sum = 0;
                for (size_t d = 0; d < buckets; d++)
                    for (int u = 0; u < nt; u++) {
                        size_t c = count[(size_t)u * buckets + d];
                        count[(size_t)u * buckets + d] = sum;
                        sum += c;
                    }
            }
            for (size_t k = b; k < e; k++) {
                const uint64_t key = src_k[k];
                size_t o = mine[(key >> shift) & dmask]++;
                dst_k[o] = key;
                dst_i[o] = src_i[k];
            }
        }
        uint64_t *tk = src_k;
        src_k = dst_k;
        dst_k = tk;
        uint32_t *ti = src_i;
        src_i = dst_i;
        dst_i = ti;
        in_tmp = !in_tmp;
    }
    if (in_tmp) {
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < n; k++) {
            keys[k] = tmp_keys[k];
            index[k] = tmp_index[k];
        }
    }
}
