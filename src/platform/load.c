/*
 * load.c: the team a default query takes when other programs share the
 * machine.
 *
 * A query's stages end in barriers. When another program keeps one of the
 * team's cores busy, the team thread that shares that core is parked by the
 * scheduler for a time slice at a time, and every barrier waits for it
 * while its partners spin; a worker that slept since the last query must
 * first be woken behind that program. The library cannot set the host's
 * OpenMP wait policy, so it chooses the team when the query starts
 * (docs/design.md, "Sharing the machine", says why this and not another
 * mechanism; docs/decisions/0001 what was tried):
 *
 *   busy: the kernel's count of runnable tasks (/proc/loadavg's fourth
 *   field, system-wide, the reader included) less the reader and less the
 *   team's own workers that are runnable (/proc/self/task/TID/stat) is the
 *   number of processors other work holds, taken as the fewest of a few
 *   readings and assumed to sit outside this process's affinity mask
 *   first; sampled at most once per SC_LOAD_RECHECK seconds per context.
 *   Where /proc cannot be read, nothing is busy.
 *
 *   team: every core on a quiet machine; under load the free cores for a
 *   short query, and for a long one all the cores unless this context
 *   measured them slower (sc_load_record).
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "load.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sched.h>
#include <sys/syscall.h>

/* Runnable tasks system-wide, the reader included; -1 when unknown. */
static int runnable_now(void) {
    char buf[128];
    const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    /* "0.42 0.30 0.21 R/T last": R is the digits before the one '/' */
    const char *slash = memchr(buf, '/', (size_t)got);
    if (!slash)
        return -1;
    const char *d = slash;
    while (d > buf && d[-1] >= '0' && d[-1] <= '9')
        d--;
    if (d == slash)
        return -1;
    int r = 0;
    for (; d < slash && r < 1000000; d++)
        r = 10 * r + (*d - '0');
    return r;
}

/* Whether thread tid of this process is running or runnable now. */
static bool own_thread_runnable(int tid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false; /* gone, or never ours */
    const ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return false;
    buf[got] = '\0';
    /* "tid (comm) S ...": the comm may hold ')' and blanks; the state
     * follows the last ')' */
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] == 'R';
}

/* The calling thread's OS id, found once per thread. */
static int sc_load_tid(void) {
    static _Thread_local int tid;
    if (!tid)
        tid = (int)syscall(SYS_gettid);
    return tid;
}

void sc_load_note(sc_load *l, int slot) {
    /* each slot is written by its own thread only; the caller reads them
     * after the region's join */
    if (slot > 0 && slot < SC_LOAD_SLOTS)
        l->tid[slot] = sc_load_tid();
}

/* This process's threads other than the caller that are runnable now:
 * every thread's, read from /proc/self/task, until the team's are known
 * (a host's earlier parallel regions start the pool before the library
 * sees it), then only the team's. */
static int own_runnable(const sc_load *l, int self) {
    int own = 0;
    if (l->tid[1]) { /* the team has run */
        for (int k = 1; k < SC_LOAD_SLOTS; k++)
            own += l->tid[k] && l->tid[k] != self && own_thread_runnable(l->tid[k]);
        return own;
    }
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const int tid = atoi(e->d_name);
        own += tid > 0 && tid != self && own_thread_runnable(tid);
    }
    closedir(d);
    return own;
}

/* Processors other tasks occupy at one reading: the runnable count less
 * this thread and its team's runnable workers (read first, so a worker
 * that falls asleep in between is not taken for another task). */
static int others_once(const sc_load *l, int self) {
    const int own = 1 + own_runnable(l, self);
    const int r = runnable_now();
    return r < 0 ? -1 : r - own;
}

int sc_load_busy(sc_load *l) {
    const double t = sc_now();
    if (l->sampled && t - l->at < SC_LOAD_RECHECK)
        return l->busy;
    if (!l->online) {
        const long on = sysconf(_SC_NPROCESSORS_ONLN);
        l->online = on > 0 ? (int)on : 1;
    }
    /* The fewest of a few readings, and of the last sample's when it is
     * recent: kernel threads and short-lived tasks flicker through the
     * runnable count on an idle machine, and while the team's workers spin
     * on every core, a kernel thread that woke waits behind them; a program
     * that competes for the cores is there at every reading. So a reading
     * that sees other tasks is taken again after this thread has slept
     * briefly, leaving its core to whatever waits. */
    int others = INT_MAX;
    const int self = sc_load_tid();
    /* a reading no higher than a recent sample's (itself the fewest of its
     * readings) is not flicker: the load holds, and is not read again */
    const int held = l->sampled && t - l->at < SC_LOAD_RECENT ? l->others : -1;
    for (int k = 0; k < SC_LOAD_READINGS && others > 0 && others > held; k++) {
        if (k > 0) {
            const struct timespec pause = {0, SC_LOAD_PAUSE_NS};
            nanosleep(&pause, NULL);
        }
        const int o = others_once(l, self);
        l->readings++;
        if (o < 0) {
            others = 0; /* no /proc/loadavg: nothing is known to be busy */
            break;
        }
        others = o < others ? o : others;
    }
    const int now = others;
    if (l->sampled && t - l->at < SC_LOAD_RECENT && l->others < others)
        others = l->others;
    cpu_set_t set;
    int allowed = l->online;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        allowed = CPU_COUNT(&set);
    const int outside = l->online > allowed ? l->online - allowed : 0;
    int busy = others - outside;
    busy = busy < 0 ? 0 : busy > allowed ? allowed : busy;
    l->allowed = allowed;
    l->others = now;
    l->sampled = true;
    l->at = t;
    l->busy = busy;
    return busy;
}

