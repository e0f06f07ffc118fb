/*
 * study_util.c: medians and the bench-side input orders (shuffled, Morton).
 * The permutations reorder the caller's spheres before the engine sees them;
 * indices in the engine's result then refer to the permuted order, and the
 * driver maps them back to check that every order finds the same pairs.
 */
#include "study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double study_median(const double *v, size_t n) {
    if (n == 0 || !v)
        return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    const double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

void study_perm_identity(uint32_t *perm, size_t n) {
    for (size_t k = 0; k < n; k++)
        perm[k] = (uint32_t)k;
}

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias (Lemire's multiply-shift with
 * rejection). */
static uint64_t below(uint64_t *state, uint64_t bound) {
    for (;;) {
        const uint64_t x = splitmix64(state);
        const unsigned __int128 m = (unsigned __int128)x * bound;
        const uint64_t low = (uint64_t)m;
        if (low >= bound || low >= (uint64_t)(-bound) % bound)
            return (uint64_t)(m >> 64);
    }
}

void study_perm_shuffle(uint32_t *perm, size_t n, uint64_t seed) {
    study_perm_identity(perm, n);
    uint64_t state = seed ^ 0x5eed5eed5eed5eedull;
    for (size_t k = n; k > 1; k--) {
        const size_t j = (size_t)below(&state, (uint64_t)k);
        const uint32_t t = perm[k - 1];
        perm[k - 1] = perm[j];
        perm[j] = t;
    }
}

/* Spreads the low 21 bits of v so that bit b lands at bit 3b. */
static uint64_t spread3(uint32_t v) {
    uint64_t x = v & 0x1fffffu;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

uint64_t study_morton3(uint32_t qx, uint32_t qy, uint32_t qz) {
    return spread3(qx) | spread3(qy) << 1 | spread3(qz) << 2;
}

typedef struct code_index {
    uint64_t code;
    uint32_t index;
} code_index;

static int cmp_code(const void *a, const void *b) {
    const code_index *x = a, *y = b;
    if (x->code != y->code)
        return x->code < y->code ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static uint32_t quantise(double v, double lo, double scale) {
    double t = (v - lo) * scale;
    if (!(t >= 0.0))
        t = 0.0;
    if (t > 2097151.0)
        t = 2097151.0;
    return (uint32_t)t;
}

int study_perm_morton(uint32_t *perm, const double *rows, size_t n) {
    if (n == 0)
        return 0;
    code_index *ci = malloc(n * sizeof *ci);
    if (!ci)
        return -1;
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++)
        lo[a] = hi[a] = rows[a];
    for (size_t k = 0; k < n; k++)
        for (int a = 0; a < 3; a++) {
            const double v = rows[4 * k + a];
            lo[a] = v < lo[a] ? v : lo[a];
            hi[a] = v > hi[a] ? v : hi[a];
        }
    /* One scale for all axes keeps the curve's cells cubes. */
    double ext = 0.0;
    for (int a = 0; a < 3; a++)
        ext = hi[a] - lo[a] > ext ? hi[a] - lo[a] : ext;
    const double scale = ext > 0.0 ? 2097151.0 / ext : 0.0;
    for (size_t k = 0; k < n; k++) {
        ci[k].code = study_morton3(quantise(rows[4 * k], lo[0], scale),
                                   quantise(rows[4 * k + 1], lo[1], scale),
                                   quantise(rows[4 * k + 2], lo[2], scale));
        ci[k].index = (uint32_t)k;
    }
    qsort(ci, n, sizeof *ci, cmp_code);
    for (size_t k = 0; k < n; k++)
        perm[k] = ci[k].index;
    free(ci);
    return 0;
}

void study_perm_apply_rows(double *out, const double *in, const uint32_t *perm, size_t n) {
    for (size_t k = 0; k < n; k++)
        memcpy(out + 4 * k, in + 4 * (size_t)perm[k], 4 * sizeof *out);
}
