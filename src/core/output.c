/*
 * output.c: pair sinks. The kernels hand over hits as sorted-order pairs;
 * a sink maps them to input indices (i < j; for a two-set query, i in A
 * and j in B, dropping the pairs within one set), adds them to the
 * per-thread count and checksum, and, by mode:
 *   COUNT      nothing more (memory O(1));
 *   STREAM     appends to a per-thread buffer and emits the chunks of work to
 *              the caller's callback in chunk order, so the pair order is the
 *              same for every thread count. A thread whose buffer fills waits
 *              until its chunk is the oldest unfinished one, whose owner may
 *              emit partial data: memory is threads * chunk_pairs pairs,
 *              whatever the pair count, and no wait can deadlock;
 *   HISTOGRAM  counts pairs per i (plans the sorted windows);
 *   WINDOW     keeps pairs whose i lies in [lo, hi) in a shared
 *              buffer of win_cap pairs, and counts those that did not fit
 *              (for a full neighbour list: each direction whose row does);
 *   DEGREE     counts each sphere's neighbours (the row lengths of a CSR
 *              list, when it is too large to collect in one window).
 * WINDOW and DEGREE may first filter the pairs by a neighbour list's skin
 * predicate (neighbors.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "output.h"

#include <sched.h>
#include <string.h>

static void process_hits(sc_hits *h);

static inline uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* SIZE_MAX when the size does not fit a size_t (the caller reports
 * SC_ERR_OUT_OF_MEMORY); the engine caps chunk_pairs, so this is a guard. */
size_t sc_sink_bytes(int threads, sc_sink_mode mode, size_t chunk_pairs, size_t nchunks) {
    const size_t t = (size_t)threads;
    size_t b = (sizeof(sc_sink_thread) + 2 * SC_HITS_CAPACITY * sizeof(uint32_t)) * t + 64 * 8;
    if (mode == SC_SINK_WINDOW) /* each thread's staged words, two per pair at most */
        b += 2 * SC_HITS_CAPACITY * sizeof(uint64_t) * t;
    if (mode == SC_SINK_STREAM) {
        size_t per_thread, bufs, chunks;
        if (__builtin_mul_overflow(chunk_pairs, 2 * sizeof(uint32_t), &per_thread) ||
            __builtin_add_overflow(per_thread, SC_QUEUE * sizeof(size_t), &per_thread) ||
            __builtin_mul_overflow(per_thread, t, &bufs) ||
            __builtin_mul_overflow(nchunks, sizeof(sc_chunk_state), &chunks) ||
            __builtin_add_overflow(b, bufs, &b) || __builtin_add_overflow(b, chunks, &b))
            return SIZE_MAX;
    }
    return b;
}

void sc_sink_setup(sc_sink *s, void *mem, int threads, size_t nchunks) {
    char *p = mem;
    s->threads = threads;
    s->nchunks = nchunks;
    s->th = (sc_sink_thread *)(void *)p;
    p += sizeof(sc_sink_thread) * (size_t)threads;
    for (int t = 0; t < threads; t++) {
        sc_sink_thread *th = &s->th[t];
        memset(th, 0, sizeof *th);
        th->sink = s;
        th->id = t;
        th->hits.pairs = (uint32_t *)(void *)p;
        th->hits.capacity = SC_HITS_CAPACITY;
        th->hits.flush = process_hits;
        th->hits.owner = th;
        p += 2 * SC_HITS_CAPACITY * sizeof(uint32_t);
    }
    if (s->mode == SC_SINK_WINDOW)
        for (int t = 0; t < threads; t++) {
            s->th[t].stage = (uint64_t *)(void *)p;
            p += 2 * SC_HITS_CAPACITY * sizeof(uint64_t);
        }
    if (s->mode == SC_SINK_STREAM) {
        for (int t = 0; t < threads; t++) {
            sc_sink_thread *th = &s->th[t];
            th->buf = (uint32_t *)(void *)p;
            p += 2 * s->chunk_pairs * sizeof(uint32_t);
            th->queue = (size_t *)(void *)p;
            p += SC_QUEUE * sizeof(size_t);
        }
        s->chunks = (sc_chunk_state *)(void *)p;
        memset(s->chunks, 0, nchunks * sizeof(sc_chunk_state));
        s->head = 0;
    }
    s->stopped = 0;
}

/* ---- ordered emission ---------------------------------------------------- */

static void emit(sc_sink *s, const uint32_t *pairs, size_t count) {
    while (count > 0 && !s->stopped) {
        size_t m = count < s->chunk_pairs ? count : s->chunk_pairs;
        if (s->fn(pairs, m, s->user) != 0)
            __atomic_store_n(&s->stopped, 1, __ATOMIC_RELAXED);
        pairs += 2 * m;
        count -= m;
    }
}

