/*
 * context.c: a context's lifecycle (options checked, scratch grown and
 * trimmed, the per-call thread binding planned), its statistics and the
 * system information. The pipeline that runs in a context is engine.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "context.h"
#include "kernels.h" /* sc_kernels_built */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const sc_allocator *alloc_of(const sc_context *c) {
    return sc_context_allocator(c);
}

void sc_context_log(const sc_context *c, sc_log_level lvl, const char *fmt, ...) {
    if (!c->opt.log)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->opt.log(lvl, msg, c->opt.log_user);
}

/* ---- context ------------------------------------------------------------- */

static sc_status options_check(const sc_options *o) {
    if (o->team != SC_TEAM_FOLLOW_LOAD && o->team != SC_TEAM_EVERY_CORE)
        return SC_ERR_INVALID_ARGUMENT;
    if (!sc_peer_of(o->algorithm))
        return SC_ERR_INVALID_ARGUMENT;
    if (o->threads < 0 || o->threads > 4096)
        return SC_ERR_INVALID_ARGUMENT;
    if (o->pin != SC_PIN_NONE && o->pin != SC_PIN_COMPACT && o->pin != SC_PIN_SCATTER)
        return SC_ERR_INVALID_ARGUMENT;
    if (o->kernel != SC_KERNEL_AUTO && o->kernel != SC_KERNEL_SCALAR && o->kernel != SC_KERNEL_AVX2)
        return SC_ERR_INVALID_ARGUMENT;
    for (int k = 0; k < sc_algorithm_count(); k++) { /* every peer's own options */
        const sc_peer *p = sc_peer_of((sc_algorithm)k);
        if (p->valid && !p->valid(o))
            return SC_ERR_INVALID_ARGUMENT;
    }
    if (o->chunk_pairs == 0 || o->sorted_window_bytes < 4096)
        return SC_ERR_INVALID_ARGUMENT;
    if (o->allocator.alloc && !o->allocator.free)
        return SC_ERR_INVALID_ARGUMENT;
    for (int a = 0; a < 3; a++) {
        const double lo = o->box.lo[a], hi = o->box.hi[a];
        /* fabs(NaN) <= M is false: one test for finite and in range */
        if (o->box.periodic[a] && !(fabs(lo) <= SC_MAX_BOX_VALUE && fabs(hi) <= SC_MAX_BOX_VALUE &&
                                    lo < hi && hi - lo > 0.0))
            return SC_ERR_INVALID_ARGUMENT;
    }
    return SC_OK;
}

sc_status sc_context_create(const sc_options *options, sc_context **out) {
    if (!out)
        return SC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    sc_options o;
    sc_status st = sc_options_take(options, &o);
    if (st == SC_OK)
        st = options_check(&o);
    if (st != SC_OK)
        return st;
    sc_kernel k = o.kernel;
    if (!sc_kernel_resolve(&k))
        return SC_ERR_UNSUPPORTED;
    /* The core count (threads = 0) and the binding plan need the hardware
     * topology, whose discovery costs milliseconds: both wait for the first
     * call that needs them (sc_context_threads, sc_context_pinning), so a
     * process that only ever searches small batches never loads it. */
    sc_context *c = sc_alloc(&o.allocator, sizeof(sc_context));
    if (!c)
        return SC_ERR_OUT_OF_MEMORY;
    memset(c, 0, sizeof *c);
    c->opt = o;
    c->threads = o.threads; /* 0: not known yet */
    c->chunk_pairs = o.chunk_pairs < SC_CHUNK_PAIRS_MAX ? o.chunk_pairs : SC_CHUNK_PAIRS_MAX;
    char warn[128];
    if (sc_kernel_env_problem(warn, sizeof warn) > 0)
        sc_context_log(c, SC_LOG_WARN, "%s", warn);
    *out = c;
    return SC_OK;
}

/* Every scratch buffer besides the peer's: the orchestrator's (engine.c)
 * and the front ends' (neighbors.c, between.c, periodic.c). */
#define OWN_BUFS(c)                                                                                \
    {                                                                                              \
        &(c)->sched, &(c)->sink_mem, &(c)->hist, &(c)->win, &(c)->grown, &(c)->worig, &(c)->joint, \
            &(c)->survivors, &(c)->occupied, &(c)->images_buf, &(c)->bands                         \
    }
#define OWN_BUFS_COUNT 11

