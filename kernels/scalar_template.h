/*
 * scalar_template.h: the body of the plain C kernels, shared by the gathered
 * reference (narrow_scalar.c) and the indirect one (narrow_indirect.c), which
 * differ only in how they read sphere k. Before including, define
 *   SC_KNAME        the kernel's name
 *   SC_LOAD(a, f, k) coordinate f (x, y, z or r) of sorted sphere k
 * Emits the same pairs in the same order as every other kernel.
 */
#define SC_CAT_(a, b) a##b
#define SC_CAT(a, b) SC_CAT_(a, b)
#define SC_TEST_CANDIDATE SC_CAT(SC_KNAME, _candidate)

/* Tests candidate j against the home lanes in `lanes`. */
static uint64_t SC_TEST_CANDIDATE(const sc_kernel_args *a, uint32_t j, unsigned lanes,
                                  sc_hits *hits) {
    const double xj = SC_LOAD(a, x, j), yj = SC_LOAD(a, y, j), zj = SC_LOAD(a, z, j);
    const double rj = SC_LOAD(a, r, j);
    uint64_t tests = 0;
    sc_hits_reserve(hits, SC_BLOCK);
    for (uint32_t k = 0; k < a->ni; k++) {
        if (!(lanes >> k & 1u))
            continue;
        const uint32_t i = a->i0 + k;
        tests++;
        const double dx = SC_LOAD(a, x, i) - xj, dy = SC_LOAD(a, y, i) - yj;
        const double dz = SC_LOAD(a, z, i) - zj;
        const double d2 = (dx * dx + dy * dy) + dz * dz;
        const double s = SC_LOAD(a, r, i) + rj;
        if (d2 <= s * s) {
            hits->pairs[2 * hits->count] = i;
            hits->pairs[2 * hits->count + 1] = j;
            hits->count++;
        }
    }
    return tests;
}

uint64_t SC_KNAME(const sc_kernel_args *a, sc_hits *hits) {
    uint64_t tests = 0;
    const unsigned tri = sc_tri_lanes(a);
    for (uint32_t t = 1; t < SC_BLOCK; t++) {
        const unsigned lanes = tri >> (4 * (t - 1)) & 15u;
        if (lanes)
            tests += SC_TEST_CANDIDATE(a, a->i0 + t, lanes, hits);
    }
    const unsigned all = (1u << a->ni) - 1u;
    for (uint32_t k = 0; k < a->ncand; k++)
        tests += SC_TEST_CANDIDATE(a, a->cand[k], all, hits);
    return tests;
}

#undef SC_TEST_CANDIDATE
#undef SC_CAT
#undef SC_CAT_
