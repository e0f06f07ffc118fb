/*
 * engine.h: what the core (engine.c, the orchestrator) lends the query
 * front ends above it (src/queries): the query wrapper, sinks, search
 * passes, the count and stream query functions and the fill collector.
 * The core calls none of them (queries.h holds what they lend each other).
 * Not installed.
 */
#ifndef SC_ENGINE_H
#define SC_ENGINE_H

#include "context.h"
#include "output.h"

#include <math.h>

/* One query's view, peer and built structure, ready to search. */
typedef struct sc_prepared {
    sc_view view;
    const sc_peer *peer;
    sc_peer_built built;
    sc_kernel_fn kernel;
    bool order_only; /* sc_engine_build_order: built for work.index alone */
} sc_prepared;

typedef sc_status (*sc_query_fn)(sc_context *c, sc_prepared *p, void *arg);

/* Fills p's peer, built structure and (where rows are its spheres) view,
 * with p->kernel already resolved; times its stages into c->stats. */
typedef sc_status (*sc_build_fn)(sc_context *c, sc_prepared *p, void *arg);

/* Runs fn on the prepared spheres inside the query wrapper (threads,
 * pinning, statistics zeroed then timed, the caller's OpenMP state restored). */
SC_INTERNAL sc_status sc_engine_run(sc_context *c, const sc_spheres *spheres, sc_query_fn fn,
                                    void *arg);
/* The same wrapper around a front end's own build (between.c's probe):
 * n spheres searched (they set the thread count and the pinning); go
 * false fails with SC_ERR_INVALID_ARGUMENT inside the wrapper, as
 * sc_engine_run does for spheres NULL. c not NULL. */
SC_INTERNAL sc_status sc_engine_run_built(sc_context *c, size_t n, bool go, sc_build_fn build,
                                          void *build_arg, sc_query_fn fn, void *arg);
/* The sc_build_fn of spheres whose bounds a front end's own pass has
 * already gathered (periodic.c's rows): arg is an sc_known_bounds, whose
 * bounds equal sc_bounds_compute's on the spheres (which are valid). */
typedef struct sc_known_bounds {
    const sc_spheres *spheres;
    const sc_bounds *bounds;
} sc_known_bounds;
SC_INTERNAL sc_status sc_engine_build_known(sc_context *c, sc_prepared *p, void *arg);
/* The sc_build_fn of sc_cell_order: the view's build (arg: the
 * sc_spheres) for its order alone, p->built.work.index (the peer may skip
 * what only a search needs: sc_peer_env.order_only). */
SC_INTERNAL sc_status sc_engine_build_order(sc_context *c, sc_prepared *p, void *arg);
/* A call that fails before sc_engine_run: its statistics zeroed, as every
 * query's start, and the query counted; returns st. */
SC_INTERNAL sc_status sc_engine_failed(sc_context *c, sc_status st);

/* Sets a sink up in the context's scratch; the mode's fields must be set. */
SC_INTERNAL sc_status sc_engine_sink(sc_context *c, sc_sink *s, sc_sink_mode mode,
                                     const sc_prepared *p);
/* One search pass into the sink. */
SC_INTERNAL sc_status sc_engine_search(sc_context *c, sc_prepared *p, sc_sink *s);
/* The sink's pair count and checksum into the context's statistics. */
SC_INTERNAL void sc_engine_totals(sc_context *c, sc_sink *s);

/* The query functions behind sc_count_pairs (arg: sc_summary *, set) and
 * sc_stream_pairs (arg: sc_engine_stream_arg *), for sc_engine_run. */
typedef struct sc_engine_stream_arg {
    sc_pair_fn fn;
    void *user;
} sc_engine_stream_arg;
SC_INTERNAL sc_status sc_engine_count(sc_context *c, sc_prepared *p, void *arg);
SC_INTERNAL sc_status sc_engine_stream(sc_context *c, sc_prepared *p, void *arg);

/* sc_fill_pairs and sc_fill_between: the first `capacity` pairs of the
 * stream into `pairs`, counting on past them. sc_fill_begin checks the
 * arguments and zeroes *needed and *out; sc_fill_take is the stream's
 * sc_pair_fn (user: the sc_fill); sc_fill_end gives the call's status
 * from the stream's status st and summary s. */
typedef struct sc_fill {
    uint32_t *pairs;
    size_t capacity, written;
} sc_fill;
SC_INTERNAL sc_status sc_fill_begin(sc_fill *f, uint32_t *pairs, size_t capacity, size_t *needed,
                                    sc_summary *out);
SC_INTERNAL int sc_fill_take(const uint32_t *pairs, size_t count, void *user);
SC_INTERNAL sc_status sc_fill_end(const sc_fill *f, sc_status st, const sc_summary *s,
                                  size_t *needed, sc_summary *out);

/* Bits of an index below n (1..32): sorted words are row << bits | col. */
SC_INTERNAL int sc_engine_index_bits(size_t n);

#define SC_STAGE_TIME(c, s, t) sc_stage_add((c)->stats.seconds, s, t)

#endif /* SC_ENGINE_H */
