/*
 * radix_repair.c: the sort stage for keys that are nearly in order
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
 *   3. the displaced words are radix-sorted on the key alone (stable:
 *      fewer passes than on the whole word) and then put in index order
 *      within each run of equal keys, which the split does not leave them
 *      in (a word the run gives up comes after later displaced ones);
 *   4. the kept run and the sorted displaced words are merged back into the
 *      words' own array, each thread its share of the output, found by a
 *      binary search (merge path).
 *
 * Two forms. Packed words (key << b | index) are distinct, so the result
 * is exactly the sort's. (key, index) pairs, where the two do not fit one
 * word, are ordered as the stable LSD sort orders them: by key, then by
 * input index. In the split every comparison is between a word and one
 * after it in the input, so a key comparison decides it (equal keys: the
 * earlier one goes first), and the merge compares (key, index).
 *
 * A block that finds more displaced words than its share of the side
 * buffer gives up before anything but tmp and the side buffer was
 * written: the caller then sorts as usual, with the keys stage's
 * histograms intact.
 */
#include "internal.h"

#include <string.h>

/* Blocks at most: the seams and the merge keep a few words per block. */
#define REPAIR_BLOCKS 64
/* Words of the kept run a word below it may send to the displaced ones. */
#define REPAIR_BACK 8

/* Where the words live. index == NULL: packed words. For pairs, index[k]
 * is written, not read (the input's index is k). */
typedef struct repair_bufs {
    uint64_t *w, *tmp, *side, *side_tmp;
    uint32_t *index, *tmp_index, *side_index, *side_tmp_index;
} repair_bufs;

typedef struct run {
    const uint64_t *p; /* the block's kept words (tmp + lo + dropped) */
    const uint32_t *i; /* their indices (pairs), or NULL */
    size_t len, pre;   /* how many; how many kept words come before */
} run;

/* Whether (a, ai) goes before (b, bi): by key, then index (pairs only;
 * packed words are distinct). */
static inline bool before(uint64_t a, uint32_t ai, uint64_t b, uint32_t bi, bool pairs) {
    return a < b || (pairs && a == b && ai < bi);
}

/* Kept word i of the whole sequence (i < total), and its index. */
static uint64_t kept_at(const run *r, int nr, size_t i, uint32_t *ki) {
    int a = 0;
    while (a + 1 < nr && r[a + 1].pre <= i)
        a++;
    *ki = r[a].i ? r[a].i[i - r[a].pre] : 0;
    return r[a].p[i - r[a].pre];
}

