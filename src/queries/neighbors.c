/*
 * neighbors.c: CSR neighbour lists on any peer. The list is the pair set
 * as words row << bits | col (both directions for a full list), grouped by
 * row bucket and built a bucket at a time, so rows come out sorted by index
 * whatever thread found what:
 *
 *   count: one search pass collecting the words (WINDOW sink) -> one
 *          scatter by row bucket -> each bucket's row lengths into the
 *          caller's offsets; the grouped words stay in the context
 *   fill:  the kept words placed into the caller's indices, a bucket at a
 *          time (no search), each row sorted, then the values
 *
 * When the words would not fit options.sorted_window_bytes, the count runs
 * a DEGREE pass (row lengths only) and the fill searches once per window of
 * rows that fits, checking each row's length against the offsets. A skin
 * runs the search on radii grown a few ulps past r + skin/2 (a superset of
 * the listed pairs, proof at grow()) and the sinks keep the pairs whose
 * skin predicate holds on the caller's values.
 */
#define _POSIX_C_SOURCE 200809L
#include "queries.h"
#include "keep.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef struct nbr_query {
    const sc_nbr_spec *spec;
    const sc_spheres *user;  /* the caller's view */
    const sc_box *box;       /* periodic: the options' box, else NULL */
    sc_view exact;           /* ... read for the filter and the values */
    bool filter;             /* skin > 0: the search ran on grown radii */
    uint64_t *degree;        /* count: the offsets, written */
    const uint64_t *offsets; /* fill: read */
    uint32_t *indices;       /* fill */
    double *values;          /* fill, or NULL */
    sc_query_fn pass;        /* do_count or do_fill, run inside listing */
} nbr_query;

static sc_status spec_check(const sc_nbr_spec *spec) {
    if (!spec || (spec->full != 0 && spec->full != 1) || !(spec->skin >= 0.0) ||
        spec->skin > SC_MAX_ABS_VALUE ||
        (spec->value != SC_NBR_NONE && spec->value != SC_NBR_OVERLAP &&
         spec->value != SC_NBR_DISTANCE))
        return SC_ERR_INVALID_ARGUMENT;
    return SC_OK;
}

/* The grown radius g of r: with h >= skin/2 and g >= (r + h)(1 + 2^-48)
 * (then two ulps more, for subnormal sums, which are exact), for any two
 * spheres fl(gi + gj) >= (ri + rj + skin)(1 + 4u)(1 - u) >= (ri + rj +
 * skin)(1 + u)^2 >= fl(fl(ri + rj) + skin), u = 2^-53: the search's s*s
 * bounds the skin predicate's, and d2 is the same expression on the same
 * centres, so every listed pair is proposed. */
static double grow(double r, double h) {
    const double g = (r + h) * (1.0 + 0x1p-48);
    /* two ulps up: g is finite and >= 0 (r, h <= 1e150), so its bits
     * as an integer step to the next doubles (0 steps to the subnormals) */
    uint64_t u;
    memcpy(&u, &g, sizeof u);
    u += 2;
    double up;
    memcpy(&up, &u, sizeof up);
    return up;
}

/* Threads for the passes that run outside a query (the grown radii, the
 * fill's checks, the kept list's placing): the context's, unless the list
 * is small. */
static int fill_threads(sc_context *c, size_t n) {
    return n >= 4 * SC_SPHERES_PER_THREAD ? sc_context_team(c, n) : 1;
}

/* Writes the grown radii to the context's scratch and points *grown at them
 * (the caller's centres, radii at their own stride). */
static sc_status grow_view(sc_context *c, const sc_spheres *user, double skin, sc_spheres *grown) {
    const size_t n = user->count;
    const bool f64 = user->dtype == SC_F64;
    const size_t size = f64 ? sizeof(double) : sizeof(float);
    if (!sc_buf_reserve(sc_context_allocator(c), &c->grown, size * (n ? n : 1)))
        return SC_ERR_OUT_OF_MEMORY;
    double h = skin * 0.5;
    if (h * 2.0 < skin) /* a subnormal skin lost its last bit */
        h = nextafter(h, INFINITY);
    sc_view v;
    sc_status st = sc_view_make(user, &v);
    if (st != SC_OK)
        return st;
    int range = 0; /* a float radius grown past FLT_MAX */
#pragma omp parallel for num_threads(fill_threads(c, n)) schedule(static) reduction(| : range)
    for (size_t k = 0; k < n; k++) {
        const double g = grow(sc_view_r(&v, k), h);
        if (f64) {
            ((double *)c->grown.p)[k] = g;
        } else {
            range |= g > FLT_MAX;
            float gf = (float)g;
            if ((double)gf < g)
                gf = nextafterf(gf, INFINITY);
            ((float *)c->grown.p)[k] = gf;
        }
    }
    if (range)
        return SC_ERR_OUT_OF_RANGE;
    *grown = *user;
    grown->r = c->grown.p;
    grown->r_stride = size;
    return SC_OK;
}

