/*
 * sc_gen.h: deterministic scenario generators shared by the CLI
 * (`spherecollide gen`), the tests and the benchmark, so that the data a test
 * checks is the data a benchmark times.
 *
 * Determinism: each generator draws from its own xoshiro256** stream seeded
 * with splitmix64(seed, distribution) and uses only +, -, *, / and sqrt (all
 * correctly rounded in IEEE 754) plus integer arithmetic; cube roots are
 * computed by a fixed Newton iteration, Gaussians by an Irwin-Hall sum and
 * the log-uniform radii by a piecewise-linear table built with sqrt. No libm
 * function whose result may differ between C libraries is called, so a given
 * (dist, n, seed) gives the same bytes on every IEEE 754 platform. sc_gen.c
 * turns off contraction into FMA itself (a pragma), so only an explicit
 * -ffast-math or clang's -ffp-contract=fast could change the bytes; the test
 * pins fingerprints of every distribution.
 *
 * Every distribution makes n spheres; the pair count is O(n) except for
 * dense. phi = sum of sphere volumes / volume of the region (overlaps counted
 * twice). K/n = pairs per sphere, measured with seed 1 (exact counts, engine
 * and hash grid agreeing) at n = 1e4 / 1e5 / 1e6 / 1e7:
 *
 *   uniform      radii U[1, 1.5]; centres uniform in a cube centred on the
 *                origin, phi = 0.25.
 *                K/n = 0.924 / 0.962 / 0.971 / 0.978
 *   shell        radii U[1, 1.5]; centres uniform on a sphere of radius
 *                sqrt(0.7865 n) (0.1012 centres per unit area).
 *                K/n = 1.019 / 1.001 / 0.999 / 1.000
 *   wide         radii log-uniform on [2.5, 80] (80 -> 2.5 as in seed 002),
 *                cube, phi = 0.35 (measured 0.347 at 1e4, 0.350 at 1e7).
 *                K/n = 0.751 / 0.765 / 0.777 / 0.785
 *   powerlaw     radii Pareto alpha = 2 on [1, 1000] (truncated), and sphere 0
 *                has r = 1000 at every n; cube with 1.147e-4 centres per unit
 *                volume (phi = 1.11 at 1e7, almost all in the few big
 *                spheres: ~1000 with r >= 100 at 1e7). For n <= 1e6 the
 *                r = 1000 sphere alone meets a large share of the box.
 *                K/n = 1.143 / 1.500 / 1.143 / 0.968
 *   clustered    radii U[1, 1.5]; 27 near-Gaussian blobs (sphere k in blob
 *                k mod 27), widths S 10^(k/4), k = 0..8, three blobs each
 *                (100x span), S = 0.155 n^(1/3), blob centres uniform in a
 *                cube of edge 800 S. ~80% of the pairs are in the tightest
 *                blobs (~7 per sphere there); the widest are nearly pair-free.
 *                K/n = 0.864 / 0.932 / 0.937 / 0.943
 *   farclusters  radii U[1, 1.5]; two phi = 0.25 cubes (even indices in one,
 *                odd in the other) whose centres are 1e7 apart along (1,1,1).
 *                K/n = 0.927 / 0.965 / 0.971 (the bench stops at 1e6)
 *   dense        radii U[1, 1.5]; centres uniform in the ball of radius 0.5,
 *                so every pair intersects with margin: K = n(n-1)/2.
 *   sparse       radii U[1, 1.5]; centres uniform in a cube at volume
 *                fraction 1e-4, the regime of the seed's data file
 *                (../shared/data/spheres.dat: 33 pairs in 10^5).
 *                K/n = 0.0002 / 0.0003 / 0.0004 (10^4 .. 10^6)
 *   heavytail    Pareto radii with tail exponent 2.5 (density 2.5 r^-3.5)
 *                truncated to [1, 1000], sphere 0 of radius 1000; centres
 *                uniform in a cube at volume fraction 0.2: most spheres are
 *                small and touch nothing, a few large ones touch hundreds to
 *                thousands (issue 16's heavy-tailed regime).
 *                K/n = 1.08 / 1.09 / 0.95 (10^4 .. 10^6)
 *   seed002      seed 002's circles: z = 0, radius of sphere i
 *                2.5 + 77.5 * 0.92^i (most 2.5, the first hundred up to 80),
 *                centres uniform in a 7:3 rectangle at area density 0.35
 *                (the seed's 3738 x 1602 box at 10^5).
 *                K/n = 0.566 / 0.678 / 0.697 (10^4 .. 10^6; the seed reports
 *                41,000-83,000 collisions per frame at 10^5)
 *
 * Thread-safe (no global state).
 */
#ifndef SC_GEN_H
#define SC_GEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Fills rows[4k + 0..3] = x, y, z, r for k < n with the named distribution.
 *  Returns 0, or -1 (rows untouched) for an unknown name or a NULL name or
 *  rows (rows may be NULL when n == 0). */
int sc_gen_generate(const char *dist, size_t n, uint64_t seed, double *rows);

/** The distribution names, NULL-terminated, in a fixed order. */
const char *const *sc_gen_names(void);

/** One line describing the distribution (for --help), or NULL if unknown. */
const char *sc_gen_describe(const char *dist);

/** The closed interval every radius of the distribution lies in.
 *  Returns 0, or -1 for an unknown name. */
int sc_gen_radius_bounds(const char *dist, double *rmin, double *rmax);

#ifdef __cplusplus
}
#endif

#endif /* SC_GEN_H */
