/*
 * sc_gen.c: the scenario generators (see sc_gen.h for the table of
 * distributions and the determinism rules).
 *
 * Takes a name, n and a seed; writes n rows x, y, z, r. Cost O(n), one pass,
 * single-threaded (so the stream of random numbers, and hence the output, is
 * the same on every machine). Region sizes are derived from the expected
 * pair count of a Poisson process: two spheres with radii a and b at random
 * positions of density rho meet with rate rho * (4/3) pi E[(a + b)^3], so
 * pairs per sphere = rho * (2/3) pi E[(a + b)^3]
 *                  = rho * (2/3) pi (2 E[r^3] + 6 E[r^2] E[r]).
 */
#include "sc_gen.h"

/* The bytes must not depend on the compiler fusing a*b+c into an FMA, even
 * where this file is built without the project's -ffp-contract=off. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
#include <string.h>

#define GEN_PI 3.14159265358979323846
#define GEN_FOUR_THIRDS_PI (4.0 / 3.0 * GEN_PI)

/* ---- random numbers: splitmix64 seeds xoshiro256** ---------------------- */

typedef struct gen_rng {
    uint64_t s[4];
} gen_rng;

static uint64_t gen_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void gen_rng_seed(gen_rng *rng, uint64_t seed, uint64_t stream) {
    uint64_t sm = seed ^ (stream * 0xD1B54A32D192ED03ull);
    for (int i = 0; i < 4; i++)
        rng->s[i] = gen_splitmix64(&sm);
}

static uint64_t gen_rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

static uint64_t gen_next(gen_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = gen_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = gen_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1), 53 random bits: exact, no rounding. */
static double gen_u01(gen_rng *rng) {
    return (double)(gen_next(rng) >> 11) * 0x1.0p-53;
}

/* Near-Gaussian N(0, 1): Irwin-Hall sum of 4 uniforms (mean 2, variance
 * 1/3), scaled; bounded by +-2 sqrt(3). Plain arithmetic, unlike Box-Muller
 * (log, cos) whose last bits differ between C libraries. */
static double gen_gauss(gen_rng *rng) {
    double s = gen_u01(rng) + gen_u01(rng) + gen_u01(rng) + gen_u01(rng);
    return (s - 2.0) * 1.7320508075688772; /* sqrt(3) */
}

/* Cube root of x >= 0 without libm: doubling to an upper bound, then Newton,
 * which decreases monotonically from above; stop when it stops decreasing.
 * Every step is correctly rounded arithmetic, so the result is reproducible. */
static double gen_cbrt(double x) {
    if (!(x > 0.0))
        return 0.0;
    double y = 1.0;
    while (y * y * y < x)
        y *= 2.0;
    for (int it = 0; it < 200; it++) {
        double next = (2.0 * y + x / (y * y)) / 3.0;
        if (!(next < y))
            break;
        y = next;
    }
    return y;
}

/* ---- radius models --------------------------------------------------------- */

/* Moments of U[a, b]: E[r^k] = (b^(k+1) - a^(k+1)) / ((k + 1)(b - a)). */
static double gen_pairs_factor_uniform(double a, double b, double *e3) {
    double w = b - a;
    double m1 = (b * b - a * a) / (2.0 * w);
    double m2 = (b * b * b - a * a * a) / (3.0 * w);
    double m3 = (b * b * b * b - a * a * a * a) / (4.0 * w);
    if (e3)
        *e3 = m3;
    return 2.0 * m3 + 6.0 * m2 * m1; /* E[(a + b)^3] */
}

static double gen_radius_small(gen_rng *rng) {
    return 1.0 + 0.5 * gen_u01(rng); /* U[1, 1.5] */
}

/* wide: log-uniform on [2.5, 80] (80 / 2.5 = 2^5), approximated by 40 linear
 * pieces between the nodes 80 * 2^(-j/8), j = 0..40, each drawn with
 * probability 1/40 (so within 0.4% of the exact log-uniform quantiles). */