/* The caller's spheres: the searched view's, less a periodic query's
 * images (periodic.c), which come after them. */
static size_t spheres_of(const sc_context *c, const sc_prepared *p) {
    return c->pair_ranged ? c->pair_rows : p->view.n;
}

/* The sink's list options; with a skin, the filter's values in the peer's
 * working order (the caller's radii gathered once per pass), where the
 * peer has a working copy and the query is not periodic (whose sinks read
 * the wrapped centres and the caller's radii themselves). */
static sc_status sink_for(sc_context *c, const sc_prepared *p, sc_sink *s, const nbr_query *q) {
    s->full = q->spec->full;
    const sc_work *w = &p->built.work;
    sc_keep *keep = c->keep_state; /* listing's, with a filter */
    if (!q->filter || !w->x || keep->images.on)
        return SC_OK;
    if (!sc_buf_reserve(sc_context_allocator(c), &c->worig, sizeof(double) * (w->n ? w->n : 1)))
        return SC_ERR_OUT_OF_MEMORY;
    double *r = c->worig.p;
    const double t = sc_now();
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (size_t k = 0; k < w->n; k++)
        r[k] = sc_view_r(&q->exact, w->index[k]);
    SC_STAGE_TIME(c, SC_STAGE_GATHER, t);
    keep->wx = w->x;
    keep->wy = w->y;
    keep->wz = w->z;
    keep->wr = r;
    return SC_OK;
}

/* Words a window may hold: options.sorted_window_bytes over a word and its
 * sort spare. */
static size_t word_budget(const sc_context *c) {
    const size_t b = c->opt.sorted_window_bytes / (2 * sizeof(uint64_t));
    return b ? b : 1;
}

static bool reserve_words(sc_context *c, size_t cap) {
    return sc_buf_reserve(sc_context_allocator(c), &c->win, 2 * sizeof(uint64_t) * (cap ? cap : 1));
}

/* One search pass collecting the words of rows [lo, hi) into the first cap
 * words of c->win; *m gets them all (more than cap: some were not stored). */
static sc_status list_pass(sc_context *c, sc_prepared *p, const nbr_query *q, size_t cap, size_t lo,
                           size_t hi, size_t *m) {
    sc_sink s = {0};
    sc_status st = sink_for(c, p, &s, q);
    if (st != SC_OK)
        return st;
    s.win = c->win.p;
    s.win_lo = (uint32_t)lo;
    s.win_hi = (uint32_t)hi;
    s.win_bits = sc_engine_index_bits(spheres_of(c, p));
    s.win_cap = cap;
    s.win_all = lo == 0 && hi == spheres_of(c, p);
    st = sc_engine_sink(c, &s, SC_SINK_WINDOW, p);
    if (st == SC_OK)
        st = sc_engine_search(c, p, &s);
    *m = s.win_count;
    if (st == SC_OK && lo == 0 && hi == spheres_of(c, p))
        sc_engine_totals(c, &s);
    return st;
}

/* ---- from words to rows ------------------------------------------------
 * The words arrive in the order the threads found them, rows at random.
 * One scatter pass groups them by row bucket (2^shift consecutive rows),
 * then each bucket's rows are built while its words, lengths and cursors
 * sit in cache: the count's offsets, the fill's indices. Sorting the words
 * fully by row cost two radix passes and a serial count; a bucket's rows
 * cost one pass. */

#define BUCKET_SHIFT_MAX 13 /* rows per bucket at most 2^13: 24 B each of a thread's scratch */

typedef struct row_buckets {
    size_t lo, hi; /* rows [lo, hi) */
    int shift;     /* a bucket holds rows lo + [k << shift, (k + 1) << shift) */
    size_t nb;     /* buckets */
    size_t *base;  /* after the scatter: bucket k's words are [base[k], base[k + 1]) */
    char *local;   /* each thread's (or block's) scratch, per bytes apart */
    size_t per;
    /* the grouped words: narrow, 32 bits each, (row - the bucket's first
     * row) << bits | col, where that fits (n up to 2^21 rows); else the
     * words as collected */
    const void *words;
    bool narrow;
} row_buckets;

