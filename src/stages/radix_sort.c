/*
 * radix_sort.c: the radix sort stage. Sorts n (key, index) pairs by key, stable, with a
 * parallel LSD radix sort: digits of up to 11 bits over the key's significant
 * bits only; digits that are equal for every key are skipped. The input is
 * cut into `blocks` static blocks (one per thread). Each pass: per-block
 * histograms, an exclusive prefix over (digit, block), a stable scatter.
 *
 * The keys stage can do the first pass's counting for us (sc_radix_first):
 * it already holds every key in a register, so it fills the per-block
 * histograms of digit 0 and ORs key ^ key[0] to find the constant digits,
 * and the sort skips two reads of the keys. It can also leave the index
 * unwritten (it is the identity): pass 0 then writes k instead of reading it.
 * The result stays in whichever buffer the last pass wrote (no copy back);
 * the return value says which.
 *
 * Packed form (sc_radix_sort_packed): when the key's significant bits and
 * the index's (b = bits of n - 1) fit 64 together, the keys stage writes
 * key << b | index as one word and the passes move 8 bytes per sphere
 * instead of 12, in one stream instead of two; the key's digits are read b
 * bits up.
 *
 * Streaming scatter (first->stream): a plain scatter writes each key into
 * one of up to 2^11 runs, and every cache line it writes is first read from
 * memory for ownership: half as much traffic again as the pass's bytes. With
 * stream, each block gathers, per digit, the words of its run's current
 * 64-byte line in a buffer of its own (scratch: 2^11 lines of keys, 2^11
 * of indices and the runs' starts, 264 KiB per block) and writes a line it
 * owns whole with streaming stores, which skip that read and the caches
 * (the next pass reads from memory anyway: streaming is asked for only for
 * sorts far larger than the caches). The first and last line of a run may
 * be shared with the runs beside it (another block's, or the next digit's):
 * their words are written plainly, before the block's barrier, as the plain
 * scatter writes all of them. Same order, same words.
 */
#include "internal.h"

#include <string.h>
#include <simde/x86/sse2.h>

#define MAX_DIGIT_BITS 11
/* Keys read ahead of the sequential read in the counting and scatter loops
 * (2 KB of words). The hardware prefetcher alone loses the stream at 4 KB
 * page boundaries (docs/decisions/0003-stage-tuning.md). */
#define SC_PREFETCH_KEYS 256

static inline void read_ahead(const void *base, size_t elem, size_t k, size_t hi) {
    if (k + SC_PREFETCH_KEYS < hi)
        __builtin_prefetch((const char *)base + (k + SC_PREFETCH_KEYS) * elem);
}

/* Sorts smaller than this many keys never stream (their passes may stay in
 * the caches, which streaming stores would bypass). */
#define SC_STREAM_MIN_KEYS ((size_t)1 << 22)
#define LINE 64
#define KEYS_PER_LINE (LINE / 8)
#define INDEX_PER_LINE (LINE / 4)
/* Per block: a line of keys and a line of indices per digit, the runs' starts. */
#define STREAM_BLOCK_BYTES (((size_t)1 << MAX_DIGIT_BITS) * (2 * LINE + sizeof(uint32_t)))

bool sc_radix_stream(size_t n) {
    return n >= SC_STREAM_MIN_KEYS && sc_cpu_streaming_scatter();
}

/* One 64-byte line that this block alone writes, past the caches; the
 * destination is line-aligned. */
static inline void line_out(void *dst, const void *src) {
    const simde__m128i *s = src;
    simde__m128i *d = dst;
    simde_mm_stream_si128(d, simde_mm_load_si128(s));
    simde_mm_stream_si128(d + 1, simde_mm_load_si128(s + 1));
    simde_mm_stream_si128(d + 2, simde_mm_load_si128(s + 2));
    simde_mm_stream_si128(d + 3, simde_mm_load_si128(s + 3));
}

/* The scatter of one block [lo, hi) through line buffers (see the top).
 * pos[d]: where the block's next key of digit d goes; lines: the block's
 * STREAM_BLOCK_BYTES, line-aligned. src_i NULL: the index is k itself;
 * dst_i NULL: packed words, no index. */
