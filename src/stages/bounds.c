/*
 * bounds.c: the bounds stage. Takes the caller's view; validates every value (finite,
 * |v| <= SC_MAX_ABS_VALUE, r >= 0) and produces the centre bounds and the
 * radius range. One parallel streaming pass: O(n) reads, no writes.
 * On bad data the first offending sphere (lowest index) is reported, the
 * same for every thread count.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <simde/x86/sse2.h>

typedef struct partial {
    double lo[3], hi[3], rmin, rmax;
    size_t bad;
    sc_status st;
} partial;

/* Octave of r from its exponent bits (no libm call in the hot loop);
 * subnormals share the lowest octave bin, zero and non-finite go to bin 0. */
static int exp_bin(double r) {
    uint64_t bits;
    memcpy(&bits, &r, sizeof bits);
    const int biased = (int)((bits >> 52) & 0x7ff);
    if (!(r > 0.0) || biased == 0x7ff)
        return 0;
    int e = (biased ? biased - 1023 : -1023) - SC_EXP_MIN;
    return e < 1 ? 1 : e >= SC_EXP_BINS ? SC_EXP_BINS - 1 : e;
}

/* Radii counted by raw index (sc_raw_exp) in `tables` tables into their
 * octaves: 0 (zero) to bin 0, 2047 (subnormal) to the subnormals' bin,
 * a positive normal exponent to its octave's. */
static void fold_raw(uint64_t *rexp, const uint32_t (*raw)[SC_RAW_EXPS], int tables) {
    for (int e = 0; e < SC_RAW_EXPS; e++) {
        uint64_t m = 0;
        for (int u = 0; u < tables; u++)
            m += raw[u][e];
        if (m)
            rexp[e == 0      ? 0
                 : e == 2047 ? exp_bin(DBL_MIN / 2)
                             : exp_bin(ldexp(1.0, e - 1023))] += m;
    }
}

static sc_status check_value(double v) {
    if (!isfinite(v))
        return SC_ERR_NON_FINITE;
    if (fabs(v) > SC_MAX_ABS_VALUE)
        return SC_ERR_OUT_OF_RANGE;
    return SC_OK;
}

static sc_status check_sphere(const double p[3], double r) {
    for (int a = 0; a < 3; a++) {
        sc_status st = check_value(p[a]);
        if (st != SC_OK)
            return st;
    }
    sc_status st = check_value(r);
    if (st != SC_OK)
        return st;
    return r < 0 ? SC_ERR_NEGATIVE_RADIUS : SC_OK;
}

/* The plain loop over spheres [lo, hi): any layout, every check. */
static void bounds_block(const sc_view *v, size_t lo, size_t hi, partial *my, uint64_t *rexp) {
    for (size_t k = lo; k < hi; k++) {
        double p[3] = {sc_view_get(v, v->x, k), sc_view_get(v, v->y, k),
                       v->z ? sc_view_get(v, v->z, k) : 0.0};
        double r = sc_view_r(v, k);
        /* fmin/fmax would hide NaN; the check below catches it. */
        for (int a = 0; a < 3; a++) {
            my->lo[a] = p[a] < my->lo[a] ? p[a] : my->lo[a];
            my->hi[a] = p[a] > my->hi[a] ? p[a] : my->hi[a];
        }
        my->rmin = r < my->rmin ? r : my->rmin;
        my->rmax = r > my->rmax ? r : my->rmax;
        rexp[exp_bin(r)]++;
        if (k < my->bad) {
            sc_status st = check_sphere(p, r);
            if (st != SC_OK) {
                my->bad = k;
                my->st = st;
            }
        }
    }
}

/* The end of both fast paths: folds the four exponent tables, and, unless
 * the block needs the plain loop (a bad value, a negative radius, a zero or
 * subnormal radius: exponent 0), merges the block's bounds into *my and its
 * radii into the octave histogram. False leaves *my and rexp untouched. */