static inline uint64_t word_at(const void *words, bool narrow, size_t g) {
    return narrow ? ((const uint32_t *)words)[g] : ((const uint64_t *)words)[g];
}

/* About 2^10 buckets: the scatter's fan-out, whose write streams stay in
 * cache, against rows per bucket, whose scratch does (2^9 to 2^12 buckets
 * measured within noise of each other; docs/api.md), unless the buckets
 * would pass BUCKET_SHIFT_MAX rows. */
static int bucket_shift(size_t rows) {
    int bits = 0;
    while (bits < 63 && ((rows - 1) >> bits) != 0)
        bits++;
    const int shift = bits - 10;
    return shift < 0 ? 0 : shift > BUCKET_SHIFT_MAX ? BUCKET_SHIFT_MAX : shift;
}

/* A thread's scratch for one bucket's rows: a cursor or length per row and
 * four lists of rows to sort (place_rows). */
static size_t bucket_local(int shift) {
    return ((size_t)1 << shift) * (sizeof(uint64_t) + 4 * sizeof(uint32_t));
}

/* Buckets of rows [lo, hi) (hi > lo), their scratch in c->hist: the bases,
 * then per thread the scatter's counts or the rows scratch. */
static bool buckets_make(sc_context *c, size_t lo, size_t hi, int threads, row_buckets *b) {
    b->lo = lo;
    b->hi = hi;
    b->shift = bucket_shift(hi - lo);
    b->nb = ((hi - lo - 1) >> b->shift) + 1;
    const size_t counts = b->nb * sizeof(size_t), local = bucket_local(b->shift);
    b->per = ((counts > local ? counts : local) + 63) & ~(size_t)63;
    const size_t bases = ((b->nb + 1) * sizeof(size_t) + 63) & ~(size_t)63;
    const size_t room = (size_t)(c->room > threads ? c->room : threads);
    if (!sc_buf_reserve(sc_context_allocator(c), &c->hist, bases + b->per * room))
        return false;
    b->base = c->hist.p;
    b->local = (char *)c->hist.p + bases;
    return true;
}

/* Thread or block t's scratch: the scatter's counts, or a bucket's rows. */
static void *bucket_scratch(const row_buckets *b, int t) {
    return b->local + b->per * (size_t)t;
}

static size_t bucket_first_row(const row_buckets *b, size_t k) {
    return b->lo + (k << b->shift);
}

static size_t bucket_end_row(const row_buckets *b, size_t k) {
    const size_t end = b->lo + ((k + 1) << b->shift);
    return end < b->hi ? end : b->hi;
}

/* Groups the m words (rows in [b->lo, b->hi)) of w by bucket into tmp
 * (narrow where they fit), and fills b->base and b->words. Per static
 * block of the words: counts, an exclusive prefix over (bucket, block), a
 * scatter. Narrow words halve the bytes this pass writes and the two that
 * follow read. */
static void bucket_scatter(sc_context *c, row_buckets *b, uint64_t *w, uint64_t *tmp, size_t m,
                           int bits, int threads) {
    const double t0 = sc_now();
    size_t *base = b->base;
    if (b->nb == 1) { /* the words as they are: one bucket */
        base[0] = 0;
        base[1] = m;
        b->words = w;
        b->narrow = false;
        return;
    }
    const int blocks = sc_radix_blocks(m, threads);
    const size_t nb = b->nb, lo = b->lo;
    const int shift = b->shift;
#ifdef SC_STUDY
    const bool narrow = shift + bits <= 32 && !c->study.wide_lists;
#else
    const bool narrow = shift + bits <= 32;
#endif
    const uint64_t rel_mask = ((uint64_t)1 << shift) - 1, col_mask = ((uint64_t)1 << bits) - 1;
#pragma omp parallel num_threads(blocks)
    {
        const int t = sc_thread_id(), nt = sc_num_threads();
        for (int k = t; k < blocks; k += nt) {
            size_t *mine = bucket_scratch(b, k);
            memset(mine, 0, nb * sizeof *mine);
            for (size_t g = m * (size_t)k / (size_t)blocks;
                 g < m * (size_t)(k + 1) / (size_t)blocks; g++)
                mine[((w[g] >> bits) - lo) >> shift]++;
        }
#pragma omp barrier
#pragma omp single
        {
            size_t sum = 0;
            for (size_t d = 0; d < nb; d++) {
                base[d] = sum;
                for (int k = 0; k < blocks; k++) {
                    size_t *count = bucket_scratch(b, k);
                    const size_t n = count[d];
                    count[d] = sum;
                    sum += n;
                }
            }
            base[nb] = sum;
        }
        for (int k = t; k < blocks; k += nt) {
            size_t *mine = bucket_scratch(b, k);
            const size_t g0 = m * (size_t)k / (size_t)blocks,
                         g1 = m * (size_t)(k + 1) / (size_t)blocks;
            if (narrow) {
                uint32_t *out = (uint32_t *)(void *)tmp;
                for (size_t g = g0; g < g1; g++) {
                    const uint64_t word = w[g], rel = (word >> bits) - lo;
                    out[mine[rel >> shift]++] =
                        (uint32_t)((rel & rel_mask) << bits | (word & col_mask));
                }
            } else {
                for (size_t g = g0; g < g1; g++) {
                    const uint64_t word = w[g];
                    tmp[mine[((word >> bits) - lo) >> shift]++] = word;
                }
            }
        }
    }
    b->words = tmp;
    b->narrow = narrow;
    SC_STAGE_TIME(c, SC_STAGE_MERGE, t0);
}

