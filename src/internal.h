/*
 * internal.h: what the pipeline stages share. Not installed.
 *
 * The engine is a hierarchical sorted-cell grid:
 *   bounds.c      validation, centre bounds, radius range (parallel reduction)
 *   keys.c        grid plan (levels, cell edges, key layout) and a 64-bit cell
 *                 key per sphere
 *   radix_sort.c  parallel LSD radix sort of (key, index), or of packed
 *                 key << b | index words when key and index fit 64 bits
 *   rows.c        row table (cell starts) and the gather into a cell-ordered SoA copy
 *   search.c      narrowphase over cells: half stencil within a level, full
 *                 stencil into coarser levels, cursors to find neighbour rows
 *   output.c      pair sinks: count + checksum, ordered streaming, windows
 *   engine.c      the orchestrator: the pipeline and the search entry points
 *   context.c     the context's lifecycle, statistics and system information
 *                 (context.h: the context, shared with engine.c)
 */
#ifndef SC_INTERNAL_H
#define SC_INTERNAL_H

#include "spherecollide.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define SC_INTERNAL __attribute__((visibility("hidden")))

/* ---- cheap and expensive assertions ------------------------------------ */
/* Cheap invariants are checked in every build that keeps assert(); O(n)
 * validation of stage results runs only with SC_VALIDATE (Debug builds). */
#include <assert.h>
#define SC_ASSERT(c) assert(c)

/* ---- threads ------------------------------------------------------------ */
static inline int sc_thread_id(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}
static inline int sc_num_threads(void) {
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}
SC_INTERNAL double sc_now(void);
SC_INTERNAL int sc_cores_available(void);
/* Thread binding for the duration of one call (threads.c). A context holds
 * one sc_pinning in sc_pinning_bytes(threads) of its memory, made once by
 * sc_pinning_init (the target mask of each team thread under the policy).
 * sc_pinning_begin binds the `threads` OpenMP threads of the calling
 * thread's team, saving their masks, and returns the policy applied: the
 * planned one, or NONE when any thread could not be bound (then none is).
 * sc_pinning_end restores every saved mask; the host's threads end the call
 * as they began it. */
typedef struct sc_pinning sc_pinning;
SC_INTERNAL size_t sc_pinning_bytes(int threads);
SC_INTERNAL sc_pinning *sc_pinning_init(void *mem, sc_pin pin, int threads);
SC_INTERNAL sc_pin sc_pinning_begin(sc_pinning *p);
SC_INTERNAL void sc_pinning_end(sc_pinning *p);
/* Appends a topology and binding summary to buf (snprintf semantics). */
SC_INTERNAL size_t sc_threads_describe(sc_pin pin, int threads, char *buf, size_t cap);

/* ---- memory: the one allocation entry point ------------------------------ */
#define SC_ALIGN 64
/* Elements of padding after every SoA array so a SIMD kernel may load a whole
 * vector past the last sphere. */
#define SC_PAD 8 /* >= 2 * SC_BLOCK: the search reads that far past a row */

typedef struct sc_buf {
    void *p;
    size_t bytes;
} sc_buf;

SC_INTERNAL void *sc_alloc(const sc_allocator *a, size_t bytes);
SC_INTERNAL void sc_free(const sc_allocator *a, void *p);
/* Grow-only scratch: keeps the block when it is large enough already. */
SC_INTERNAL bool sc_buf_reserve(const sc_allocator *a, sc_buf *b, size_t bytes);
SC_INTERNAL void sc_buf_release(const sc_allocator *a, sc_buf *b);

/* ---- reading the caller's view ----------------------------------------- */
typedef struct sc_view {
    size_t n;
    size_t stride; /* bytes */
    bool f64;
    const char *x, *y, *z, *r; /* z may be NULL: 2-D */
} sc_view;

static inline double sc_view_get(const sc_view *v, const char *a, size_t k) {
    const char *p = a + k * v->stride;
    return v->f64 ? *(const double *)(const void *)p : (double)*(const float *)(const void *)p;
}

SC_INTERNAL sc_status sc_view_make(const sc_spheres *s, sc_view *v);

/* ---- stage 1: bounds and radius statistics ------------------------------ */
/* Radius histogram by binary exponent (ilogb), for the level cost model. */
#define SC_EXP_MIN (-1080)
#define SC_EXP_BINS 2160

typedef struct sc_bounds {
    double lo[3], hi[3]; /* centre bounds */
    double rmin, rmax;
    size_t n;
    size_t bad_index;    /* first offending sphere when the status is not OK */
    uint64_t rexp[SC_EXP_BINS]; /* spheres per radius octave; zero radii in bin 0 */
} sc_bounds;

