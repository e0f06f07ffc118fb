/*
 * peer.h: the one interface between the orchestrator (engine.c) and an
 * algorithm. A peer builds its structure from the validated view and the
 * bounds, lays the spheres out in a working copy in its own order, and cuts
 * its search into chunks; the orchestrator runs those chunks under the
 * shared scheduler (schedule.c) into the shared sinks (output.c), so every
 * peer gets streaming, sorted windows, a deterministic pair order for any
 * thread count, progress, statistics and the SIMD kernels without writing
 * them again. Not installed.
 *
 * Contract of a peer:
 *   - build() fills out->work (sc_gather into buffers it reserves from
 *     env->buf; work.index maps working sphere k to its input index, and may
 *     repeat an index where a sphere is copied into several leaves),
 *     out->nchunks and out->state (in env->state, SC_PEER_STATE_BYTES), and
 *     may time its stages into env->seconds. The chunk count and everything
 *     search() does may depend on the input and the options, never on the
 *     thread count.
 *   - search() runs chunk `chunk` (0 <= chunk < nchunks), possibly at the
 *     same time as other chunks on other threads: it appends each pair
 *     (a, b) of working indices whose spheres satisfy the exact predicate to
 *     `hits` (through the kernel, or in the kernel's arithmetic), every
 *     intersecting input pair exactly once over all chunks, in an order that
 *     depends on the chunk only. tls is tls_bytes of this thread's scratch,
 *     64-byte aligned, contents unspecified at entry. Returns the candidate
 *     tests it ran.
 */
#ifndef SC_PEER_H
#define SC_PEER_H

#include "internal.h"

#define SC_PEER_BUFS 16          /* grow-only buffers a peer may use */
#define SC_PEER_STATE_BYTES 4096 /* a peer's state struct lives here */

#ifdef SC_STUDY
/* The study's switches (spherecollide_study.h), set per context. */
typedef struct sc_study_knobs {
    int indirect;        /* the grid reads the caller's arrays */
    int morton;          /* the grid's rows along a Morton curve */
    int sides;           /* the grid's cross-level sides: sc_grid_sides */
    sc_kernel_fn kernel; /* NULL, or the kernel every query runs */
    int wide_lists;      /* neighbour lists keep 64-bit grouped words */
} sc_study_knobs;
#endif

typedef struct sc_peer_env {
    const sc_view *view;
    const sc_bounds *bounds;
    const sc_options *opt;
    int threads;
    int room; /* threads per-thread scratch is sized for (>= threads: context.h) */
    const sc_allocator *alloc;
    sc_buf *buf;     /* SC_PEER_BUFS buffers of the context, kept across calls */
    void *state;     /* SC_PEER_STATE_BYTES, 64-byte aligned */
    double *seconds; /* the stage clocks (sc_stats.seconds) */
    bool order_only; /* only out->work.n and work.index are wanted (sc_cell_order):
                        the peer may stop once it knows its order, and no
                        search runs on what it built */
    void (*stage_done)(void *user, sc_stage s); /* the query's progress: a stage
                        ended (sc_env_stage); NULL: nobody listens */
    void *stage_user;
#ifdef SC_STUDY
    const sc_study_knobs *study;
#endif
} sc_peer_env;

typedef struct sc_peer_built {
    sc_work work; /* what the kernels read */
    size_t nchunks;
    const void *state;
    sc_kernel_fn kernel;    /* NULL: the context's kernel */
    sc_kernel stats_kernel; /* with kernel set: the kernel to report */
    uint64_t cells;         /* statistics: cells, rows, leaves, segments or nodes */
    int levels;             /* statistics: grid levels or tree depth */
    double cell_size;       /* statistics: the finest cell edge, 0 if none */
    double predicted_tests; /* a peer that refuses (SC_ERR_TOO_COSTLY): why */
    const char *detail;     /* NULL, or a remark for the debug log */
} sc_peer_built;