/* The count: offsets[r] for rows [0, n) from the grouped words, bucket by
 * bucket (each row's length counted in the thread's scratch), and
 * offsets[n] = m. */
static void row_offsets(const row_buckets *b, size_t m, int bits, uint64_t *offsets, int threads) {
    const void *w = b->words;
    const bool narrow = b->narrow;
#pragma omp parallel num_threads(threads)
    {
        uint32_t *len = bucket_scratch(b, sc_thread_id());
#pragma omp for schedule(dynamic, 8)
        for (size_t k = 0; k < b->nb; k++) {
            const size_t r0 = bucket_first_row(b, k), r1 = bucket_end_row(b, k);
            const uint64_t first = narrow ? 0 : r0; /* what a word's row field is less */
            memset(len, 0, (r1 - r0) * sizeof *len);
            for (size_t g = b->base[k]; g < b->base[k + 1]; g++)
                len[(word_at(w, narrow, g) >> bits) - first]++;
            uint64_t at = b->base[k];
            for (size_t r = r0; r < r1; r++) {
                offsets[r] = at;
                at += len[r - r0];
            }
        }
    }
    offsets[b->hi] = m;
}

/* Row lengths by a DEGREE pass, for a list too large for one window. */
static sc_status degree_pass(sc_context *c, sc_prepared *p, const nbr_query *q) {
    sc_sink s = {0};
    sc_status st = sink_for(c, p, &s, q);
    if (st != SC_OK)
        return st;
    s.degree = q->degree;
    st = sc_engine_sink(c, &s, SC_SINK_DEGREE, p);
    if (st == SC_OK)
        st = sc_engine_search(c, p, &s);
    sc_engine_totals(c, &s);
    return st;
}

static void prefix_sum(uint64_t *o, size_t n) {
    for (size_t k = 0; k < n; k++)
        o[k + 1] += o[k];
}

static sc_status do_count(sc_context *c, sc_prepared *p, void *arg) {
    nbr_query *q = arg;
    const size_t n = spheres_of(c, p);
    const int bits = sc_engine_index_bits(n);
    const size_t budget = word_budget(c);
    const size_t per = q->spec->full ? 2 : 1;
    /* expected words: the last list's and a quarter, or one pair per sphere;
     * a buffer that held the last list is used as it is (no reallocation
     * in the steady state) */
    const size_t last = c->list_words_last;
    const size_t have = c->win.bytes / (2 * sizeof(uint64_t));
    size_t guess = (last ? last + last / 4 : per * n) + 64;
    if (last && last <= have && have <= budget)
        guess = have;
    sc_status st = SC_OK;
    if (guess <= budget) {
        size_t cap = guess, m = 0;
        if (!reserve_words(c, cap))
            return SC_ERR_OUT_OF_MEMORY;
        st = list_pass(c, p, q, cap, 0, n, &m);
        if (st == SC_OK && m > cap && m <= budget) { /* more than guessed: once more, sized */
            cap = m;
            if (!reserve_words(c, cap))
                return SC_ERR_OUT_OF_MEMORY;
            st = list_pass(c, p, q, cap, 0, n, &m);
        }
        if (st != SC_OK)
            return st;
        c->list_words_last = m;
        if (m <= cap) {
            uint64_t *w = c->win.p;
            row_buckets b = {0};
            b.words = w;
            if (n > 0) {
                if (!buckets_make(c, 0, n, c->threads, &b))
                    return SC_ERR_OUT_OF_MEMORY;
                bucket_scatter(c, &b, w, w + cap, m, bits, c->threads);
                const double t = sc_now();
                row_offsets(&b, m, bits, q->degree, c->threads);
                SC_STAGE_TIME(c, SC_STAGE_MERGE, t);
            }
            q->degree[n] = m;
            c->kept = (sc_list_kept){c->queries,
                                     *q->user,
                                     q->spec->full,
                                     q->spec->skin,
                                     (size_t)((const uint64_t *)b.words - w),
                                     b.narrow,
                                     c->threads,
                                     m,
                                     c->stats.pairs,
                                     c->stats.checksum};
            return SC_OK;
        }
    }
    c->kept.words = 0;
    memset(q->degree, 0, (n + 1) * sizeof(uint64_t));
    st = degree_pass(c, p, q);
    prefix_sum(q->degree, n);
    return st;
}