static void scatter_lines(const uint64_t *src_k, const uint32_t *src_i, uint64_t *dst_k,
                          uint32_t *dst_i, size_t lo, size_t hi, int shift, uint64_t dmask,
                          uint32_t *pos, size_t buckets, void *lines) {
    uint64_t *const kline = lines;
    uint32_t *const iline = (uint32_t *)(kline + buckets * KEYS_PER_LINE);
    uint32_t *const start = iline + buckets * INDEX_PER_LINE;
    memcpy(start, pos, buckets * sizeof *start);
    for (size_t k = lo; k < hi; k++) {
        read_ahead(src_k, sizeof *src_k, k, hi);
        if (src_i)
            read_ahead(src_i, sizeof *src_i, k, hi);
        const uint64_t key = src_k[k];
        const size_t d = (key >> shift) & dmask;
        const uint32_t o = pos[d]++;
        uint64_t *const kl = kline + d * KEYS_PER_LINE;
        kl[o % KEYS_PER_LINE] = key;
        if (o % KEYS_PER_LINE == KEYS_PER_LINE - 1) { /* the line is complete */
            const uint32_t l0 = o - (KEYS_PER_LINE - 1);
            if (l0 >= start[d])
                line_out(dst_k + l0, kl);
            else /* shared with the run before */
                for (uint32_t j = start[d]; j <= o; j++)
                    dst_k[j] = kl[j % KEYS_PER_LINE];
        }
        if (dst_i) {
            uint32_t *const il = iline + d * INDEX_PER_LINE;
            il[o % INDEX_PER_LINE] = src_i ? src_i[k] : (uint32_t)k;
            if (o % INDEX_PER_LINE == INDEX_PER_LINE - 1) {
                const uint32_t l0 = o - (INDEX_PER_LINE - 1);
                if (l0 >= start[d])
                    line_out(dst_i + l0, il);
                else
                    for (uint32_t j = start[d]; j <= o; j++)
                        dst_i[j] = il[j % INDEX_PER_LINE];
            }
        }
    }
    /* Each run's last, unfinished line (the words since its last line
     * boundary, or since its start). */
    for (size_t d = 0; d < buckets; d++) {
        const uint32_t e = pos[d], s0 = start[d];
        if (e == s0)
            continue;
        const uint32_t kb = e - e % KEYS_PER_LINE, ib = e - e % INDEX_PER_LINE;
        for (uint32_t j = kb > s0 ? kb : s0; j < e; j++)
            dst_k[j] = kline[d * KEYS_PER_LINE + j % KEYS_PER_LINE];
        if (dst_i)
            for (uint32_t j = ib > s0 ? ib : s0; j < e; j++)
                dst_i[j] = iline[d * INDEX_PER_LINE + j % INDEX_PER_LINE];
    }
    simde_mm_sfence(); /* the streamed lines are visible before the barrier */
}

int sc_radix_digit_bits(int key_bits) {
    if (key_bits <= 0)
        return 0;
    const int passes = (key_bits + MAX_DIGIT_BITS - 1) / MAX_DIGIT_BITS;
    return (key_bits + passes - 1) / passes;
}

int sc_radix_blocks(size_t n, int nthreads) {
    return n < 4096 || nthreads < 1 ? 1 : nthreads;
}

/* The histograms; with stream, then the blocks' line buffers from the
 * next 64-byte boundary. */
static size_t counts_bytes(int nthreads) {
    return sizeof(uint32_t) * ((size_t)1 << MAX_DIGIT_BITS) * (size_t)(nthreads > 0 ? nthreads : 1);
}

size_t sc_radix_sort_scratch(int nthreads, bool stream) {
    const size_t blocks = (size_t)(nthreads > 0 ? nthreads : 1);
    return counts_bytes(nthreads) + (stream ? LINE + STREAM_BLOCK_BYTES * blocks : 0);
}

static void block_of(size_t n, int b, int nb, size_t *lo, size_t *hi) {
    *lo = n * (size_t)b / (size_t)nb;
    *hi = n * (size_t)(b + 1) / (size_t)nb;
}

