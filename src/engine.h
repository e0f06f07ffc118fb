/*
 * engine.h: what engine.c (the orchestrator) lends the query front ends
 * beside it (neighbors.c): the query wrapper, sinks and search passes.
 * Not installed.
 */
#ifndef SC_ENGINE_H
#define SC_ENGINE_H

#include "context.h"
#include "output.h"

/* One query's view, peer and built structure, ready to search. */
typedef struct sc_prepared {
    sc_view view;
    const sc_peer *peer;
    sc_peer_built built;
    sc_kernel_fn kernel;
} sc_prepared;

typedef sc_status (*sc_query_fn)(sc_context *c, sc_prepared *p, void *arg);

/* Runs fn on the prepared spheres inside the query wrapper (threads,
 * pinning, statistics zeroed then timed, the caller's OpenMP state restored). */
SC_INTERNAL sc_status sc_engine_run(sc_context *c, const sc_spheres *spheres, sc_query_fn fn,
                                    void *arg);
/* Sets a sink up in the context's scratch; the mode's fields must be set. */
SC_INTERNAL sc_status sc_engine_sink(sc_context *c, sc_sink *s, sc_sink_mode mode,
                                     const sc_prepared *p);
/* One search pass into the sink. */
SC_INTERNAL sc_status sc_engine_search(sc_context *c, sc_prepared *p, sc_sink *s);
/* The sink's pair count and checksum into the context's statistics. */
SC_INTERNAL void sc_engine_totals(sc_context *c, sc_sink *s);

/* Bits of an index below n (1..32): sorted words are row << bits | col. */
SC_INTERNAL int sc_engine_index_bits(size_t n);

#define SC_STAGE_TIME(c, s, t) sc_stage_add((c)->stats.seconds, s, t)

#endif /* SC_ENGINE_H */
