/*
 * pairs.c: the one-set pair queries (count, stream, fill), a front end on
 * the core: a query with a periodic box goes through periodic.c, any
 * other straight to the orchestrator (engine.c).
 */
#include "queries.h"

sc_status sc_engine_query(sc_context *c, const sc_spheres *spheres, sc_query_fn fn, void *arg) {
    if (c && sc_box_periodic(&c->opt.box))
        return sc_periodic_run(c, spheres, fn, arg);
    return sc_engine_run(c, spheres, fn, arg);
}

sc_status sc_count_pairs(sc_context *c, const sc_spheres *spheres, sc_summary *out) {
    if (!out)
        return SC_ERR_INVALID_ARGUMENT;
    out->pairs = out->checksum = 0;
    return sc_engine_query(c, spheres, sc_engine_count, out);
}

sc_status sc_stream_pairs(sc_context *c, const sc_spheres *spheres, sc_pair_fn fn, void *user,
                          sc_summary *out) {
    if (out)
        out->pairs = out->checksum = 0;
    if (!fn)
        return SC_ERR_INVALID_ARGUMENT;
    sc_engine_stream_arg a = {fn, user};
    sc_status st = sc_engine_query(c, spheres, sc_engine_stream, &a);
    if (out && c) {
        out->pairs = c->stats.pairs;
        out->checksum = c->stats.checksum;
    }
    return st;
}

sc_status sc_fill_pairs(sc_context *c, const sc_spheres *spheres, uint32_t *pairs, size_t capacity,
                        size_t *needed, sc_summary *out) {
    sc_fill f;
    sc_status st = sc_fill_begin(&f, pairs, capacity, needed, out);
    if (st != SC_OK)
        return st;
    sc_summary s = {0, 0};
    st = sc_stream_pairs(c, spheres, sc_fill_take, &f, &s);
    return sc_fill_end(&f, st, &s, needed, out);
}
