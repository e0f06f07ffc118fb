/*
 * threads.c: how many cores there are and where the OpenMP threads run.
 * With hwloc: cores are counted from the topology, and threads are bound
 * compact (thread k on core k, in topology order), scatter (hwloc_distrib
 * spreads them over packages and caches first) or not at all. The topology
 * is loaded once per process (pthread_once; read-only afterwards). Without
 * hwloc the core count comes from OpenMP and no binding is made.
 *
 * Binding is per call and undone: the OpenMP threads of a call belong to the
 * host program too (thread 0 is the caller's own thread; the pool serves the
 * host's parallel regions; threads created later inherit the creator's
 * mask). So sc_pinning_begin saves every team thread's mask before binding
 * it, and sc_pinning_end puts each saved mask back on the same OS thread by
 * its pthread id, whichever OpenMP thread number it has by then. The target
 * masks are computed once per context; a query reads and writes only its
 * context's sc_pinning, so there is no global state to race on, and the
 * binding costs two affinity calls per thread and query, no allocation.
 */
#define _GNU_SOURCE /* pthread_{get,set}affinity_np */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pinning policies' names (public: sc_pin_name). */
const char *sc_pin_name(sc_pin p) {
    switch (p) {
    case SC_PIN_NONE: return "none";
    case SC_PIN_COMPACT: return "compact";
    case SC_PIN_SCATTER: return "scatter";
    }
    return "?";
}

#ifdef SC_HAVE_HWLOC
#include <hwloc.h>
#if defined(__linux__)
#include <hwloc/glibc-sched.h>
#endif

static hwloc_topology_t topo;
static int topo_ok;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;

/* Discovery from what the operating system reports, nothing more: hwloc's
 * x86 backend would bind the calling thread (the host's) to each processor
 * in turn to read its cpuid, which changes the host thread's affinity while
 * it runs and costs a migration per processor, most of a 16-core virtual
 * machine's first query (docs/one-shot.md, "Sixteen cores"). Cores,
 * packages, caches and NUMA nodes come from the OS all the same; distances,
 * memory attributes and CPU kinds are never used here. */
static void topo_load(void) {
    if (hwloc_topology_init(&topo) != 0)
        return;
#if HWLOC_API_VERSION >= 0x00020800
    (void)hwloc_topology_set_flags(
        topo, HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING | HWLOC_TOPOLOGY_FLAG_NO_DISTANCES |
                  HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS | HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS);
#endif
    if (hwloc_topology_load(topo) == 0)
        topo_ok = 1;
}

static int topo_get(void) {
    pthread_once(&topo_once, topo_load);
    return topo_ok;
}

/* The processors the calling thread may run on, within what the machine
 * allows (caller frees): an MPI rank bound by `mpirun --bind-to core`, or a
 * program under taskset, is its own machine. */
static hwloc_bitmap_t caller_set(void) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return NULL;
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0 || hwloc_bitmap_iszero(set))
        hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(topo));
    hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(topo));
    return set;
}

/* The cores that meet `within`, in the topology's order, into out (at most
 * cap); returns how many. */
static int cores_within(hwloc_const_bitmap_t within, hwloc_obj_t *out, int cap) {
    int n = 0;
    for (hwloc_obj_t core = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, NULL); core;
         core = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, core))
        if (hwloc_bitmap_intersects(core->cpuset, within)) {
            if (out && n < cap)
                out[n] = core;
            n++;
        }
    return n;
}