/* Emits every finished chunk at the head of the order; with `me` set, also
 * the data so far of the head chunk when `me` owns it. Caller holds the lock. */
static void drain_locked(sc_sink *s, sc_sink_thread *me) {
    while (s->head < s->nchunks) {
        sc_chunk_state *c = &s->chunks[s->head];
        int state = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
        if (state == 0)
            break;
        sc_sink_thread *owner = &s->th[c->owner];
        if (state == 2) {
            emit(s, owner->buf + 2 * c->begin, c->end - c->begin);
            owner->emitted = c->end;
            s->head++;
            continue;
        }
        if (owner == me) { /* the head is my chunk in progress */
            emit(s, me->buf + 2 * c->begin, me->tail - c->begin);
            c->begin = me->tail;
            me->emitted = me->tail;
        }
        break;
    }
}

/* Frees the already emitted front of my buffer and drops the emitted
 * chunks from my queue. Caller holds the lock. The queue is pruned even when
 * no pair moves: a thread whose chunks find no pairs (a sparse set) would
 * otherwise fill its queue with emitted chunks and wait for room forever. */
static void compact_locked(sc_sink *s, sc_sink_thread *me) {
    const size_t shift = me->emitted;
    if (shift > 0) {
        memmove(me->buf, me->buf + 2 * shift, 2 * (me->tail - shift) * sizeof(uint32_t));
        me->tail -= shift;
        me->emitted = 0;
    }
    size_t keep = 0;
    for (size_t q = 0; q < me->nqueue; q++) {
        sc_chunk_state *c = &s->chunks[me->queue[q]];
        if (me->queue[q] < s->head)
            continue; /* already emitted */
        c->begin -= shift;
        if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == 2)
            c->end -= shift;
        me->queue[keep++] = me->queue[q];
    }
    me->nqueue = keep;
}

static void stream_make_room(sc_sink_thread *me, size_t need) {
    sc_sink *s = me->sink;
    for (;;) {
        if (s->chunk_pairs - me->tail >= need && me->nqueue < SC_QUEUE)
            return;
        omp_set_lock(&s->lock);
        drain_locked(s, me);
        compact_locked(s, me);
        omp_unset_lock(&s->lock);
        if (s->chunk_pairs - me->tail >= need && me->nqueue < SC_QUEUE)
            return;
        /* outside the lock: the callback's thread may be setting it */
        if (__atomic_load_n(&s->stopped, __ATOMIC_RELAXED)) { /* nobody reads any more: drop */
            me->tail = me->emitted = 0;
            return;
        }
        sched_yield();
    }
}

/* ---- hits -> pairs ------------------------------------------------------- */

/* The neighbour lists' skin predicate on the caller's values: the library's
 * own (docs/design.md) with s = (ri + rj) + skin. The search that proposed
 * the pair ran on radii grown past r + skin / 2, a superset. */
static bool skin_holds(const sc_view *v, double skin, uint32_t a, uint32_t b) {
    const double dx = sc_view_get(v, v->x, a) - sc_view_get(v, v->x, b);
    const double dy = sc_view_get(v, v->y, a) - sc_view_get(v, v->y, b);
    const double dz = v->z ? sc_view_get(v, v->z, a) - sc_view_get(v, v->z, b) : 0.0;
    const double d2 = (dx * dx + dy * dy) + dz * dz;
    const double s = (sc_view_r(v, a) + sc_view_r(v, b)) + skin;
    return d2 <= s * s;
}

/* The same predicate on working indices (see sc_sink.wx). The operands'
 * order does not matter: a - b and b - a square to the same double. */
static bool skin_holds_work(const sc_sink *s, uint32_t a, uint32_t b) {
    const double dx = s->wx[a] - s->wx[b], dy = s->wy[a] - s->wy[b];
    const double dz = s->wz ? s->wz[a] - s->wz[b] : 0.0;
    const double d2 = (dx * dx + dy * dy) + dz * dz;
    const double t = (s->wr[a] + s->wr[b]) + s->skin;
    return d2 <= t * t;
}

/* A list's filter on a hit: working indices wa, wb; input indices lo, hi. */
static inline bool list_keeps(const sc_sink *s, uint32_t wa, uint32_t wb, uint32_t lo,
                              uint32_t hi) {
    if (!s->filter)
        return true;
    return s->wx ? skin_holds_work(s, wa, wb) : skin_holds(s->exact, s->skin, lo, hi);
}

