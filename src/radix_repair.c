/*
 * radix_repair.c: the sort stage for packed words that are nearly in order
 * already: a caller's spheres kept in the grid's cell order (sc_cell_order)
 * a few steps after it re-sorted them, most keys in place and a few per
 * cent moved past a neighbour or into another row. Instead of the LSD
 * passes, which scatter every word once per digit:
 *
 *   1. each block splits its words, in one streaming pass, into an
 *      ascending run (kept: written compacted into tmp at the block's
 *      start) and the others (displaced: into a side buffer). A word joins
 *      the run when it is not below the run's last word and not above the
 *      next word; a word below the run's last joins it instead of being
 *      displaced when its successor is below that last word too and at most
 *      REPAIR_BACK words of the run are above it, which are displaced: so
 *      one word far ahead of its place (a sphere moved into a later row)
 *      cannot make every word after it look out of place;
 *   2. seams: the kept words of a block below the last kept word before it
 *      (a prefix of its run) join its displaced ones, so the blocks' runs
 *      form one ascending sequence;
 *   3. the displaced words are radix-sorted on the whole word;
 *   4. the kept run and the sorted displaced words are merged back into the
 *      words' own array, each thread its share of the output, found by a
 *      binary search (merge path).
 *
 * Packed words are distinct (each carries its index), so the result is
 * exactly the sort's. A block that finds more displaced words than its
 * share of the side buffer gives up before anything but tmp and the side
 * buffer was written: the caller then sorts as usual, with the keys
 * stage's histograms intact.
 */
#include "internal.h"

#include <string.h>

/* Blocks at most: the seams and the merge keep a few words per block. */
#define REPAIR_BLOCKS 64
/* Words of the kept run a word below it may send to the displaced ones. */
#define REPAIR_BACK 8

typedef struct run {
    const uint64_t *p; /* the block's kept words (tmp + lo + dropped) */
    size_t len, pre;   /* how many; how many kept words come before */
} run;

/* Kept word i of the whole sequence (i < total). */
static uint64_t kept_at(const run *r, int nr, size_t i) {
    int a = 0;
    while (a + 1 < nr && r[a + 1].pre <= i)
        a++;
    return r[a].p[i - r[a].pre];
}

/* How many kept words come first among the first o merged words. */
static size_t merge_split(const run *r, int nr, size_t kept, const uint64_t *d, size_t nd, size_t o) {
    size_t lo = o > nd ? o - nd : 0, hi = o < kept ? o : kept;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (kept_at(r, nr, mid) < d[o - mid - 1])
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool sc_radix_repair_packed(uint64_t *w, uint64_t *tmp, size_t n, int word_bits, uint64_t *side,
                            uint64_t *side_tmp, size_t cap, uint32_t *count, int nthreads) {
    if (n < 2)
        return true;
    int nb = sc_radix_blocks(n, nthreads);
    nb = nb > REPAIR_BLOCKS ? REPAIR_BLOCKS : nb;
    size_t lo[REPAIR_BLOCKS + 1], kept[REPAIR_BLOCKS], moved[REPAIR_BLOCKS];
    for (int b = 0; b <= nb; b++)
        lo[b] = n * (size_t)b / (size_t)nb;
    int over = 0;

    /* 1. split: kept into tmp[lo ..), displaced into the block's share of
     * side (cap * lo / n ..): the shares do not overlap */
#pragma omp parallel num_threads(nb) reduction(| : over)
    for (int b = sc_thread_id(); b < nb; b += sc_num_threads()) {
        const size_t a = lo[b], e = lo[b + 1];
        const size_t s0 = cap * a / n, room = cap * e / n - s0;
        uint64_t *k = tmp + a, *d = side + s0;
        size_t nk = 0, nd = 0;
        for (size_t i = a; i < e && !over; i++) {
            const uint64_t x = w[i], next = i + 1 < n ? w[i + 1] : UINT64_MAX;
            const uint64_t top = nk ? k[nk - 1] : 0;
            bool keep;
            if (x >= top) {
                keep = x <= next; /* not a word ahead of its place */
            } else {
                /* Below the run: either x is behind its place (keep the run)
                 * or the run's last few words were ahead of theirs (x and
                 * its successor both below them, and at most REPAIR_BACK of
                 * them above x): those go, x stays. */
                keep = x <= next && next < top &&
                       (nk <= REPAIR_BACK || k[nk - 1 - REPAIR_BACK] < x);
                while (keep && nk && k[nk - 1] > x) {
                    if (nd == room) {
                        over = 1;
                        break;
                    }
                    d[nd++] = k[--nk];
                }
            }
            if (over)
                break;
            if (keep) {
                k[nk++] = x;
            } else if (nd < room) {
                d[nd++] = x;
            } else {
                over = 1;
            }
        }
        kept[b] = nk;
        moved[b] = nd;
    }
    if (over)
        return false;

    /* 2. seams, and the displaced words gathered at the side's start */
    run r[REPAIR_BLOCKS];
    int nr = 0;
    uint64_t last = 0;
    size_t total = 0, nd = 0;
    for (int b = 0; b < nb; b++) {
        const uint64_t *k = tmp + lo[b];
        size_t drop = 0;
        while (drop < kept[b] && k[drop] < last)
            drop++;
        const size_t s0 = cap * lo[b] / n, room = cap * lo[b + 1] / n - s0;
        if (moved[b] + drop > room)
            return false;
        memcpy(side + s0 + moved[b], k, drop * sizeof *k);
        memmove(side + nd, side + s0, (moved[b] + drop) * sizeof *side);
        nd += moved[b] + drop;
        if (drop < kept[b]) {
            r[nr++] = (run){k + drop, kept[b] - drop, total};
            total += kept[b] - drop;
            last = k[kept[b] - 1];
        }
    }

    /* 3. the displaced words in order */
    const uint64_t *ds = side;
    if (nd > 0 && sc_radix_sort_words(side, side_tmp, nd, word_bits, count, nthreads))
        ds = side_tmp;

    /* 4. merge back into w: block t writes w[lo[t], lo[t + 1]) */
    SC_ASSERT(total + nd == n);
#pragma omp parallel num_threads(nb)
    for (int t = sc_thread_id(); t < nb; t += sc_num_threads()) {
        const size_t o0 = lo[t], o1 = lo[t + 1];
        size_t i = merge_split(r, nr, total, ds, nd, o0), j = o0 - i;
        int a = 0;
        while (a < nr && r[a].pre + r[a].len <= i)
            a++;
        const uint64_t *kp = a < nr ? r[a].p + (i - r[a].pre) : NULL;
        const uint64_t *ke = a < nr ? r[a].p + r[a].len : NULL;
        for (size_t o = o0; o < o1; o++) {
            if (kp && (j >= nd || *kp < ds[j])) {
                w[o] = *kp++;
                if (kp == ke) {
                    a++;
                    kp = a < nr ? r[a].p : NULL;
                    ke = a < nr ? r[a].p + r[a].len : NULL;
                }
            } else {
                w[o] = ds[j++];
            }
        }
    }
    return true;
}