/* Offsets the fill can trust not to send a write outside [0, offsets[n]):
 * from 0, non-decreasing, no row longer than n - 1. */
static bool offsets_sane(const uint64_t *o, size_t n, int threads) {
    const uint64_t longest = n ? n - 1 : 0;
    int bad = o[0] != 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(| : bad)
    for (size_t k = 0; k < n; k++)
        bad |= o[k + 1] < o[k] || o[k + 1] - o[k] > longest;
    return !bad;
}

/* Sorts a row's indices ascending: insertion sort for the short rows most
 * spheres have, heapsort for the long rows of large spheres (no scratch,
 * O(m log m)). Indices in a row are distinct. */
static void sift_down(uint32_t *ix, size_t root, size_t m) {
    for (size_t child; (child = 2 * root + 1) < m; root = child) {
        if (child + 1 < m && ix[child + 1] > ix[child])
            child++;
        if (ix[root] >= ix[child])
            return;
        const uint32_t t = ix[root];
        ix[root] = ix[child];
        ix[child] = t;
    }
}

static void row_sort(uint32_t *ix, size_t m) {
    if (m <= 32) {
        for (size_t a = 1; a < m; a++) {
            const uint32_t v = ix[a];
            size_t b = a;
            for (; b > 0 && ix[b - 1] > v; b--)
                ix[b] = ix[b - 1];
            ix[b] = v;
        }
        return;
    }
    for (size_t k = m / 2; k-- > 0;)
        sift_down(ix, k, m);
    for (size_t end = m; end-- > 1;) {
        const uint32_t t = ix[0];
        ix[0] = ix[end];
        ix[end] = t;
        sift_down(ix, 0, end);
    }
}

/* Sorts the listed rows of indices, each ascending: rows of 2, 3 and 4 by
 * compare-exchange networks, longer ones by row_sort. Most rows hold a few
 * entries, in numbers no branch predicts, so place_rows lists them by
 * length without branches and each list runs one network. */
#define EXCHANGE(ix, a, b)                                                                         \
    do {                                                                                           \
        const uint32_t lo_ = ix[a] < ix[b] ? ix[a] : ix[b];                                        \
        const uint32_t hi_ = ix[a] < ix[b] ? ix[b] : ix[a];                                        \
        ix[a] = lo_;                                                                               \
        ix[b] = hi_;                                                                               \
    } while (0)

typedef struct row_lists {
    uint32_t *l[4]; /* rows (less the bucket's first) of 2, 3, 4 and more entries */
    size_t n[4];
} row_lists;

static void sort_rows(uint32_t *indices, const uint64_t *o, size_t r0, const row_lists *rl) {
    for (size_t k = 0; k < rl->n[0]; k++) {
        uint32_t *ix = indices + o[r0 + rl->l[0][k]];
        EXCHANGE(ix, 0, 1);
    }
    for (size_t k = 0; k < rl->n[1]; k++) {
        uint32_t *ix = indices + o[r0 + rl->l[1][k]];
        EXCHANGE(ix, 0, 1);
        EXCHANGE(ix, 1, 2);
        EXCHANGE(ix, 0, 1);
    }
    for (size_t k = 0; k < rl->n[2]; k++) {
        uint32_t *ix = indices + o[r0 + rl->l[2][k]];
        EXCHANGE(ix, 0, 1);
        EXCHANGE(ix, 2, 3);
        EXCHANGE(ix, 0, 2);
        EXCHANGE(ix, 1, 3);
        EXCHANGE(ix, 1, 2);
    }
    for (size_t k = 0; k < rl->n[3]; k++) {
        const size_t r = r0 + rl->l[3][k];
        row_sort(indices + o[r], (size_t)(o[r + 1] - o[r]));
    }
}

