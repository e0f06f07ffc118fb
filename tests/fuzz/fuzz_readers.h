/*
 * fuzz_readers.h: what the reader harnesses share. The readers run on the
 * fuzz bytes in memory (io_internal.h's entry points take the loaded file),
 * and a successful read must hold only values the engine accepts.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SC_FUZZ_READERS_H
#define SC_FUZZ_READERS_H

#include "io_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reader_fail(const char *what)
{
    fprintf(stderr, "fuzz reader: %s\n", what);
    abort();
}

/* A read either failed with a one-line message naming the input, or gave
 * n valid spheres; returns the values as doubles (caller frees) or NULL. */
static double *check_read(sc_io_status st, const sc_io_spheres *s, const char *err)
{
    if (st != SC_IO_OK) {
        if (err[0] == '\0' || strchr(err, '\n') != NULL || strncmp(err, "fuzz", 4) != 0)
            reader_fail("an error without a one-line message naming the input");
        if (s->rows != NULL || s->n != 0)
            reader_fail("a failed read left spheres behind");
        return NULL;
    }
    if (s->dims != 2 && s->dims != 3)
        reader_fail("dims");
    const size_t cols = (size_t)s->dims + 1, total = s->n * cols;
    if (s->n > 0 && s->rows == NULL)
        reader_fail("no rows");
    double *vals = malloc((total ? total : 1) * sizeof *vals);
    for (size_t k = 0; k < total; k++) {
        const double v = s->dtype == SC_F32 ? (double)((const float *)s->rows)[k]
                                            : ((const double *)s->rows)[k];
        if (!isfinite(v) || fabs(v) > SC_MAX_ABS_VALUE || (k % cols == cols - 1 && v < 0.0))
            reader_fail("a value the engine rejects was accepted");
        vals[k] = v;
    }
    return vals;
}

#endif
