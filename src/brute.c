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
    /* 4 cells per axis keeps the stencil well formed; all keys are 0, so
     * the own row's forward window holds every j > i. */
    p->bits[0] = 2 + SC_XFINE;
    p->bits[1] = p->bits[2] = 2;
    p->shift[0] = 0;
    p->shift[1] = p->bits[0];
    p->shift[2] = p->bits[0] + 2;
    p->level_shift = p->shift[2] + 2;
    p->key_bits = p->level_shift;
    p->morton = false;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < v->n; k++) {
        keys[k] = 0;
        index[k] = (uint32_t)k;
    }
}
