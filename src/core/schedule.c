/*
 * schedule.c: runs a peer's chunks on the context's threads. Chunks are the
 * peer's deterministic units of search work; the sink gets each chunk's
 * pairs between sc_sink_chunk_begin and _end.
 *
 * A streaming sink emits chunks in order, so its chunks are handed out in
 * order, one at a time. Every other sink is order-free: each thread then
 * walks its own contiguous run of chunks, so the data one chunk reads is
 * still in that core's cache when the next chunk needs its neighbourhood
 * (for the grid, handing chunks out in turn made each core fetch every
 * row: docs/design.md), and a thread whose run is done takes chunks one at
 * a time from the back of the others'.
 */
#include "schedule.h"

/* A thread's run of chunks [lo, hi) as one word, lo in the low half: the
 * owner takes from the front and others from the back, each by one
 * compare-and-swap, so a chunk is taken exactly once. A line per run. */
typedef struct chunk_run {
    uint64_t v;
    char pad[64 - sizeof(uint64_t)];
} chunk_run;

typedef struct chunk_sched {
    bool ordered;   /* hand chunks out in order (streaming sinks) */
    size_t next;    /* ordered: the next chunk */
    chunk_run *run; /* order-free: one per thread */
} chunk_sched;

static size_t tls_stride(const sc_peer *peer) {
    return (peer->tls_bytes + SC_ALIGN - 1) / SC_ALIGN * SC_ALIGN;
}

size_t sc_schedule_scratch(int threads, const sc_peer *peer) {
    const size_t t = (size_t)(threads > 0 ? threads : 1);
    return (sizeof(chunk_run) + tls_stride(peer)) * t;
}

static bool run_take(chunk_run *r, bool front, size_t *chunk) {
    uint64_t v = __atomic_load_n(&r->v, __ATOMIC_RELAXED);
    for (;;) {
        const uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
        if (lo >= hi)
            return false;
        const uint64_t nv = front ? v + 1 : v - ((uint64_t)1 << 32);
        if (__atomic_compare_exchange_n(&r->v, &v, nv, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            *chunk = front ? lo : hi - 1u;
            return true;
        }
    }
}

/* The calling thread's next chunk; false when none is left. *victim is the
 * run it last took from the back of (start: the next thread's). */
static bool next_chunk(chunk_sched *cs, size_t nchunks, int tid, int nt, int *victim,
                       size_t *chunk) {
    if (cs->ordered) {
        *chunk = __atomic_fetch_add(&cs->next, 1, __ATOMIC_RELAXED);
        return *chunk < nchunks;
    }
    if (run_take(&cs->run[tid], true, chunk))
        return true;
    for (int k = 0; k < nt; k++, *victim = (*victim + 1) % nt) /* every run once */
        if (*victim != tid && run_take(&cs->run[*victim], false, chunk))
            return true;
    return false;
}

sc_status sc_schedule_run(sc_schedule_job *job) {
    const sc_peer_built *b = job->built;
    const size_t nchunks = b->nchunks;
    sc_sink *sink = job->sink;
    uint64_t tests = 0;
    size_t done = 0;
    const int progress_every = nchunks > 200 ? (int)(nchunks / 200) : 1;
    SC_ASSERT(nchunks < ((size_t)1 << 32));
    chunk_run *runs = job->scratch;
    char *tls_base = (char *)job->scratch + sizeof(chunk_run) * (size_t)job->threads;
    const size_t stride = tls_stride(job->peer);
    chunk_sched sched = {sink->mode == SC_SINK_STREAM, 0, runs};

    if (nchunks > 0) {
#pragma omp parallel reduction(+ : tests)
        {
            const int tid = sc_thread_id();
            const int nt = sc_num_threads();
            SC_ASSERT(nt <= job->threads); /* one run and one tls each in the scratch */
            sc_load_note(job->load, tid);
            void *tls = tls_base + stride * (size_t)tid;
            sc_hits *hits = &sink->th[tid].hits;
#pragma omp single
            for (int t = 0; t < nt; t++) { /* then the single's barrier */
                const uint64_t lo = nchunks * (uint64_t)t / (uint64_t)nt;
                const uint64_t hi = nchunks * (uint64_t)(t + 1) / (uint64_t)nt;
                sched.run[t].v = lo | hi << 32;
            }
            int victim = (tid + 1) % nt;
            size_t chunk;
            while (next_chunk(&sched, nchunks, tid, nt, &victim, &chunk)) {
                if (__atomic_load_n(&sink->stopped, __ATOMIC_RELAXED))
                    continue;
                sc_sink_chunk_begin(sink, tid, chunk);
                tests += job->peer->search(b, chunk, job->kernel, hits, tls);
                sc_sink_chunk_end(sink, tid, chunk);
                size_t d = __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
                if (job->progress && tid == 0 && d % (size_t)progress_every == 0)
                    job->progress((double)d / (double)nchunks, job->progress_user);
            }
        }
    }
    sc_sink_finish(sink);
    job->candidate_tests = tests;
    if (job->progress)
        job->progress(1.0, job->progress_user);
    return sink->stopped ? SC_ERR_STOPPED : SC_OK;
}
