/*
 * status.c: names, defaults and the input view: the small pieces of the
 * public API that need no engine.
 */
#include "peer.h"

#include <math.h>
#include <string.h>

const char *sc_version(void) {
    return SC_VERSION_STRING;
}

const char *sc_status_string(sc_status s) {
    switch (s) {
    case SC_OK: return "ok";
    case SC_ERR_INVALID_ARGUMENT: return "invalid argument";
    case SC_ERR_NON_FINITE: return "non-finite value (NaN or infinity)";
    case SC_ERR_NEGATIVE_RADIUS: return "negative radius";
    case SC_ERR_OUT_OF_RANGE: return "value out of range (|value| > 1e150)";
    case SC_ERR_TOO_MANY_SPHERES: return "too many spheres for 32-bit indices";
    case SC_ERR_OUT_OF_MEMORY: return "out of memory";
    case SC_ERR_BUFFER_TOO_SMALL: return "pair buffer too small";
    case SC_ERR_STOPPED: return "stopped by the pair callback";
    case SC_ERR_UNSUPPORTED:
        return "not supported (this kernel on this CPU or build, or this call on this algorithm)";
    case SC_ERR_TOO_COSTLY: return "the algorithm predicts more work than its limit on this input";
    case SC_ERR_VERSION: return "a struct from a newer spherecollide.h than this library's";
    }
    return "unknown status";
}

const char *sc_stage_name(sc_stage s) {
    static const char *const names[SC_STAGE_COUNT] = {"bounds", "keys",   "sort", "gather",
                                                      "cells",  "search", "merge"};
    return (unsigned)s < SC_STAGE_COUNT ? names[s] : "?";
}

const char *sc_kernel_name(sc_kernel k) {
    switch (k) {
    case SC_KERNEL_AUTO: return "auto";
    case SC_KERNEL_SCALAR: return "scalar";
    case SC_KERNEL_AVX2: return "avx2";
    }
    return "?";
}

const char *sc_algorithm_name(sc_algorithm a) {
    const sc_peer *p = sc_peer_of(a);
    return p ? p->name : "?";
}

const char *sc_algorithm_stage(sc_algorithm a, sc_stage s) {
    const sc_peer *p = sc_peer_of(a);
    if (!p || (unsigned)s >= SC_STAGE_COUNT)
        return NULL;
    if (s == SC_STAGE_BOUNDS || s == SC_STAGE_SEARCH || s == SC_STAGE_MERGE)
        return sc_stage_name(s);
    return p->stages[s];
}

sc_status sc_algorithm_named(const char *name, sc_algorithm *out) {
    if (!name || !out)
        return SC_ERR_INVALID_ARGUMENT;
    for (int k = 0; k < sc_algorithm_count(); k++)
        if (strcmp(name, sc_peer_of((sc_algorithm)k)->name) == 0) {
            *out = (sc_algorithm)k;
            return SC_OK;
        }
    return SC_ERR_INVALID_ARGUMENT;
}

