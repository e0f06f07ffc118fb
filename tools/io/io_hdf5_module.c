/*
 * io_hdf5_module.c: the HDF5 module's calls into libhdf5 (Debian's
 * libhdf5-dev), loaded by io_hdf5.c only when an HDF5 file is read
 * (io_hdf5_module.h says why).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_hdf5_module.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *h5_open(const char *path) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* statuses, not HDF5's stack on stderr */
    if (H5Fis_hdf5(path) <= 0)
        return NULL;
    const hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return NULL;
    hid_t *h = malloc(sizeof *h);
    if (!h) {
        H5Fclose(file);
        return NULL;
    }
    *h = file;
    return h;
}

static void h5_close(void *file) {
    if (file) {
        H5Fclose(*(hid_t *)file);
        free(file);
    }
}

static sc_io_status fail(char *err, size_t errcap, sc_io_status st, const char *what) {
    if (err && errcap)
        snprintf(err, errcap, "%s", what);
    return st;
}

static sc_io_status h5_read(void *handle, const char *name, int want_rank, size_t slice,
                            size_t slices, double **data, size_t *first, size_t *rows,
                            size_t *total, size_t *cols, char *err, size_t errcap) {
    const hid_t file = *(hid_t *)handle;
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
        return fail(err, errcap, SC_IO_ERR_HEADER, "not found");
    const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0)
        return fail(err, errcap, SC_IO_ERR_HEADER, "not a dataset");
    sc_io_status st = SC_IO_OK;
    const hid_t space = H5Dget_space(d), type = H5Dget_type(d);
    const H5T_class_t cls = H5Tget_class(type);
    hsize_t dims[2] = {0, 1};
    const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    char what[96];
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        st = fail(err, errcap, SC_IO_ERR_DTYPE, "not numbers (integer or float)");
    } else if (rank != want_rank || H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        snprintf(what, sizeof what, "rank %d, needs %d", rank, want_rank);
        st = fail(err, errcap, SC_IO_ERR_SHAPE, what);
    } else if (dims[0] > SC_MAX_SPHERES || dims[1] > 1024) {
        snprintf(what, sizeof what, "%llu x %llu values, too many", (unsigned long long)dims[0],
                 (unsigned long long)dims[1]);
        st = fail(err, errcap, SC_IO_ERR_TOO_MANY, what);
    }
    double *buf = NULL;
    /* the rows read: all, or the slice's (a hyperslab of whole rows) */
    hsize_t lo = 0, count = dims[0];
    if (slices > 1) {
        lo = (hsize_t)((size_t)dims[0] * slice / slices);
        count = (hsize_t)((size_t)dims[0] * (slice + 1) / slices) - lo;
    }
    if (st == SC_IO_OK) {
        const size_t values = (size_t)count * (size_t)dims[1];
        buf = malloc((values ? values : 1) * sizeof(double));
        if (!buf) {
            st = fail(err, errcap, SC_IO_ERR_NOMEM, "no memory");
        } else if (values) {
            const hsize_t start[2] = {lo, 0}, shape[2] = {count, dims[1]};
            const hid_t mem = H5Screate_simple(rank, shape, NULL);
            const int ok =
                mem >= 0 &&
                H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, shape, NULL) >= 0 &&
                H5Dread(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, buf) >= 0;
            if (mem >= 0)
                H5Sclose(mem);
            if (!ok)
                st = fail(err, errcap, SC_IO_ERR_TRUNCATED, "cannot be read");
        }
    }
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(d);
    if (st != SC_IO_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    *first = (size_t)lo;
    *rows = (size_t)count;
    *total = (size_t)dims[0];
    *cols = (size_t)dims[1];
    return SC_IO_OK;
}

/* The entry io_hdf5.c looks up (dlsym). */
__attribute__((visibility("default"))) const sc_hdf5_api *sc_hdf5_module(void);
const sc_hdf5_api *sc_hdf5_module(void) {
    static const sc_hdf5_api api = {h5_open, h5_read, h5_close};
    return &api;
}