#define WIDE_PIECES 40
static void gen_wide_table(double t[WIDE_PIECES + 1]) {
    double c = 1.0 / sqrt(sqrt(sqrt(2.0))); /* 2^(-1/8) */
    t[0] = 80.0;
    for (int j = 1; j < WIDE_PIECES; j++)
        t[j] = t[j - 1] * c;
    t[WIDE_PIECES] = 2.5;
}

/* ---- generators -------------------------------------------------------------- */

/* Centres uniform in [-L/2, L/2)^3 plus an offset; radii U[1, 1.5]. */
static void gen_fill_cube_small(gen_rng *rng, double *row, double edge, double off) {
    row[0] = off + edge * (gen_u01(rng) - 0.5);
    row[1] = off + edge * (gen_u01(rng) - 0.5);
    row[2] = off + edge * (gen_u01(rng) - 0.5);
    row[3] = gen_radius_small(rng);
}

/* Cube edge holding `count` spheres of mean cube radius e3 at fraction phi. */
static double gen_cube_edge(double count, double e3, double phi) {
    return gen_cbrt(count * GEN_FOUR_THIRDS_PI * e3 / phi);
}

static void gen_uniform(size_t n, gen_rng *rng, double *rows) {
    double e3;
    gen_pairs_factor_uniform(1.0, 1.5, &e3);
    double edge = gen_cube_edge((double)n, e3, 0.25);
    for (size_t k = 0; k < n; k++)
        gen_fill_cube_small(rng, rows + 4 * k, edge, 0.0);
}

/* Centres on a sphere's surface, uniform by Marsaglia's method (two uniforms
 * in the unit disk; sqrt only). Surface density chosen for 1 pair per sphere:
 * in the plane, pairs per sphere = sigma * (pi / 2) E[(a + b)^2]. */
static void gen_shell(size_t n, gen_rng *rng, double *rows) {
    double m1 = 1.25, m2 = (1.5 * 1.5 * 1.5 - 1.0) / 1.5;
    double e_sum2 = 2.0 * m2 + 2.0 * m1 * m1;
    double sigma = 2.0 / (GEN_PI * e_sum2);
    double radius = sqrt((double)n / (4.0 * GEN_PI * sigma));
    for (size_t k = 0; k < n; k++) {
        double a, b, s;
        do {
            a = 2.0 * gen_u01(rng) - 1.0;
            b = 2.0 * gen_u01(rng) - 1.0;
            s = a * a + b * b;
        } while (s >= 1.0);
        double q = 2.0 * sqrt(1.0 - s);
        double *row = rows + 4 * k;
        row[0] = radius * (a * q);
        row[1] = radius * (b * q);
        row[2] = radius * (1.0 - 2.0 * s);
        row[3] = gen_radius_small(rng);
    }
}

static void gen_wide(size_t n, gen_rng *rng, double *rows) {
    double t[WIDE_PIECES + 1];
    gen_wide_table(t);
    double e3 = 0.0; /* E[r^3] of the piecewise-uniform mixture */
    for (int j = 0; j < WIDE_PIECES; j++) {
        double e3j;
        gen_pairs_factor_uniform(t[j + 1], t[j], &e3j);
        e3 += e3j / WIDE_PIECES;
    }
    double edge = gen_cube_edge((double)n, e3, 0.35);
    for (size_t k = 0; k < n; k++) {
        double *row = rows + 4 * k;
        row[0] = edge * (gen_u01(rng) - 0.5);
        row[1] = edge * (gen_u01(rng) - 0.5);
        row[2] = edge * (gen_u01(rng) - 0.5);
        double u = gen_u01(rng) * WIDE_PIECES;
        int j = (int)u;
        if (j >= WIDE_PIECES)
            j = WIDE_PIECES - 1;
        double f = u - (double)j;
        row[3] = t[j] + f * (t[j + 1] - t[j]);
    }
}

