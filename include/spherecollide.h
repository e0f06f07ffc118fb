/*
 * spherecollide.h: the public header of libspherecollide's pair search
 * (the ball simulation has its own, spherecollide_sim.h).
 *
 * Finds every intersecting pair in a batch of spheres. Spheres i and j
 * intersect iff, evaluated in IEEE double on the caller's values,
 *   dx = xi-xj, dy = yi-yj, dz = zi-zj, d2 = (dx*dx + dy*dy) + dz*dz,
 *   s = ri + rj, and d2 <= s*s      (touching counts, no FMA).
 * Every search call returns exactly the pair set of that predicate, as pairs
 * (i, j), i < j, 0-based indices in input order, whatever the input precision,
 * thread count or kernel.
 *
 * Sections: version and export; status; allocator and log hooks; the input
 * view; options; context; pair search; statistics and system information.
 *
 * Thread safety: a context is used by one caller thread at a time (the library
 * runs its own OpenMP threads inside a call). Distinct contexts may be used
 * concurrently. Functions without a context are thread-safe.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPHERECOLLIDE_H
#define SPHERECOLLIDE_H

#include <stddef.h>
#include <stdint.h>

/* ======================================================================== */
/* Version and export macros                                                */
/* ======================================================================== */

#define SC_VERSION_MAJOR 0
#define SC_VERSION_MINOR 2
#define SC_VERSION_PATCH 0
#define SC_VERSION_STRING "0.2.0"

#if defined(SC_STATIC_DEFINE)
#define SC_API
#elif defined(SC_BUILDING_LIBRARY)
#define SC_API __attribute__((visibility("default")))
#else
#define SC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The library's version string, "MAJOR.MINOR.PATCH". Thread-safe. */
SC_API const char *sc_version(void);

/* ======================================================================== */
/* Status codes                                                             */
/* ======================================================================== */

/** Every fallible call returns one of these; the library never exits or
 *  aborts because of user data. */
typedef enum sc_status {
    SC_OK = 0,
    SC_ERR_INVALID_ARGUMENT = 1, /**< NULL pointer, bad option value, bad view */
    SC_ERR_NON_FINITE = 2,       /**< a coordinate or radius is NaN or infinite */
    SC_ERR_NEGATIVE_RADIUS = 3,  /**< a radius is < 0 (zero is allowed) */
    SC_ERR_OUT_OF_RANGE = 4,     /**< |value| > SC_MAX_ABS_VALUE: the predicate would overflow */
    SC_ERR_TOO_MANY_SPHERES = 5, /**< count exceeds SC_MAX_SPHERES (32-bit indices) */
    SC_ERR_OUT_OF_MEMORY = 6,    /**< an allocation failed; the context stays usable */
    SC_ERR_BUFFER_TOO_SMALL = 7, /**< sc_fill_pairs: capacity < pairs; *needed says how many */
    SC_ERR_STOPPED = 8,          /**< the pair callback returned non-zero */
    SC_ERR_UNSUPPORTED = 9,      /**< a forced kernel this CPU or build cannot
                                      run, or sc_cell_order on a context of
                                      another algorithm than the grid */
    SC_ERR_TOO_COSTLY = 10,      /**< the chosen algorithm predicts more work than
                                      its limit on this input (hashgrid's
                                      max_tests); nothing was searched, another
                                      algorithm handles the input */
    SC_ERR_VERSION = 11          /**< a struct's size is larger than this library
                                      knows: the caller was built against a newer
                                      spherecollide.h (see docs/api.md, ABI) */
} sc_status;

/** Static English text for a status ("ok", "negative radius", ...). Thread-safe. */
SC_API const char *sc_status_string(sc_status status);

/** Largest spheres count (pair indices are uint32). */
#define SC_MAX_SPHERES ((size_t)UINT32_MAX)
/** Largest accepted |coordinate| and radius: beyond it d2 or s*s could overflow. */
#define SC_MAX_ABS_VALUE 1e150

/* ======================================================================== */
/* Allocator and log hooks                                                  */
/* ======================================================================== */

/** Optional allocation hooks; every allocation of a context goes through them.
 *  alloc returns memory aligned to `alignment` (a power of two, <= 4096) or
 *  NULL. Both must be thread-safe if several contexts share them. */