/* What a peer does beyond the pair search every peer runs (sc_peer.caps). */
enum {
    SC_PEER_CELL_ORDER = 1u << 0, /* sc_cell_order: its build stops at a spatial order */
    SC_PEER_PROBE = 1u << 1,      /* two sets: the smaller set's cells probe the
                                     larger's candidates (between.c, probe.c) */
    SC_PEER_FRAMES = 1u << 2      /* keeps state from call to call when asked
                                     (sap.warm, bvh.refit) */
};

/* A peer declares itself here, in its own file; the registry (registry.c) is
 * the one list of them, and names, option defaults and option checks are
 * read from it (status.c, context.c). */
typedef struct sc_peer {
    sc_algorithm id;  /* its place in the registry */
    const char *name; /* sc_algorithm_name's */
    unsigned caps;    /* SC_PEER_* */
    /* what it times in each build stage (keys, sort, gather, cells:
     * sc_env_stage), NULL where it times nothing; bounds, search and merge
     * are the engine's. sc_algorithm_stage gives them. */
    const char *stages[SC_STAGE_COUNT];
    size_t tls_bytes;
    /* its sub-struct of sc_options: the defaults, and whether o's is valid
     * (every peer's is checked, whichever runs); NULL: it has none */
    void (*defaults)(sc_options *o);
    bool (*valid)(const sc_options *o);
    sc_status (*build)(const sc_peer_env *env, sc_peer_built *out);
    uint64_t (*search)(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel, sc_hits *hits,
                       void *tls);
} sc_peer;

/* The peer of an algorithm, NULL for a value outside the enum. */
SC_INTERNAL const sc_peer *sc_peer_of(sc_algorithm algorithm);

/* Adds the time since t0 to stage s. */
static inline void sc_stage_add(double *seconds, sc_stage s, double t0) {
    seconds[s] += sc_now() - t0;
}

/* Ends stage s of a peer's build begun at t0: its clock, and the query's
 * progress (called between parallel regions, on the caller's thread). */
static inline void sc_env_stage(const sc_peer_env *e, sc_stage s, double t0) {
    sc_stage_add(e->seconds, s, t0);
    if (e->stage_done)
        e->stage_done(e->stage_user, s);
}

/* Reserves buffer k of the environment (false: out of memory). */
static inline bool sc_env_reserve(const sc_peer_env *e, int k, size_t bytes) {
    return sc_buf_reserve(e->alloc, &e->buf[k], bytes);
}

/* Reserves the working copy's four padded arrays in buffer k and points w
 * at them; the gather fills them. */
SC_INTERNAL bool sc_work_reserve(const sc_peer_env *e, int k, size_t n, sc_work *w);
/* The same with x, y, z only; w->r is left NULL for the peer to point at a
 * buffer of n + SC_PAD doubles that it no longer needs by the gather. */
SC_INTERNAL bool sc_work_reserve_xyz(const sc_peer_env *e, int k, size_t n, sc_work *w);

/* ---- shared pieces of the peers ------------------------------------------ */

/* Consecutive sorted spheres per chunk for peers that cut a sorted order
 * (the grid, sap): a function of n only. */
SC_INTERNAL size_t sc_chunk_spheres(size_t n);

/* A home block's candidate list, handed to the kernel whenever it fills
 * (cap entries) and at the end. The first kernel call tests the block's
 * own triangle (args.tri_end as the caller set it), later calls do not;
 * where the list is cut does not change the pairs or their order. */
typedef struct sc_cands {
    sc_kernel_args args; /* x..r, i0, ni, tri_end set by the caller */
    sc_kernel_fn kernel;
    sc_hits *hits;
    uint32_t *list;
    uint32_t m, cap;
    uint64_t tests;
} sc_cands;

static inline void sc_cands_flush(sc_cands *c) {
    c->args.cand = c->list;
    c->args.ncand = c->m;
    c->tests += c->kernel(&c->args, c->hits);
    c->args.tri_end = 0;
    c->m = 0;
}
static inline void sc_cands_push(sc_cands *c, uint32_t j) {
    c->list[c->m++] = j;
    if (c->m == c->cap)
        sc_cands_flush(c);
}
/* A list over the working copy w, testing with kernel into hits. */
static inline sc_cands sc_cands_make(const sc_work *w, sc_kernel_fn kernel, sc_hits *hits,
                                     uint32_t *list, uint32_t cap) {
    sc_cands c = {{0}, kernel, hits, list, 0, cap, 0};
    c.args.x = w->x;
    c.args.y = w->y;
    c.args.z = w->z;
    c.args.r = w->r;
    return c;
}

