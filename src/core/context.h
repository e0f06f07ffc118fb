/*
 * context.h: the context every query runs in, shared by context.c (its
 * lifecycle, option checks, statistics and system information) and
 * engine.c (the orchestrator). Not installed.
 */
#ifndef SC_CONTEXT_H
#define SC_CONTEXT_H

#include "load.h"
#include "output.h"
#include "peer.h"

/* Scratch sizes are n times a few dozen bytes for n <= 2^32 spheres: they
 * need a 64-bit size_t, and then cannot overflow. */
_Static_assert(sizeof(size_t) >= 8, "spherecollide needs a 64-bit size_t");

/* Pairs per callback chunk at most: a larger chunk_pairs (SIZE_MAX as
 * "unlimited") acts as this, 128 MiB of stream buffer per thread. */
#define SC_CHUNK_PAIRS_MAX ((size_t)1 << 24)

/* Smallest batch whose call binds its threads (see run_query). */
#define SC_PIN_MIN_SPHERES 262144

/* Progress of one query (see progress_report). */
typedef struct progress_map {
    sc_progress_fn fn;
    void *user;
    double base, scale, last;
    double start; /* the fraction the build reached: the search passes share the rest */
} progress_map;

/* A neighbour list collected whole by sc_neighbors_count (sorted words
 * row << bits | col in win.p + at), valid for the fill that follows it
 * directly on the same view and list. */
typedef struct sc_list_kept {
    uint64_t query; /* the count's query number; 0: nothing kept */
    sc_spheres view;
    int full;
    double skin;
    size_t at;   /* the grouped words: c->win's words from this one on */
    bool narrow; /* ... 32 bits each (neighbors.c: row_buckets) */
    int threads; /* the count's: c->hist holds its buckets' bases, sized for them */
    size_t words;
    uint64_t pairs, checksum;
} sc_list_kept;

struct sc_context {
    sc_options opt;
    int threads;                       /* options.threads, or the core count once known
                             (sc_context_threads); 0 until then. During a
                             call: the call's thread count (run_query) */
    size_t chunk_pairs;                /* opt.chunk_pairs, at most SC_CHUNK_PAIRS_MAX */
    sc_load load;                      /* what other programs keep busy (load.c) */
    size_t load_n;                     /* the size a query's team under load is
                             chosen and measured by, when its stages run
                             at other sizes (two sets: the filter on the
                             larger set, the search on the kept); 0: each
                             call's own n. Cleared as the query ends */
    int room;                          /* the threads per-thread scratch is sized for: the
                             widest team sc_context_team may give the call's
                             n, load or not, so a team that widens when the
                             load goes reallocates nothing */
    sc_pinning *pinning;               /* the binding of this context's team, per call;
                             NULL until sc_context_pinning makes it */
    sc_buf peer_buf[SC_PEER_BUFS];     /* the peer's scratch */
    sc_buf sched, sink_mem, hist, win; /* the orchestrator's */
    sc_buf grown, worig;               /* neighbour lists with a skin: the grown radii (input
                            order), the caller's radii (working order) */
    _Alignas(SC_ALIGN) unsigned char peer_state[SC_PEER_STATE_BYTES];
    sc_stats stats;
    uint64_t sorted_pairs_last; /* the last sorted query's pairs + 1 (0: none yet) */
    uint64_t queries;           /* queries run (sc_engine_run), to tell what came between two */
    sc_list_kept kept;          /* neighbors.c: the list a count collected, for its fill */
    size_t list_words_last;     /* the last list count's words (0: none yet): its guess */
    sc_buf joint, survivors, occupied; /* between.c: the joint view's SoA, the
                                          large set's candidates, the small
                                          set's cell bitmap; periodic.c: the
                                          joint view's rows */
    /* During a query, a front end's part in its sinks (src/queries/keep.h,
     * set around its query function): keep and its state (NULL: a one-set
     * query), and, where pair_ranged, the kept pairs' index ranges (first
     * index below pair_rows, second below pair_cols; else the view's n). */
    size_t (*keep)(const struct sc_sink *s, uint32_t *pairs, size_t n);
    struct sc_keep *keep_state;
    bool pair_ranged;
    size_t pair_rows, pair_cols;
    sc_buf images_buf;               /* periodic.c: the images' spheres and shifts */
    sc_buf bands;                    /* periodic.c: the threads' image counts and the
                             positions that get images */
    size_t images_last;              /* periodic.c: the last query's images (its guess) */
    bool images_radii;               /* periodic.c: a query has run; the radii of its */
    double images_rmin, images_rmax; /* spheres, for the next one's bands */
    sc_bounds joint_bounds;          /* periodic.c: the joint rows' bounds its passes
                               gathered for the engine, kept after the query
                               (test_stages compares them with the bounds
                               stage's on the rows) */
    progress_map progress;           /* this query's progress */
#ifdef SC_STUDY
    sc_study_knobs study; /* study.c */
#endif
};

/* The allocator every allocation of the context goes through. */
static inline const sc_allocator *sc_context_allocator(const sc_context *c) {
    return &c->opt.allocator;
}
/* Formats a message to the context's log hook (none: nothing happens). */
SC_INTERNAL void sc_context_log(const sc_context *c, sc_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Bytes of scratch the context holds. */
SC_INTERNAL uint64_t sc_context_scratch_bytes(const sc_context *c);
/* The context's thread count, loading the topology for the core count on
 * first use when options.threads is 0. */
SC_INTERNAL int sc_context_threads(sc_context *c);
/* The team for a call on n spheres now: one thread per SC_SPHERES_PER_THREAD
 * spheres at most, options.threads when set, else the cores that other
 * programs leave free (load.c). Loads the topology only when n needs more
 * than one thread. Sets c->room, the widest team for n, which every
 * per-thread reservation takes (the team itself lays out within it). */
SC_INTERNAL int sc_context_team(sc_context *c, size_t n);
/* The binding plan, made on first use (NULL when there was no memory for it:
 * no binding). */
SC_INTERNAL sc_pinning *sc_context_pinning(sc_context *c);

#endif /* SC_CONTEXT_H */