SC_INTERNAL sc_status sc_bounds_compute(const sc_view *v, sc_bounds *b);

/* ---- stage 2: grid plan and keys --------------------------------------- */
#define SC_MAX_LEVELS 16

/* Fine x resolution: x is quantised to 1/2^SC_XFINE of a level-0 cell. */
#define SC_XFINE 3

typedef struct sc_grid_plan {
    int levels;             /* number of levels, finest first */
    double cell[SC_MAX_LEVELS]; /* cell edge of each level: cell[0] * 2^l */
    double radius_limit[SC_MAX_LEVELS]; /* spheres of level l have r <= this */
    bool pow2;              /* exact power-of-two scaling, origin 0 */
    int pow2_exp;           /* cell[0] = 2^pow2_exp when pow2 */
    double origin[3];       /* subtracted before scaling when !pow2 */
    double inv_cell0;       /* 1 / cell[0] (rounded) when !pow2 */
    int bits[3];            /* key bits of X (fine x, all levels), y, z (level 0) */
    bool wrap[3];           /* coordinates may wrap modulo 2^bits on this axis */
    int shift[3];           /* bit position of X, y, z in the key */
    int level_shift;        /* bit position of the level */
    bool morton;            /* the (z, y) field is a Morton code (sc_grid_zy) */
    int key_bits;           /* significant bits of a key */
} sc_grid_plan;

/* levels_wanted: 0 = the cost model chooses; else exactly that many (capped). */
SC_INTERNAL void sc_grid_plan_make(const sc_bounds *b, double cell_factor, int max_levels,
                                   int levels_wanted, sc_grid_plan *plan);
/* The (z, y) field of a level-l key, to be shifted by shift[1]: z above y
 * (row-major), or, with plan->morton, their bits interleaved from the
 * lowest (y even, z odd) and the longer one's extra bits on top. z and y are
 * level-l cell coordinates below 2^(bits - l). sc_grid_zy_split inverts it. */
SC_INTERNAL uint64_t sc_grid_zy(const sc_grid_plan *plan, int level, uint64_t z, uint64_t y);
SC_INTERNAL void sc_grid_zy_split(const sc_grid_plan *plan, int level, uint64_t field, uint64_t *z,
                                  uint64_t *y);
/* Level of a sphere of radius r. */
SC_INTERNAL int sc_grid_level(const sc_grid_plan *plan, double r);
/* Integer coordinates (before wrapping) of a point: q[0] = fine x
 * (level-0 cells * 2^SC_XFINE), q[1], q[2] = level-0 cells in y, z. */
SC_INTERNAL void sc_grid_coords(const sc_grid_plan *plan, const double p[3], int64_t q[3]);
/* Key of a sphere: level, then the row (z, y at the level's resolution,
 * wrapped), then the fine x. */
SC_INTERNAL uint64_t sc_grid_key(const sc_grid_plan *plan, int level, const int64_t q[3]);
/* Brute force as a degenerate grid: one cell, input order. */
SC_INTERNAL void sc_brute_plan(const sc_view *v, sc_grid_plan *plan, uint64_t *keys,
                               uint32_t *index);
/* What the keys stage hands the sort: see sc_radix_sort_pairs. */
typedef struct sc_radix_first {
    uint32_t *hist0;  /* per block, counts of digit 0 (blocks x 2^digit bits), or NULL */
    uint64_t varying; /* with hist0: OR over all keys of key ^ key[0] */
    bool identity;    /* index[k] == k, left unwritten: the first pass writes it */
    int pack_bits;    /* in: 0, or b = sc_pack_bits(): write key << b | k for
                         sc_radix_sort_packed; varying is then over the key */
} sc_radix_first;

/* Writes every sphere's key (or, with first->pack_bits = b, the word
 * key << b | k);
 * fills first->hist0 (cut into `blocks` as sc_radix_blocks says),
 * first->varying and first->identity. The index is not written. */
SC_INTERNAL void sc_keys_compute(const sc_view *v, const sc_grid_plan *plan, uint64_t *keys,
                                 int blocks, sc_radix_first *first);

/* ---- stage 3: radix sort ----------------------------------------------- */
/* Sorts keys[0..n) ascending, carrying index along; stable. Only the low
 * key_bits bits take part; digits that are equal for every key are skipped.
 * tmp_keys/tmp_index are scratch of n elements; count is scratch of
 * sc_radix_sort_scratch(nthreads) bytes. first (may be NULL) carries what
 * the keys stage counted already; its hist0 must then be count itself.
 * Returns true when the result is in tmp_keys/tmp_index, false when it is
 * in keys/index. */