/* The box's predicate (sc_box's expression) for spheres p < q of a
 * periodic query with wrapped centres cp and cq, seen from p with q
 * shifted by `shift` (an image code), with the radius sum s (ri + rj, or a
 * list's (ri + rj) + skin): true when that shift is q's minimum image and
 * d2 <= s * s. */
static bool images_meet(const sc_images *im, const double cp[3], const double cq[3], unsigned shift,
                        double s) {
    double d[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < im->dims; a++, shift /= 3) {
        double t = cq[a] - cp[a];
        int k = 0;
        if (im->periodic[a]) {
            if (t > im->half[a]) {
                t -= im->period[a];
                k = -1;
            } else if (t < -im->half[a]) {
                t += im->period[a];
                k = 1;
            }
        }
        if ((int)(shift % 3) - 1 != k)
            return false;
        d[a] = t;
    }
    const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
    return d2 <= s * s;
}

/* One hit (working indices wa, wb) of a periodic query: true, with the
 * pair (*oi, *oj) as keep_pairs reports it, when the sink keeps it. */
static inline bool keep_image_hit(const sc_sink *s, uint32_t wa, uint32_t wb, uint32_t *oi,
                                  uint32_t *oj) {
    const sc_images *im = &s->images;
    const unsigned direct = 13; /* the code of no shift */
    const uint32_t a = s->index[wa], b = s->index[wb];
    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo >= im->n) /* two images: their spheres' own hit is elsewhere */
        return false;
    uint32_t i = lo, j = hi;
    unsigned shift = direct; /* j's image, seen from i */
    double rsum = 0.0;       /* ri + rj, once known without reading the rows */
    const double *ci = im->rows + 4 * (size_t)lo, *cj = im->rows + 4 * (size_t)hi;
    double clo[3]; /* lo's centre from the working copy */
    if (hi >= im->n) {
        const sc_image *g = &im->image[hi - im->n];
        const uint32_t q = g->of;
        /* (lo, an image of q) and (q, an image of lo) stand for one pair:
         * kept where the image is of the larger sphere, of the larger
         * index on a tie, whose image always exists (periodic.c); with
         * one side only one of them is made. Either way a sphere's own
         * images are dropped. lo's radius from the working copy, which
         * the kernel has just read (the same double as its row's). */
        const uint32_t wlo = a < b ? wa : wb;
        const double ro = s->work_r ? s->work_r[wlo] : im->rows[4 * (size_t)lo + 3];
        const double rq = g->r;
        if (im->one_side ? lo == q : !(rq > ro || (rq == ro && lo < q)))
            return false;
        shift = g->shift;
        i = lo < q ? lo : q;
        j = lo < q ? q : lo;
        if (lo > q) /* lo's image seen from q: the opposite shift */
            shift = 26 - shift;
        rsum = ro + rq; /* the rows' i and j radii, summed in either order */
        /* the centres: q's from its image's record, lo's from the working
         * copy the kernel has just read (exact copies of the rows') */
        const double *cl = ci; /* lo's row */
        if (s->work_r) {
            clo[0] = s->work_x[wlo];
            clo[1] = s->work_y[wlo];
            clo[2] = s->work_z ? s->work_z[wlo] : 0.0;
            cl = clo;
        }
        ci = lo < q ? cl : g->c;
        cj = lo < q ? g->c : cl;
    }
    /* two sets: a pair across the split, as its sets' indices */
    *oi = i;
    *oj = j;
    if (s->cross.on) {
        if (i >= s->cross.split || j < s->cross.split)
            return false;
        *oi = s->cross.map_a ? s->cross.map_a[i] : i;
        *oj = s->cross.map_b ? s->cross.map_b[j - s->cross.split] : j - s->cross.split;
    }
    if (hi < im->n && im->trust_direct && !s->filter)
        return true;
    /* a list with a skin searched on grown radii: its own predicate on
     * the caller's radii */
    const double sum = s->filter     ? (sc_view_r(s->exact, i) + sc_view_r(s->exact, j)) + s->skin
                       : hi >= im->n ? rsum
                                     : im->rows[4 * (size_t)i + 3] + im->rows[4 * (size_t)j + 3];
    return images_meet(im, ci, cj, shift, sum);
}

/* Maps the held image hits (working indices, pairs in held) with
 * keep_image_hit, writing the kept pairs from slot m on; returns the new m. */
static inline size_t map_held(const sc_sink *s, const uint32_t *held, int nheld, uint32_t *p,
                              size_t m) {
    for (int h = 0; h < nheld; h++)
        m += keep_image_hit(s, held[2 * h], held[2 * h + 1], &p[2 * m], &p[2 * m + 1]);
    return m;
}

