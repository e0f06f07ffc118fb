/*
 * study_counters.c: cache-miss counters for the locality experiments.
 *
 * The study reads hardware counters through PAPI when the build found it
 * (SC_STUDY_HAVE_PAPI) and the CPU and kernel expose them. On virtual
 * machines PAPI_library_init or the event set usually fails; then every
 * counter is "unavailable" - never 0, which would read as "no misses".
 * The backend is a small table of functions so the fallback logic can be
 * tested without PAPI (tests/test_study.c injects failing and fake
 * backends). PAPI counts the calling thread only: the driver reads counters
 * in one-thread runs.
 */
#include "study.h"

#include <stdio.h>
#include <string.h>

#ifdef SC_STUDY_HAVE_PAPI
#include <papi.h>

typedef struct papi_state {
    int eventset;
    int nadded;
} papi_state;

static papi_state papi_self = {-1, 0};

static int papi_init(void *self, char *why, size_t cap) {
    papi_state *s = self;
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        snprintf(why, cap, "PAPI_library_init failed (%s)",
                 v > 0 ? "version mismatch" : PAPI_strerror(v));
        return -1;
    }
    s->eventset = PAPI_NULL;
    int rc = PAPI_create_eventset(&s->eventset);
    if (rc != PAPI_OK) {
        snprintf(why, cap, "PAPI_create_eventset failed (%s)", PAPI_strerror(rc));
        return -1;
    }
    s->nadded = 0;
    return 0;
}

static int papi_add(void *self, const char *event) {
    papi_state *s = self;
    int code = 0;
    if (PAPI_event_name_to_code(event, &code) != PAPI_OK)
        return -1;
    if (PAPI_add_event(s->eventset, code) != PAPI_OK)
        return -1;
    s->nadded++;
    return 0;
}

static int papi_start(void *self) {
    papi_state *s = self;
    return PAPI_start(s->eventset) == PAPI_OK ? 0 : -1;
}

static int papi_stop(void *self, long long *values) {
    papi_state *s = self;
    return PAPI_stop(s->eventset, values) == PAPI_OK ? 0 : -1;
}

static void papi_close(void *self) {
    papi_state *s = self;
    if (s->eventset != PAPI_NULL && s->eventset != -1) {
        PAPI_cleanup_eventset(s->eventset);
        PAPI_destroy_eventset(&s->eventset);
    }
    s->eventset = -1;
    PAPI_shutdown();
}

study_counter_backend study_counters_default_backend(void) {
    study_counter_backend b = {"papi",    papi_init,  papi_add,  papi_start,
                               papi_stop, papi_close, &papi_self};
    return b;
}

#else /* no PAPI in this build */

static int none_init(void *self, char *why, size_t cap) {
    (void)self;
    snprintf(why, cap, "built without PAPI (libpapi-dev not found at configure time)");
    return -1;
}

study_counter_backend study_counters_default_backend(void) {
    study_counter_backend b = {"none", none_init, NULL, NULL, NULL, NULL, NULL};
    return b;
}

#endif

void study_counters_open(study_counters *c, const study_counter_backend *be,
                         const char *const *events, int nevents) {
    memset(c, 0, sizeof *c);
    if (nevents > STUDY_MAX_COUNTERS)
        nevents = STUDY_MAX_COUNTERS;
    if (nevents < 0)
        nevents = 0;
    c->nevents = nevents;
    for (int k = 0; k < nevents; k++) {
        c->events[k] = events[k];
        c->slot[k] = -1;
    }
    if (!be || !be->init) {
        snprintf(c->why, sizeof c->why, "no counter backend");
        return;
    }
    c->be = *be;
    if (be->init(be->self, c->why, sizeof c->why) != 0) {
        if (!c->why[0])
            snprintf(c->why, sizeof c->why, "%s: initialisation failed",
                     be->name ? be->name : "backend");
        c->be.close = NULL; /* nothing to close */
        return;
    }
    for (int k = 0; k < nevents; k++)
        if (be->add && be->add(be->self, events[k]) == 0)
            c->slot[k] = c->nslots++;
    c->usable = c->nslots > 0 && be->start && be->stop;
    if (!c->usable)
        snprintf(c->why, sizeof c->why, "%s: none of the events could be added",
                 be->name ? be->name : "backend");
}

void study_counters_start(study_counters *c) {
    c->have_value = 0;
    c->running = 0;
    if (!c->usable)
        return;
    if (c->be.start(c->be.self) != 0) {
        snprintf(c->why, sizeof c->why, "%s: start failed", c->be.name ? c->be.name : "backend");
        return;
    }
    c->running = 1;
}

void study_counters_stop(study_counters *c) {
    if (!c->running)
        return;
    c->running = 0;
    long long v[STUDY_MAX_COUNTERS] = {0};
    if (c->be.stop(c->be.self, v) != 0) {
        snprintf(c->why, sizeof c->why, "%s: stop failed", c->be.name ? c->be.name : "backend");
        return;
    }
    for (int k = 0; k < c->nevents; k++)
        c->value[k] = c->slot[k] >= 0 ? v[c->slot[k]] : 0;
    c->have_value = 1;
}

int study_counters_get(const study_counters *c, int k, long long *v) {
    if (k < 0 || k >= c->nevents || !c->have_value || c->slot[k] < 0)
        return 0;
    *v = c->value[k];
    return 1;
}

void study_counters_close(study_counters *c) {
    if (c->running)
        study_counters_stop(c);
    if (c->be.close)
        c->be.close(c->be.self);
    c->be.close = NULL;
    c->usable = 0;
}

const char *study_counter_format(int available, double value, char *buf, size_t cap) {
    if (!available || !(value >= 0.0))
        snprintf(buf, cap, "%s", STUDY_UNAVAILABLE);
    else
        snprintf(buf, cap, "%.6g", value);
    return buf;
}