static bool block_finish(bool bad, const double lo3[3], const double hi3[3], double rmin,
                         double rmax, uint32_t (*raw)[2048], partial *my, uint64_t *rexp) {
    for (int u = 1; u < 4; u++)
        for (int e = 0; e < 2048; e++)
            raw[0][e] += raw[u][e];
    if (bad || rmin < 0.0 || raw[0][0] != 0)
        return false;
    for (int a = 0; a < 3; a++) {
        my->lo[a] = lo3[a] < my->lo[a] ? lo3[a] : my->lo[a];
        my->hi[a] = hi3[a] > my->hi[a] ? hi3[a] : my->hi[a];
    }
    my->rmin = rmin < my->rmin ? rmin : my->rmin;
    my->rmax = rmax > my->rmax ? rmax : my->rmax;
    /* Positive normal radii only here (exponent 1 .. 2046): exponent 0
     * returned above, and 2047 (infinite or NaN) is a bad value. */
    fold_raw(rexp, (const uint32_t(*)[SC_RAW_EXPS])raw, 1);
    return true;
}

/* Rows of (x, y, z, r) doubles, the common input: two 16-byte loads per
 * sphere, vector min/max, and one flag for "some value is NaN, infinite or
 * beyond SC_MAX_ABS_VALUE" (|v| > max is unordered-true for NaN). Radii are
 * counted by their exponent bits and folded into octaves afterwards, in four
 * interleaved tables: most radii share a few exponents, and one table would
 * chain every increment to the previous one through memory. Negative radii
 * show in the minimum. Returns false, with *my and rexp untouched, when the
 * block needs the plain loop: a bad value, a negative radius, or a zero or
 * subnormal radius (those share exponent 0 but not an octave). The rows
 * are read 2 KB ahead with software prefetches: this is the input's first,
 * cold read, and the hardware prefetcher alone loses the stream at every
 * 4 KB page (docs/decisions/0003-stage-tuning.md). */