/* Maps a batch of hits (working indices) in place to the pairs the sink
 * keeps, as input indices (row, col): for one set row < col; for two sets
 * (s->cross) row indexes A and col indexes B, and pairs within one set are
 * dropped; a neighbour list's filter drops pairs beyond its skin. In a
 * periodic query (s->images) a hit first becomes the pair of spheres it
 * stands for, or nothing, and the two-set cut applies to those spheres.
 * Returns how many pairs remain. Slot k is read before slot m <= k is
 * written. */
static size_t keep_pairs(const sc_sink *s, uint32_t *p, size_t n) {
    const uint32_t *idx = s->index;
    size_t m = 0;
    if (s->images.on) {
        const uint32_t ns = s->images.n;
        /* One set, no list: a hit of two spheres themselves is the pair
         * as found (trust_direct), as in the open loop below; only hits
         * on an image take the whole mapping. Those are set aside, their
         * image's record fetched, and mapped DEFER at a time: the records
         * are far apart, and each would otherwise stall its hit. The order
         * of the kept pairs depends on the hits' only. */
        if (s->images.trust_direct && !s->filter && !s->cross.on) {
            enum { DEFER = 16 };
            uint32_t held[2 * DEFER];
            int nheld = 0;
            for (size_t k = 0; k < n; k++) {
                const uint32_t wa = p[2 * k], wb = p[2 * k + 1];
                const uint32_t a = idx[wa], b = idx[wb];
                const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
                if (hi < ns) {
                    p[2 * m] = lo;
                    p[2 * m + 1] = hi;
                    m++;
                    continue;
                }
                if (lo >= ns) /* two images: dropped (keep_image_hit) */
                    continue;
                __builtin_prefetch(&s->images.image[hi - ns]);
                held[2 * nheld] = wa;
                held[2 * nheld + 1] = wb;
                if (++nheld < DEFER)
                    continue;
                m = map_held(s, held, nheld, p, m); /* m <= k: slots of hits already read */
                nheld = 0;
            }
            return map_held(s, held, nheld, p, m);
        }
        for (size_t k = 0; k < n; k++) {
            const uint32_t wa = p[2 * k], wb = p[2 * k + 1];
            uint32_t oi, oj;
            if (!keep_image_hit(s, wa, wb, &oi, &oj))
                continue;
            p[2 * m] = oi;
            p[2 * m + 1] = oj;
            m++;
        }
        return m;
    }
    if (s->cross.on) {
        const uint32_t split = s->cross.split;
        const uint32_t *ma = s->cross.map_a, *mb = s->cross.map_b;
        for (size_t k = 0; k < n; k++) {
            const uint32_t a = idx[p[2 * k]], b = idx[p[2 * k + 1]];
            const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
            if (lo >= split || hi < split)
                continue;
            p[2 * m] = ma ? ma[lo] : lo;
            p[2 * m + 1] = mb ? mb[hi - split] : hi - split;
            m++;
        }
        return m;
    }
    for (size_t k = 0; k < n; k++) {
        const uint32_t a = idx[p[2 * k]], b = idx[p[2 * k + 1]];
        const uint32_t lo = a < b ? a : b, hi = a < b ? b : a; /* branch-free */
        if (!list_keeps(s, p[2 * k], p[2 * k + 1], lo, hi))
            continue;
        p[2 * m] = lo;
        p[2 * m + 1] = hi;
        m++;
    }
    return m;
}

