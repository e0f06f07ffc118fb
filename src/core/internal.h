/*
 * internal.h: what the orchestrator, the shared stages and the peers
 * share. Not installed.
 *
 *   engine.c      the orchestrator: view -> bounds -> peer build -> chunk
 *                 scheduler -> sink -> totals, and the search entry points
 *   context.c     the context's lifecycle, statistics and system information
 *                 (context.h: the context)
 *   peer.h        the interface every algorithm implements, the registry,
 *                 and boxes x +- r rounded outward for the peers that prune
 *                 by box
 *   bounds.c      validation, centre bounds, radius range (parallel reduction)
 *   radix_sort.c  parallel LSD radix sort of (key, index), or of packed
 *                 key << b | index words when key and index fit 64 bits
 *   gather.c      the working copy in a peer's order
 *   schedule.c    the chunk scheduler every peer's search runs under
 *   output.c      pair sinks: count + checksum, ordered streaming, windows
 *   algo/         one file or folder per algorithm (algo/grid/: the engine's
 *                 hierarchical sorted-cell grid)
 */
#ifndef SC_INTERNAL_H
#define SC_INTERNAL_H

#include "spherecollide.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
/* A call uses at most one thread per this many spheres (sc_context_team). */
#define SC_SPHERES_PER_THREAD 2048
SC_INTERNAL double sc_now(void);
/* The caller's options in this library's layout (NULL: the defaults): an
 * older caller's shorter struct, by its size, completed with defaults;
 * SC_ERR_VERSION for a newer one, SC_ERR_INVALID_ARGUMENT below 0.1's. */
SC_INTERNAL sc_status sc_options_take(const sc_options *in, sc_options *out);
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
/* Non-zero when a virtio balloon among the devices under dir (normally
 * /sys/bus/virtio/devices) reports free pages to the hypervisor. */
SC_INTERNAL int sc_balloon_reports_free_pages(const char *dir);
/* sc_huge_pages' answer in words, for sc_system_info. */
SC_INTERNAL const char *sc_huge_pages_reason(void);

/* ---- reading the caller's view ----------------------------------------- */
typedef struct sc_view {
    size_t n;
    size_t stride;  /* bytes, of x, y and z */
    size_t rstride; /* bytes, of r (never 0) */
    bool f64;
    const char *x, *y, *z, *r; /* z may be NULL: 2-D */
} sc_view;

static inline double sc_view_load(const sc_view *v, const char *p) {
    return v->f64 ? *(const double *)(const void *)p : (double)*(const float *)(const void *)p;
}
/* Coordinate k of array a (v->x, v->y or v->z). */
static inline double sc_view_get(const sc_view *v, const char *a, size_t k) {
    return sc_view_load(v, a + k * v->stride);
}
/* Radius k. */
static inline double sc_view_r(const sc_view *v, size_t k) {
    return sc_view_load(v, v->r + k * v->rstride);
}

SC_INTERNAL sc_status sc_view_make(const sc_spheres *s, sc_view *v);

/* ---- bounds and radius statistics ------------------------------ */
/* Radius histogram by binary exponent (ilogb), for the level cost model. */
#define SC_EXP_MIN (-1080)
#define SC_EXP_BINS 2160

typedef struct sc_bounds {
    double lo[3], hi[3]; /* centre bounds */
    double rmin, rmax;
    size_t n;
    size_t bad_index;           /* first offending sphere when the status is not OK */
    uint64_t rexp[SC_EXP_BINS]; /* spheres per radius octave; zero radii in bin 0 */
} sc_bounds;

/* On `threads` OpenMP threads (a team of the caller's choosing, never the
 * host's default: sc_context_team). */
SC_INTERNAL sc_status sc_bounds_compute(const sc_view *v, sc_bounds *b, int threads);
/* sc_spheres_validate on `threads` threads. */
SC_INTERNAL sc_status sc_spheres_check(const sc_spheres *s, size_t *bad_index, int threads);

/* The same bounds gathered by a pass of a front end's own over rows it
 * writes (periodic.c), for the engine to take instead of reading those
 * rows again: sc_bounds_begin, then each thread's sc_bounds_add (one at
 * a time), then sc_bounds_end with the rows' count. The result equals
 * sc_bounds_compute's on the same values (a valid set: bad_index is
 * SIZE_MAX). Radii are first counted by their exponent bits in `tables`
 * tables of SC_RAW_EXPS counts, at index sc_raw_exp(r). */