/* The fill: the grouped words of rows [b->lo, b->hi) (their first at
 * offsets[b->lo]) placed into indices, bucket by bucket, at a cursor per
 * row, then each row sorted. A bucket whose offsets do not span its words
 * (b->base) or fall gives false with no write, and so do words outside
 * the bucket's rows or past their row's end; no write leaves the bucket's
 * [offsets[r0], offsets[r1]). */
static bool place_rows(const row_buckets *b, int bits, const uint64_t *o, uint32_t *indices,
                       int threads) {
    const void *w = b->words;
    const bool narrow = b->narrow;
    const uint64_t first = o[b->lo], mask = ((uint64_t)1 << bits) - 1;
    const size_t per = (size_t)1 << b->shift;
    int bad = 0;
#pragma omp parallel num_threads(threads) reduction(| : bad)
    {
        char *mine = bucket_scratch(b, sc_thread_id());
        uint64_t *cur = (uint64_t *)(void *)mine;
        uint32_t *list = (uint32_t *)(void *)(mine + per * sizeof *cur);
        row_lists rl = {{list, list + per, list + 2 * per, list + 3 * per}, {0, 0, 0, 0}};
#pragma omp for schedule(dynamic, 8)
        for (size_t k = 0; k < b->nb; k++) {
            const size_t r0 = bucket_first_row(b, k), r1 = bucket_end_row(b, k);
            /* the bucket's offsets span its words and rise: its reads and
             * writes stay inside them (narrow words name rows within the
             * bucket only). One pass over its rows sets their cursors and
             * lists those of 2, 3, 4 and more entries. */
            int wrong = o[r0] - first != b->base[k] || o[r1] - first != b->base[k + 1];
            /* The words land at random in the bucket's indices, whose lines
             * are written for the first time: ask for them now, so their
             * reads overlap the row pass instead of stalling each store. */
            if (!wrong && o[r1] >= o[r0])
                for (uint64_t g = o[r0] & ~(uint64_t)15; g < o[r1]; g += 16)
                    __builtin_prefetch(indices + g, 1);
            size_t n2 = 0, n3 = 0, n4 = 0, nm = 0;
            for (size_t r = r0; r < r1; r++) {
                const uint64_t start = o[r], len = o[r + 1] - start;
                wrong |= o[r + 1] < start;
                cur[r - r0] = start;
                rl.l[0][n2] = rl.l[1][n3] = rl.l[2][n4] = rl.l[3][nm] = (uint32_t)(r - r0);
                n2 += len == 2;
                n3 += len == 3;
                n4 += len == 4;
                nm += len > 4;
            }
            if (wrong) {
                bad = 1;
                continue;
            }
            /* Each word goes below its own row's end. The bucket's words
             * number as many as its rows' entries, so when none is refused
             * every row is filled exactly. */
            const uint64_t row0 = narrow ? 0 : r0; /* what a row field is less */
            const uint64_t *end = o + r0 + 1;
            /* the bounds in locals: the cursors' stores could alias o */
            const uint64_t g0 = o[r0] - first, g1 = o[r1] - first;
            for (uint64_t g = g0; g < g1; g++) {
                const uint64_t word = word_at(w, narrow, (size_t)g), rel = (word >> bits) - row0;
                if (rel >= r1 - r0 || cur[rel] >= end[rel]) {
                    wrong = 1;
                    continue;
                }
                indices[cur[rel]++] = (uint32_t)(word & mask);
            }
            if (wrong) {
                bad = 1;
                continue;
            }
            rl.n[0] = n2, rl.n[1] = n3, rl.n[2] = n4, rl.n[3] = nm;
            sort_rows(indices, o, r0, &rl);
        }
    }
    return !bad;
}

/* Overlap depth (ri + rj) - d or distance d = sqrt(d2), in double, from the
 * pair's smaller index first: both directions get the same bits. In a
 * periodic box, d2 is the minimum image's, as the box's expression has it. */
