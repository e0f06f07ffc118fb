/*
 * load.c: how many of the cores a query may use are free now.
 *
 * A query's stages end in barriers. When another program keeps one of the
 * team's cores busy, the team thread that shares that core is parked by the
 * scheduler for a time slice at a time, and every barrier waits for it while
 * its partners spin: a 2-thread query on a 2-core machine with one busy core
 * is ten or more times slower than the same query on one thread
 * (docs/design.md, "Sharing the machine"). The library cannot set the host's
 * OpenMP wait policy, so it chooses the team from what is runnable when the
 * query starts: the kernel's count of runnable tasks (/proc/loadavg's fourth
 * field, system-wide, the reader included) less the reader and less the
 * team's own workers that are still spinning from the last region (their
 * state read from /proc/self/task/TID/stat), is the number of processors
 * other work occupies. Tasks are assumed to fill the processors outside
 * this process's affinity mask first (ranks bound to disjoint sets see only
 * their own set's load). The count is sampled at most once per
 * SC_LOAD_RECHECK seconds per context; where /proc cannot be read, nothing
 * is assumed busy and the team is the configured one.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "load.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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
    if (slot > 0 && slot < SC_LOAD_SLOTS) {
        l->tid[slot] = sc_load_tid();
        l->noted = true;
    }
}

/* This process's threads other than the caller that are runnable now:
 * every thread's, read from /proc/self/task, until the team's are known
 * (a host's earlier parallel regions start the pool before the library
 * sees it), then only the team's. */
static int own_runnable(const sc_load *l, int self) {
    int own = 0;
    if (l->noted) {
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
     * runnable count on an idle machine; a program that competes for the
     * cores is there at every reading. */
    int others = INT_MAX;
    const int self = sc_load_tid();
    for (int k = 0; k < SC_LOAD_READINGS; k++) {
        const int o = others_once(l, self);
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

int sc_load_team(sc_load *l, int cores) {
    const int busy = sc_load_busy(l);
    if (busy <= 0)
        return cores;
    /* processors to cores: with SMT, a busy processor takes its share of a core */
    const int allowed = l->allowed > 0 ? l->allowed : cores;
    const int free_cores = (int)((long)cores * (allowed - busy) / allowed);
    return free_cores < 1 ? 1 : free_cores;
}
