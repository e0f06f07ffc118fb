/*
 * study.c: the study-only switches (include/spherecollide_study.h). Built
 * only into spherecollide_study (SC_STUDY); the shipped library has none.
 */
#include "context.h"
#include "algo/grid/grid.h"
#include "spherecollide_study.h"

#include <stdlib.h>

sc_status sc_study_set_layout(sc_context *c, sc_layout layout) {
    if (!c || (layout != SC_LAYOUT_GATHERED && layout != SC_LAYOUT_INDIRECT))
        return SC_ERR_INVALID_ARGUMENT;
    c->study.indirect = layout == SC_LAYOUT_INDIRECT;
    return SC_OK;
}

sc_status sc_study_set_traversal(sc_context *c, sc_traversal t) {
    if (!c || (t != SC_TRAVERSAL_ROWS && t != SC_TRAVERSAL_MORTON))
        return SC_ERR_INVALID_ARGUMENT;
    c->study.morton = t == SC_TRAVERSAL_MORTON;
    return SC_OK;
}

sc_status sc_study_set_grid_sides(sc_context *c, sc_grid_sides s) {
    if (!c || (s != SC_SIDES_MODEL && s != SC_SIDES_UP && s != SC_SIDES_DOWN))
        return SC_ERR_INVALID_ARGUMENT;
    c->study.sides = (int)s;
    return SC_OK;
}

sc_status sc_study_set_list_words(sc_context *c, sc_list_words w) {
    if (!c || (w != SC_LIST_WORDS_AUTO && w != SC_LIST_WORDS_WIDE))
        return SC_ERR_INVALID_ARGUMENT;
    c->study.wide_lists = w == SC_LIST_WORDS_WIDE;
    return SC_OK;
}

void sc_study_set_kernel(sc_context *c, sc_study_kernel_fn fn) {
    if (c)
        c->study.kernel = (sc_kernel_fn)fn;
}

sc_status sc_study_grid_plan(const sc_spheres *s, double cell_factor, int levels, int *key_bits,
                             int *plan_levels, uint64_t *varying, int *pack_bits) {
    sc_view v;
    sc_status st = sc_view_make(s, &v);
    if (st != SC_OK)
        return st;
    sc_bounds *b = malloc(sizeof *b);
    uint64_t *keys = malloc((v.n ? v.n : 1) * sizeof *keys);
    uint32_t *hist = malloc(sc_radix_sort_scratch(1, false));
    st = b && keys && hist ? sc_bounds_compute(&v, b, omp_get_max_threads()) : SC_ERR_OUT_OF_MEMORY;
    if (st == SC_OK) {
        sc_options o = sc_options_default();
        o.grid.cell_factor = cell_factor;
        o.grid.levels = levels;
        sc_grid_plan plan;
        /* As the engine lends the sparse estimate a key buffer (8 n bytes)
         * before any key is written, so does the replay. */
        sc_grid_plan_choose(&v, b, &o.grid, keys, 8 * v.n, &plan);
        sc_radix_first first = {hist, 0, false, 0, false, false, false, 0};
        sc_keys_compute(&v, &plan, keys, 1, &first);
        uint64_t var = 0;
        for (size_t k = 0; k < v.n; k++)
            var |= keys[k] ^ keys[0];
        *key_bits = plan.key_bits;
        *plan_levels = plan.levels;
        *varying = var;
        *pack_bits = sc_pack_bits(v.n, plan.key_bits);
    }
    free(b);
    free(keys);
    free(hist);
    return st;
}