int sc_cores_available(void) {
    if (topo_get()) {
        hwloc_bitmap_t within = caller_set();
        int cores = within ? cores_within(within, NULL, 0) : 0;
        hwloc_bitmap_free(within);
        if (cores <= 0)
            cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        if (cores > 0)
            return cores;
    }
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

/* The cpuset thread t of `threads` gets under a policy, inside the
 * caller's processors `within` (caller frees). */
static hwloc_bitmap_t pin_set(sc_pin pin, int t, int threads, hwloc_const_bitmap_t within) {
    const int all = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    hwloc_obj_t cores[all > 0 ? all : 1];
    const int n = all > 0 ? cores_within(within, cores, all) : 0;
    if (pin == SC_PIN_NONE || n <= 0)
        return hwloc_bitmap_dup(within);
    hwloc_bitmap_t set;
    if (pin == SC_PIN_COMPACT) {
        set = hwloc_bitmap_dup(cores[t % n]->cpuset);
    } else { /* scatter: distribute `threads` sets over the caller's cores, take ours */
        hwloc_bitmap_t sets[threads];
        hwloc_distrib(topo, cores, (unsigned)n, sets, (unsigned)threads, INT32_MAX, 0);
        for (int k = 0; k < threads; k++)
            if (k != t)
                hwloc_bitmap_free(sets[k]);
        set = sets[t];
    }
    hwloc_bitmap_and(set, set, within);
    hwloc_bitmap_singlify(set);
    return set;
}

#if defined(__linux__)
#define SC_CAN_PIN 1
#include <sched.h>

struct sc_pinning {
    sc_pin pin; /* the policy planned; NONE: begin and end do nothing */
    int threads;
    pthread_t *tid;       /* the OS thread that took slot t at begin */
    cpu_set_t *target;    /* mask of team thread t under the policy */
    cpu_set_t *saved;     /* its mask before begin */
    unsigned char *bound; /* slot t was bound and must be restored */
};

size_t sc_pinning_bytes(int threads) {
    const size_t t = (size_t)(threads > 0 ? threads : 1);
    return sizeof(struct sc_pinning) + t * (2 * sizeof(cpu_set_t) + sizeof(pthread_t) + 1) + 64;
}

sc_pinning *sc_pinning_init(void *mem, sc_pin pin, int threads) {
    sc_pinning *p = mem;
    char *q = (char *)mem + sizeof *p;
    memset(p, 0, sizeof *p);
    p->threads = threads;
    p->target = (cpu_set_t *)(void *)q;
    p->saved = p->target + threads;
    p->tid = (pthread_t *)(void *)(p->saved + threads);
    p->bound = (unsigned char *)(p->tid + threads);
    memset(p->bound, 0, (size_t)threads);
    p->pin = SC_PIN_NONE;
    if (pin == SC_PIN_NONE || !topo_get())
        return p;
    hwloc_bitmap_t within = caller_set();
    /* A team smaller than the caller's cores is not bound: which of them
     * it should take is a guess that collides with the neighbours' (every
     * MPI rank under --bind-to none would put its one thread on core 0). */
    if (within && threads < cores_within(within, NULL, 0)) {
        hwloc_bitmap_free(within);
        return p;
    }
    for (int t = 0; within && t < threads; t++) {
        hwloc_bitmap_t set = pin_set(pin, t, threads, within);
        /* a set beyond what cpu_set_t holds (over 1024 PUs): no binding */
        const int ok = set && hwloc_bitmap_last(set) < CPU_SETSIZE &&
                       hwloc_cpuset_to_glibc_sched_affinity(topo, set, &p->target[t],
                                                            sizeof(cpu_set_t)) == 0 &&
                       CPU_COUNT(&p->target[t]) > 0;
        hwloc_bitmap_free(set);
        if (!ok) {
            hwloc_bitmap_free(within);
            return p;
        }
    }
    if (within)
        p->pin = pin;
    hwloc_bitmap_free(within);
    return p;
}

void sc_pinning_end(sc_pinning *p) {
    if (!p)
        return;
    for (int t = 0; t < p->threads; t++)
        if (p->bound[t]) {
            (void)pthread_setaffinity_np(p->tid[t], sizeof(cpu_set_t), &p->saved[t]);
            p->bound[t] = 0;
        }
}

sc_pin sc_pinning_begin(sc_pinning *p) {
    if (!p || p->pin == SC_PIN_NONE)
        return SC_PIN_NONE;
    int failed = 0;
#pragma omp parallel num_threads(p->threads) reduction(| : failed)
    {
        /* a smaller team than planned (a thread limit, nesting) binds nothing */
        const int t = sc_thread_id();
        const pthread_t self = pthread_self();
        p->tid[t] = self;
        p->bound[t] = sc_num_threads() == p->threads &&
                      pthread_getaffinity_np(self, sizeof(cpu_set_t), &p->saved[t]) == 0 &&
                      pthread_setaffinity_np(self, sizeof(cpu_set_t), &p->target[t]) == 0;
        failed |= !p->bound[t];
    }
    if (failed) { /* all or nothing: undo the threads that were bound */
        sc_pinning_end(p);
        return SC_PIN_NONE;
    }
    return p->pin;
}

#endif

size_t sc_threads_describe(sc_pin pin, int threads, char *buf, size_t cap) {
    if (!topo_get())
        return (size_t)snprintf(buf, cap, "topology: hwloc failed to load; no binding\n");
    size_t used = 0;
#define ADD(...)                                                                                   \
    used += (size_t)snprintf(buf + (used < cap ? used : cap), used < cap ? cap - used : 0,         \
                             __VA_ARGS__)
    ADD("topology: %d package(s), %d NUMA node(s), %d core(s), %d PU(s)",
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
    hwloc_obj_t l3 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0);
    hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);
    if (l2 && l2->attr)
        ADD(", L2 %llu KiB", (unsigned long long)l2->attr->cache.size / 1024);
    if (l3 && l3->attr)
        ADD(", L3 %llu KiB", (unsigned long long)l3->attr->cache.size / 1024);
    ADD("\nbinding (%s, %d thread%s):", sc_pin_name(pin), threads, threads == 1 ? "" : "s");
    hwloc_bitmap_t within = caller_set();
    for (int t = 0; within && t < threads; t++) {
        hwloc_bitmap_t set = pin_set(pin, t, threads, within);
        char *s = NULL;
        hwloc_bitmap_list_asprintf(&s, set);
        ADD(" t%d->pu{%s}", t, s ? s : "?");
        free(s);
        hwloc_bitmap_free(set);
    }
    hwloc_bitmap_free(within);
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

size_t sc_threads_describe(sc_pin pin, int threads, char *buf, size_t cap) {
    (void)pin;
    return (size_t)snprintf(
        buf, cap, "topology: built without hwloc; %d processor(s); %d thread%s, no binding\n",
        sc_cores_available(), threads, threads == 1 ? "" : "s");
}
#endif

#ifndef SC_CAN_PIN /* no hwloc, or not Linux: no binding */
struct sc_pinning {
    int unused;
};

size_t sc_pinning_bytes(int threads) {
    (void)threads;
    return sizeof(struct sc_pinning);
}

sc_pinning *sc_pinning_init(void *mem, sc_pin pin, int threads) {
    (void)pin;
    (void)threads;
    return mem;
}

sc_pin sc_pinning_begin(sc_pinning *p) {
    (void)p;
    return SC_PIN_NONE;
}

void sc_pinning_end(sc_pinning *p) {
    (void)p;
}
#endif
