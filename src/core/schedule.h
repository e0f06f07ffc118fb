/*
 * schedule.h: the chunk scheduler every peer's search runs under. Not
 * installed.
 */
#ifndef SC_SCHEDULE_H
#define SC_SCHEDULE_H

#include "load.h"
#include "output.h"
#include "peer.h"

typedef struct sc_schedule_job {
    const sc_peer *peer;
    const sc_peer_built *built;
    sc_kernel_fn kernel;
    int threads;
    sc_sink *sink;
    sc_progress_fn progress; /* from the caller's thread only; may be NULL */
    void *progress_user;
    void *scratch;            /* sc_schedule_scratch(threads, peer) bytes, 64-byte aligned */
    sc_load *load;            /* where the team's threads are noted (load.c) */
    uint64_t candidate_tests; /* out */
} sc_schedule_job;

SC_INTERNAL size_t sc_schedule_scratch(int threads, const sc_peer *peer);
/* Runs every chunk of the built peer into the sink; SC_ERR_STOPPED when the
 * sink's callback asked to stop. */
SC_INTERNAL sc_status sc_schedule_run(sc_schedule_job *job);

#endif /* SC_SCHEDULE_H */