/* How many kept words come first among the first o merged words. */
static size_t merge_split(const run *r, int nr, size_t kept, const uint64_t *d, const uint32_t *di,
                          size_t nd, size_t o) {
    size_t lo = o > nd ? o - nd : 0, hi = o < kept ? o : kept;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        uint32_t ki;
        const uint64_t k = kept_at(r, nr, mid, &ki);
        if (before(k, ki, d[o - mid - 1], di ? di[o - mid - 1] : 0, di != NULL))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Indices a[0..m) ascending (distinct), tmp of m: LSD by bytes. */
static void sort_u32(uint32_t *a, uint32_t *tmp, size_t m) {
    for (int shift = 0; shift < 32; shift += 8) {
        size_t at[257] = {0};
        for (size_t k = 0; k < m; k++)
            at[((a[k] >> shift) & 255) + 1]++;
        for (int d = 0; d < 256; d++)
            at[d + 1] += at[d];
        for (size_t k = 0; k < m; k++)
            tmp[at[(a[k] >> shift) & 255]++] = a[k];
        memcpy(a, tmp, m * sizeof *a);
    }
}

/* Within each run of equal keys of the key-sorted displaced pairs, the
 * indices ascending (the stable sort's order). Runs are short but for
 * crafted input; long ones get a radix sort through spare (m entries). */
static void ties_by_index(const uint64_t *k, uint32_t *idx, size_t nd, uint32_t *spare) {
    for (size_t a = 0; a < nd;) {
        size_t e = a + 1;
        bool up = true;
        for (; e < nd && k[e] == k[a]; e++)
            up &= idx[e - 1] < idx[e];
        if (!up && e - a <= 32) {
            for (size_t q = a + 1; q < e; q++) {
                const uint32_t v = idx[q];
                size_t p = q;
                for (; p > a && idx[p - 1] > v; p--)
                    idx[p] = idx[p - 1];
                idx[p] = v;
            }
        } else if (!up) {
            sort_u32(idx + a, spare, e - a);
        }
        a = e;
    }
}

/* Inlined with pairs a constant at each call: the packed form then pays
 * nothing for the pairs' index moves (a run-time test in the loops slowed
 * it measurably: docs/design.md, "radix sort"). */
#define REPAIR_INLINE static inline __attribute__((always_inline))

/* Step 1 for the block [a, e): kept words into tmp[a ..), displaced into
 * side + s0 (room of them). Every comparison is of a word with a later
 * one: for pairs, the earlier one is below the later when its key is not
 * above the later's. Returns false when the room runs out. */
REPAIR_INLINE bool split_block(const repair_bufs *B, size_t n, size_t a, size_t e, size_t s0,
                               size_t room, bool pairs, size_t *kept, size_t *moved) {
    const uint64_t *w = B->w;
    uint64_t *k = B->tmp + a, *d = B->side + s0;
    uint32_t *ki = pairs ? B->tmp_index + a : NULL, *di = pairs ? B->side_index + s0 : NULL;
    size_t nk = 0, nd = 0;
    bool ok = true;
    for (size_t i = a; i < e && ok; i++) {
        const uint64_t x = w[i], next = i + 1 < n ? w[i + 1] : UINT64_MAX;
        const uint64_t top = nk ? k[nk - 1] : 0;
        bool keep;
        if (x >= top) {
            keep = x <= next; /* not a word ahead of its place */
        } else {
            /* Below the run: either x is behind its place (keep the run)
             * or the run's last few words were ahead of theirs (x and its
             * successor both below them, and at most REPAIR_BACK of them
             * above x): those go, x stays. */
            const uint64_t back = nk > REPAIR_BACK ? k[nk - 1 - REPAIR_BACK] : 0;
            keep =
                x <= next && next < top && (nk <= REPAIR_BACK || back < x || (pairs && back == x));
            while (keep && nk && k[nk - 1] > x) {
                if (nd == room) {
                    ok = false;
                    break;
                }
                --nk;
                if (pairs)
                    di[nd] = ki[nk];
                d[nd++] = k[nk];
            }
        }
        if (!ok)
            break;
        if (keep) {
            if (pairs)
                ki[nk] = (uint32_t)i;
            k[nk++] = x;
        } else if (nd < room) {
            if (pairs)
                di[nd] = (uint32_t)i;
            d[nd++] = x;
        } else {
            ok = false;
        }
    }
    *kept = nk;
    *moved = nd;
    return ok;
}

/* Step 4 for the output [o0, o1): the kept runs r and the sorted displaced
 * words ds (dsi) merged into w (and index). */
REPAIR_INLINE void merge_block(const repair_bufs *B, const run *r, int nr, size_t total,
                               const uint64_t *ds, const uint32_t *dsi, size_t nd, size_t o0,
                               size_t o1, bool pairs) {
    uint64_t *w = B->w;
    size_t i = merge_split(r, nr, total, ds, pairs ? dsi : NULL, nd, o0), j = o0 - i;
    int a = 0;
    while (a < nr && r[a].pre + r[a].len <= i)
        a++;
    const uint64_t *kp = a < nr ? r[a].p + (i - r[a].pre) : NULL;
    const uint64_t *ke = a < nr ? r[a].p + r[a].len : NULL;
    const uint32_t *kip = a < nr && pairs ? r[a].i + (i - r[a].pre) : NULL;
    for (size_t o = o0; o < o1; o++) {
        if (kp && (j >= nd || before(*kp, pairs ? *kip : 0, ds[j], pairs ? dsi[j] : 0, pairs))) {
            w[o] = *kp++;
            if (pairs)
                B->index[o] = *kip++;
            if (kp == ke) {
                a++;
                kp = a < nr ? r[a].p : NULL;
                ke = a < nr ? r[a].p + r[a].len : NULL;
                kip = a < nr && pairs ? r[a].i : NULL;
            }
        } else {
            if (pairs)
                B->index[o] = dsi[j];
            w[o] = ds[j++];
        }
    }
}

/* The same for packed words sorted on their key field (bits ib and up):
 * within each run of equal keys, the words ascending (their index bits).
 * Long runs are radix-sorted on the index bits through spare (m words). */
static void ties_packed(uint64_t *w, size_t nd, int ib, uint64_t *spare, uint32_t *count) {
    for (size_t a = 0; a < nd;) {
        size_t e = a + 1;
        bool up = true;
        for (; e < nd && w[e] >> ib == w[a] >> ib; e++)
            up &= w[e - 1] < w[e];
        if (!up && e - a <= 32) {
            for (size_t q = a + 1; q < e; q++) {
                const uint64_t v = w[q];
                size_t p = q;
                for (; p > a && w[p - 1] > v; p--)
                    w[p] = w[p - 1];
                w[p] = v;
            }
        } else if (!up && sc_radix_sort_words(w + a, spare, e - a, ib, count, 1)) {
            memcpy(w + a, spare, (e - a) * sizeof *w);
        }
        a = e;
    }
}

/* key_bits: the key's width; ib: packed words' index bits (0 for pairs). */
static bool repair(const repair_bufs *B, size_t n, int key_bits, int ib, size_t cap,
                   uint32_t *count, int nthreads) {
    const bool pairs = B->index != NULL;
    uint64_t *const tmp = B->tmp, *const side = B->side;
    uint32_t *const tmpi = B->tmp_index, *const sidei = B->side_index;
    if (n < 2) {
        if (pairs && n)
            B->index[0] = 0;
        return true;
    }
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
        const size_t s0 = cap * lo[b] / n, room = cap * lo[b + 1] / n - s0;
        const bool ok =
            pairs ? split_block(B, n, lo[b], lo[b + 1], s0, room, true, &kept[b], &moved[b])
                  : split_block(B, n, lo[b], lo[b + 1], s0, room, false, &kept[b], &moved[b]);
        over |= !ok;
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
        const uint32_t *ki = pairs ? tmpi + lo[b] : NULL;
        size_t drop = 0;
        while (drop < kept[b] && k[drop] < last)
            drop++;
        const size_t s0 = cap * lo[b] / n, room = cap * lo[b + 1] / n - s0;
        if (moved[b] + drop > room)
            return false;
        memcpy(side + s0 + moved[b], k, drop * sizeof *k);
        memmove(side + nd, side + s0, (moved[b] + drop) * sizeof *side);
        if (pairs) {
            memcpy(sidei + s0 + moved[b], ki, drop * sizeof *ki);
            memmove(sidei + nd, sidei + s0, (moved[b] + drop) * sizeof *sidei);
        }
        nd += moved[b] + drop;
        if (drop < kept[b]) {
            r[nr++] = (run){k + drop, pairs ? ki + drop : NULL, kept[b] - drop, total};
            total += kept[b] - drop;
            last = k[kept[b] - 1];
        }
    }

    /* 3. the displaced words in order */
    const uint64_t *ds = side;
    const uint32_t *dsi = sidei;
    /* On the key alone (fewer passes than the whole word's), then each run
     * of equal keys in index order. */
    if (!pairs && nd > 0) {
        uint64_t *spare = B->side_tmp;
        if (sc_radix_sort_packed(side, B->side_tmp, nd, key_bits, ib, count, nthreads, NULL)) {
            ds = B->side_tmp;
            spare = side;
        }
        ties_packed((uint64_t *)ds, nd, ib, spare, count);
    }
    if (pairs && nd > 0) {
        uint32_t *spare = B->side_tmp_index;
        if (sc_radix_sort_pairs(side, sidei, B->side_tmp, B->side_tmp_index, nd, key_bits, count,
                                nthreads, NULL)) {
            ds = B->side_tmp;
            dsi = B->side_tmp_index;
            spare = sidei;
        }
        ties_by_index(ds, (uint32_t *)dsi, nd, spare);
    }

    /* 4. merge back into w (and index): block t writes [lo[t], lo[t + 1]) */
    SC_ASSERT(total + nd == n);
#pragma omp parallel num_threads(nb)
    for (int t = sc_thread_id(); t < nb; t += sc_num_threads()) {
        if (pairs)
            merge_block(B, r, nr, total, ds, dsi, nd, lo[t], lo[t + 1], true);
        else
            merge_block(B, r, nr, total, ds, dsi, nd, lo[t], lo[t + 1], false);
    }
    return true;
}

bool sc_radix_repair_packed(uint64_t *w, uint64_t *tmp, size_t n, int key_bits, int index_bits,
                            uint64_t *side, uint64_t *side_tmp, size_t cap, uint32_t *count,
                            int nthreads) {
    const repair_bufs B = {w, tmp, side, side_tmp, NULL, NULL, NULL, NULL};
    return repair(&B, n, key_bits, index_bits, cap, count, nthreads);
}

bool sc_radix_repair_pairs(uint64_t *keys, uint32_t *index, uint64_t *tmp_keys, uint32_t *tmp_index,
                           size_t n, int key_bits, uint64_t *side, uint32_t *side_index,
                           uint64_t *side_tmp, uint32_t *side_tmp_index, size_t cap,
                           uint32_t *count, int nthreads) {
    SC_ASSERT(index && tmp_index && side_index && side_tmp_index);
    const repair_bufs B = {keys,  tmp_keys,  side,       side_tmp,
                           index, tmp_index, side_index, side_tmp_index};
    return repair(&B, n, key_bits, 0, cap, count, nthreads);
}