uint64_t sc_pair_mix(uint32_t i, uint32_t j) {
    uint64_t z = ((uint64_t)i << 32) | j;
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

sc_options sc_options_default(void) {
    sc_options o = {0};
    o.size = sizeof o;
    o.algorithm = SC_ALGO_GRID;
    o.threads = 0;
    o.pin = SC_PIN_COMPACT;
    o.kernel = SC_KERNEL_AUTO;
    for (int k = 0; k < sc_algorithm_count(); k++) /* each peer's own options */
        if (sc_peer_of((sc_algorithm)k)->defaults)
            sc_peer_of((sc_algorithm)k)->defaults(&o);
    o.chunk_pairs = 65536;
    o.sorted_window_bytes = (size_t)64 << 20;
    o.team = SC_TEAM_FOLLOW_LOAD;
    return o;
}

sc_status sc_options_take(const sc_options *in, sc_options *out) {
    *out = sc_options_default();
    if (!in)
        return SC_OK;
    /* Only the caller's own bytes are read: an older caller's struct ends
     * at its size, and the fields after it keep their defaults. */
    size_t size;
    memcpy(&size, in, sizeof size);
    if (size > sizeof(sc_options))
        return SC_ERR_VERSION;
    if (size < SC_OPTIONS_SIZE_0_1)
        return SC_ERR_INVALID_ARGUMENT;
    memcpy(out, in, size);
    out->size = sizeof *out;
    return SC_OK;
}

static sc_spheres make_view(size_t n, sc_dtype t, size_t stride, const void *x, const void *y,
                            const void *z, const void *r) {
    sc_spheres s = {n, t, stride, x, y, z, r, 0};
    return s;
}

sc_spheres sc_spheres_soa_f64(size_t n, const double *x, const double *y, const double *z,
                              const double *r) {
    return make_view(n, SC_F64, sizeof(double), x, y, z, r);
}
sc_spheres sc_spheres_soa_f32(size_t n, const float *x, const float *y, const float *z,
                              const float *r) {
    return make_view(n, SC_F32, sizeof(float), x, y, z, r);
}
sc_spheres sc_spheres_rows_f64(size_t n, int dims, const double *rows) {
    if (dims == 2)
        return make_view(n, SC_F64, 3 * sizeof(double), rows, rows ? rows + 1 : NULL, NULL,
                         rows ? rows + 2 : NULL);
    return make_view(n, SC_F64, 4 * sizeof(double), rows, rows ? rows + 1 : NULL,
                     rows ? rows + 2 : NULL, rows ? rows + 3 : NULL);
}
sc_spheres sc_spheres_rows_f32(size_t n, int dims, const float *rows) {
    if (dims == 2)
        return make_view(n, SC_F32, 3 * sizeof(float), rows, rows ? rows + 1 : NULL, NULL,
                         rows ? rows + 2 : NULL);
    return make_view(n, SC_F32, 4 * sizeof(float), rows, rows ? rows + 1 : NULL,
                     rows ? rows + 2 : NULL, rows ? rows + 3 : NULL);
}

sc_status sc_view_make(const sc_spheres *s, sc_view *v) {
    if (!s || (s->dtype != SC_F32 && s->dtype != SC_F64))
        return SC_ERR_INVALID_ARGUMENT;
    if (s->count > SC_MAX_SPHERES)
        return SC_ERR_TOO_MANY_SPHERES;
    if (s->count > 0 && (!s->x || !s->y || !s->r))
        return SC_ERR_INVALID_ARGUMENT;
    v->n = s->count;
    v->f64 = s->dtype == SC_F64;
    v->stride = s->stride ? s->stride : (v->f64 ? sizeof(double) : sizeof(float));
    v->rstride = s->r_stride ? s->r_stride : v->stride;
    v->x = s->x;
    v->y = s->y;
    v->z = s->z;
    v->r = s->r;
    return SC_OK;
}

sc_status sc_spheres_check(const sc_spheres *s, size_t *bad_index, int threads) {
    sc_view v;
    sc_status st = sc_view_make(s, &v);
    if (st != SC_OK)
        return st;
    sc_bounds b;
    st = sc_bounds_compute(&v, &b, threads);
    if (st != SC_OK && bad_index)
        *bad_index = b.bad_index;
    return st;
}

/* No context: the calling thread's OpenMP default, one thread per
 * SC_SPHERES_PER_THREAD spheres at most, as a query's. */
sc_status sc_spheres_validate(const sc_spheres *s, size_t *bad_index) {
    const size_t most = (s ? s->count : 0) / SC_SPHERES_PER_THREAD + 1;
#ifdef _OPENMP
    const int dflt = omp_get_max_threads();
#else
    const int dflt = 1;
#endif
    return sc_spheres_check(s, bad_index, most < (size_t)dflt ? (int)most : dflt);
}
