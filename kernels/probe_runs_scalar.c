/*
 * probe_runs_scalar.c: the reference of a two-set query's direct search's
 * tests (probe_runs.h): each run's S spheres in turn, in the kernels'
 * arithmetic; each pair written and kept when it meets (no branch to
 * mispredict). probe_runs_avx2.c gives the same pairs in the same order.
 */
#include "probe_runs.h"

uint64_t sc_probe_runs_scalar(const sc_probe_data *d, const sc_probe_run *runs, size_t n,
                              sc_hits *hits) {
    uint64_t tests = 0;
    for (size_t u = 0; u < n; u++) {
        const uint32_t k = runs[u].k, e = runs[u].e;
        const double *q = d->rows + 4 * (size_t)(k - d->ns);
        tests += e - runs[u].j;
        for (uint32_t j = runs[u].j; j < e;) {
            const uint32_t stop = e - j < 64 ? e : j + 64;
            sc_hits_reserve(hits, stop - j);
            uint32_t *out = hits->pairs;
            size_t at = hits->count;
            for (; j < stop; j++) {
                const double dx = q[0] - d->x[j], dy = q[1] - d->y[j], dz = q[2] - d->z[j];
                const double d2 = (dx * dx + dy * dy) + dz * dz;
                const double sum = q[3] + d->r[j];
                out[2 * at] = k;
                out[2 * at + 1] = j;
                at += d2 <= sum * sum;
            }
            hits->count = at;
        }
    }
    return tests;
}