static void process_hits(sc_hits *h) {
    sc_sink_thread *th = h->owner;
    sc_sink *s = th->sink;
    const size_t n = keep_pairs(s, h->pairs, h->count);
    const uint32_t *p = h->pairs;
    uint64_t sum = 0;
    switch (s->mode) {
    case SC_SINK_COUNT:
        for (size_t k = 0; k < n; k++)
            sum += mix64(((uint64_t)p[2 * k] << 32) | p[2 * k + 1]);
        break;
    case SC_SINK_STREAM: {
        stream_make_room(th, n < s->chunk_pairs ? n : s->chunk_pairs);
        for (size_t k = 0; k < n; k++) {
            sum += mix64(((uint64_t)p[2 * k] << 32) | p[2 * k + 1]);
            if (th->tail == s->chunk_pairs)
                stream_make_room(th, 1);
            th->buf[2 * th->tail] = p[2 * k];
            th->buf[2 * th->tail + 1] = p[2 * k + 1];
            th->tail++;
        }
        break;
    }
    case SC_SINK_HISTOGRAM:
        for (size_t k = 0; k < n; k++) {
            sum += mix64(((uint64_t)p[2 * k] << 32) | p[2 * k + 1]);
            __atomic_fetch_add(&s->hist[p[2 * k]], 1u, __ATOMIC_RELAXED);
        }
        break;
    case SC_SINK_WINDOW: {
        /* The kept words (row << win_bits | col) are staged per thread, then
         * reserved in the shared window with one atomic add per batch: an
         * add per pair made the counter's cache line bounce between cores
         * for every pair. A full list keeps both directions of a pair, each
         * in the window of its row; a pair counts (pairs, checksum) in the
         * window of its row. */
        size_t words = 0, kept = 0;
        if (s->win_all && n) {
            /* every pair kept: its words reserved at once and written in
             * place (nothing stored when they would not all fit: the
             * window is then read by no one) */
            words = s->full ? 2 * n : n;
            const size_t at = __atomic_fetch_add(&s->win_count, words, __ATOMIC_RELAXED);
            uint64_t *out = at <= s->win_cap && words <= s->win_cap - at ? s->win + at : NULL;
            for (size_t k = 0; k < n; k++) {
                const uint32_t row = p[2 * k], col = p[2 * k + 1];
                sum += mix64(((uint64_t)row << 32) | col);
                if (!out)
                    continue;
                if (s->full) {
                    out[2 * k] = ((uint64_t)row << s->win_bits) | col;
                    out[2 * k + 1] = ((uint64_t)col << s->win_bits) | row;
                } else {
                    out[k] = ((uint64_t)row << s->win_bits) | col;
                }
            }
            th->checksum += sum;
            th->pairs += n;
            h->count = 0;
            return;
        }
        uint64_t *stage = th->stage;
        for (size_t k = 0; k < n; k++) {
            const uint32_t row = p[2 * k], col = p[2 * k + 1];
            if (row >= s->win_lo && row < s->win_hi) {
                sum += mix64(((uint64_t)row << 32) | col);
                kept++;
                stage[words++] = ((uint64_t)row << s->win_bits) | col;
            }
            if (s->full && col >= s->win_lo && col < s->win_hi)
                stage[words++] = ((uint64_t)col << s->win_bits) | row;
        }
        if (words) {
            const size_t at = __atomic_fetch_add(&s->win_count, words, __ATOMIC_RELAXED);
            if (at < s->win_cap)
                memcpy(s->win + at, stage, 8 * (words < s->win_cap - at ? words : s->win_cap - at));
        }
        th->checksum += sum;
        th->pairs += kept;
        h->count = 0;
        return;
    }
    case SC_SINK_DEGREE:
        for (size_t k = 0; k < n; k++) {
            sum += mix64(((uint64_t)p[2 * k] << 32) | p[2 * k + 1]);
            __atomic_fetch_add(&s->degree[p[2 * k] + 1], 1u, __ATOMIC_RELAXED);
            if (s->full)
                __atomic_fetch_add(&s->degree[p[2 * k + 1] + 1], 1u, __ATOMIC_RELAXED);
        }
        break;
    }
    th->checksum += sum;
    th->pairs += n;
    h->count = 0;
}

void sc_sink_chunk_begin(sc_sink *s, int tid, size_t chunk) {
    sc_sink_thread *th = &s->th[tid];
    if (s->mode != SC_SINK_STREAM)
        return;
    stream_make_room(th, 0); /* queue slot */
    sc_chunk_state *c = &s->chunks[chunk];
    c->owner = tid;
    c->begin = th->tail;
    th->queue[th->nqueue++] = chunk;
    __atomic_store_n(&c->state, 1, __ATOMIC_RELEASE);
}

void sc_sink_chunk_end(sc_sink *s, int tid, size_t chunk) {
    sc_sink_thread *th = &s->th[tid];
    process_hits(&th->hits);
    if (s->mode != SC_SINK_STREAM)
        return;
    sc_chunk_state *c = &s->chunks[chunk];
    omp_set_lock(&s->lock);
    c->end = th->tail;
    __atomic_store_n(&c->state, 2, __ATOMIC_RELEASE);
    drain_locked(s, th);
    omp_unset_lock(&s->lock);
}

void sc_sink_finish(sc_sink *s) {
    if (s->mode == SC_SINK_STREAM) {
        omp_set_lock(&s->lock);
        drain_locked(s, NULL);
        omp_unset_lock(&s->lock);
    }
}

void sc_sink_totals(const sc_sink *s, uint64_t *pairs, uint64_t *checksum) {
    uint64_t p = 0, c = 0;
    for (int t = 0; t < s->threads; t++) {
        p += s->th[t].pairs;
        c += s->th[t].checksum;
    }
    *pairs = p;
    *checksum = c;
}
