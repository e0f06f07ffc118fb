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
/* Nanoseconds slept before a reading is taken again (load.c). */
#define SC_LOAD_PAUSE_NS 50000

/* A shared machine offers two teams: the free cores (no thread waits on a
 * busy core) and all of them (the team's fair share of the busy cores too,
 * paid for with barriers that wait out a parked thread's time slice). Which
 * is faster depends on how long the query's stages run, so each context
 * measures both (load.c: sc_load_team, sc_load_record). */
#define SC_LOAD_FULL_FIRST                                                                         \
    ((size_t)1 << 19) /* spheres from which the first
                                                query under load takes all cores */
/* Seconds a warm free-team query must take before the full team is tried
 * at that size. */
#define SC_LOAD_LONG 0.010
/* Warm free-core seconds at one size before the full team is tried there:
 * a try costs its widened first run (a worker started or woken behind the
 * busy program) and a few runs that may wait out time slices, so it is
 * paid for only once the free cores' time shows the context runs long
 * enough to gain it back (rent before buying). Doubled after each try the
 * full team lost, up to 2^SC_LOAD_RENT_DOUBLINGS times. */
#define SC_LOAD_RENT 0.5
#define SC_LOAD_RENT_DOUBLINGS 6
/* How much slower than the free cores' fastest run the full team's mean
 * may be and still be kept: its mean, because its barriers now and then
 * wait out a parked thread's time slice and the caller pays for those. */
#define SC_LOAD_FULL_MARGIN 1.0

#define SC_LOAD_SAMPLES 3 /* the last queries' seconds kept per team */

typedef struct sc_team_choice {
    size_t n;                     /* the sizes measured: [n/2, 2n]; 0: nothing measured */
    double t[2][SC_LOAD_SAMPLES]; /* seconds of the last queries, free and
                                     full team (0: none) */
    int count[2];                 /* samples taken per team (not capped) */
    int next;                     /* the next query's team: 0 free, 1 full */
    bool trying;                  /* the full team is being tried */
    int tried;                    /* its samples in this try */
    int losses;                   /* tries (or kept runs) the full team lost */
    double rent;                  /* warm free-core seconds since the last try */
} sc_team_choice;

typedef struct sc_load {
    int tid[SC_LOAD_SLOTS]; /* OS thread id of team slot t (0: not seen) */
    int online;             /* processors online; 0 until first sampled */
    int allowed;            /* processors in the affinity mask at the sample */
    bool sampled;
    double at;  /* sc_now() of the sample */
    int others; /* the sample's fewest other runnable tasks */
    int busy;   /* processors in the mask other tasks occupy */
    sc_team_choice choice;
    int widest;        /* the largest team sc_load_record has seen */
    unsigned readings; /* readings of /proc taken (for tests) */
} sc_load;

/* Records the calling team thread's OS id in its slot (from inside a
 * parallel region of the team; slot 0 is the caller and is not kept). */
SC_INTERNAL void sc_load_note(sc_load *l, int slot);
/* Processors of this process's mask that other runnable tasks occupy now
 * (0 when /proc cannot tell). */
SC_INTERNAL int sc_load_busy(sc_load *l);
/* The team for a query on n spheres with a default thread count of
 * `cores` now: all of them on a quiet machine; under load, the free cores
 * (at least 1) or all of them, whichever this context measured faster at
 * this size (the free ones until it has; all from SC_LOAD_FULL_FIRST
 * spheres). */
SC_INTERNAL int sc_load_team(sc_load *l, int cores, size_t n);
/* After a query on n spheres that sc_load_team gave `team` threads of
 * `cores`: its seconds, for the next choice. cold: the context's first
 * query (its scratch first touched), which only tells a long query. */
SC_INTERNAL void sc_load_record(sc_load *l, int cores, int team, size_t n, double seconds,
                                bool cold);

#endif /* SC_LOAD_H */
