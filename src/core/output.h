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

/* A two-set query's joint view: A's part is [0, split), B's part the
 * rest; map_a / map_b (NULL: identity) take a part's position to its
 * set's index (between.c), below na and nb. on == false: a one-set query. */
typedef struct sc_cross {
    bool on;
    uint32_t split;
    const uint32_t *map_a, *map_b;
    size_t na, nb;
} sc_cross;

/* An image (periodic.c): the sphere it is of, its shift's code (sx+1) +
 * 3 (sy+1) + 9 (sz+1) in periods (s in {-1, 0, 1}), and that sphere's
 * radius and wrapped centre as its row holds them (z = 0 in 2-D). One
 * record, so that a hit on an image costs one random read where the
 * arrays and the sphere's row cost several. */
typedef struct sc_image {
    uint32_t of, shift;
    double r;
    double c[3];
} sc_image;

/* A periodic query's joint view (periodic.c): positions [0, n) are the
 * spheres themselves, wrapped into the box; position n + g is image[g]. A hit stands for the pair of the spheres it
 * names when the box's predicate holds with that shift (sc_box), from
 * one side only (keep_pairs); rows[4 k ..] holds position k's wrapped
 * centre and radius (an image's radius is grown: periodic.c). With
 * `trust_direct`, a hit of two spheres themselves is the pair as found
 * (no sphere reaches half a period, so its minimum image is unshifted).
 * on == false: not a periodic query. */
typedef struct sc_images {
    bool on, trust_direct;
    bool one_side; /* images for half the shifts: a pair's one image hit */
    int dims;
    uint32_t n;
    const sc_image *image;
    const double *rows; /* (x, y, z, r) per position, z = 0 in 2-D */
    int periodic[3];
    double period[3], half[3];
} sc_images;

/* d2 of the minimum image of cj seen from ci (i < j), as sc_box's
 * expression computes it on the caller's centres (z = 0 in 2-D). */
SC_INTERNAL double sc_box_distance2(const sc_box *box, int dims, const double ci[3],
                                    const double cj[3]);

typedef struct sc_sink sc_sink;
struct sc_sink {
    sc_sink_mode mode;
    const uint32_t *index; /* sorted -> input */
    const double *work_r;  /* the peer's working copy's radii (hits' order), or NULL */
    const double *work_x, *work_y, *work_z; /* its centres, exact copies of the
                                               view's, where work_r is not NULL */
    sc_cross cross;                         /* two sets: which pairs count, and their indices */
    sc_images images; /* a periodic box: which hits are pairs, of which spheres */
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
    /* WINDOW and DEGREE for neighbour lists: with `filter`, only pairs
     * whose skin predicate holds on `exact` (the caller's values) are kept
     * (the search ran on radii grown to a superset); `full` keeps both
     * directions */
    const sc_view *exact;
    bool filter;
    double skin;
    int full;
    /* the filter's values in the peer's working order, where it has a
     * working copy (centres as copied, the caller's radii gathered): the
     * spheres a hit names were just read by the kernel, so these are in
     * cache where the caller's rows, in input order, are not. wz may be
     * NULL (2-D); wx NULL: the filter reads `exact` */
    const double *wx, *wy, *wz, *wr;
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