#define SC_RAW_EXPS 2048
/* A valid radius's raw index: its biased exponent when positive normal,
 * 0 for zero (either sign), 2047 (an infinite's, never valid) when
 * subnormal, which shares exponent 0 with zero but not its octave. */
static inline unsigned sc_raw_exp(double r) {
    uint64_t bits;
    memcpy(&bits, &r, sizeof bits);
    const unsigned e = (unsigned)(bits >> 52) & 0x7ffu;
    return e ? e : r == 0.0 ? 0u : 2047u;
}
SC_INTERNAL void sc_bounds_begin(sc_bounds *b);
SC_INTERNAL void sc_bounds_add(sc_bounds *b, const double lo[3], const double hi[3], double rmin,
                               double rmax, const uint32_t (*raw)[SC_RAW_EXPS], int tables);
SC_INTERNAL void sc_bounds_end(sc_bounds *b, size_t n);

/* ---- radix sort ---------------------------------------------------------- */
/* Neighbouring pairs of keys the keys stage samples for their order. */
#define SC_ORDER_SAMPLES 1024
/* What a key pass may hand the sort: see sc_radix_sort_pairs. */
typedef struct sc_radix_first {
    uint32_t *hist0;  /* per block, counts of digit 0 (blocks x 2^digit bits), or NULL */
    uint64_t varying; /* with hist0: OR over all keys of key ^ key[0] */
    bool identity;    /* index[k] == k, left unwritten: the first pass writes it */
    int pack_bits;    /* in: 0, or b = sc_pack_bits(): write key << b | k for
                         sc_radix_sort_packed; varying is then over the key */
    bool stream;      /* in: scatter whole cache lines with streaming stores
                         (sc_radix_stream; the scratch must then be sized
                         for it) */
    bool sorted;      /* out: the keys are already ascending in input order
                         (the caller's spheres in cell order): the sort has
                         nothing to do, and its result is the identity */
    bool nearly;      /* out: not sorted, but few of a sample of neighbours
                         descend (the order a few steps after it was exact):
                         sc_radix_repair_packed or _pairs may do the
                         sort's work */
    int descents;     /* out: how many of SC_ORDER_SAMPLES sampled
                         neighbours descend */
} sc_radix_first;

/* Sorts keys[0..n) ascending, carrying index along; stable. Only the low
 * key_bits bits take part; digits that are equal for every key are skipped.
 * tmp_keys/tmp_index are scratch of n elements; count is scratch of
 * sc_radix_sort_scratch(nthreads, stream) bytes. first (may be NULL) carries
 * what the keys stage counted already; its hist0 must then be count itself.
 * Returns true when the result is in tmp_keys/tmp_index, false when it is
 * in keys/index. The order is the same whether first->stream is set or not;
 * only how the scatter writes differs. */
SC_INTERNAL int sc_radix_digit_bits(int key_bits);
SC_INTERNAL int sc_radix_blocks(size_t n, int nthreads);
SC_INTERNAL size_t sc_radix_sort_scratch(int nthreads, bool stream);
/* Whether a sort of n keys should stream its scatter (radix_sort.c). */
SC_INTERNAL bool sc_radix_stream(size_t n);
SC_INTERNAL bool sc_radix_sort_pairs(uint64_t *keys, uint32_t *index, uint64_t *tmp_keys,
                                     uint32_t *tmp_index, size_t n, int key_bits, uint32_t *count,
                                     int nthreads, const sc_radix_first *first);
/* The same sort on words key << index_bits | index: one array of 8 bytes
 * per sphere instead of two of 12; tmp is scratch of n words. */
SC_INTERNAL bool sc_radix_sort_packed(uint64_t *words, uint64_t *tmp, size_t n, int key_bits,
                                      int index_bits, uint32_t *count, int nthreads,
                                      const sc_radix_first *first);
/* The sort of packed words that are nearly ascending (radix_repair.c): the
 * result in words, as sc_radix_sort_packed's (key_bits of key above
 * index_bits of index). tmp is n words; side and side_tmp are cap words
 * each; count is sc_radix_sort_scratch(nthreads, false). Returns false,
 * with words and count untouched, when more than about cap words are out
 * of place. */