/* A sort of (64-bit key, index) with the engine's radix sort, in five
 * consecutive buffers k, k + 1, ..., k + 4 of the environment: keys, their
 * second buffer, the index, its second buffer, the sort's counts.
 * sc_keysort_reserve makes room for n; the caller writes keys into buffer k
 * and the index into buffer k + 2; sc_keysort_run sorts them on the low
 * key_bits bits (timed as the sort stage) and leaves the result in buffers
 * k and k + 2, swapping the pairs of buffers where the sort ended in the
 * second ones. */
SC_INTERNAL bool sc_keysort_reserve(const sc_peer_env *e, int k, size_t n);
/* The sweep order of sap and segtree: sorts the view's spheres by their
 * boxes' lower ends on one coordinate array (axis: v->x, v->y or v->z)
 * with the keysort in buffers k..k+4 (reserved by sc_keysort_reserve) and
 * returns the sorted index, ready for sc_gather. Ties keep input order.
 * key_bits 64 sorts by the double sc_box_lo, 32 by the float
 * sc_f_down_from(sc_box_lo, base) (half the sort's passes; enough for a
 * sweep whose filter reads those floats, as sap's does; base is the axis's
 * low bound, the one the filter's floats take). */
SC_INTERNAL const uint32_t *sc_sweep_order(const sc_peer_env *e, int k, const char *axis,
                                           int key_bits, double base);
/* The same order from a previous one (frame coherence): the keys in the
 * order prev (a permutation of the view's indices, such as the last call's
 * sweep order), repaired by insertion sort. NULL when the repair would move
 * more than max_moves entries (the caller then sorts afresh). */
SC_INTERNAL const uint32_t *sc_sweep_repair(const sc_peer_env *e, int k, const char *axis,
                                            int key_bits, double base, const uint32_t *prev,
                                            size_t max_moves);
SC_INTERNAL void sc_keysort_run(const sc_peer_env *e, int k, size_t n, int key_bits);

/* Every pair i < j of working spheres with i in [a, b) and j in (i, e)
 * (a <= b <= e), tested by the kernel in tiles of SC_TILE candidates so a
 * tile stays in L1 while the home blocks stream past it. list: scratch of
 * SC_TILE + 16 entries. Emission order: tile by tile, home blocks in order. */
#define SC_TILE 512
SC_INTERNAL uint64_t sc_range_pairs(const sc_work *w, uint32_t a, uint32_t b, uint32_t e,
                                    sc_kernel_fn kernel, sc_hits *hits, uint32_t *list);

/* ---- boxes rounded outward ------------------------------------------------ */
/* The box of sphere (x, r) on one axis, [sc_box_lo, sc_box_hi]: if the exact
 * predicate accepts a pair, their boxes overlap on every axis. Proof: an
 * accepted pair has centres D <= S (1 + 4u) + 2^-536 apart (S = ri + rj,
 * u = 2^-53; algo/grid/keys.c derives it), so on each axis
 * |xi - xj| <= hi + hj with h = r (1 + 2^-20) + 2^-530 evaluated in double
 * (two roundings of relative u leave h >= r (1 + 4u) + 2^-536 / 2). The
 * ends x -+ h are computed in double, off by at most half an ulp of the
 * result t, then moved outward by |t| 2^-50 + 2^-1070, more than that error
 * even after the move's own rounding: lo <= x - h and hi >= x + h exactly.
 * So the intervals [xi - hi, xi + hi] and [xj - hj, xj + hj] overlap, and
 * the rounded boxes that contain them do too. Every peer that prunes by
 * boxes uses these two functions on the same doubles (the view's values,
 * widened), so its build and its filters agree bit for bit. */