static double pair_value(const sc_view *v, const sc_box *box, sc_nbr_value kind, uint32_t a,
                         uint32_t b) {
    if (a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    double d2;
    if (box) {
        const double ca[3] = {sc_view_get(v, v->x, a), sc_view_get(v, v->y, a),
                              v->z ? sc_view_get(v, v->z, a) : 0.0};
        const double cb[3] = {sc_view_get(v, v->x, b), sc_view_get(v, v->y, b),
                              v->z ? sc_view_get(v, v->z, b) : 0.0};
        d2 = sc_box_distance2(box, v->z ? 3 : 2, ca, cb);
    } else {
        const double dx = sc_view_get(v, v->x, a) - sc_view_get(v, v->x, b);
        const double dy = sc_view_get(v, v->y, a) - sc_view_get(v, v->y, b);
        const double dz = v->z ? sc_view_get(v, v->z, a) - sc_view_get(v, v->z, b) : 0.0;
        d2 = (dx * dx + dy * dy) + dz * dz;
    }
    const double d = sqrt(d2);
    return kind == SC_NBR_OVERLAP ? (sc_view_r(v, a) + sc_view_r(v, b)) - d : d;
}

static void fill_values(const nbr_query *q, size_t n, int threads) {
    if (!q->values)
        return;
    const uint64_t *o = q->offsets;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4096)
    for (size_t r = 0; r < n; r++)
        for (uint64_t g = o[r]; g < o[r + 1]; g++)
            q->values[g] =
                pair_value(&q->exact, q->box, q->spec->value, (uint32_t)r, q->indices[g]);
}

/* The fill by search: one pass per window of rows whose entries fit. */
static sc_status do_fill(sc_context *c, sc_prepared *p, void *arg) {
    nbr_query *q = arg;
    const size_t n = spheres_of(c, p);
    const uint64_t *o = q->offsets;
    const int bits = sc_engine_index_bits(n);
    size_t cap = word_budget(c);
    for (size_t r = 0; r < n; r++)
        cap = o[r + 1] - o[r] > cap ? (size_t)(o[r + 1] - o[r]) : cap; /* rows are not split */
    if (cap > o[n])
        cap = (size_t)o[n];
    if (!reserve_words(c, cap))
        return SC_ERR_OUT_OF_MEMORY;
    sc_status st = SC_OK;
    for (size_t lo = 0, hi; lo < n && st == SC_OK; lo = hi) {
        hi = lo;
        while (hi < n && o[hi + 1] - o[lo] <= cap)
            hi++;
        if (o[hi] == o[lo])
            continue;
        size_t m = 0;
        st = list_pass(c, p, q, cap, lo, hi, &m);
        if (st == SC_OK && m != o[hi] - o[lo])
            st = SC_ERR_INVALID_ARGUMENT; /* not the rows the offsets describe */
        row_buckets b;
        if (st == SC_OK && !buckets_make(c, lo, hi, c->threads, &b))
            st = SC_ERR_OUT_OF_MEMORY;
        if (st == SC_OK) {
            uint64_t *w = c->win.p;
            bucket_scatter(c, &b, w, w + cap, m, bits, c->threads);
            const double t = sc_now();
            if (!place_rows(&b, bits, o, q->indices, c->threads))
                st = SC_ERR_INVALID_ARGUMENT;
            SC_STAGE_TIME(c, SC_STAGE_MERGE, t);
        }
    }
    c->stats.pairs = q->spec->full ? o[n] / 2 : o[n];
    c->kept.words = 0;
    if (st == SC_OK) {
        const double t = sc_now();
        fill_values(q, n, c->threads);
        SC_STAGE_TIME(c, SC_STAGE_MERGE, t);
    }
    return st;
}

/* The same view, field by field (memcmp would read the padding after
 * dtype, which a copy need not keep). */
static bool same_view(const sc_spheres *a, const sc_spheres *b) {
    return a->count == b->count && a->dtype == b->dtype && a->stride == b->stride && a->x == b->x &&
           a->y == b->y && a->z == b->z && a->r == b->r && a->r_stride == b->r_stride;
}

/* The fill right after the count that kept the list, on the same view and
 * list: the kept words are unpacked, no search runs. */
static bool kept_for(const sc_context *c, const nbr_query *q) {
    const sc_list_kept *k = &c->kept;
    return k->words && k->query == c->queries && k->full == q->spec->full &&
           k->skin == q->spec->skin && same_view(&k->view, q->user);
}

