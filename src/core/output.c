/*
 * output.c: pair sinks. The kernels hand over hits as sorted-order pairs;
 * a sink maps them to input indices (i < j), or has the query's front end
 * map them (sc_sink.keep: a two-set query's cut, a periodic query's images,
 * a neighbour list's skin), adds them to the per-thread count and
 * checksum, and, by mode:
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

/* A one-set query's hits (working indices, in place) as the pairs (i < j)
 * of input indices they stand for; a front end's keep (s->keep) maps them
 * instead where it has one. */
static size_t plain_pairs(const sc_sink *s, uint32_t *p, size_t n) {
    const uint32_t *idx = s->index;
    for (size_t k = 0; k < n; k++) {
        const uint32_t a = idx[p[2 * k]], b = idx[p[2 * k + 1]];
        p[2 * k] = a < b ? a : b; /* branch-free */
        p[2 * k + 1] = a < b ? b : a;
    }
    return n;
}

static void process_hits(sc_hits *h) {
    sc_sink_thread *th = h->owner;
    sc_sink *s = th->sink;
    const size_t n = s->keep ? s->keep(s, h->pairs, h->count) : plain_pairs(s, h->pairs, h->count);
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
