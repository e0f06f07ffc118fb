/*
 * kernels.h: the kernel table. Every SIMD routine a peer or a query front
 * end calls sits in one table per instruction set, chosen once from the
 * CPU and the caller's sc_kernel (src/platform/cpu.c, the one file outside kernels/
 * that names an instruction set). Peers and front ends call through the
 * table and never test for an ISA. Every table is complete: the scalar one
 * holds the references (each *_scalar.c beside its SIMD twin). Adding an
 * ISA: its files here and one more table in cpu.c.
 */
#ifndef SC_KERNELS_H
#define SC_KERNELS_H

#include "spherecollide.h" /* sc_kernel */

#include "boxfilter.h"
#include "bvh4.h"
#include "filter.h"
#include "kernel.h"
#include "probe_runs.h"
#include "wrap.h"

typedef uint64_t (*sc_probe_runs_fn)(const sc_probe_data *d, const sc_probe_run *runs, size_t n,
                                     sc_hits *hits);
typedef size_t (*sc_wrap_fn)(const sc_wrap_box *b, const sc_src4 *s, size_t k0, size_t k1,
                             size_t pos0, double *rows, uint32_t *band, sc_wrap_found *f);
typedef size_t (*sc_filter_fn)(const sc_filter_grid *g, const sc_src4 *s, size_t k0, size_t k1,
                               uint32_t *idx, size_t *kept);

typedef struct sc_kernels {
    sc_kernel id;                           /* SC_KERNEL_SCALAR, SC_KERNEL_AVX2 */
    sc_kernel_fn narrow;                    /* the exact predicate over a block */
    sc_boxfilter_fn boxfilter, boxfilter16; /* float boxes, 32- and 16-bit lows */
    sc_bvh4_walk_fn bvh4_walk;              /* a query box down a 4-wide BVH */
    sc_probe_runs_fn probe_runs;            /* two sets' probe runs */
    sc_wrap_fn wrap;                        /* periodic images, 3-D groups of four */
    sc_filter_fn filter;                    /* two sets' cell filter, 3-D groups of four */
} sc_kernels;

/* The table whose narrow kernel is `narrow` (sc_kernel_resolve's): the
 * scalar one for any other (the study's indirect kernel). */
const sc_kernels *sc_kernels_of(sc_kernel_fn narrow) __attribute__((visibility("hidden")));
/* The instruction sets built beyond scalar, each after a blank (" avx2"). */
const char *sc_kernels_built(void) __attribute__((visibility("hidden")));

#endif /* SC_KERNELS_H */