static sc_status fill_kept(sc_context *c, nbr_query *q) {
    const double t0 = sc_now();
    const size_t n = q->user->count;
    const sc_list_kept k = c->kept;
    memset(&c->stats, 0, sizeof c->stats);
    c->queries++;
    c->kept.words = 0;
    /* the count's threads: its buckets (the same n, so the same buckets)
     * and their bases stay where they are in c->hist */
    const int threads = k.threads;
    sc_status st = q->offsets[0] == 0 && k.words == q->offsets[n] ? SC_OK : SC_ERR_INVALID_ARGUMENT;
    row_buckets b;
    if (st == SC_OK && n > 0 && !buckets_make(c, 0, n, threads, &b))
        st = SC_ERR_OUT_OF_MEMORY;
    if (st == SC_OK && n > 0) {
        b.words = (const uint64_t *)c->win.p + k.at;
        b.narrow = k.narrow;
        if (!place_rows(&b, sc_engine_index_bits(n), q->offsets, q->indices, threads))
            st = SC_ERR_INVALID_ARGUMENT;
    }
    if (st == SC_OK)
        fill_values(q, n, threads);
    c->stats.seconds[SC_STAGE_MERGE] = sc_now() - t0;
    c->stats.spheres = n;
    c->stats.threads = threads;
    c->stats.pairs = st == SC_OK ? k.pairs : 0;
    c->stats.checksum = st == SC_OK ? k.checksum : 0;
    c->stats.scratch_bytes = sc_context_scratch_bytes(c);
    c->stats.total_seconds = sc_now() - t0;
    return st;
}

/* Runs the list's pass with its skin filter in the sinks' keep (keep.h),
 * where it has a skin; without one the sinks keep every pair as found (or
 * as a periodic query's keep maps them). */
static sc_status listing(sc_context *c, sc_prepared *p, void *arg) {
    nbr_query *q = arg;
    if (!q->filter)
        return q->pass(c, p, q);
    sc_keep own;
    sc_keep *k = sc_keep_enter(c, &own);
    k->exact = &q->exact;
    k->filter = true;
    k->skin = q->spec->skin;
    k->wx = k->wy = k->wz = k->wr = NULL;
    const sc_status st = q->pass(c, p, q);
    k->exact = NULL;
    k->filter = false;
    k->skin = 0.0;
    k->wx = k->wy = k->wz = k->wr = NULL;
    sc_keep_leave(c, &own);
    return st;
}

/* Both passes: the spec checked, the caller's view kept for the filter and
 * the values, and the search view grown when there is a skin. */
static sc_status nbr_run(sc_context *c, const sc_spheres *spheres, nbr_query *q, sc_query_fn fn) {
    if (!c)
        return SC_ERR_INVALID_ARGUMENT;
    sc_status st = spec_check(q->spec);
    q->box = sc_box_periodic(&c->opt.box) ? &c->opt.box : NULL;
    if (st == SC_OK && !spheres)
        st = SC_ERR_INVALID_ARGUMENT;
    if (st == SC_OK)
        st = sc_view_make(spheres, &q->exact);
    q->user = spheres;
    if (st == SC_OK && fn == do_fill) {
        const size_t n = spheres->count;
        if (q->offsets[n] > 0 && (!q->indices || (q->spec->value != SC_NBR_NONE && !q->values)))
            st = SC_ERR_INVALID_ARGUMENT;
        else if (kept_for(c, q)) /* its placing checks the offsets as it reads them */
            return fill_kept(c, q);
        else if (!offsets_sane(q->offsets, n, fill_threads(c, n)))
            st = SC_ERR_INVALID_ARGUMENT;
    }
    sc_spheres search = spheres ? *spheres : (sc_spheres){0};
    q->filter = st == SC_OK && q->spec->skin > 0.0;
    if (q->filter) {
        /* The grown radii could hide a bad one (-1 grown by 4 is fine), so
         * the caller's values are checked first. */
        st = sc_spheres_check(spheres, NULL, fill_threads(c, spheres->count));
        if (st == SC_OK)
            st = grow_view(c, spheres, q->spec->skin, &search);
    }
    if (st != SC_OK)
        return sc_engine_failed(c, st);
    q->pass = fn;
    return sc_engine_query(c, &search, listing, q);
}

sc_status sc_neighbors_count(sc_context *c, const sc_spheres *spheres, const sc_nbr_spec *spec,
                             uint64_t *offsets) {
    if (!offsets)
        return SC_ERR_INVALID_ARGUMENT;
    nbr_query q = {spec, NULL, NULL, {0}, false, offsets, NULL, NULL, NULL, NULL};
    return nbr_run(c, spheres, &q, do_count);
}

sc_status sc_neighbors_fill(sc_context *c, const sc_spheres *spheres, const sc_nbr_spec *spec,
                            const uint64_t *offsets, uint32_t *indices, double *values) {
    if (!offsets || !spec)
        return SC_ERR_INVALID_ARGUMENT;
    nbr_query q = {spec,    NULL,    NULL,
                   {0},     false,   NULL,
                   offsets, indices, spec->value != SC_NBR_NONE ? values : NULL,
                   NULL};
    return nbr_run(c, spheres, &q, do_fill);
}
