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
 * dense. Figures below: volume fraction phi = sum of sphere volumes / volume
 * of the region (overlaps counted twice), and pairs per sphere K/n measured
 * with seed 1 (see docs/performance.md for the table at every n).
 *
 *   name         radii          layout                                  K/n at 1e4 / 1e5 / 1e6
 *   uniform      U[1, 1.5]      centres uniform in a cube, phi = 0.25    0.95 / 0.97 / 0.98
 *   shell        U[1, 1.5]      centres on a sphere of radius
 *                               sqrt(0.7865 n), 0.101 centres per unit
 *                               area                                     0.99 / 1.00 / 1.00
 *   wide         [2.5, 80]      log-uniform radii (80 -> 2.5 as in seed
 *                               002), cube, phi = 0.35                   0.72 / 0.77 / 0.79
 *   powerlaw     [1, 1000]      Pareto alpha = 2 truncated at 1000, plus
 *                               sphere 0 with r = 1000; cube with
 *                               1.147e-4 centres per unit volume
 *                               (phi ~ 0.96, almost all in the few big
 *                               spheres)                                 see performance.md
 *   clustered    U[1, 1.5]      27 Irwin-Hall (near Gaussian) blobs,
 *                               widths sigma_k = S 10^(k/4), k = 0..8,
 *                               three blobs per width (100x span),
 *                               S = 0.1554 n^(1/3); blob centres uniform
 *                               in a cube of edge 800 S                  see performance.md
 *   farclusters  U[1, 1.5]      two uniform phi = 0.25 cubes, even and
 *                               odd indices, 1e7 apart along (1,1,1)     0.95 / 0.97 / 0.98
 *   dense        U[1, 1.5]      centres uniform in a ball of radius 0.5:
 *                               every pair intersects, K = n(n-1)/2
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
int scgen_generate(const char *dist, size_t n, uint64_t seed, double *rows);

/** The distribution names, NULL-terminated, in a fixed order. */
const char *const *scgen_names(void);

/** One line describing the distribution (for --help), or NULL if unknown. */
const char *scgen_describe(const char *dist);

/** The closed interval every radius of the distribution lies in.
 *  Returns 0, or -1 for an unknown name. */
int scgen_radius_bounds(const char *dist, double *rmin, double *rmax);

#ifdef __cplusplus
}
#endif

#endif /* SC_GEN_H */