typedef struct sc_allocator {
    void *(*alloc)(size_t size, size_t alignment, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} sc_allocator;

/** Log levels passed to the log hook. */
typedef enum sc_log_level { SC_LOG_DEBUG = 0, SC_LOG_INFO = 1, SC_LOG_WARN = 2 } sc_log_level;
typedef void (*sc_log_fn)(sc_log_level level, const char *message, void *user);

/** Progress hook: fraction in [0, 1] of the query's pair search done (with
 *  `sorted`, every window pass included). Called on the caller's thread only,
 *  with non-decreasing fractions, at most 257 times per query; the last call
 *  says 1.0 when the query succeeds. */
typedef void (*sc_progress_fn)(double fraction, void *user);

/* ======================================================================== */
/* The input view (never owned by the library)                              */
/* ======================================================================== */

typedef enum sc_dtype { SC_F32 = 1, SC_F64 = 2 } sc_dtype;

/** A view of the caller's spheres: element k of x, y or z is at
 *  (const char *)a + k * stride, radius k at (const char *)r + k * r_stride.
 *  z == NULL means 2-D (circles, z = 0). stride 0 means packed (sizeof the
 *  dtype); r_stride 0 means the same as stride, so a view written before
 *  r_stride existed ({n, dtype, stride, x, y, z, r}) reads as it did.
 *  A separate radius stride lets an (N, 3) array of centres and an (N,)
 *  array of radii be read as they are (NumPy's usual pair). Strides must
 *  keep each element aligned to its type. The arrays must stay valid and
 *  unchanged during a call. */
typedef struct sc_spheres {
    size_t count;
    sc_dtype dtype;
    size_t stride;
    const void *x, *y, *z, *r;
    size_t r_stride;
} sc_spheres;

/** Separate arrays x[n], y[n], z[n], r[n] (z may be NULL for 2-D). */
SC_API sc_spheres sc_spheres_soa_f64(size_t n, const double *x, const double *y, const double *z,
                                     const double *r);
SC_API sc_spheres sc_spheres_soa_f32(size_t n, const float *x, const float *y, const float *z,
                                     const float *r);
/** Interleaved rows: (x, y, z, r) per sphere, or (x, y, r) when dims == 2.
 * Any alignment of the element type works; for speed, align double rows to
 * 32 bytes (better 64), so each record sits in one cache line: the gather
 * reads the records in random order, and a record that straddles two lines
 * costs two reads (docs/decisions/0003-stage-tuning.md). */
SC_API sc_spheres sc_spheres_rows_f64(size_t n, int dims, const double *rows);
SC_API sc_spheres sc_spheres_rows_f32(size_t n, int dims, const float *rows);

/** Checks a view: SC_OK, or the first problem and (if bad_index is not NULL)
 *  the index of the first offending sphere. Thread-safe. */
SC_API sc_status sc_spheres_validate(const sc_spheres *spheres, size_t *bad_index);

/* ======================================================================== */
/* Options                                                                  */
/* ======================================================================== */

typedef enum sc_kernel {
    SC_KERNEL_AUTO = 0,   /**< best this CPU runs; env SC_KERNEL=scalar|avx2 overrides */
    SC_KERNEL_SCALAR = 1, /**< plain C reference kernel, always available */
    SC_KERNEL_AVX2 = 2    /**< AVX2 kernel (SIMDe), needs AVX2 at run time */
} sc_kernel;

typedef enum sc_pin {
    SC_PIN_NONE = 0,    /**< leave threads where the OS puts them */
    SC_PIN_COMPACT = 1, /**< thread k on the k-th core, cores filled in order */
    SC_PIN_SCATTER = 2  /**< threads spread over packages/caches first */
} sc_pin;

/** The algorithms (peers): every one returns the same exact pair set
 *  through the same calls; docs/algorithms.md compares them. */
typedef enum sc_algorithm {
    SC_ALGO_GRID = 0,        /**< hierarchical sorted-cell grid (default) */
    SC_ALGO_BRUTE = 1,       /**< all n(n-1)/2 tests, tiled, SIMD, OpenMP */
    SC_ALGO_PARTITION1D = 2, /**< segments along x, each sphere registered in every
                                  segment its extent meets */
    SC_ALGO_SAP = 3,         /**< sweep and prune on the axis of largest spread */
    SC_ALGO_HASHGRID = 4,    /**< textbook uniform grid: cell 2 r_max, hashed, 27 cells */
    SC_ALGO_OCTREE = 5,      /**< octree (quadtree for 2-D input), spheres copied to children */
    SC_ALGO_KDSPLIT = 6,     /**< median splits on alternating axes */
    SC_ALGO_BVH = 7,         /**< linear BVH over Morton-sorted spheres */
    SC_ALGO_SEGTREE = 8      /**< streaming segment tree (Zomorodian-Edelsbrunner), complete mode */
} sc_algorithm;
/** The algorithms of this header. A library may have more (a newer one,
 *  or a build with a peer of its own): sc_algorithm_count() says how many
 *  it has, numbered from 0. */
#define SC_ALGO_COUNT 9

/** A periodic box. On each axis k with periodic[k] non-zero, space wraps
 *  with period L_k = hi[k] - lo[k] (in double), and a pair's predicate
 *  runs on its minimum-image displacement, exactly as this double
 *  expression (no FMA) decides:
 *    wrap(x) = x when lo <= x < hi; else t = x - floor((x - lo) / L) * L,
 *              then lo when t < lo or t >= hi, else t;
 *    for i < j and each axis: d = wrap(cj) - wrap(ci) on a periodic axis
 *              (cj - ci on another), then on a periodic axis
 *              d - L when d > 0.5 * L, d + L when d < -0.5 * L, else d;
 *    d2 = (dx*dx + dy*dy) + dz*dz, s = ri + rj, and d2 <= s*s.
 *  Spheres outside [lo, hi) are wrapped, not rejected; each pair is
 *  reported once, however many faces its spheres touch across, and a
 *  sphere never pairs with its own image. Any sphere size and box size
 *  give this answer (with spheres large against the box, up to 26 images
 *  of each are searched). Non-periodic axes ignore lo and hi; a 2-D view
 *  ignores axis 2. A periodic axis needs finite lo < hi with |lo|, |hi|
 *  <= SC_MAX_BOX_VALUE (else SC_ERR_INVALID_ARGUMENT at context
 *  creation), and every radius <= SC_MAX_ABS_VALUE / 2 (else
 *  SC_ERR_OUT_OF_RANGE at that sphere): the images must stay within the
 *  search's range (a neighbour list's radii grown by its skin: the grown
 *  radii). The pair calls (count, stream, fill), the two-set calls and
 *  the neighbour lists honour the box (a list's pairs with s = (ri + rj)
 *  + skin, its values from the minimum image's d2). Two sets wrap in the
 *  one box, and (i in A, j in B) is a pair when the expression holds for
 *  the two spheres (it gives the same answer whichever comes first). */
typedef struct sc_box {
    int periodic[3]; /**< non-zero: axis k wraps (default: none) */
    double lo[3], hi[3];
} sc_box;
/** Largest |lo| and |hi| of a periodic axis. */
#define SC_MAX_BOX_VALUE (SC_MAX_ABS_VALUE / 8)

/** Options of the grid (SC_ALGO_GRID). */
typedef struct sc_grid_options {
    double cell_factor; /**< base cell edge as a multiple of the minimum legal
                             one (2 * r_max of the level); >= 1, default 1.
                             At 1, a one-level grid whose cells a sample of
                             the spheres shows nearly empty (sparse sets of
                             16384 spheres or more) widens them by up to 16;
                             any other value is used as given */
    int max_levels;     /**< cap on grid levels, 1..16; default 16 */
    int levels;         /**< 0 (default): a cost model picks the number of
                             levels from the radius distribution; else
                             exactly this many (within the cap and the
                             radius range) */
} sc_grid_options;

/** Segment width of the 1-D partition (SC_ALGO_PARTITION1D). */
typedef enum sc_segment_width {
    SC_SEGMENT_MEAN_DIAMETER = 0, /**< 1.1 x the mean diameter (default) */
    SC_SEGMENT_MAX_DIAMETER = 1   /**< the largest diameter */
} sc_segment_width;
typedef struct sc_partition1d_options {
    sc_segment_width width;
} sc_partition1d_options;

/** Options of sweep and prune (SC_ALGO_SAP). */
typedef struct sc_sap_options {
    int warm; /**< 0 (default): every call radix-sorts the sweep order. 1:
                   the context keeps the last call's order and the next call
                   on as many spheres repairs it by insertion sort (frame
                   coherence: spheres that moved a little), falling back to
                   the radix sort when the repair would move too much. The
                   pairs are the same either way; the sweep axis sticks to
                   the last call's unless another spreads 1.25x wider, so
                   the stream order follows the calls made (the same for
                   every thread count) */
} sc_sap_options;

/** Options of the textbook hash grid (SC_ALGO_HASHGRID). */
typedef struct sc_hashgrid_options {
    double max_tests; /**< refuse (SC_ERR_TOO_COSTLY) an input on which the
                           cells' occupancy predicts more candidate tests than
                           this, before searching: one cell size for all
                           radii makes heavy-tailed sets quadratic. > 0;
                           default 2^36 (about a minute of one core);
                           INFINITY: never refuse */
} sc_hashgrid_options;

/** Options of the trees that split space (SC_ALGO_OCTREE, SC_ALGO_KDSPLIT). */
typedef enum sc_split {
    SC_SPLIT_MEDIAN = 0, /**< the median centre, by selection (default) */
    SC_SPLIT_MEAN = 1    /**< the mean centre */
} sc_split;
typedef struct sc_tree_options {
    int max_depth;  /**< levels of splits at most, 1..64 (octree default 8, kdsplit 24) */
    int leaf_size;  /**< a node of at most this many spheres is a leaf, >= 1
                        (octree default 20, kdsplit 32) */
    sc_split split; /**< kdsplit only: where a node is cut */
} sc_tree_options;

/** Options of the linear BVH (SC_ALGO_BVH). */
typedef struct sc_bvh_options {
    int leaf_size; /**< spheres per leaf, 1..4 (one kernel block); default 4 */
    int refit;     /**< 0 (default): every call builds the tree afresh. 1:
                        the context keeps the last tree and the next call on
                        as many spheres refits it (the same leaves and
                        topology, boxes recomputed from the new positions:
                        frame coherence), building afresh when the refitted
                        boxes have grown past twice the extent of the last
                        fresh build's. The pairs are the same either way; the
                        stream order follows the calls made (the same for
                        every thread count) */
} sc_bvh_options;

/** Options of the segment tree (SC_ALGO_SEGTREE). */
typedef struct sc_segtree_options {
    size_t cutoff; /**< a node with at most this many intervals or points
                        is finished by the one-way scan instead of
                        splitting; >= 1, default 1024 */
} sc_segtree_options;

/** How a default team (threads = 0) is sized. */
typedef enum sc_team {
    SC_TEAM_FOLLOW_LOAD = 0, /**< every core on a quiet machine; where other
                                  programs keep cores busy, the free cores or
                                  all of them, as measured (the default) */
    SC_TEAM_EVERY_CORE = 1   /**< every core whatever the load, and /proc is
                                  never read: for a node the job owns */
} sc_team;

/** Options of a context. The struct grows at its end only; `size` says
 *  which layout the caller was built with, and the library accepts every
 *  earlier one, giving the fields an older caller could not set their
 *  defaults (docs/api.md, "ABI"). */
typedef struct sc_options {
    size_t size; /**< sizeof(sc_options) of the caller's header; set
                                 by sc_options_default. At least
                                 SC_OPTIONS_SIZE_0_1 (else
                                 SC_ERR_INVALID_ARGUMENT); larger than this
                                 library's sizeof: SC_ERR_VERSION */
    sc_algorithm algorithm;
    int threads;                /**< 0 = one per core hwloc sees (or omp_get_num_procs);
                                 where other programs keep cores busy when the
                                 call starts (read from /proc), the free cores
                                 for a short query and, for a long one, all
                                 of them once the free cores have run it long
                                 enough on this context to pay for a try,
                                 kept while their mean is no slower
                                 (docs/design.md, "Sharing the machine"); a
                                 team smaller than the cores is not bound.
                                 N > 0: exactly N, whatever the load */
    sc_pin pin;                 /**< default SC_PIN_COMPACT: the library's team
                                 threads are bound for the duration of each
                                 call on 262144 (2^18) or more spheres, and their
                                 masks restored after it (smaller calls are
                                 too short for binding to pay: none), inside
                                 the calling thread's own CPUs (an MPI rank's
                                 binding, taskset), and only when the team
                                 fills them: a smaller team is not bound */
    sc_kernel kernel;           /**< default SC_KERNEL_AUTO */
    int sorted;                 /**< stream/fill pairs in (i, j) lexicographic order */
    size_t chunk_pairs;         /**< most pairs per callback chunk, >= 1; default
                                 65536; values above 2^24 (SIZE_MAX for
                                 "unlimited") act as 2^24: a stream holds
                                 threads x chunk_pairs pairs */
    size_t sorted_window_bytes; /**< memory for one sorted window; default 64 MiB */
    sc_allocator allocator;     /**< alloc == NULL: the library's aligned malloc */
    sc_log_fn log;              /**< NULL: silent */
    void *log_user;
    sc_progress_fn progress; /**< NULL: none; the query's fraction, stepped by
                                  each build stage's end and by the search
                                  (docs/api.md) */
    void *progress_user;
    sc_box box; /**< periodic boundaries; default none */
    /* Each algorithm's own options; only the chosen algorithm's are read. */
    sc_grid_options grid;
    sc_partition1d_options partition1d;
    sc_sap_options sap;
    sc_hashgrid_options hashgrid;
    sc_tree_options octree;
    sc_tree_options kdsplit;
    sc_bvh_options bvh;
    sc_segtree_options segtree;
    /* ---- from 0.2.0 ---- */
    sc_team team; /**< threads = 0: how the team is sized; default
                                 SC_TEAM_FOLLOW_LOAD */
} sc_options;

/** The size of sc_options in 0.1.0, the first layout: every field up to
 *  `segtree`. */
#define SC_OPTIONS_SIZE_0_1 offsetof(sc_options, team)

/** The defaults described above. Thread-safe. */
SC_API sc_options sc_options_default(void);

/* ======================================================================== */
/* Context                                                                  */
/* ======================================================================== */

/** An opaque reusable context: scratch memory grows to the largest batch seen
 *  and is reused, so repeated queries on batches of the same size allocate
 *  nothing new. */
typedef struct sc_context sc_context;

/** Creates a context (options may be NULL for defaults); *out is NULL on error. */
SC_API sc_status sc_context_create(const sc_options *options, sc_context **out);
/** Frees a context and its scratch; accepts NULL. */
SC_API void sc_context_destroy(sc_context *ctx);
/** Frees the scratch memory but keeps the context usable. */
SC_API void sc_context_trim(sc_context *ctx);
/** As sc_spheres_validate, on the context's threads (its `threads`, or with
 *  0 the cores the calling thread may run on) rather than the calling
 *  thread's OpenMP default. Not thread-safe on one context. */
SC_API sc_status sc_context_validate(sc_context *ctx, const sc_spheres *spheres, size_t *bad_index);

/* ======================================================================== */
/* Pair search                                                              */
/* ======================================================================== */

/** Count and order-independent checksum of a pair set:
 *  checksum = sum over pairs of sc_pair_mix(i, j) mod 2^64. */
typedef struct sc_summary {
    uint64_t pairs;
    uint64_t checksum;
} sc_summary;

/** splitmix64's output step on z = (uint64(i) << 32) | j, modulo 2^64:
 *  z += 0x9E3779B97F4A7C15; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
 *  z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31).
 *  sc_pair_mix(0, 1) = 0x910a2dec89025cc1. Thread-safe. */
SC_API uint64_t sc_pair_mix(uint32_t i, uint32_t j);

/** Pair callback: pairs[2k], pairs[2k+1] is the k-th pair (i < j) of this
 *  chunk; 1 <= count <= chunk_pairs. Never called concurrently, but it may run
 *  on any of the library's OpenMP threads, not only the caller's. What is
 *  deterministic is the sequence of pairs, concatenated over the calls: the
 *  same for every thread count (and, with `sorted`, lexicographic). Where
 *  that sequence is cut into calls may differ between thread counts. Return
 *  0 to go on, non-zero to stop the search (the call then returns
 *  SC_ERR_STOPPED). */
typedef int (*sc_pair_fn)(const uint32_t *pairs, size_t count, void *user);

/** Counts the pairs and their checksum; memory O(n), whatever the count.
 *  Every search call sets *out (zeroed on error) and the context's
 *  statistics (zeroed, then filled as far as the call got). */
SC_API sc_status sc_count_pairs(sc_context *ctx, const sc_spheres *spheres, sc_summary *out);

/** Streams every pair to fn in chunks of at most options.chunk_pairs pairs.
 *  Memory: O(n) plus O(threads * chunk_pairs), whatever the count; with
 *  options.sorted, O(n) plus options.sorted_window_bytes (one search pass
 *  when the pairs fit the window the context expects from its last sorted
 *  query; else a counting pass, then one pass per window of i). out may be
 *  NULL. */
SC_API sc_status sc_stream_pairs(sc_context *ctx, const sc_spheres *spheres, sc_pair_fn fn,
                                 void *user, sc_summary *out);

/** Writes the pairs to pairs[0 .. 2*capacity) in the stream order. If
 *  capacity is too small, returns SC_ERR_BUFFER_TOO_SMALL after writing the
 *  first capacity pairs. *needed (if not NULL) is always set: the pair count
 *  when the search ran to the end (SC_OK or SC_ERR_BUFFER_TOO_SMALL), else 0.
 *  pairs may be NULL with capacity 0: a size query. out (if not NULL) is
 *  zeroed on every error but SC_ERR_BUFFER_TOO_SMALL. */
SC_API sc_status sc_fill_pairs(sc_context *ctx, const sc_spheres *spheres, uint32_t *pairs,
                               size_t capacity, size_t *needed, sc_summary *out);

/* ======================================================================== */
/* Two sets (bipartite)                                                     */
/* ======================================================================== */

/** The pairs (i, j), i indexing a and j indexing b, whose spheres intersect
 *  by the one-set predicate (the same double expression on the caller's
 *  values; a sphere in both sets meets itself). In the stream, pairs[2k]
 *  is i and pairs[2k+1] is j (no order between them); the checksum sums
 *  sc_pair_mix(i, j). a and b are both 3-D or both 2-D (else
 *  SC_ERR_INVALID_ARGUMENT; an empty set takes the other's), their dtypes
 *  may differ, and a->count + b->count <= SC_MAX_SPHERES. An invalid sphere
 *  gives the status of a's first one, else b's. Every option applies as
 *  for one set: options.algorithm searches, the stream's order is the same
 *  for every thread count, and lexicographic in (i, j) with options.sorted.
 *  When one set is at least 4 times the other, one pass over the larger
 *  keeps only its spheres near the smaller's (an occupancy grid of the
 *  smaller's boxes), and the algorithm searches the smaller set with
 *  those: no index of a u b is built. Scratch beyond a one-set query's
 *  on the searched spheres: 32 bytes per searched sphere, 4 per sphere of
 *  the larger set, and the grid's bits (16 per sphere of the larger set,
 *  2 MiB at most). The context's statistics count the searched spheres.
 *  With a periodic box in the options (sc_box) both sets wrap in it, the
 *  filter runs on the wrapped centres, and the searched spheres include
 *  the images near the faces; a radius above SC_MAX_ABS_VALUE / 2 in
 *  either set gives SC_ERR_OUT_OF_RANGE. */
SC_API sc_status sc_count_between(sc_context *ctx, const sc_spheres *a, const sc_spheres *b,
                                  sc_summary *out);
/** sc_stream_pairs for two sets: memory as there, on the searched spheres. */
SC_API sc_status sc_stream_between(sc_context *ctx, const sc_spheres *a, const sc_spheres *b,
                                   sc_pair_fn fn, void *user, sc_summary *out);
/** sc_fill_pairs for two sets. */
SC_API sc_status sc_fill_between(sc_context *ctx, const sc_spheres *a, const sc_spheres *b,
                                 uint32_t *pairs, size_t capacity, size_t *needed, sc_summary *out);

/* ======================================================================== */
/* Neighbour lists (CSR)                                                    */
/* ======================================================================== */

/** What a neighbour list keeps beside each index. */
typedef enum sc_nbr_value {
    SC_NBR_NONE = 0,    /**< indices only */
    SC_NBR_OVERLAP = 1, /**< overlap depth (ri + rj) - d, negative within the skin */
    SC_NBR_DISTANCE = 2 /**< centre distance d */
} sc_nbr_value;

/** The list asked for. A pair (i, j) is listed iff, in IEEE double on the
 *  caller's values (widened from float32 where they are float32),
 *  dx = xi-xj, dy = yi-yj, dz = zi-zj, d2 = (dx*dx + dy*dy) + dz*dz,
 *  s = (ri+rj) + skin, d2 <= s*s: with skin 0, exactly the pairs the
 *  search calls return. d = sqrt(d2); values are computed from (i, j) with
 *  i < j, so both directions of a full list carry the same bits. */
typedef struct sc_nbr_spec {
    int full;           /**< 0: half list, row i holds the j > i; 1: each
                              pair in both rows */
    double skin;        /**< >= 0 and <= SC_MAX_ABS_VALUE; lists pairs up
                              to skin apart (MD/DEM lists reused over steps).
                              With skin > 0 the search runs on radii grown
                              a few ulps past r + skin/2, each of which must
                              stay within SC_MAX_ABS_VALUE (else
                              SC_ERR_OUT_OF_RANGE at that sphere) */
    sc_nbr_value value; /**< values beside the indices (NONE by default) */
} sc_nbr_spec;

/** Pass 1 of 2: the row offsets of the list. offsets has n + 1 entries;
 *  offsets[0] = 0 and row i is entries offsets[i] .. offsets[i+1]-1, so
 *  offsets[n] is how many entries pass 2 writes (allocate indices, and
 *  values, for that many). The context's statistics count the pairs
 *  (each once, whether the list is half or full). */
SC_API sc_status sc_neighbors_count(sc_context *ctx, const sc_spheres *spheres,
                                    const sc_nbr_spec *spec, uint64_t *offsets);

/** Pass 2 of 2: fills indices[0 .. offsets[n]) (and values[0 .. offsets[n])
 *  when spec->value is not NONE; else values is not read) for the offsets pass 1
 *  wrote, on the same spheres and spec. Each row is sorted by index; the
 *  list is the same for every thread count and algorithm. Offsets that do
 *  not describe this list (not starting at 0, decreasing, or rows of other
 *  lengths than this search finds) give SC_ERR_INVALID_ARGUMENT without a
 *  write outside [0, offsets[n]). Scratch: 4 bytes per sphere more than a
 *  count (8 more with skin > 0). */
SC_API sc_status sc_neighbors_fill(sc_context *ctx, const sc_spheres *spheres,
                                   const sc_nbr_spec *spec, const uint64_t *offsets,
                                   uint32_t *indices, double *values);

/* ======================================================================== */
/* Spatial order                                                            */
/* ======================================================================== */

/** Writes order[0 .. n), n = spheres->count: order[k] is the input index of
 *  the sphere at position k of the grid's cell order, the order of its
 *  working copy (level, then row, then x; a permutation of 0 .. n-1, the
 *  same for every thread count). A caller that keeps its arrays in this
 *  order (new[k] = old[order[k]], as MD and DEM codes re-sort their
 *  particles every few steps) hands later queries input that the grid's
 *  gather reads in sequence, and whose sort is skipped outright while the
 *  spheres' cell keys still ascend in input order, and repaired rather than
 *  redone while few have moved out of order. The pairs found are the same
 *  set, in the new indices. Runs the grid's build up to its sort (bounds,
 *  keys, sort; no rows, working copy or search) with the context's grid
 *  options, and ignores options.box (centres are ordered as given, not
 *  wrapped). ctx's algorithm must be SC_ALGO_GRID (else
 *  SC_ERR_UNSUPPORTED: the other algorithms keep state in the scratch the
 *  grid would use). Bad spheres give sc_count_pairs' statuses; order may
 *  be NULL when n is 0. The context's statistics are this call's. */
SC_API sc_status sc_cell_order(sc_context *ctx, const sc_spheres *spheres, uint32_t *order);

/* ======================================================================== */
/* Statistics and system information                                        */
/* ======================================================================== */

typedef enum sc_stage {
    SC_STAGE_BOUNDS = 0, /**< validation, bounds and radius statistics */
    SC_STAGE_KEYS,       /**< level and cell key per sphere */
    SC_STAGE_SORT,       /**< radix sort of (key, index) */
    SC_STAGE_GATHER,     /**< cell-ordered SoA working copy */
    SC_STAGE_CELLS,      /**< row table (start of each non-empty grid row) */
    SC_STAGE_SEARCH,     /**< narrowphase over rows (and pair output) */
    SC_STAGE_MERGE,      /**< merging per-thread results */
    SC_STAGE_COUNT
} sc_stage;

/** Stage name ("bounds", "keys", ...), or "?" for an unknown value. */
SC_API const char *sc_stage_name(sc_stage stage);
/** Kernel name ("auto", "scalar", "avx2"). */
SC_API const char *sc_kernel_name(sc_kernel kernel);
/** Algorithm name ("grid", "brute", "partition1d", "sap", "hashgrid",
 *  "octree", "kdsplit", "bvh", "segtree"), or "?" for an unknown value. */
SC_API const char *sc_algorithm_name(sc_algorithm algorithm);
/** How many algorithms this library has: 0 .. count - 1 are valid
 *  sc_algorithm values (at least SC_ALGO_COUNT). */
SC_API int sc_algorithm_count(void);
/** Sets *out to the algorithm called `name` (sc_algorithm_name's) and
 *  returns SC_OK, or SC_ERR_INVALID_ARGUMENT when none is, out untouched. */
SC_API sc_status sc_algorithm_named(const char *name, sc_algorithm *out);
/** What the algorithm times in a stage's clock (sc_stats.seconds): for
 *  the build stages its own step ("radix sort", "tree", "segments", ...),
 *  NULL where it times nothing in that stage; "bounds", "search" and
 *  "merge" for the engine's stages, which every algorithm runs; NULL for
 *  an unknown algorithm or stage. */
SC_API const char *sc_algorithm_stage(sc_algorithm algorithm, sc_stage stage);
/** Pinning policy name ("none", "compact", "scatter"). */
SC_API const char *sc_pin_name(sc_pin pin);

/** Statistics of the context's last query. */
typedef struct sc_stats {
    size_t size;                    /**< set by the caller to sizeof(sc_stats)
                                         before sc_context_stats, which writes
                                         that many bytes at most and sets it
                                         to the bytes it wrote */
    double seconds[SC_STAGE_COUNT]; /**< wall seconds per stage */
    double total_seconds;           /**< whole call, spheres in memory to result */
    uint64_t spheres;
    uint64_t pairs;
    uint64_t checksum;
    uint64_t cells;           /**< non-empty grid rows (cell columns along x), all levels */
    uint64_t candidate_tests; /**< sphere-pair tests the kernel ran */
    uint64_t scratch_bytes;   /**< scratch memory held by the context */
    int levels;               /**< non-empty grid levels */
    int threads;              /**< threads used */
    int passes;               /**< search passes (> 1 only for sorted output
                                   that did not fit one window as expected) */
    sc_kernel kernel;         /**< kernel that ran (never AUTO) */
    sc_pin pin;               /**< binding applied during the call: the policy
                                   asked for, or NONE when it could not be
                                   applied to every thread, the batch was
                                   under 2^18 spheres, or no hwloc */
    double cell_size;         /**< edge of the finest level's cells */
} sc_stats;

/** The size of sc_stats in 0.2.0, its first sized layout: every field up
 *  to `cell_size`. The struct grows at its end only. */
#define SC_STATS_SIZE_0_2 (offsetof(sc_stats, cell_size) + sizeof(double))

/** Copies the last query's statistics into out, whose `size` the caller
 *  sets (`sc_stats st = {.size = sizeof st};`): an older caller's smaller
 *  struct gets the fields it knows, a newer caller's larger one gets this
 *  library's fields and `size` says where they end. A size below
 *  SC_STATS_SIZE_0_2 (0: not set) is SC_ERR_INVALID_ARGUMENT, out untouched. */
SC_API sc_status sc_context_stats(const sc_context *ctx, sc_stats *out);

/** The kernel SC_KERNEL_AUTO resolves to on this CPU (after SC_KERNEL env). */
SC_API sc_kernel sc_kernel_auto(void);
/** Non-zero if this CPU and build can run the kernel. */
SC_API int sc_kernel_available(sc_kernel kernel);

/** Non-zero when the library's own allocator (no allocator hooks) offers
 *  scratch blocks of 2 MiB or more to transparent huge pages; zero when it
 *  keeps them in base pages. Decided once per process: huge pages, except
 *  in a virtual machine whose balloon reports free pages to the hypervisor
 *  (fresh huge pages there are backed anew by the host; docs/one-shot.md),
 *  or where the environment variable SC_HUGE_PAGES=0|1 says otherwise.
 *  Programs that allocate large arrays of their own may follow it. */
SC_API int sc_huge_pages(void);

/** Writes a multi-line, human-readable description of the machine: CPU
 *  features, the kernel chosen, the page policy (sc_huge_pages), the hwloc
 *  topology summary and the thread binding the options would apply. Returns the length it needed (like
 *  snprintf). Thread-safe. */
SC_API size_t sc_system_info(const sc_options *options, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* SPHERECOLLIDE_H */
