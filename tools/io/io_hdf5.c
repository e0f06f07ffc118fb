/*
 * io_hdf5.c: spheres from an HDF5 file (Debian's libhdf5-dev; built when it
 * is there, else a reader that says so). The caller names the data
 * (sc_io_read_options.dataset):
 *
 *   "PATH"             one 2-D dataset of N rows: the columns x y z r (x y r
 *                      for circles) are 0 1 2 3, or those listed after a
 *                      colon, "PATH:4,5,6,0"
 *   "PX,PY,PZ,PR"      one 1-D dataset per column (PX,PY,PR for circles),
 *                      all of N values
 *
 * Any integer or floating-point dataset is read as double by HDF5's own
 * conversion (exact for float32 and integers below 2^53). Each value is
 * checked as the other readers check them; errors name the file, the
 * dataset and the row. The calls into libhdf5 are in a module loaded the
 * first time a file is read (io_hdf5_module.h says why); it sits beside
 * the tool, in SC_HDF5_RELDIR from it, in SC_HDF5_DIR once installed, or,
 * in a build with tests or benchmarks, in SC_HDF5_BUILD_DIR (the build
 * tree's, for their programs elsewhere in it).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

#ifndef SC_HAVE_HDF5

sc_io_status io_read_hdf5(const char *path, const sc_io_read_options *opts, size_t slice,
                          size_t slices, sc_io_spheres *out, char *err, size_t errcap) {
    (void)opts, (void)slice, (void)slices;
    (void)out;
    return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                   "%s: this build reads no HDF5 (install libhdf5-dev and rebuild)", path);
}

#else

#include "io_hdf5_module.h"
#include "module_load.h"

#include <stdio.h>

#define MAX_NAME 1024

/* The datasets the spec names: `parts` names (1 for a 2-D dataset, else one
 * per column) and, for a 2-D dataset, the columns to take. */
typedef struct hdf5_spec {
    char names[4][MAX_NAME];
    int parts;
    long col[4];
} hdf5_spec;

static sc_io_status parse_spec(const char *path, const char *spec, int width, hdf5_spec *s,
                               char *err, size_t errcap) {
    char q[128];
    memset(s, 0, sizeof *s);
    for (int k = 0; k < 4; k++)
        s->col[k] = k;
    const char *colon = strchr(spec, ':');
    const char *names_end = colon ? colon : spec + strlen(spec);
    const char *p = spec;
    while (p <= names_end && s->parts < 4) {
        const char *comma = memchr(p, ',', (size_t)(names_end - p));
        const char *e = comma ? comma : names_end;
        if (e == p || (size_t)(e - p) >= MAX_NAME)
            goto bad;
        memcpy(s->names[s->parts], p, (size_t)(e - p));
        s->names[s->parts][e - p] = '\0';
        s->parts++;
        p = e + 1;
        if (!comma)
            break;
    }
    if (p < names_end || (s->parts != 1 && s->parts != width) || (colon && s->parts != 1))
        goto bad;
    if (colon) {
        int k = 0;
        for (const char *c = colon + 1; k < width; k++) {
            char *end = NULL;
            s->col[k] = strtol(c, &end, 10);
            if (end == c || s->col[k] < 0 || (*end != ',' && *end != '\0') ||
                (*end == '\0' && k + 1 != width))
                goto bad;
            c = end + 1;
            if (*end == '\0')
                break;
        }
        if (k + 1 != width)
            goto bad;
    }
    return SC_IO_OK;
bad:
    return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                   "%s: dataset %s must be PATH, PATH:X,Y,Z,R (columns) or one path per "
                   "column (%d)",
                   path, io_quote(spec, strlen(spec), q, sizeof q), width);
}

/* The module, loaded once per process; NULL with the reason in err. */
static const sc_hdf5_api *hdf5_module(char *err, size_t cap) {
    static const sc_hdf5_api *api;
    if (!api) {
        const sc_module_place m = {SC_HDF5_MODULE,   SC_HDF5_ENTRY, "the HDF5 module",
                                   SC_HDF5_RELDIR,   SC_HDF5_DIR,
#ifdef SC_HDF5_BUILD_DIR
                                   SC_HDF5_BUILD_DIR
#else
                                   NULL
#endif
        };
        api = sc_module_load(&m, err, cap);
    }
    return api;
}

/* Reads dataset `name` (rank 1 or 2) into a new double array; *rows and
 * *cols get its shape. */