/* Pareto, alpha = 2 (density 2 r^-3 on [1, inf)), truncated at 1000:
 * inverse CDF r = 1 / sqrt(1 - u (1 - 1e-6)), sqrt only. Sphere 0 is set to
 * r = 1000 so that the full 1000:1 ratio exists at every n >= 1. Density for
 * one pair per sphere in an unbounded volume: E[r] ~ 2, E[r^2] = 2 ln 1000,
 * E[r^3] ~ 2 * 999, so E[(a + b)^3] ~ 4161.6 and rho = 2 / ((4/3) pi 4161.6).
 * Finite boxes lose part of the big spheres' pairs, so K/n is below 1. */
static void gen_powerlaw(size_t n, gen_rng *rng, double *rows) {
    const double rmax = 1000.0;
    const double tail = 1.0 / (rmax * rmax);
    double rho = 2.0 / (GEN_FOUR_THIRDS_PI * 4161.6);
    double edge = gen_cbrt((double)n / rho);
    for (size_t k = 0; k < n; k++) {
        double *row = rows + 4 * k;
        row[0] = edge * (gen_u01(rng) - 0.5);
        row[1] = edge * (gen_u01(rng) - 0.5);
        row[2] = edge * (gen_u01(rng) - 0.5);
        double r = 1.0 / sqrt(1.0 - gen_u01(rng) * (1.0 - tail));
        row[3] = k == 0 ? rmax : (r > rmax ? rmax : r);
    }
}

/* 27 near-Gaussian blobs; blob b has width S * 10^((b mod 9) / 4), so widths
 * span 100x and each appears three times. Sphere k belongs to blob k mod 27
 * (equal members). For m spheres in an isotropic Gaussian of width sigma,
 * pairs ~ m^2 E[(4/3) pi s^3] / (2 (4 pi)^(3/2) sigma^3); summed over blobs
 * with K = n this gives S^3 = n * (4/3) pi E[s^3] / (2 (4 pi)^1.5)
 *                              * sum_b (1/27)^2 / f_b^3, S = 0.155 n^(1/3).
 * The tightest blobs hold about 80% of the pairs (~7 per sphere there);
 * the widest are nearly pair-free. */
#define CLUSTER_BLOBS 27
#define CLUSTER_WIDTHS 9
static void gen_clustered(size_t n, gen_rng *rng, double *rows) {
    double f[CLUSTER_WIDTHS]; /* 10^(k/4) by repeated multiplication */
    double step = sqrt(sqrt(10.0));
    f[0] = 1.0;
    for (int k = 1; k < CLUSTER_WIDTHS; k++)
        f[k] = f[k - 1] * step;
    double sum = 0.0;
    for (int b = 0; b < CLUSTER_BLOBS; b++) {
        double fb = f[b % CLUSTER_WIDTHS];
        sum += 1.0 / ((double)CLUSTER_BLOBS * CLUSTER_BLOBS * fb * fb * fb);
    }
    double e_s3 = gen_pairs_factor_uniform(1.0, 1.5, NULL);
    double four_pi = 4.0 * GEN_PI;
    double s3 = (double)n * GEN_FOUR_THIRDS_PI * e_s3 * sum / (2.0 * four_pi * sqrt(four_pi));
    double scale = gen_cbrt(s3);
    if (scale < 1.0)
        scale = 1.0;
    double centre[CLUSTER_BLOBS][3], width[CLUSTER_BLOBS];
    double region = 800.0 * scale;
    for (int b = 0; b < CLUSTER_BLOBS; b++) {
        for (int d = 0; d < 3; d++)
            centre[b][d] = region * (gen_u01(rng) - 0.5);
        width[b] = scale * f[b % CLUSTER_WIDTHS];
    }
    for (size_t k = 0; k < n; k++) {
        int b = (int)(k % CLUSTER_BLOBS);
        double *row = rows + 4 * k;
        for (int d = 0; d < 3; d++)
            row[d] = centre[b][d] + width[b] * gen_gauss(rng);
        row[3] = gen_radius_small(rng);
    }
}

/* Two uniform phi = 0.25 cubes of n/2 spheres (even indices in the first,
 * odd in the second), centres 1e7 apart along the diagonal: a bounding box
 * of ~5.8e6^3, i.e. ~10^19 cells of size 3, that only sparse keys survive. */
