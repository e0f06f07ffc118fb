/*
 * order.c: sc_cell_order, the grid's working order handed to the caller.
 * A caller that keeps its spheres in it gives later queries input whose
 * gather reads in sequence instead of at random (docs/study.md, 3(a)), and
 * whose sort the keys stage finds already done (grid.c). The order is the
 * grid build's own index, so it can never drift from what the engine does.
 */
#include "engine.h"

#include <string.h>

static sc_status copy_order(sc_context *c, sc_prepared *p, void *arg) {
    (void)c;
    const sc_work *w = &p->built.work;
    if (w->n)
        memcpy(arg, w->index, sizeof(uint32_t) * w->n);
    return SC_OK;
}

sc_status sc_cell_order(sc_context *c, const sc_spheres *spheres, uint32_t *order) {
    if (!c)
        return SC_ERR_INVALID_ARGUMENT;
    /* Another peer's state (sap's kept order, bvh's kept tree) shares the
     * context's peer scratch: a grid build would overwrite it. */
    if (!(sc_peer_of(c->opt.algorithm)->caps & SC_PEER_CELL_ORDER))
        return sc_engine_failed(c, SC_ERR_UNSUPPORTED);
    if (spheres && spheres->count && !order)
        return sc_engine_failed(c, SC_ERR_INVALID_ARGUMENT);
    /* The grid stops after its sort: the rows and the working copy are
     * for a search. */
    return sc_engine_run_built(c, spheres ? spheres->count : 0, spheres != NULL,
                               sc_engine_build_order, (void *)spheres, copy_order, order);
}
