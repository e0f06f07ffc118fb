/*
 * narrow_indirect.c: the scalar narrowphase over the caller's own arrays,
 * read through the sort permutation instead of a gathered, cell-ordered
 * copy. Same predicate, same pairs, same order as narrow_scalar.c; it exists
 * so the study can measure what the gathered layout buys (every candidate is
 * then a random access into the input). Compiled without auto-vectorisation
 * like the scalar reference.
 */
#include "kernel.h"

static inline double load(const sc_kernel_args *a, const char *base, uint32_t k) {
    if (!base) /* 2-D: z = 0 */
        return 0.0;
    const char *p = base + (size_t)a->perm[k] * (base == a->vr ? a->rstride : a->stride);
    return a->f64 ? *(const double *)(const void *)p : (double)*(const float *)(const void *)p;
}

#define SC_KNAME sc_narrow_indirect
#define SC_LOAD(a, f, k) load(a, (a)->v##f, k)
#include "scalar_template.h"
