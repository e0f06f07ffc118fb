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
 * dataset and the row.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

#ifndef SC_HAVE_HDF5

sc_io_status io_read_hdf5(const char *path, const sc_io_read_options *opts, sc_io_spheres *out,
                          char *err, size_t errcap)
{
    (void)opts;
    (void)out;
    return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                   "%s: this build reads no HDF5 (install libhdf5-dev and rebuild)", path);
}

#else

#include <hdf5.h>

#define MAX_NAME 1024

/* The datasets the spec names: `parts` names (1 for a 2-D dataset, else one
 * per column) and, for a 2-D dataset, the columns to take. */
typedef struct hdf5_spec {
    char names[4][MAX_NAME];
    int parts;
    long col[4];
} hdf5_spec;

static sc_io_status parse_spec(const char *path, const char *spec, int width, hdf5_spec *s,
                               char *err, size_t errcap)
{
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

/* Reads dataset `name` (rank 1 or 2, n rows, at least `cols_min` columns
 * when rank 2) into a new double array; *rows and *cols get its shape. */
static sc_io_status read_dataset(const char *path, hid_t file, const char *name, int want_rank,
                                 double **data, size_t *rows, size_t *cols, char *err,
                                 size_t errcap)
{
    char q[128];
    const char *qn = io_quote(name, strlen(name), q, sizeof q);
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
        return io_fail(err, errcap, SC_IO_ERR_HEADER, "%s: dataset %s: not found", path, qn);
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0)
        return io_fail(err, errcap, SC_IO_ERR_HEADER, "%s: dataset %s: not a dataset", path, qn);
    sc_io_status st = SC_IO_OK;
    hid_t space = H5Dget_space(d), type = H5Dget_type(d);
    const H5T_class_t cls = H5Tget_class(type);
    hsize_t dims[2] = {0, 1};
    const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        st = io_fail(err, errcap, SC_IO_ERR_DTYPE, "%s: dataset %s: not numbers (integer or float)",
                     path, qn);
    else if (rank != want_rank || H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        st = io_fail(err, errcap, SC_IO_ERR_SHAPE, "%s: dataset %s: rank %d, needs %d", path, qn,
                     rank, want_rank);
    else if (dims[0] > SC_MAX_SPHERES || dims[1] > 1024)
        st = io_fail(err, errcap, SC_IO_ERR_TOO_MANY, "%s: dataset %s: %llu x %llu values, too many",
                     path, qn, (unsigned long long)dims[0], (unsigned long long)dims[1]);
    double *buf = NULL;
    if (st == SC_IO_OK) {
        const size_t total = (size_t)dims[0] * (size_t)dims[1];
        buf = malloc((total ? total : 1) * sizeof(double));
        if (!buf)
            st = io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: dataset %s: no memory", path, qn);
        else if (total && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
            st = io_fail(err, errcap, SC_IO_ERR_TRUNCATED, "%s: dataset %s: cannot be read", path,
                         qn);
    }
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(d);
    if (st != SC_IO_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    *rows = (size_t)dims[0];
    *cols = (size_t)dims[1];
    return SC_IO_OK;
}

sc_io_status io_read_hdf5(const char *path, const sc_io_read_options *opts, sc_io_spheres *out,
                          char *err, size_t errcap)
{
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
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* statuses, not HDF5's stack on stderr */
    if (H5Fis_hdf5(path) <= 0)
        return io_fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot open as an HDF5 file", path);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return io_fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot open as an HDF5 file", path);
    double *part[4] = {NULL, NULL, NULL, NULL};
    size_t n = 0, cols[4] = {0, 0, 0, 0};
    for (int k = 0; k < spec.parts && st == SC_IO_OK; k++) {
        size_t rows = 0;
        st = read_dataset(path, file, spec.names[k], spec.parts == 1 ? 2 : 1, &part[k], &rows,
                          &cols[k], err, errcap);
        if (st == SC_IO_OK && k > 0 && rows != n)
            st = io_fail(err, errcap, SC_IO_ERR_SHAPE,
                         "%s: dataset %s: %zu values, but %s has %zu", path, spec.names[k], rows,
                         spec.names[0], n);
        n = rows;
    }
    H5Fclose(file);
    for (int k = 0; spec.parts == 1 && st == SC_IO_OK && k < width; k++)
        if ((size_t)spec.col[k] >= cols[0])
            st = io_fail(err, errcap, SC_IO_ERR_SHAPE,
                         "%s: dataset %s: column %ld asked for, but it has %zu", path,
                         spec.names[0], spec.col[k], cols[0]);
    if (st == SC_IO_OK && n > io_max_spheres(opts))
        st = io_fail(err, errcap, SC_IO_ERR_TOO_MANY, "%s: %zu spheres, more than %zu", path, n,
                     io_max_spheres(opts));
    double *rows = NULL;
    if (st == SC_IO_OK && !(rows = malloc((n ? n : 1) * (size_t)width * sizeof(double))))
        st = io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: no memory for %zu spheres", path, n);
    static const char *const names3[4] = {"x", "y", "z", "r"}, *const names2[3] = {"x", "y", "r"};
    for (size_t i = 0; i < n && st == SC_IO_OK; i++)
        for (int k = 0; k < width && st == SC_IO_OK; k++) {
            const double v = spec.parts == 1 ? part[0][i * cols[0] + (size_t)spec.col[k]]
                                             : part[k][i];
            const io_value_check vc = io_check_value(v, k == width - 1);
            if (vc != VALUE_OK)
                st = io_fail(err, errcap, io_value_status(vc),
                             "%s: dataset %s: row %zu: %s %.17g (column %s)", path,
                             spec.names[spec.parts == 1 ? 0 : k], i, io_value_problem(vc), v,
                             dims == 3 ? names3[k] : names2[k]);
            rows[i * (size_t)width + (size_t)k] = v;
        }
    for (int k = 0; k < 4; k++)
        free(part[k]);
    if (st != SC_IO_OK) {
        free(rows);
        return st;
    }
    io_give_rows(out, rows, n, dims);
    return SC_IO_OK;
}

#endif