static inline double sc_box_half(double r) {
    return r * (1.0 + 0x1p-20) + 0x1p-530;
}
static inline double sc_box_lo(double x, double r) {
    const double t = x - sc_box_half(r);
    return t - (__builtin_fabs(t) * 0x1p-50 + 0x1p-1070);
}
static inline double sc_box_hi(double x, double r) {
    const double t = x + sc_box_half(r);
    return t + (__builtin_fabs(t) * 0x1p-50 + 0x1p-1070);
}

/* A double rounded to a float no greater (sc_f_down) or no smaller
 * (sc_f_up), without branches (a branch per box end mispredicts half the
 * time): v is first moved outward by |v| 2^-23 + 2^-140 in double, more
 * than the cast's rounding error (half a float ulp: at most |w| 2^-24, or
 * 2^-150 among the subnormals), then clamped to FLT_MAX, which is <= v
 * whenever the clamp acts (|v| <= 1e150 is checked before; below -FLT_MAX
 * the cast gives -infinity, which is outward). Monotone in v, so sorted box
 * ends stay sorted. The result is a float ulp wider than the tightest;
 * filters only need outward. */
static inline float sc_f_down(double v) {
    const double w = v - (__builtin_fabs(v) * 0x1p-23 + 0x1p-140);
    return (float)(w < 0x1.fffffep+127 ? w : 0x1.fffffep+127);
}
static inline float sc_f_up(double v) {
    return -sc_f_down(-v);
}
/* The same for v - base: float box ends relative to the bounds' low corner
 * keep a float's resolution of the spheres' extent at any offset (at 1e12
 * absolute floats are 65536 apart and every small box gets one key). The
 * subtraction's rounding (|v - base| 2^-53) is far inside the outward move
 * of 2^-23; it is exact where it gives 0; both ends and every box of a
 * filter take the same base, so overlaps are kept. Monotone in v. */
static inline float sc_f_down_from(double v, double base) {
    return sc_f_down(v - base);
}
static inline float sc_f_up_from(double v, double base) {
    return sc_f_up(v - base);
}

/* ---- leaves: peers that copy a sphere into every cell it overlaps -------- */
/* A region is a half-open box [lo, hi) (infinite at the outside). A peer
 * that copies each sphere into every region its box overlaps
 * (lo_box < hi && hi_box >= lo on every axis) finds a pair in every region
 * holding both; it keeps the pair only in the region that holds the
 * pair's reference point, the corner max(lo_i, lo_j) of the boxes'
 * overlap, which lies in both boxes and in exactly one region: each pair
 * once, with no table of pairs seen. */
typedef struct sc_region {
    double lo[3], hi[3];
} sc_region;

#define SC_LEAF_HITS 1024
typedef struct sc_leaf_hits {
    sc_hits local; /* what the kernel writes */
    sc_hits *out;  /* the sink's */
    const sc_work *w;
    const sc_region *region;
    int axes; /* the region's finite axes: x only (1), or x, y, z (3) */
    uint32_t buf[2 * SC_LEAF_HITS];
} sc_leaf_hits;

/* Every pair of working spheres in [a, b) whose reference point lies in
 * region, into out. scratch: SC_LEAF_TLS bytes. */
#define SC_LEAF_TLS (sizeof(sc_leaf_hits) + 4 * (SC_TILE + 16))
SC_INTERNAL uint64_t sc_leaf_pairs(const sc_work *w, uint32_t a, uint32_t b,
                                   const sc_region *region, int axes, sc_kernel_fn kernel,
                                   sc_hits *out, void *scratch);

/* Cuts `count` units of estimated work cost[k] (leaves, segments) into at
 * most max_chunks chunks of consecutive units with about equal work:
 * first[c] is chunk c's first unit, first[nchunks] = count. Returns
 * nchunks. first: max_chunks + 1 entries. */
SC_INTERNAL size_t sc_chunk_units(const uint32_t *start, size_t count, size_t max_chunks,
                                  uint32_t *first);

#endif /* SC_PEER_H */