static void gen_farclusters(size_t n, gen_rng *rng, double *rows) {
    double e3;
    gen_pairs_factor_uniform(1.0, 1.5, &e3);
    size_t half = (n + 1) / 2;
    double edge = gen_cube_edge((double)half, e3, 0.25);
    double off = 1e7 / sqrt(3.0);
    for (size_t k = 0; k < n; k++)
        gen_fill_cube_small(rng, rows + 4 * k, edge, (k & 1) ? off : 0.0);
}

/* The seed's own regime (../shared/data/spheres.dat: volume fraction about
 * 1e-4): radii U[1, 1.5], centres uniform in a cube at volume fraction 1e-4,
 * so almost every grid cell and row holds one sphere or none. */
static void gen_sparse(size_t n, gen_rng *rng, double *rows) {
    double e3;
    gen_pairs_factor_uniform(1.0, 1.5, &e3);
    double edge = gen_cube_edge((double)n, e3, 1e-4);
    for (size_t k = 0; k < n; k++)
        gen_fill_cube_small(rng, rows + 4 * k, edge, 0.0);
}

/* Heavy-tailed radii at low density (issue 16's regime): Pareto with tail
 * exponent 2.5 (density 2.5 r^-3.5 on [1, inf)), truncated at 1000 by the
 * inverse CDF r = (1 - u (1 - 1000^-2.5))^-0.4, sphere 0 set to r = 1000 so
 * the full 1000:1 ratio exists at every n; centres uniform in a cube at
 * volume fraction 0.2, with E[r^3] = 5 (sqrt(1000) - 1) / (1 - 1000^-2.5).
 * Most spheres are small and touch nothing; the few large ones touch
 * hundreds to thousands. (pow: glibc's, as for the fingerprints.) */
static void gen_heavytail(size_t n, gen_rng *rng, double *rows) {
    const double rmax = 1000.0;
    const double tail = pow(rmax, -2.5);
    const double e3 = 5.0 * (sqrt(rmax) - 1.0) / (1.0 - tail);
    const double edge = gen_cube_edge((double)n, e3, 0.2);
    for (size_t k = 0; k < n; k++) {
        double *row = rows + 4 * k;
        row[0] = edge * (gen_u01(rng) - 0.5);
        row[1] = edge * (gen_u01(rng) - 0.5);
        row[2] = edge * (gen_u01(rng) - 0.5);
        const double r = pow(1.0 - gen_u01(rng) * (1.0 - tail), -0.4);
        row[3] = k == 0 ? rmax : (r > rmax ? rmax : r);
    }
}

/* Seed 002's circles: z = 0, radius of sphere i 2.5 + 77.5 * 0.92^i (the
 * power by repeated products, the same bits everywhere: most radii 2.5, the
 * first hundred up to 80), centres uniform in a 7:3 rectangle (the seed's
 * 1400 x 600 and 3738 x 1602 boxes) whose area holds the circles at area
 * density 0.35. */
static void gen_seed002(size_t n, gen_rng *rng, double *rows) {
    double area = 0.0, p = 1.0;
    for (size_t k = 0; k < n; k++) {
        const double r = 2.5 + 77.5 * p;
        rows[4 * k + 3] = r;
        area += GEN_PI * r * r;
        p *= 0.92;
    }
    const double box = area / 0.35, w = sqrt(box * 7.0 / 3.0), h = sqrt(box * 3.0 / 7.0);
    for (size_t k = 0; k < n; k++) {
        rows[4 * k] = w * gen_u01(rng);
        rows[4 * k + 1] = h * gen_u01(rng);
        rows[4 * k + 2] = 0.0;
    }
}

/* Centres uniform in the ball of radius 0.5 (rejection from the cube), radii
 * >= 1: every distance is <= 1 < 2 <= ri + rj with a margin no rounding can
 * cross, so K = n(n-1)/2 exactly. */