SC_INTERNAL int sc_radix_digit_bits(int key_bits);
SC_INTERNAL int sc_radix_blocks(size_t n, int nthreads);
SC_INTERNAL size_t sc_radix_sort_scratch(int nthreads);
SC_INTERNAL bool sc_radix_sort_pairs(uint64_t *keys, uint32_t *index, uint64_t *tmp_keys,
                                     uint32_t *tmp_index, size_t n, int key_bits, uint32_t *count,
                                     int nthreads, const sc_radix_first *first);
/* The same sort on words key << index_bits | index: one array of 8 bytes
 * per sphere instead of two of 12; tmp is scratch of n words. */
SC_INTERNAL bool sc_radix_sort_packed(uint64_t *words, uint64_t *tmp, size_t n, int key_bits,
                                      int index_bits, uint32_t *count, int nthreads,
                                      const sc_radix_first *first);
/* The index width b for packing n keys of key_bits bits (b = bits of n - 1,
 * at least 1), or 0 when key and index do not fit one 64-bit word. */
static inline int sc_pack_bits(size_t n, int key_bits) {
    int b = 1;
    while (b < 32 && n > 1 && ((n - 1) >> b) != 0)
        b++;
    return n <= ((size_t)1 << b) && key_bits + b <= 64 ? b : 0;
}

/* ---- stage 4: rows and the gathered working copy ------------------------ */
/* A row is the set of spheres of one level with the same (z, y) cell: a
 * column of cells along x, kept sorted by fine x. */
typedef struct sc_rows {
    size_t count;
    uint64_t *key;        /* row key (sphere key with the X bits cleared), ascending */
    uint32_t *start;      /* first sorted sphere of each row; start[count] = n */
    size_t level_begin[SC_MAX_LEVELS + 1]; /* rows of level l: [begin[l], begin[l+1]) */
} sc_rows;

typedef struct sc_work {
    size_t n;
    double *x, *y, *z, *r; /* cell order, padded by SC_PAD */
    const uint32_t *index; /* input index of sorted sphere k */
    uint32_t *xq;          /* fine x (X) of each sorted sphere, padded */
} sc_work;

/* Builds the row table and writes xq[k] = X of sorted sphere k (padded with
 * UINT32_MAX). offsets: scratch of at least (threads + 1) entries. With
 * index_bits = b > 0 the keys are packed words (key << b | input index):
 * the key is read from above bit b and index[k] gets the low b bits. */
SC_INTERNAL size_t sc_rows_build(const uint64_t *sorted_keys, size_t n, const sc_grid_plan *plan,
                                 sc_rows *rows, uint32_t *xq, uint32_t *index, int index_bits,
                                 size_t *offsets);
SC_INTERNAL void sc_gather(const sc_view *v, const uint32_t *index, sc_work *w);

/* ---- kernels ----------------------------------------------------------- */
#include "kernel.h"

/* Resolves AUTO (in place) and returns the kernel, or NULL if unavailable. */
SC_INTERNAL sc_kernel_fn sc_kernel_resolve(sc_kernel *kernel);
/* Bench only (bench/kernel_bench's replay): every later query of c runs fn
 * as its narrowphase kernel on the gathered layout (NULL: back to normal). */
SC_INTERNAL void sc_context_kernel_override(sc_context *c, sc_kernel_fn fn);
SC_INTERNAL void sc_cpu_features(char *buf, size_t cap);
/* A warning about the SC_KERNEL environment variable (unknown value, or a
 * kernel this CPU cannot run) into buf; its length, 0 when all is well. */
SC_INTERNAL size_t sc_kernel_env_problem(char *buf, size_t cap);

/* ---- stage 5: search and output ---------------------------------------- */
typedef struct sc_sink sc_sink;

typedef struct sc_search_job {
    const sc_work *work;
    const sc_view *view; /* indirect layout: the caller's arrays */
    bool indirect;
    const sc_rows *rows;
    const sc_grid_plan *plan;
    sc_kernel_fn kernel;
    int threads;
    sc_sink *sink;
    sc_progress_fn progress;
    void *progress_user;
    void *scratch; /* sc_search_scratch(threads) bytes, 64-byte aligned */
    uint64_t candidate_tests; /* out */
} sc_search_job;

SC_INTERNAL size_t sc_search_chunk_spheres(size_t n);
SC_INTERNAL size_t sc_search_scratch(int threads);
SC_INTERNAL sc_status sc_search_run(sc_search_job *job);

#endif /* SC_INTERNAL_H */