void sc_context_trim(sc_context *c) {
    if (!c)
        return;
    for (int k = 0; k < SC_PEER_BUFS; k++)
        sc_buf_release(alloc_of(c), &c->peer_buf[k]);
    sc_buf *bufs[OWN_BUFS_COUNT] = OWN_BUFS(c);
    for (size_t k = 0; k < OWN_BUFS_COUNT; k++)
        sc_buf_release(alloc_of(c), bufs[k]);
    c->kept.words = 0; /* its words and buckets were in win and hist */
}

void sc_context_destroy(sc_context *c) {
    if (!c)
        return;
    sc_context_trim(c);
    sc_allocator a = c->opt.allocator;
    sc_free(&a, c->pinning);
    sc_free(&a, c);
}

int sc_context_threads(sc_context *c) {
    if (c->threads == 0)
        c->threads = sc_cores_available();
    return c->threads;
}

int sc_context_team(sc_context *c, size_t n) {
    const size_t most = n / SC_SPHERES_PER_THREAD + 1;
    if (most == 1) {
        c->room = 1;
        return 1;
    }
    int team = sc_context_threads(c);
    c->room = most < (size_t)team ? (int)most : team;
    if (c->opt.threads == 0 && team > 1 && c->opt.team == SC_TEAM_FOLLOW_LOAD)
        team = sc_load_team(&c->load, team, c->load_n ? c->load_n : n);
    return most < (size_t)team ? (int)most : team;
}

sc_status sc_context_validate(sc_context *c, const sc_spheres *s, size_t *bad_index) {
    if (!c)
        return SC_ERR_INVALID_ARGUMENT;
    const size_t most = (s ? s->count : 0) / SC_SPHERES_PER_THREAD + 1;
    const int team = most == 1 ? 1 : sc_context_threads(c);
    return sc_spheres_check(s, bad_index, most < (size_t)team ? (int)most : team);
}

sc_pinning *sc_context_pinning(sc_context *c) {
    if (!c->pinning) {
        const int threads = sc_context_threads(c);
        void *mem = sc_alloc(&c->opt.allocator, sc_pinning_bytes(threads));
        if (mem) /* no memory: no binding, as when a policy cannot be applied */
            c->pinning = sc_pinning_init(mem, c->opt.pin, threads);
    }
    return c->pinning;
}

sc_status sc_context_stats(const sc_context *c, sc_stats *out) {
    if (!c || !out)
        return SC_ERR_INVALID_ARGUMENT;
    size_t size;
    memcpy(&size, out, sizeof size); /* the caller's own bytes only */
    if (size < SC_STATS_SIZE_0_2)
        return SC_ERR_INVALID_ARGUMENT;
    if (size > sizeof c->stats)
        size = sizeof c->stats;
    memcpy(out, &c->stats, size);
    out->size = size;
    return SC_OK;
}

uint64_t sc_context_scratch_bytes(const sc_context *c) {
    const sc_buf *bufs[OWN_BUFS_COUNT] = OWN_BUFS(c);
    uint64_t b = 0;
    for (size_t k = 0; k < OWN_BUFS_COUNT; k++)
        b += bufs[k]->bytes;
    for (int k = 0; k < SC_PEER_BUFS; k++)
        b += c->peer_buf[k].bytes;
    return b;
}

/* ---- system information ---------------------------------------------------- */

size_t sc_system_info(const sc_options *options, char *buf, size_t cap) {
    sc_options o;
    if (sc_options_take(options, &o) != SC_OK)
        o = sc_options_default(); /* the machine is described all the same */
    int threads = o.threads > 0 ? o.threads : sc_cores_available();
    char feats[256];
    sc_cpu_features(feats, sizeof feats);
    sc_kernel k = o.kernel == SC_KERNEL_AUTO ? sc_kernel_auto() : o.kernel;
    char tmp[1];
    if (!buf || cap == 0) {
        buf = tmp;
        cap = 1;
    }
    size_t used = (size_t)snprintf(
        buf, cap,
        "spherecollide %s\ncpu features: %s\nkernels built: scalar%s\nkernel: %s%s\n"
        "huge pages: %s\nthreads: %d (cores seen: %d)\n",
        SC_VERSION_STRING, feats, sc_kernels_built(), sc_kernel_name(k),
        sc_kernel_available(k) ? "" : " (NOT available on this CPU)", sc_huge_pages_reason(),
        threads, sc_cores_available());
    used += sc_threads_describe(o.pin, threads, buf + (used < cap ? used : cap - 1),
                                used < cap ? cap - used : 1);
    return used;
}
