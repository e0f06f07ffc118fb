/*
 * alloc.c: the one allocation entry point. Every block is 64-byte aligned
 * and goes through the caller's hooks when given. Scratch buffers only grow,
 * so a context that has seen a batch size allocates nothing for the next.
 */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "internal.h"

#include <sys/mman.h>
#include <unistd.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Blocks this large get a page policy of their own (sc_huge_pages): a first
 * query on a fresh context touches tens of megabytes of scratch, and what a
 * fresh page costs decides the first query's time. */
#define SC_HUGE ((size_t)2 << 20)

/* ---- transparent huge pages ------------------------------------------------ */

int sc_balloon_reports_free_pages(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[512], device[16] = "", features[80] = "";
        FILE *f;
        snprintf(path, sizeof path, "%s/%s/device", dir, e->d_name);
        if ((f = fopen(path, "r"))) {
            if (!fgets(device, sizeof device, f))
                device[0] = '\0';
            fclose(f);
        }
        if (strncmp(device, "0x0005", 6) != 0) /* virtio device id 5: the balloon */
            continue;
        snprintf(path, sizeof path, "%s/%s/features", dir, e->d_name);
        if ((f = fopen(path, "r"))) {
            /* one '0' or '1' per feature bit, bit 0 first; bit 5 is
             * VIRTIO_BALLOON_F_REPORTING */
            if (fgets(features, sizeof features, f) && strlen(features) > 5 && features[5] == '1')
                found = 1;
            fclose(f);
        }
    }
    closedir(d);
    return found;
}

/* What sc_huge_pages decided and why, worked out once per process: bit 0
 * the answer, the rest one of these reasons. Racing first calls store the
 * same value. */
enum { HP_DEFAULT = 0, HP_ENV = 2, HP_BALLOON = 4, HP_NO_MADVISE = 6 };
static _Atomic int huge_policy = -1;

static int huge_policy_get(void) {
    int v = huge_policy;
    if (v >= 0)
        return v;
#ifndef MADV_HUGEPAGE
    v = HP_NO_MADVISE;
#else
    const char *e = getenv("SC_HUGE_PAGES");
    if (e && strcmp(e, "0") == 0)
        v = HP_ENV;
    else if (e && strcmp(e, "1") == 0)
        v = HP_ENV | 1;
    /* A guest whose balloon reports free pages hands every free 2 MiB block
     * back to the hypervisor within seconds, and the host backs it anew at
     * the next touch. A huge page can only come from such a block; 4 KiB
     * pages come first from the smaller free pieces, which are never
     * handed back. There a fresh process's scratch is cheaper in 4 KiB
     * pages (docs/one-shot.md, "First touch"); elsewhere a huge page costs
     * one fault where 4 KiB pages cost 512. */
    else if (sc_balloon_reports_free_pages("/sys/bus/virtio/devices"))
        v = HP_BALLOON;
    else
        v = HP_DEFAULT | 1;
#endif
    huge_policy = v;
    return v;
}

int sc_huge_pages(void) {
    return huge_policy_get() & 1;
}

const char *sc_huge_pages_reason(void) {
    switch (huge_policy_get()) {
    case HP_DEFAULT | 1: return "advised for scratch blocks of 2 MiB or more";
    case HP_ENV: return "not advised (SC_HUGE_PAGES=0)";
    case HP_ENV | 1: return "advised for scratch blocks of 2 MiB or more (SC_HUGE_PAGES=1)";
    case HP_BALLOON:
        return "not advised: a virtio balloon reports free pages to the hypervisor, so fresh "
               "4 KiB pages cost less here (SC_HUGE_PAGES=1 overrides)";
    default: return "not advised: no madvise in this build";
    }
}

/* The advice for [p, p + bytes): huge pages, or none, so that a kernel set
 * to "always" follows the policy too. Only whole pages inside the block. */
static void advise_pages(void *p, size_t bytes, int huge) {
#ifdef MADV_HUGEPAGE
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (hi > lo) /* advice only: failure is harmless */
        (void)madvise((void *)lo, hi - lo, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void)p, (void)bytes, (void)huge;
#endif
}

void *sc_alloc(const sc_allocator *a, size_t bytes) {
    if (bytes == 0)
        bytes = SC_ALIGN;
    if (a && a->alloc)
        return a->alloc(bytes, SC_ALIGN, a->user);
    void *p = NULL;
    const int huge = bytes >= SC_HUGE && sc_huge_pages();
    if (posix_memalign(&p, huge ? SC_HUGE : SC_ALIGN, bytes) != 0)
        return NULL;
    if (bytes >= SC_HUGE)
        advise_pages(p, bytes, huge);
    return p;
}

void sc_free(const sc_allocator *a, void *p) {
    if (!p)
        return;
    if (a && a->alloc) {
        if (a->free)
            a->free(p, a->user);
        return;
    }
    free(p);
}

bool sc_buf_reserve(const sc_allocator *a, sc_buf *b, size_t bytes) {
    if (b->p && b->bytes >= bytes)
        return true;
    sc_buf_release(a, b);
    b->p = sc_alloc(a, bytes);
    if (!b->p)
        return false;
    b->bytes = bytes;
    return true;
}

void sc_buf_release(const sc_allocator *a, sc_buf *b) {
    sc_free(a, b->p);
    b->p = NULL;
    b->bytes = 0;
}

double sc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
