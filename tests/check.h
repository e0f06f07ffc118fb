/*
 * check.h: the assertion macro of the C test programs. CHECK counts every
 * check and every failure (printed with file and line) and never aborts, so
 * one run reports all failures; main returns non-zero when any failed.
 */
#ifndef SC_TEST_CHECK_H
#define SC_TEST_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#endif