#else /* no /proc: nothing is known to be busy */

void sc_load_note(sc_load *l, int slot) {
    (void)l;
    (void)slot;
}

int sc_load_busy(sc_load *l) {
    l->busy = 0;
    return 0;
}
#endif

/* Cores the busy processors leave free, at least 1 (with SMT, a busy
 * processor takes its share of a core). */
static int free_cores(const sc_load *l, int cores) {
    const int allowed = l->allowed > 0 ? l->allowed : cores;
    const int f = (int)((long)cores * (allowed - l->busy) / allowed);
    return f < 1 ? 1 : f;
}

static bool same_size(const sc_team_choice *ch, size_t n) {
    return ch->n && n <= 2 * ch->n && ch->n <= 2 * n;
}

int sc_load_team(sc_load *l, int cores, size_t n) {
    const int busy = sc_load_busy(l);
    const int free = busy > 0 ? free_cores(l, cores) : cores;
    if (free >= cores)
        return cores;
    const sc_team_choice *ch = &l->choice;
    const int full = same_size(ch, n) ? ch->next : n >= SC_LOAD_FULL_FIRST;
    return full ? cores : free;
}

/* The fewest seconds of team k's kept samples: what it does when no
 * barrier waited out a slice (0: none). */
static double fastest(const sc_team_choice *ch, int k) {
    double m = 0.0;
    for (int s = 0; s < SC_LOAD_SAMPLES; s++)
        if (ch->t[k][s] > 0.0 && (m == 0.0 || ch->t[k][s] < m))
            m = ch->t[k][s];
    return m;
}

/* The mean seconds of team k's kept samples: what the caller paid. */
static double mean(const sc_team_choice *ch, int k) {
    double sum = 0.0;
    int got = 0;
    for (int s = 0; s < SC_LOAD_SAMPLES; s++)
        if (ch->t[k][s] > 0.0) {
            sum += ch->t[k][s];
            got++;
        }
    return got ? sum / got : 0.0;
}

void sc_load_record(sc_load *l, int cores, int team, size_t n, double seconds, bool cold) {
    const int free = l->busy > 0 ? free_cores(l, cores) : cores;
    if (free >= cores || (team != free && team != cores) || !(seconds > 0.0))
        return; /* a quiet machine, or a team that n capped: nothing to choose */
    sc_team_choice *ch = &l->choice;
    if (!same_size(ch, n))
        *ch = (sc_team_choice){.n = n, .next = n >= SC_LOAD_FULL_FIRST};
    const bool widened = team > l->widest; /* its threads were started (and first woken) in it */
    if (widened)
        l->widest = team;
    const int k = team == cores;
    /* Not a measure of the team: its scratch or its threads were new. A
     * context's first run is mostly first-touched scratch (a short query
     * can look long in it), so the free cores run warm before the full
     * team is tried. A large first query took the full team for itself (a
     * one-shot run gains the fair share); the next ones pay the rent,
     * unless that run alone took the rent's time: then its worker is
     * started already and the queries are long, so the try goes on. */
    if (cold) {
        ch->trying = ch->next && seconds >= SC_LOAD_RENT;
        ch->next = ch->trying;
        ch->tried = 0;
    }
    if (cold || widened)
        return;
    ch->t[k][ch->count[k]++ % SC_LOAD_SAMPLES] = seconds;
    if (k == 0)
        ch->rent += seconds;
    else if (ch->trying && ++ch->tried >= SC_LOAD_SAMPLES)
        ch->trying = false;
    /* A short query stays on the free cores: one barrier that waits out a
     * time slice costs more than its whole run. A long one takes all the
     * cores (their fair share of the busy ones too) while the mean of the
     * full team's last SC_LOAD_SAMPLES runs is no slower than the free
     * cores' fastest. A try of the full team (a widened run, then
     * SC_LOAD_SAMPLES runs) is made once the free cores have run long
     * enough at this size to pay for it, and again after a loss once they
     * have run twice as long as before: in a short process the free cores,
     * which never wait out a slice, are kept. */
    const double t0 = fastest(ch, 0);
    const bool full_pays =
        ch->count[1] >= SC_LOAD_SAMPLES && mean(ch, 1) <= SC_LOAD_FULL_MARGIN * t0;
    const int d = ch->losses < SC_LOAD_RENT_DOUBLINGS ? ch->losses : SC_LOAD_RENT_DOUBLINGS;
    int next;
    if (ch->trying)
        next = 1;
    else if (ch->count[0] == 0 || t0 < SC_LOAD_LONG)
        next = 0;
    else if (full_pays)
        next = 1;
    else if (k == 1) {
        next = 0; /* the full team lost: the rent for the next try starts */
        ch->losses++;
        ch->rent = 0.0;
    } else if (ch->rent >= SC_LOAD_RENT * (double)(1u << d)) {
        next = 1;
        ch->trying = true;
        ch->tried = 0;
    } else
        next = 0;
    ch->next = next;
}
