/*
 * threads.c: how many cores there are and where the OpenMP threads run.
 * With hwloc: cores are counted from the topology, and threads are bound
 * compact (thread k on core k, in topology order), scatter (hwloc_distrib
 * spreads them over packages and caches first) or not at all. The topology
 * is loaded once per process. Without hwloc the core count comes from
 * OpenMP and no binding is made.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SC_HAVE_HWLOC
#include <hwloc.h>

static hwloc_topology_t topo;
static int topo_ok;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;

static void topo_load(void) {
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0)
        topo_ok = 1;
}

static int topo_get(void) {
    pthread_once(&topo_once, topo_load);
    return topo_ok;
}

int sc_cores_available(void) {
    if (topo_get()) {
        int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        if (cores > 0)
            return cores;
    }
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

/* The cpuset thread t of `threads` gets under a policy (caller frees). */
static hwloc_bitmap_t pin_set(sc_pin pin, int t, int threads) {
    const int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (pin == SC_PIN_NONE || cores <= 0)
        return hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo));
    if (pin == SC_PIN_COMPACT) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)(t % cores));
        return hwloc_bitmap_dup(core->cpuset);
    }
    /* scatter: distribute `threads` sets over the whole machine, take ours */
    hwloc_bitmap_t sets[threads];
    hwloc_obj_t root = hwloc_get_root_obj(topo);
    hwloc_distrib(topo, &root, 1, sets, (unsigned)threads, INT32_MAX, 0);
    for (int k = 0; k < threads; k++)
        if (k != t)
            hwloc_bitmap_free(sets[k]);
    hwloc_bitmap_singlify(sets[t]);
    return sets[t];
}

sc_pin sc_threads_pin(sc_pin pin, int threads) {
    if (!topo_get())
        return SC_PIN_NONE;
    int failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        hwloc_bitmap_t set = pin_set(pin, sc_thread_id(), sc_num_threads());
        if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0)
            failed = 1;
        hwloc_bitmap_free(set);
    }
    return failed ? SC_PIN_NONE : pin;
}

size_t sc_threads_describe(sc_pin pin, int threads, char *buf, size_t cap) {
    if (!topo_get())
        return (size_t)snprintf(buf, cap, "topology: hwloc failed to load; no binding\n");
    size_t used = 0;
#define ADD(...) used += (size_t)snprintf(buf + (used < cap ? used : cap), used < cap ? cap - used : 0, __VA_ARGS__)
    ADD("topology: %d package(s), %d NUMA node(s), %d core(s), %d PU(s)",
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
    hwloc_obj_t l3 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0);
    hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);
    if (l2 && l2->attr)
        ADD(", L2 %llu KiB", (unsigned long long)l2->attr->cache.size / 1024);
    if (l3 && l3->attr)
        ADD(", L3 %llu KiB", (unsigned long long)l3->attr->cache.size / 1024);
    ADD("\nbinding (%s, %d threads):", sc_pin_name(pin), threads);
    for (int t = 0; t < threads; t++) {
        hwloc_bitmap_t set = pin_set(pin, t, threads);
        char *s = NULL;
        hwloc_bitmap_list_asprintf(&s, set);
        ADD(" t%d->pu{%s}", t, s ? s : "?");
        free(s);
        hwloc_bitmap_free(set);
    }
    ADD("\n");
#undef ADD
    return used;
}

#else /* no hwloc */

int sc_cores_available(void) {
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

sc_pin sc_threads_pin(sc_pin pin, int threads) {
    (void)pin;
    (void)threads;
    return SC_PIN_NONE;
}

size_t sc_threads_describe(sc_pin pin, int threads, char *buf, size_t cap) {
    (void)pin;
    return (size_t)snprintf(buf, cap,
                            "topology: built without hwloc; %d processor(s); %d threads, no binding\n",
                            sc_cores_available(), threads);
}
#endif