/* index == NULL: the packed form; the key sits at bit `base` of each word. */
static bool radix_sort(uint64_t *keys, uint32_t *index, uint64_t *tmp_keys, uint32_t *tmp_index,
                       size_t n, int key_bits, int base, uint32_t *count, int nthreads,
                       const sc_radix_first *first) {
    const bool packed = index == NULL;
    const bool identity = !packed && first && first->identity;
    const int dbits = sc_radix_digit_bits(key_bits);
    if (n < 2 || dbits == 0) {
        if (identity)
            for (size_t k = 0; k < n; k++)
                index[k] = (uint32_t)k;
        return false;
    }
    const int passes = (key_bits + dbits - 1) / dbits;
    const size_t buckets = (size_t)1 << dbits;
    const uint64_t dmask = buckets - 1;
    const int nb = sc_radix_blocks(n, nthreads);
    /* Streaming needs line-aligned destinations (the context's buffers are). */
    const bool stream = first && first->stream &&
                        ((uintptr_t)keys | (uintptr_t)tmp_keys) % LINE == 0 &&
                        (packed || ((uintptr_t)index | (uintptr_t)tmp_index) % LINE == 0);
    char *const lines = stream
                            ? (char *)count + counts_bytes(nthreads) +
                                  (LINE - ((uintptr_t)count + counts_bytes(nthreads)) % LINE) % LINE
                            : NULL;

    /* Which digits vary? The OR of every key's difference from the first. */
    uint64_t varying = 0;
    if (first && first->hist0) {
        varying = first->varying;
    } else {
        const uint64_t k0 = keys[0];
#pragma omp parallel for schedule(static) reduction(| : varying)
        for (size_t k = 0; k < n; k++)
            varying |= keys[k] ^ k0;
        varying >>= base;
    }

    uint64_t *src_k = keys, *dst_k = tmp_keys;
    uint32_t *src_i = index, *dst_i = tmp_index;
    bool in_tmp = false, read_index = !identity;

    for (int pass = 0; pass < passes; pass++) {
        if (((varying >> (pass * dbits)) & dmask) == 0)
            continue;
        const int shift = base + pass * dbits;
        const bool counted = pass == 0 && first && first->hist0;
#pragma omp parallel num_threads(nb)
        {
            const int t = sc_thread_id(), nt = sc_num_threads();
            if (!counted)
                for (int b = t; b < nb; b += nt) {
                    size_t lo, hi;
                    block_of(n, b, nb, &lo, &hi);
                    uint32_t *mine = count + (size_t)b * buckets;
                    memset(mine, 0, sizeof(uint32_t) * buckets);
                    for (size_t k = lo; k < hi; k++) {
                        read_ahead(src_k, sizeof *src_k, k, hi);
                        mine[(src_k[k] >> shift) & dmask]++;
                    }
                }
#pragma omp barrier
#pragma omp single
            {
                uint32_t sum = 0;
                for (size_t d = 0; d < buckets; d++)
                    for (int u = 0; u < nb; u++) {
                        const uint32_t c = count[(size_t)u * buckets + d];
                        count[(size_t)u * buckets + d] = sum;
                        sum += c;
                    }
            }
            for (int b = t; b < nb; b += nt) {
                size_t lo, hi;
                block_of(n, b, nb, &lo, &hi);
                uint32_t *mine = count + (size_t)b * buckets;
                if (stream)
                    scatter_lines(src_k, read_index ? src_i : NULL, dst_k, packed ? NULL : dst_i,
                                  lo, hi, shift, dmask, mine, buckets,
                                  lines + (size_t)b * STREAM_BLOCK_BYTES);
                else if (packed)
                    for (size_t k = lo; k < hi; k++) {
                        read_ahead(src_k, sizeof *src_k, k, hi);
                        const uint64_t key = src_k[k];
                        dst_k[mine[(key >> shift) & dmask]++] = key;
                    }
                else if (read_index)
                    for (size_t k = lo; k < hi; k++) {
                        read_ahead(src_k, sizeof *src_k, k, hi);
                        read_ahead(src_i, sizeof *src_i, k, hi);
                        const uint64_t key = src_k[k];
                        const uint32_t o = mine[(key >> shift) & dmask]++;
                        dst_k[o] = key;
                        dst_i[o] = src_i[k];
                    }
                else
                    for (size_t k = lo; k < hi; k++) {
                        read_ahead(src_k, sizeof *src_k, k, hi);
                        const uint64_t key = src_k[k];
                        const uint32_t o = mine[(key >> shift) & dmask]++;
                        dst_k[o] = key;
                        dst_i[o] = (uint32_t)k;
                    }
            }
        }
        read_index = true;
        uint64_t *tk = src_k;
        src_k = dst_k;
        dst_k = tk;
        uint32_t *ti = src_i;
        src_i = dst_i;
        dst_i = ti;
        in_tmp = !in_tmp;
    }
    if (!read_index && !packed) /* every digit was constant: the order is the input's */
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < n; k++)
            index[k] = (uint32_t)k;
    return in_tmp;
}

