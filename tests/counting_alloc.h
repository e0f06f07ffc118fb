/*
 * counting_alloc.h: an sc_allocator that counts the library's allocations
 * and frees (a steady-state query allocates nothing new) and can fail from
 * the fail_after-th allocation on (-1: never), for the C test programs.
 */
#ifndef SC_TEST_COUNTING_ALLOC_H
#define SC_TEST_COUNTING_ALLOC_H

#include <stdlib.h>

typedef struct counting {
    long allocs, frees, fail_after;
} counting;

static void *count_alloc(size_t size, size_t align, void *user) {
    counting *c = user;
    if (c->fail_after >= 0 && c->allocs >= c->fail_after)
        return NULL;
    c->allocs++;
    void *p = NULL;
    return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1) == 0
               ? p
               : NULL;
}

static void count_free(void *p, void *user) {
    counting *c = user;
    c->frees++;
    free(p);
}

#endif
