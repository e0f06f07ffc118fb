/*
 * spherecollide_study.h: the study-only switches of libspherecollide. Not
 * installed, not part of the public API: they exist only in the static
 * library spherecollide_study, built with SC_STUDY defined, which the
 * performance study (bench/study/sc_study), kernel_bench and the tests that
 * cover these switches link. The shipped library has none of them, so they
 * cost the hot path nothing (the way libdeflate keeps its test-only
 * feature overrides out of release builds).
 */
#ifndef SPHERECOLLIDE_STUDY_H
#define SPHERECOLLIDE_STUDY_H

#include "spherecollide.h"

#ifndef SC_STUDY
#error "spherecollide_study.h needs the study build (link spherecollide_study, define SC_STUDY)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sc_layout {
    SC_LAYOUT_GATHERED = 0, /**< copy the spheres into cell order first (default) */
    SC_LAYOUT_INDIRECT = 1  /**< no copy: the narrowphase reads the caller's arrays
                                 through the sort permutation (scalar kernel) */
} sc_layout;

typedef enum sc_traversal {
    SC_TRAVERSAL_ROWS = 0,  /**< rows (cells of equal z, y) in z-major order (default) */
    SC_TRAVERSAL_MORTON = 1 /**< rows along a Morton (Z-order) curve of (z, y): same
                                 pairs, other memory order */
} sc_traversal;

typedef enum sc_grid_sides {
    SC_SIDES_MODEL = 0, /**< per pair of levels, the side the cost model picks (default) */
    SC_SIDES_UP = 1,    /**< every pair across levels found from the finer sphere */
    SC_SIDES_DOWN = 2   /**< every pair across levels found from the coarser sphere */
} sc_grid_sides;

/** The grid's working layout for the context's later queries. */
SC_API sc_status sc_study_set_layout(sc_context *ctx, sc_layout layout);
/** The grid's row order for the context's later queries. */
SC_API sc_status sc_study_set_traversal(sc_context *ctx, sc_traversal traversal);

/** Which side the grid finds pairs across levels from, for the context's
 *  later queries: same pairs, other work (and stream order). */
SC_API sc_status sc_study_set_grid_sides(sc_context *ctx, sc_grid_sides sides);

typedef enum sc_list_words {
    SC_LIST_WORDS_AUTO = 0, /**< 32-bit grouped words where they fit (n up to 2^21; default) */
    SC_LIST_WORDS_WIDE = 1  /**< 64-bit grouped words always, as past 2^21 spheres:
                                 the same lists, for tests of that path */
} sc_list_words;

/** The grouped words of the context's later neighbour lists. */
SC_API sc_status sc_study_set_list_words(sc_context *ctx, sc_list_words words);

/** kernel_bench's replay: every later query of ctx runs fn (a kernel with
 *  kernels/kernel.h's signature) as its narrowphase; NULL: back to normal. */
struct sc_kernel_args;
struct sc_hits;
typedef uint64_t (*sc_study_kernel_fn)(const struct sc_kernel_args *args, struct sc_hits *hits);
SC_API void sc_study_set_kernel(sc_context *ctx, sc_study_kernel_fn fn);

/** The grid plan the engine would make for these spheres with default
 *  options but these two (untimed, for the study's byte-floor model; the
 *  sparse widening included): key bits, plan levels, the OR over all keys
 *  of key ^ key[0], and the index bits b when the sort packs key << b |
 *  index into one word (0: (key, index) pairs). */
SC_API sc_status sc_study_grid_plan(const sc_spheres *spheres, double cell_factor, int levels,
                                    int *key_bits, int *plan_levels, uint64_t *varying,
                                    int *pack_bits);

#ifdef __cplusplus
}
#endif

#endif /* SPHERECOLLIDE_STUDY_H */