static sc_io_status read_dataset(const sc_hdf5_api *h5, const char *path, void *file,
                                 const char *name, int want_rank, size_t slice, size_t slices,
                                 double **data, size_t *first, size_t *rows, size_t *total,
                                 size_t *cols, char *err, size_t errcap) {
    char q[128], what[160];
    const sc_io_status st = h5->read(file, name, want_rank, slice, slices, data, first, rows, total,
                                     cols, what, sizeof what);
    if (st != SC_IO_OK)
        return io_fail(err, errcap, st, "%s: dataset %s: %s", path,
                       io_quote(name, strlen(name), q, sizeof q), what);
    return SC_IO_OK;
}

sc_io_status io_read_hdf5(const char *path, const sc_io_read_options *opts, size_t slice,
                          size_t slices, sc_io_spheres *out, char *err, size_t errcap) {
    const int dims = opts && opts->dims == 2 ? 2 : 3, width = dims + 1;
    if (!opts || !opts->dataset)
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: an HDF5 input needs its dataset named (PATH, PATH:X,Y,Z,R or one "
                       "path per column)",
                       path);
    hdf5_spec spec;
    sc_io_status st = parse_spec(path, opts->dataset, width, &spec, err, errcap);
    if (st != SC_IO_OK)
        return st;
    char why[4608];
    const sc_hdf5_api *h5 = hdf5_module(why, sizeof why);
    if (!h5)
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT, "%s: %s", path, why);
    void *file = h5->open(path);
    if (!file)
        return io_fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot open as an HDF5 file", path);
    if (slices > 1 && slice >= slices)
        st = io_fail(err, errcap, SC_IO_ERR_ARGUMENT, "%s: slice %zu of %zu", path, slice, slices);
    double *part[4] = {NULL, NULL, NULL, NULL};
    size_t n = 0, first = 0, total = 0, cols[4] = {0, 0, 0, 0};
    for (int k = 0; k < spec.parts && st == SC_IO_OK; k++) {
        size_t rows = 0, all = 0;
        st = read_dataset(h5, path, file, spec.names[k], spec.parts == 1 ? 2 : 1, slice, slices,
                          &part[k], &first, &rows, &all, &cols[k], err, errcap);
        if (st == SC_IO_OK && k > 0 && all != total)
            st = io_fail(err, errcap, SC_IO_ERR_SHAPE, "%s: dataset %s: %zu values, but %s has %zu",
                         path, spec.names[k], all, spec.names[0], total);
        n = rows, total = all;
    }
    h5->close(file);
    for (int k = 0; spec.parts == 1 && st == SC_IO_OK && k < width; k++)
        if ((size_t)spec.col[k] >= cols[0])
            st = io_fail(err, errcap, SC_IO_ERR_SHAPE,
                         "%s: dataset %s: column %ld asked for, but it has %zu", path,
                         spec.names[0], spec.col[k], cols[0]);
    if (st == SC_IO_OK && total > io_max_spheres(opts))
        st = io_fail(err, errcap, SC_IO_ERR_TOO_MANY, "%s: %zu spheres, more than %zu", path, total,
                     io_max_spheres(opts));
    double *rows = NULL;
    if (st == SC_IO_OK && !(rows = malloc((n ? n : 1) * (size_t)width * sizeof(double))))
        st = io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: no memory for %zu spheres", path, n);
    static const char *const names3[4] = {"x", "y", "z", "r"}, *const names2[3] = {"x", "y", "r"};
    for (size_t i = 0; i < n && st == SC_IO_OK; i++)
        for (int k = 0; k < width && st == SC_IO_OK; k++) {
            const double v =
                spec.parts == 1 ? part[0][i * cols[0] + (size_t)spec.col[k]] : part[k][i];
            const io_value_check vc = io_check_value(v, k == width - 1);
            if (vc != VALUE_OK)
                st = io_fail(err, errcap, io_value_status(vc),
                             "%s: dataset %s: row %zu: %s %.17g (column %s)", path,
                             spec.names[spec.parts == 1 ? 0 : k], first + i, io_value_problem(vc),
                             v, dims == 3 ? names3[k] : names2[k]);
            rows[i * (size_t)width + (size_t)k] = v;
        }
    for (int k = 0; k < 4; k++)
        free(part[k]);
    if (st != SC_IO_OK) {
        free(rows);
        return st;
    }
    io_give_rows(out, rows, n, dims);
    out->first = first;
    out->total = total;
    return SC_IO_OK;
}

#endif
