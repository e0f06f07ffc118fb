/*
 * narrow_indirect.c: the scalar narrowphase over the caller's own arrays,
 * read through the sort permutation instead of a gathered, cell-ordered
 * copy. Same predicate, same pairs, same order as narrow_scalar.c; it exists
 * so the study can measure what the gathered layout buys (every candidate is
 * then a random access into the input). Compiled without auto-vectorisation
 * like the scalar reference.
 */
#include "kernel.h"

static inline double get(const sc_kernel_args *a, const char *base, uint32_t k) {
    const char *p = base + (size_t)a->perm[k] * a->stride;
    return a->f64 ? *(const double *)(const void *)p : (double)*(const float *)(const void *)p;
}

static uint64_t test_candidate(const sc_kernel_args *a, uint32_t j, unsigned lanes, sc_hits *hits) {
    const double xj = get(a, a->vx, j), yj = get(a, a->vy, j);
    const double zj = a->vz ? get(a, a->vz, j) : 0.0, rj = get(a, a->vr, j);
    uint64_t tests = 0;
    sc_hits_reserve(hits, SC_BLOCK);
    for (uint32_t k = 0; k < a->ni; k++) {
        if (!(lanes >> k & 1u))
            continue;
        const uint32_t i = a->i0 + k;
        tests++;
        const double dx = get(a, a->vx, i) - xj, dy = get(a, a->vy, i) - yj;
        const double dz = (a->vz ? get(a, a->vz, i) : 0.0) - zj;
        const double d2 = (dx * dx + dy * dy) + dz * dz;
        const double s = get(a, a->vr, i) + rj;
        if (d2 <= s * s) {
            hits->pairs[2 * hits->count] = i;
            hits->pairs[2 * hits->count + 1] = j;
            hits->count++;
        }
    }
    return tests;
}

uint64_t sc_narrow_indirect(const sc_kernel_args *a, sc_hits *hits) {
    uint64_t tests = 0;
    for (uint32_t t = 1; t < SC_BLOCK; t++) {
        const unsigned lanes = sc_tri_lanes(a, t);
        if (lanes)
            tests += test_candidate(a, a->i0 + t, lanes, hits);
    }
    const unsigned all = (1u << a->ni) - 1u;
    for (uint32_t k = 0; k < a->ncand; k++)
        tests += test_candidate(a, a->cand[k], all, hits);
    return tests;
}
