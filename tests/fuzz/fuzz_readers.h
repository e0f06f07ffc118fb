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

static void reader_fail(const char *what) {
    fprintf(stderr, "fuzz reader: %s\n", what);
    abort();
}

/* A read either failed with a one-line message naming the input, or gave
 * n valid spheres; returns the values as doubles (caller frees) or NULL. */
static double *check_read(sc_io_status st, const sc_io_spheres *s, const char *err) {
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
        const double v =
            s->dtype == SC_F32 ? (double)((const float *)s->rows)[k] : ((const double *)s->rows)[k];
        if (!isfinite(v) || fabs(v) > SC_MAX_ABS_VALUE || (k % cols == cols - 1 && v < 0.0))
            reader_fail("a value the engine rejects was accepted");
        vals[k] = v;
    }
    return vals;
}

/* The same bytes read again with the value check deferred (`read` reads
 * them with the options given): the outcome must be the plain read's, with
 * sc_io_check_spheres giving a value error's status and message word for
 * word. `plain` and `plain_err` are the plain read's result. */
typedef sc_io_status (*deferred_read_fn)(const sc_io_read_options *o, sc_io_spheres *s, char *err,
                                         size_t errcap, void *user);
static inline void check_deferred(const char *path, sc_io_status plain, const char *plain_err,
                                  sc_io_read_options o, deferred_read_fn read, void *user) {
    o.defer_value_check = 1;
    sc_io_spheres s;
    memset(&s, 0, sizeof s);
    char err[512] = "";
    sc_io_status st = read(&o, &s, err, sizeof err, user);
    const int value_error = plain == SC_IO_ERR_NON_FINITE || plain == SC_IO_ERR_NEGATIVE_RADIUS ||
                            plain == SC_IO_ERR_OUT_OF_RANGE;
    if (st == SC_IO_OK) {
        st = sc_io_check_spheres(path, &s, err, sizeof err);
        sc_io_spheres_free(&s);
        if (st != plain)
            reader_fail("a deferred read and its check disagree with the plain read");
        if (value_error && strcmp(err, plain_err) != 0)
            reader_fail("a deferred check words a value error differently");
    } else if (value_error || st != plain || strcmp(err, plain_err) != 0) {
        reader_fail("a deferred read failed where the plain read did not, or differently");
    }
}

#endif