static bool bounds_rows_f64(const double *rows, size_t sd, size_t lo, size_t hi, partial *my,
                            uint64_t *rexp, uint32_t (*raw)[2048]) {
    memset(raw, 0, 4 * sizeof *raw);
    const simde__m128d absmask = simde_mm_castsi128_pd(simde_mm_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const simde__m128d maxv = simde_mm_set1_pd(SC_MAX_ABS_VALUE);
    simde__m128d mn_xy = simde_mm_set1_pd(HUGE_VAL), mx_xy = simde_mm_set1_pd(-HUGE_VAL);
    /* good: every lane's values within the limit so far (x <= max, false
     * for NaN). Not written as a bad flag of "not <=": SIMDe 0.7.4's
     * cmpnle_ps (and its portable cmpnle_pd) is "greater", which NaN
     * fails, so a NaN would pass. */
    simde__m128d mn_zr = mn_xy, mx_zr = mx_xy,
                 good = simde_mm_castsi128_pd(simde_mm_set1_epi32(-1));
    for (size_t k = lo; k < hi; k++) {
        const double *s = rows + k * sd;
        if (k + 64 < hi)
            __builtin_prefetch(s + 64 * sd);
        const simde__m128d a = simde_mm_loadu_pd(s), b = simde_mm_loadu_pd(s + 2);
        mn_xy = simde_mm_min_pd(mn_xy, a);
        mx_xy = simde_mm_max_pd(mx_xy, a);
        mn_zr = simde_mm_min_pd(mn_zr, b);
        mx_zr = simde_mm_max_pd(mx_zr, b);
        good = simde_mm_and_pd(good, simde_mm_cmple_pd(simde_mm_and_pd(a, absmask), maxv));
        good = simde_mm_and_pd(good, simde_mm_cmple_pd(simde_mm_and_pd(b, absmask), maxv));
        uint64_t bits;
        memcpy(&bits, s + 3, sizeof bits);
        raw[k & 3][(bits >> 52) & 0x7ff]++;
    }
    double lo2[2], hi2[2], lo_zr[2], hi_zr[2];
    simde_mm_storeu_pd(lo2, mn_xy);
    simde_mm_storeu_pd(hi2, mx_xy);
    simde_mm_storeu_pd(lo_zr, mn_zr);
    simde_mm_storeu_pd(hi_zr, mx_zr);
    const double lo3[3] = {lo2[0], lo2[1], lo_zr[0]}, hi3[3] = {hi2[0], hi2[1], hi_zr[0]};
    return block_finish(simde_mm_movemask_pd(good) != 0x3, lo3, hi3, lo_zr[1], hi_zr[1], raw, my,
                        rexp);
}

/* Columns of doubles (SoA, stride 8; z may be absent): the same checks and
 * results as bounds_rows_f64, each column streamed on its own, two spheres
 * per vector. */
static void col_minmax(const double *c, size_t lo, size_t hi, double *mn, double *mx,
                       simde__m128d *good) {
    const simde__m128d absmask = simde_mm_castsi128_pd(simde_mm_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const simde__m128d maxv = simde_mm_set1_pd(SC_MAX_ABS_VALUE);
    simde__m128d vmn = simde_mm_set1_pd(HUGE_VAL), vmx = simde_mm_set1_pd(-HUGE_VAL), g = *good;
    size_t k = lo;
    for (; k + 2 <= hi; k += 2) {
        const simde__m128d a = simde_mm_loadu_pd(c + k);
        vmn = simde_mm_min_pd(vmn, a);
        vmx = simde_mm_max_pd(vmx, a);
        g = simde_mm_and_pd(g, simde_mm_cmple_pd(simde_mm_and_pd(a, absmask), maxv));
    }
    if (k < hi) { /* the odd last value, twice */
        const simde__m128d a = simde_mm_set1_pd(c[k]);
        vmn = simde_mm_min_pd(vmn, a);
        vmx = simde_mm_max_pd(vmx, a);
        g = simde_mm_and_pd(g, simde_mm_cmple_pd(simde_mm_and_pd(a, absmask), maxv));
    }
    double m2[2], x2[2];
    simde_mm_storeu_pd(m2, vmn);
    simde_mm_storeu_pd(x2, vmx);
    *mn = m2[0] < m2[1] ? m2[0] : m2[1];
    *mx = x2[0] > x2[1] ? x2[0] : x2[1];
    *good = g;
}

static bool bounds_cols_f64(const sc_view *v, size_t lo, size_t hi, partial *my, uint64_t *rexp,
                            uint32_t (*raw)[2048]) {
    if (lo >= hi)
        return true;
    simde__m128d good = simde_mm_castsi128_pd(simde_mm_set1_epi32(-1)); /* as bounds_rows_f64 */
    const double *col[3] = {(const double *)(const void *)v->x, (const double *)(const void *)v->y,
                            v->z ? (const double *)(const void *)v->z : NULL};
    double lo3[3] = {0, 0, 0}, hi3[3] = {0, 0, 0}, rmin, rmax;
    for (int a = 0; a < 3; a++)
        if (col[a])
            col_minmax(col[a], lo, hi, &lo3[a], &hi3[a], &good);
    const double *r = (const double *)(const void *)v->r;
    col_minmax(r, lo, hi, &rmin, &rmax, &good);
    memset(raw, 0, 4 * sizeof *raw);
    for (size_t k = lo; k < hi; k++) {
        uint64_t bits;
        memcpy(&bits, r + k, sizeof bits);
        raw[k & 3][(bits >> 52) & 0x7ff]++;
    }
    return block_finish(simde_mm_movemask_pd(good) != 0x3, lo3, hi3, rmin, rmax, raw, my, rexp);
}

/* Rows of float (x, y, z, r), NumPy's float32 (N, 4) arrays: one 16-byte
 * load per sphere, min and max in float (widening is exact and keeps the
 * order), the radius counted by the double exponent it widens to; a bad
 * value is one past FLT_MAX in magnitude (infinite, or NaN: unordered). A
 * zero or subnormal float radius (exponent 0) sends the block to the plain
 * loop, as for bounds_centres. */
static bool bounds_rows_f32(const float *rows, size_t sf, size_t lo, size_t hi, partial *my,
                            uint64_t *rexp, uint32_t (*raw)[2048]) {
    memset(raw, 0, 4 * sizeof *raw);
    const simde__m128 absmask = simde_mm_castsi128_ps(simde_mm_set1_epi32(0x7FFFFFFF));
    const simde__m128 maxv = simde_mm_set1_ps(FLT_MAX);
    simde__m128 mn = simde_mm_set1_ps(HUGE_VALF), mx = simde_mm_set1_ps(-HUGE_VALF),
                good = simde_mm_castsi128_ps(simde_mm_set1_epi32(-1)); /* as bounds_rows_f64 */
    for (size_t k = lo; k < hi; k++) {
        const float *s = rows + k * sf;
        if (k + 128 < hi)
            __builtin_prefetch(s + 128 * sf);
        const simde__m128 a = simde_mm_loadu_ps(s);
        mn = simde_mm_min_ps(a, mn); /* a < mn ? a : mn, the plain loop's choice on ties */
        mx = simde_mm_max_ps(a, mx);
        good = simde_mm_and_ps(good, simde_mm_cmple_ps(simde_mm_and_ps(a, absmask), maxv));
        uint32_t bits;
        memcpy(&bits, s + 3, sizeof bits);
        const unsigned ef = (bits >> 23) & 0xff;
        raw[k & 3][ef ? ef + (1023 - 127) : 0]++;
    }
    float lo4[4], hi4[4];
    simde_mm_storeu_ps(lo4, mn);
    simde_mm_storeu_ps(hi4, mx);
    const double lo3[3] = {lo4[0], lo4[1], lo4[2]}, hi3[3] = {hi4[0], hi4[1], hi4[2]};
    return block_finish(simde_mm_movemask_ps(good) != 0xF, lo3, hi3, lo4[3], hi4[3], raw, my, rexp);
}

/* Centres at one stride with x, y (and z) next to each other, radii at
 * their own: the caller's float or double rows of (x, y, z, r) other than
 * the double rows above, and centres beside separate radii (NumPy's
 * (N, 3) and (N,) arrays). The plain loop's expressions, in its order,
 * without its type test and branches per value; one flag for a bad value
 * (|v| <= max is false for NaN). A float radius is counted by the double
 * exponent it widens to; a zero or subnormal float (exponent 0, which
 * widens to another octave or none) sends the block to the plain loop.
 * f64 is a constant where it is inlined. */
static inline bool bounds_centres(const sc_view *v, size_t lo, size_t hi, partial *my,
                                  uint64_t *rexp, uint32_t (*raw)[2048], bool f64) {
    memset(raw, 0, 4 * sizeof *raw);
    const size_t es = f64 ? sizeof(double) : sizeof(float), st = v->stride, rst = v->rstride;
    const bool d3 = v->z != NULL;
    const char *px = v->x, *pr = v->r;
#define LOAD(p)                                                                                    \
    (f64 ? *(const double *)(const void *)(p) : (double)*(const float *)(const void *)(p))
    double lo3[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi3[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    double rmin = HUGE_VAL, rmax = -HUGE_VAL;
    bool bad = false;
    for (size_t k = lo; k < hi; k++) {
        const char *c = px + k * st, *rp = pr + k * rst;
        if (k + 64 < hi) { /* the input's first, cold read, as bounds_rows_f64 */
            __builtin_prefetch(c + 64 * st);
            __builtin_prefetch(rp + 64 * rst);
        }
        const double p[3] = {LOAD(c), LOAD(c + es), d3 ? LOAD(c + 2 * es) : 0.0}, r = LOAD(rp);
        for (int a = 0; a < 3; a++) {
            lo3[a] = p[a] < lo3[a] ? p[a] : lo3[a];
            hi3[a] = p[a] > hi3[a] ? p[a] : hi3[a];
        }
        rmin = r < rmin ? r : rmin;
        rmax = r > rmax ? r : rmax;
        bad |= !((fabs(p[0]) <= SC_MAX_ABS_VALUE) & (fabs(p[1]) <= SC_MAX_ABS_VALUE) &
                 (fabs(p[2]) <= SC_MAX_ABS_VALUE) & (fabs(r) <= SC_MAX_ABS_VALUE));
        unsigned e;
        if (f64) {
            uint64_t bits;
            memcpy(&bits, rp, sizeof bits);
            e = (unsigned)(bits >> 52) & 0x7ff;
        } else {
            uint32_t bits;
            memcpy(&bits, rp, sizeof bits);
            const unsigned ef = (bits >> 23) & 0xff; /* 255: NaN or infinite, bad */
            e = ef ? ef + (1023 - 127) : 0;
        }
        raw[k & 3][e]++;
    }
#undef LOAD
    return block_finish(bad, lo3, hi3, rmin, rmax, raw, my, rexp);
}

void sc_bounds_begin(sc_bounds *b) {
    for (int a = 0; a < 3; a++) {
        b->lo[a] = HUGE_VAL;
        b->hi[a] = -HUGE_VAL;
    }
    b->rmin = HUGE_VAL;
    b->rmax = -HUGE_VAL;
    b->n = 0;
    b->bad_index = SIZE_MAX;
    memset(b->rexp, 0, sizeof b->rexp);
}

void sc_bounds_add(sc_bounds *b, const double lo[3], const double hi[3], double rmin, double rmax,
                   const uint32_t (*raw)[SC_RAW_EXPS], int tables) {
    for (int a = 0; a < 3; a++) {
        b->lo[a] = lo[a] < b->lo[a] ? lo[a] : b->lo[a];
        b->hi[a] = hi[a] > b->hi[a] ? hi[a] : b->hi[a];
    }
    b->rmin = rmin < b->rmin ? rmin : b->rmin;
    b->rmax = rmax > b->rmax ? rmax : b->rmax;
    fold_raw(b->rexp, raw, tables);
}

void sc_bounds_end(sc_bounds *b, size_t n) {
    b->n = n;
    if (n)
        return;
    for (int a = 0; a < 3; a++)
        b->lo[a] = b->hi[a] = 0.0;
    b->rmin = b->rmax = 0.0;
}

sc_status sc_bounds_compute(const sc_view *v, sc_bounds *b, int threads) {
    const size_t n = v->n;
    /* Each thread starts from `empty`, never from `all`, which other threads
     * of the team update under the critical section meanwhile. */
    const partial empty = {{HUGE_VAL, HUGE_VAL, HUGE_VAL},
                           {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL},
                           HUGE_VAL,
                           -HUGE_VAL,
                           SIZE_MAX,
                           SC_OK};
    partial all = empty;
    memset(b->rexp, 0, sizeof b->rexp);
    const bool rows = v->f64 && v->z && v->y == v->x + sizeof(double) &&
                      v->z == v->x + 2 * sizeof(double) && v->r == v->x + 3 * sizeof(double) &&
                      v->stride % sizeof(double) == 0 && v->rstride == v->stride;
    const bool cols = v->f64 && v->stride == sizeof(double) && v->rstride == sizeof(double);
    const size_t es = v->f64 ? sizeof(double) : sizeof(float);
    const bool rows32 = !v->f64 && v->z && v->y == v->x + es && v->z == v->x + 2 * es &&
                        v->r == v->x + 3 * es && v->stride % es == 0 && v->rstride == v->stride;
    (void)rows32;
    const bool centres = v->y == v->x + es && (!v->z || v->z == v->x + 2 * es) &&
                         v->stride % es == 0 && v->rstride % es == 0;
    (void)rows;
    (void)cols;
    (void)centres;
#pragma omp parallel num_threads(threads > 0 ? threads : 1)
    {
        partial my = empty;
        uint64_t rexp[SC_EXP_BINS];
        memset(rexp, 0, sizeof rexp);
        const int t = sc_thread_id(), nt = sc_num_threads();
        const size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
        uint32_t raw[4][2048];
        const bool fast = rows   ? bounds_rows_f64((const double *)(const void *)v->x,
                                                   v->stride / sizeof(double), lo, hi, &my, rexp, raw)
                          : cols ? bounds_cols_f64(v, lo, hi, &my, rexp, raw)
                          : rows32
                              ? bounds_rows_f32((const float *)(const void *)v->x,
                                                v->stride / sizeof(float), lo, hi, &my, rexp, raw)
                          : !centres ? false
                          : v->f64   ? bounds_centres(v, lo, hi, &my, rexp, raw, true)
                                     : bounds_centres(v, lo, hi, &my, rexp, raw, false);
        if (!fast)
            bounds_block(v, lo, hi, &my, rexp);
#pragma omp critical(sc_bounds_merge)
        {
            for (int a = 0; a < 3; a++) {
                all.lo[a] = my.lo[a] < all.lo[a] ? my.lo[a] : all.lo[a];
                all.hi[a] = my.hi[a] > all.hi[a] ? my.hi[a] : all.hi[a];
            }
            all.rmin = my.rmin < all.rmin ? my.rmin : all.rmin;
            all.rmax = my.rmax > all.rmax ? my.rmax : all.rmax;
            if (my.bad < all.bad) {
                all.bad = my.bad;
                all.st = my.st;
            }
            for (int e = 0; e < SC_EXP_BINS; e++)
                b->rexp[e] += rexp[e];
        }
    }
    for (int a = 0; a < 3; a++) {
        b->lo[a] = n ? all.lo[a] : 0.0;
        b->hi[a] = n ? all.hi[a] : 0.0;
    }
    b->rmin = n ? all.rmin : 0.0;
    b->rmax = n ? all.rmax : 0.0;
    b->bad_index = all.bad;
    b->n = n;
    return all.st;
}