static void gen_dense(size_t n, gen_rng *rng, double *rows) {
    for (size_t k = 0; k < n; k++) {
        double x, y, z;
        do {
            x = gen_u01(rng) - 0.5;
            y = gen_u01(rng) - 0.5;
            z = gen_u01(rng) - 0.5;
        } while (x * x + y * y + z * z > 0.25);
        double *row = rows + 4 * k;
        row[0] = x;
        row[1] = y;
        row[2] = z;
        row[3] = gen_radius_small(rng);
    }
}

/* ---- table --------------------------------------------------------------------- */

typedef struct gen_entry {
    const char *name;
    void (*fill)(size_t n, gen_rng *rng, double *rows);
    double rmin, rmax;
    const char *about;
} gen_entry;

static const gen_entry gen_table[] = {
    {"uniform", gen_uniform, 1.0, 1.5,
     "radii U[1,1.5], centres uniform in a cube, volume fraction 0.25 (~1 pair/sphere)"},
    {"shell", gen_shell, 1.0, 1.5,
     "radii U[1,1.5], centres on the surface of a sphere of radius sqrt(0.79 n) (~1 pair/sphere)"},
    {"wide", gen_wide, 2.5, 80.0,
     "log-uniform radii 80 -> 2.5, cube, volume fraction 0.35 (~0.8 pair/sphere)"},
    {"powerlaw", gen_powerlaw, 1.0, 1000.0,
     "Pareto(2) radii in [1,1000], sphere 0 has r=1000; cube sized for O(n) pairs"},
    {"clustered", gen_clustered, 1.0, 1.5,
     "radii U[1,1.5], 27 Gaussian-like blobs whose widths span 100x (~1 pair/sphere)"},
    {"farclusters", gen_farclusters, 1.0, 1.5,
     "radii U[1,1.5], two volume fraction 0.25 cubes 1e7 apart (~1 pair/sphere)"},
    {"dense", gen_dense, 1.0, 1.5,
     "radii U[1,1.5], centres in a ball of radius 0.5: all n(n-1)/2 pairs intersect"},
    {"sparse", gen_sparse, 1.0, 1.5,
     "radii U[1,1.5], centres uniform in a cube at volume fraction 1e-4 (the seed's data file)"},
    {"seed002", gen_seed002, 2.5, 80.0,
     "circles: z = 0, r_i = 2.5 + 77.5 * 0.92^i, a 7:3 rectangle at area density 0.35"},
    /* after seed002: a generator's stream is its place in this table */
    {"heavytail", gen_heavytail, 1.0, 1000.0,
     "Pareto(2.5) radii in [1,1000], sphere 0 has r=1000; cube at volume fraction 0.2 (most touch "
     "nothing)"},
};
#define GEN_COUNT (sizeof gen_table / sizeof gen_table[0])

static const char *const gen_names[GEN_COUNT + 1] = {
    "uniform", "shell",  "wide",    "powerlaw",  "clustered", "farclusters",
    "dense",   "sparse", "seed002", "heavytail", NULL};

static const gen_entry *gen_find(const char *dist, size_t *index) {
    if (!dist)
        return NULL;
    for (size_t i = 0; i < GEN_COUNT; i++)
        if (strcmp(dist, gen_table[i].name) == 0) {
            if (index)
                *index = i;
            return &gen_table[i];
        }
    return NULL;
}

int sc_gen_generate(const char *dist, size_t n, uint64_t seed, double *rows) {
    size_t index = 0;
    const gen_entry *e = gen_find(dist, &index);
    if (!e || (!rows && n > 0))
        return -1;
    gen_rng rng;
    gen_rng_seed(&rng, seed, (uint64_t)index + 1);
    e->fill(n, &rng, rows);
    return 0;
}

const char *const *sc_gen_names(void) {
    return gen_names;
}

const char *sc_gen_describe(const char *dist) {
    const gen_entry *e = gen_find(dist, NULL);
    return e ? e->about : NULL;
}

int sc_gen_radius_bounds(const char *dist, double *rmin, double *rmax) {
    const gen_entry *e = gen_find(dist, NULL);
    if (!e)
        return -1;
    if (rmin)
        *rmin = e->rmin;
    if (rmax)
        *rmax = e->rmax;
    return 0;
}
