/*
 * bvh4_avx2.c: the walk of bvh4.h with SIMDe AVX2: a node's four child
 * boxes against the query in six comparisons of four doubles. Same list as
 * the scalar reference (the comparisons are the same, ordered and exact).
 */
#include <simde/x86/avx2.h>

#include "bvh4.h"

#define SC_BVH4_WALK sc_bvh4_walk_avx2
#define SC_BVH4_QUERY(q)                                                                           \
    const simde__m256d qlx = simde_mm256_set1_pd(q[0]), qly = simde_mm256_set1_pd(q[1]),           \
                       qlz = simde_mm256_set1_pd(q[2]), qhx = simde_mm256_set1_pd(q[3]),           \
                       qhy = simde_mm256_set1_pd(q[4]), qhz = simde_mm256_set1_pd(q[5])

static inline int node_mask(const sc_bvh4_node *nd, simde__m256d qlx, simde__m256d qly,
                            simde__m256d qlz, simde__m256d qhx, simde__m256d qhy,
                            simde__m256d qhz) {
    const simde__m256d x = simde_mm256_and_pd(
        simde_mm256_cmp_pd(simde_mm256_loadu_pd(nd->lo[0]), qhx, SIMDE_CMP_LE_OQ),
        simde_mm256_cmp_pd(simde_mm256_loadu_pd(nd->hi[0]), qlx, SIMDE_CMP_GE_OQ));
    const simde__m256d y = simde_mm256_and_pd(
        simde_mm256_cmp_pd(simde_mm256_loadu_pd(nd->lo[1]), qhy, SIMDE_CMP_LE_OQ),
        simde_mm256_cmp_pd(simde_mm256_loadu_pd(nd->hi[1]), qly, SIMDE_CMP_GE_OQ));
    const simde__m256d z = simde_mm256_and_pd(
        simde_mm256_cmp_pd(simde_mm256_loadu_pd(nd->lo[2]), qhz, SIMDE_CMP_LE_OQ),
        simde_mm256_cmp_pd(simde_mm256_loadu_pd(nd->hi[2]), qlz, SIMDE_CMP_GE_OQ));
    return simde_mm256_movemask_pd(simde_mm256_and_pd(x, simde_mm256_and_pd(y, z)));
}

#define SC_BVH4_MASK(nd) node_mask(nd, qlx, qly, qlz, qhx, qhy, qhz)
#include "bvh4_walk.h"
