/*
 * alloc.c: the one allocation entry point. Every block is 64-byte aligned
 * and goes through the caller's hooks when given. Scratch buffers only grow,
 * so a context that has seen a batch size allocates nothing for the next.
 */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "internal.h"

#include <sys/mman.h>

#include <stdlib.h>
#include <time.h>

/* Blocks this large are 2 MiB aligned and offered to transparent huge
 * pages: a first query on a fresh context touches tens of megabytes of
 * scratch, and on virtual machines a 4 KiB page fault costs microseconds. */
#define SC_HUGE ((size_t)2 << 20)

void *sc_alloc(const sc_allocator *a, size_t bytes) {
    if (bytes == 0)
        bytes = SC_ALIGN;
    if (a && a->alloc)
        return a->alloc(bytes, SC_ALIGN, a->user);
    void *p = NULL;
    const size_t align = bytes >= SC_HUGE ? SC_HUGE : SC_ALIGN;
    if (posix_memalign(&p, align, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= SC_HUGE)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
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
