/*
 * hashgrid.h: the baseline the benchmark compares against: a plain
 * single-threaded hash grid written the way users usually write one.
 */
#ifndef SC_BENCH_HASHGRID_H
#define SC_BENCH_HASHGRID_H

#include <stddef.h>
#include <stdint.h>

typedef struct hashgrid_result {
    uint64_t pairs;    /**< intersecting pairs (i < j) */
    uint64_t checksum; /**< sum of sc_pair_mix(i, j) mod 2^64 */
    uint64_t tests;    /**< sphere-pair predicate evaluations */
    uint64_t cells;    /**< non-empty cells */
    double estimated_tests; /**< tests predicted from the cell occupancy */
    double cell_size;
} hashgrid_result;

/** Counts the intersecting pairs of rows[4k..4k+3] = x, y, z, r (k < n) with a
 *  hash map of cell -> linked list of spheres, cell = 2 r_max, 27 neighbour
 *  cells, the exact double predicate of spherecollide.h, j > i only.
 *  If the occupancy says more than max_tests predicate evaluations
 *  (0: no limit), returns 1 without searching (out->estimated_tests says how
 *  many). Returns 0 on success, -1 if memory runs out or a cell index would
 *  not fit 62 bits. */
int hashgrid_count(const double *rows, size_t n, double max_tests, hashgrid_result *out);

#endif /* SC_BENCH_HASHGRID_H */
