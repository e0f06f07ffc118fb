/*
 * output.h: pair sinks shared by the search (producer) and the engine.
 * See output.c for the modes and the ordered-emission protocol.
 */
#ifndef SC_OUTPUT_H
#define SC_OUTPUT_H

#include "internal.h"

#ifdef _OPENMP
#include <omp.h>
#else
typedef int omp_lock_t;
static inline void omp_init_lock(omp_lock_t *l) {
    (void)l;
}
static inline void omp_destroy_lock(omp_lock_t *l) {
    (void)l;
}
static inline void omp_set_lock(omp_lock_t *l) {
    (void)l;
}
static inline void omp_unset_lock(omp_lock_t *l) {
    (void)l;
}
#endif

#define SC_HITS_CAPACITY 4096 /* pairs; >= SC_KERNEL_BLOCK + 4 */
#define SC_QUEUE 1024         /* chunks a thread may hold unemitted */

typedef enum sc_sink_mode {
    SC_SINK_COUNT,
    SC_SINK_STREAM,
    SC_SINK_HISTOGRAM,
    SC_SINK_WINDOW,
    SC_SINK_DEGREE
} sc_sink_mode;

typedef struct sc_chunk_state {
    int state; /* 0 not started, 1 in progress, 2 done */
    int owner;
    size_t begin, end; /* pairs in the owner's buffer */
} sc_chunk_state;

typedef struct sc_sink_thread {
    sc_hits hits;
    struct sc_sink *sink;
    int id;
    uint64_t pairs, checksum;
    /* STREAM */
    uint32_t *buf;
    size_t tail, emitted;
    size_t *queue;
    size_t nqueue;
    /* WINDOW */
    uint64_t *stage;
    char pad[64];
} sc_sink_thread;

struct sc_keep; /* a query front end's state for its keep (src/queries/keep.h) */

typedef struct sc_sink sc_sink;
struct sc_sink {
    sc_sink_mode mode;
    const uint32_t *index; /* sorted -> input */
    const double *work_r;  /* the peer's working copy's radii (hits' order), or NULL */
    const double *work_x, *work_y, *work_z; /* its centres, exact copies of the
                                               view's, where work_r is not NULL */
    /* A query front end's map of a batch of hits (working indices, in
     * place) to the pairs it keeps, as input indices; returns how many.
     * NULL: a one-set query, each hit the pair (i < j) of its spheres. Set
     * from the context's (sc_context.keep), which the front ends install
     * around their query functions. */
    size_t (*keep)(const struct sc_sink *s, uint32_t *pairs, size_t n);
    struct sc_keep *keep_state;
    int threads;
    sc_sink_thread *th;
    int stopped; /* set under the lock; read outside it only with __atomic_load_n */
    /* STREAM */
    sc_pair_fn fn;
    void *user;
    size_t chunk_pairs;
    sc_chunk_state *chunks;
    size_t nchunks, head;
    omp_lock_t lock;
    /* HISTOGRAM */
    uint32_t *hist;
    /* WINDOW: words lo << win_bits | hi; pairs past win_cap are counted
     * (win_count) but not stored */
    uint32_t win_lo, win_hi;
    int win_bits;
    uint64_t *win;
    size_t win_cap, win_count;
    bool win_all; /* every row in [win_lo, win_hi): a neighbour list's
                     whole list, written without staging */
    int full;     /* WINDOW and DEGREE: a full neighbour list, both
                     directions of each pair */
    /* DEGREE: row lengths, added to degree[i + 1] */
    uint64_t *degree;
};

/* Scratch bytes sc_sink_setup needs. */
SC_INTERNAL size_t sc_sink_bytes(int threads, sc_sink_mode mode, size_t chunk_pairs,
                                 size_t nchunks);
/* Lays the per-thread state out in mem; mode, index and the mode's fields
 * must be set before. */
SC_INTERNAL void sc_sink_setup(sc_sink *s, void *mem, int threads, size_t nchunks);
SC_INTERNAL void sc_sink_chunk_begin(sc_sink *s, int tid, size_t chunk);
SC_INTERNAL void sc_sink_chunk_end(sc_sink *s, int tid, size_t chunk);
SC_INTERNAL void sc_sink_finish(sc_sink *s);
SC_INTERNAL void sc_sink_totals(const sc_sink *s, uint64_t *pairs, uint64_t *checksum);

#endif /* SC_OUTPUT_H */
