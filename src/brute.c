/*
 * brute.c: the brute-force peer (SC_ALGO_BRUTE). All n(n-1)/2 tests, no
 * sort: every sphere is put in one cell in input order, so the common search
 * runs the kernel over the triangle i < j, split into chunks across threads.
 * It is the baseline of the study and the right tool when nearly every pair
 * intersects (the dense scenario).
 */
#include "internal.h"

#include <string.h>

void sc_brute_plan(const sc_view *v, sc_grid_plan *p, uint64_t *keys, uint32_t *index) {
    memset(p, 0, sizeof *p);
    p->levels = 1;
    p->cell[0] = 1e308;
    p->radius_limit[0] = 1e308;
    p->inv_cell0 = 0.0;
    for (int a = 0; a < 3; a++)
        p->bits[a] = 2; /* 4 cells per axis: the stencil stays well formed */
    p->shift[0] = 0;
    p->shift[1] = 2;
    p->shift[2] = 4;
    p->level_shift = 6;
    p->key_bits = 6;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < v->n; k++) {
        keys[k] = 0;
        index[k] = (uint32_t)k;
    }
}
