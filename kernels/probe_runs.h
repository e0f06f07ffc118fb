/*
 * probe_runs.h: the tests of a two-set query's direct search
 * (src/queries/probe.c): runs of one candidate against consecutive spheres of the
 * smaller set S. probe_runs_scalar.c is the reference;
 * probe_runs_avx2.c (SIMDe AVX2) tests four S spheres at a time and
 * emits the same pairs in the same order. Both evaluate the kernels'
 * predicate (kernel.h): dx = xc - xs, ..., d2 = (dx*dx + dy*dy) + dz*dz
 * <= (rc + rs) * (rc + rs), separate multiplies and adds.
 */
#ifndef SC_PROBE_RUNS_H
#define SC_PROBE_RUNS_H

#include "kernel.h"

/* Candidate k (a working position) against S spheres [j, e), j < e. */
typedef struct sc_probe_run {
    uint32_t k, j, e;
} sc_probe_run;

typedef struct sc_probe_data {
    const double *x, *y, *z, *r; /* S at [0, ns), readable 4 past ns (z = 0 in 2-D) */
    const double *rows;          /* candidate k's (x, y, z, r) at rows + 4 (k - ns) */
    uint32_t ns;
} sc_probe_data;

/* The runs in order, each S sphere in order: the pairs (k, j) that meet
 * into hits. Returns the tests (the runs' e - j summed). */
uint64_t sc_probe_runs_scalar(const sc_probe_data *d, const sc_probe_run *runs, size_t n,
                              sc_hits *hits) __attribute__((visibility("hidden")));
uint64_t sc_probe_runs_avx2(const sc_probe_data *d, const sc_probe_run *runs, size_t n,
                            sc_hits *hits) __attribute__((visibility("hidden")));

#endif /* SC_PROBE_RUNS_H */
