/*
 * alloc.c: the one allocation entry point. Every block is 64-byte aligned
 * and goes through the caller's hooks when given. Scratch buffers only grow,
 * so a context that has seen a batch size allocates nothing for the next.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdlib.h>
#include <time.h>

void *sc_alloc(const sc_allocator *a, size_t bytes) {
    if (bytes == 0)
        bytes = SC_ALIGN;
    if (a && a->alloc)
        return a->alloc(bytes, SC_ALIGN, a->user);
    void *p = NULL;
    if (posix_memalign(&p, SC_ALIGN, bytes) != 0)
        return NULL;
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
