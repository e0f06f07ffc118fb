/*
 * load.h: the processors other programs keep busy now, and the team a
 * query takes on a shared machine (load.c). Not installed.
 */
#ifndef SC_LOAD_H
#define SC_LOAD_H

#include "internal.h"

/* Team slots whose OS thread is remembered (the workers' own spinning is
 * not counted as other programs' load); a larger team's further workers
 * count as load while they spin. */
#define SC_LOAD_SLOTS 64

/* Seconds a sample stands for: a context's back-to-back small queries read
 * /proc once per this interval, and a change of load is seen within it. */
#define SC_LOAD_RECHECK 0.005

/* Readings of /proc per sample, and how long a sample counts towards the
 * next one (load.c: sc_load_busy). */
#define SC_LOAD_READINGS 3
#define SC_LOAD_RECENT 0.05

typedef struct sc_load {
    int tid[SC_LOAD_SLOTS]; /* OS thread id of team slot t (0: not seen) */
    int online;             /* processors online; 0 until first sampled */
    int allowed;            /* processors in the affinity mask at the sample */
    bool noted;             /* some slot > 0 is known */
    bool sampled;
    double at;              /* sc_now() of the sample */
    int others;             /* the sample's fewest other runnable tasks */
    int busy;               /* processors in the mask other tasks occupy */
} sc_load;

/* Records the calling team thread's OS id in its slot (from inside a
 * parallel region of the team; slot 0 is the caller and is not kept). */
SC_INTERNAL void sc_load_note(sc_load *l, int slot);
/* Processors of this process's mask that other runnable tasks occupy now
 * (0 when /proc cannot tell). */
SC_INTERNAL int sc_load_busy(sc_load *l);
/* The team for a default thread count of `cores` now: the cores the busy
 * processors leave free, at least 1. */
SC_INTERNAL int sc_load_team(sc_load *l, int cores);

#endif /* SC_LOAD_H */