bool sc_radix_sort_pairs(uint64_t *keys, uint32_t *index, uint64_t *tmp_keys, uint32_t *tmp_index,
                         size_t n, int key_bits, uint32_t *count, int nthreads,
                         const sc_radix_first *first) {
    SC_ASSERT(index && tmp_index);
    return radix_sort(keys, index, tmp_keys, tmp_index, n, key_bits, 0, count, nthreads, first);
}

bool sc_radix_sort_packed(uint64_t *words, uint64_t *tmp, size_t n, int key_bits, int index_bits,
                          uint32_t *count, int nthreads, const sc_radix_first *first) {
    SC_ASSERT(index_bits > 0 && index_bits <= 32 && key_bits + index_bits <= 64);
    return radix_sort(words, NULL, tmp, NULL, n, key_bits, index_bits, count, nthreads, first);
}

bool sc_radix_sort_words(uint64_t *words, uint64_t *tmp, size_t n, int key_bits, uint32_t *count,
                         int nthreads) {
    SC_ASSERT(key_bits >= 0 && key_bits <= 64);
    return radix_sort(words, NULL, tmp, NULL, n, key_bits, 0, count, nthreads, NULL);
}

/* ---- counting sort by small keys ----------------------------------------- */

size_t sc_counting_scratch(int threads, uint32_t buckets) {
    return ((size_t)threads + 1) * sizeof(size_t) + (size_t)threads * buckets * sizeof(uint32_t);
}

int sc_counting_threads(int threads, uint32_t buckets, size_t room) {
    const size_t fit = buckets ? room / buckets : (size_t)threads;
    return fit < 1 ? 1 : fit < (size_t)threads ? (int)fit : threads;
}

/* Three phases, the team's threads in each: thread t counts items block
 * t into its counts; then, over buckets range t, turns every thread's
 * count of a bucket into where that thread's first item of the bucket
 * goes (bucket by bucket, threads in order within one: the serial
 * sort's positions); then places block t's items. */
void sc_counting_order(const uint32_t *key, size_t n, uint32_t buckets, int threads, void *scratch,
                       uint32_t *start, uint32_t *order) {
    size_t *total = scratch; /* per range, then where each range starts */
    uint32_t *count = (uint32_t *)(void *)(total + threads + 1);
#pragma omp parallel num_threads(threads)
    {
        const int t = sc_thread_id(), nt = sc_num_threads();
        const size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
        uint32_t *mine = count + (size_t)t * buckets;
        memset(mine, 0, sizeof(uint32_t) * buckets);
        for (size_t k = lo; k < hi; k++)
            mine[key[k]]++;
#pragma omp barrier
        const size_t b0 = (size_t)buckets * (size_t)t / (size_t)nt;
        const size_t b1 = (size_t)buckets * (size_t)(t + 1) / (size_t)nt;
        size_t sum = 0;
        for (size_t q = b0; q < b1; q++)
            for (int u = 0; u < nt; u++)
                sum += count[(size_t)u * buckets + q];
        total[t + 1] = sum;
#pragma omp barrier
#pragma omp single
        {
            total[0] = 0;
            for (int u = 1; u <= nt; u++)
                total[u] += total[u - 1];
        }
        size_t at = total[t];
        for (size_t q = b0; q < b1; q++) {
            start[q] = (uint32_t)at;
            for (int u = 0; u < nt; u++) {
                const uint32_t m = count[(size_t)u * buckets + q];
                count[(size_t)u * buckets + q] = (uint32_t)at;
                at += m;
            }
        }
#pragma omp barrier
        for (size_t k = lo; k < hi; k++)
            order[mine[key[k]]++] = (uint32_t)k;
    }
    start[buckets] = (uint32_t)n;
}