SC_INTERNAL bool sc_radix_repair_packed(uint64_t *words, uint64_t *tmp, size_t n, int key_bits,
                                        int index_bits, uint64_t *side, uint64_t *side_tmp,
                                        size_t cap, uint32_t *count, int nthreads);
/* The same repair for (key, index) pairs that do not fit one word: keys in
 * input order (index[k] is not read; the input's index is k) sorted, with
 * index, as sc_radix_sort_pairs sorts them (stable), the result in keys and
 * index. tmp_keys and tmp_index are n entries; side, side_index, side_tmp
 * and side_tmp_index cap entries each. Returns false, with keys and count
 * untouched, when more than about cap keys are out of place. */
SC_INTERNAL bool sc_radix_repair_pairs(uint64_t *keys, uint32_t *index, uint64_t *tmp_keys,
                                       uint32_t *tmp_index, size_t n, int key_bits, uint64_t *side,
                                       uint32_t *side_index, uint64_t *side_tmp,
                                       uint32_t *side_tmp_index, size_t cap, uint32_t *count,
                                       int nthreads);
/* The same sort on whole words (no index): the low key_bits bits are the key. */
SC_INTERNAL bool sc_radix_sort_words(uint64_t *words, uint64_t *tmp, size_t n, int key_bits,
                                     uint32_t *count, int nthreads);
/* The index width b for packing n keys of key_bits bits (b = bits of n - 1,
 * at least 1), or 0 when key and index do not fit one 64-bit word. */
static inline int sc_pack_bits(size_t n, int key_bits) {
    int b = 1;
    while (b < 32 && n > 1 && ((n - 1) >> b) != 0)
        b++;
    return n <= ((size_t)1 << b) && key_bits + b <= 64 ? b : 0;
}

/* A stable counting sort by key (key[k] < buckets) for the front ends'
 * small sets (between.c, probe.c): order[p] gets the item at sorted
 * position p, start[q] the first position of bucket q (start[buckets] =
 * n). `threads` threads at most (each counts a block of items, then
 * takes a range of buckets' offsets, then places its block): the result
 * is the serial sort's for every thread count. scratch holds
 * sc_counting_scratch(threads, buckets) bytes; sc_counting_threads caps
 * the threads so that the per-thread counts stay within `room` entries. */
SC_INTERNAL size_t sc_counting_scratch(int threads, uint32_t buckets);
SC_INTERNAL int sc_counting_threads(int threads, uint32_t buckets, size_t room);
SC_INTERNAL void sc_counting_order(const uint32_t *key, size_t n, uint32_t buckets, int threads,
                                   void *scratch, uint32_t *start, uint32_t *order);

/* ---- the working copy ---------------------------------------------------- */
/* x, y, z, r of the spheres in a peer's order as double, each array padded
 * by SC_PAD zeros; index[k] is the input index of working sphere k. */
typedef struct sc_work {
    size_t n;
    double *x, *y, *z, *r;
    const uint32_t *index;
} sc_work;

/* Writes w->x..r[k] for k < n from the view's sphere index[k] (and the
 * padding), and sets w->n and w->index. */
SC_INTERNAL void sc_gather(const sc_view *v, const uint32_t *index, size_t n, sc_work *w);

/* ---- kernels ----------------------------------------------------------- */
#include "kernel.h"

/* Resolves AUTO (in place) and returns the kernel, or NULL if unavailable. */
SC_INTERNAL sc_kernel_fn sc_kernel_resolve(sc_kernel *kernel);
SC_INTERNAL void sc_cpu_features(char *buf, size_t cap);
/* Non-zero where whole-line streaming stores were measured to speed up the
 * radix sort's scatter: Intel CPUs (cpu.c says why). */
SC_INTERNAL int sc_cpu_streaming_scatter(void);
/* A warning about the SC_KERNEL environment variable (unknown value, or a
 * kernel this CPU cannot run) into buf; its length, 0 when all is well. */
SC_INTERNAL size_t sc_kernel_env_problem(char *buf, size_t cap);

#endif /* SC_INTERNAL_H */
