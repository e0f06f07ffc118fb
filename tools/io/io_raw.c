/*
 * io_raw.c: raw little-endian float32 / float64 rows, and the in-place
 * adoption and validation of binary rows that the .npy reader shares.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* 1 when every value of rows [r0, r1) is finite, within SC_MAX_ABS_VALUE and
 * no radius is negative (-0 passes, as in io_check_value): a branch-free
 * pass the compiler vectorizes, with the columns known at compile time. */
#define ROWS_OK(T, COLS)                                                                           \
    static int rows_ok_##T##_##COLS(const T *v, size_t r0, size_t r1) {                            \
        int ok = 1;                                                                                \
        for (size_t r = r0; r < r1; r++) {                                                         \
            const T *row = v + r * COLS;                                                           \
            for (int c = 0; c < COLS - 1; c++)                                                     \
                ok &= fabs((double)row[c]) <= SC_MAX_ABS_VALUE;                                    \
            ok &= (double)row[COLS - 1] >= 0.0 && (double)row[COLS - 1] <= SC_MAX_ABS_VALUE;       \
        }                                                                                          \
        return ok;                                                                                 \
    }
ROWS_OK(double, 4)
ROWS_OK(double, 3)
ROWS_OK(float, 4)
ROWS_OK(float, 3)
#undef ROWS_OK

static int rows_ok(const void *rows, sc_dtype dtype, int dims, size_t r0, size_t r1) {
    if (dtype == SC_F32)
        return dims == 3 ? rows_ok_float_4(rows, r0, r1) : rows_ok_float_3(rows, r0, r1);
    return dims == 3 ? rows_ok_double_4(rows, r0, r1) : rows_ok_double_3(rows, r0, r1);
}

/* Validates binary rows in place; `base` is the file offset of rows[0].
 * Blocks of rows take the branch-free pass; the first block that fails it
 * is walked value by value for the first offending value and its message. */
sc_io_status io_check_rows(const char *path, const void *rows, sc_dtype dtype, size_t n, int dims,
                           size_t base, char *err, size_t errcap) {
    enum { BLOCK = 4096 };
    size_t first = n;
    for (size_t r0 = 0; r0 < n; r0 += BLOCK) {
        const size_t r1 = n - r0 > BLOCK ? r0 + BLOCK : n;
        if (!rows_ok(rows, dtype, dims, r0, r1)) {
            first = r0;
            break;
        }
    }
    if (first == n)
        return SC_IO_OK;
    const size_t cols = (size_t)dims + 1;
    const size_t total = n * cols;
    const size_t item = dtype == SC_F32 ? 4 : 8;
    for (size_t k = first * cols; k < total; k++) {
        double v = dtype == SC_F32 ? (double)((const float *)rows)[k] : ((const double *)rows)[k];
        /* Cheap common case first: finite, in range, and not a negative radius. */
        if (fabs(v) <= SC_MAX_ABS_VALUE && (v >= 0.0 || k % cols != (size_t)dims))
            continue;
        io_value_check c = io_check_value(v, k % cols == (size_t)dims);
        if (c == VALUE_OK)
            continue;
        return io_fail(err, errcap, io_value_status(c),
                       "%s: byte %zu: %s %.17g (sphere %zu, column %s)", path, base + k * item,
                       io_value_problem(c), v, k / cols, io_column_name(k % cols, dims));
    }
    return SC_IO_OK;
}

/* Gives `out` rows of dtype at data[offset..]: in place when the platform is
 * little endian and the offset is aligned, else a byte-swapped or aligned
 * copy. Takes ownership of the file data on success. */
sc_io_status io_adopt_rows(io_file *f, size_t offset, size_t n, int dims, sc_dtype dtype,
                           const sc_io_read_options *opts, sc_io_spheres *out, const char *path,
                           char *err, size_t errcap) {
    const size_t item = dtype == SC_F32 ? 4 : 8;
    const size_t bytes = n * ((size_t)dims + 1) * item;
    const unsigned char *src = f->data + offset;
    void *rows = NULL;
    void *owned = NULL;
    if (n == 0) {
        rows = NULL;
    } else if (!SC_IO_BIG_ENDIAN && ((uintptr_t)src % item) == 0) {
        rows = (void *)(uintptr_t)src;
    } else {
        /* 64-byte aligned: each record in one cache line (sc_spheres_rows_f64) */
        if (posix_memalign(&owned, 64, bytes) != 0)
            owned = NULL;
        if (owned == NULL)
            return io_fail(err, errcap, SC_IO_ERR_NOMEM,
                           "%s: out of memory (%zu bytes for %zu spheres)", path, bytes, n);
        memcpy(owned, src, bytes);
#if SC_IO_BIG_ENDIAN
        unsigned char *b = owned;
        for (size_t k = 0; k < bytes; k += item) {
            for (size_t a = 0, z = item - 1; a < z; a++, z--) {
                unsigned char t = b[k + a];
                b[k + a] = b[k + z];
                b[k + z] = t;
            }
        }
#endif
        rows = owned;
    }
    const int defer = opts != NULL && opts->defer_value_check;
    sc_io_status st =
        defer ? SC_IO_OK : io_check_rows(path, rows, dtype, n, dims, offset, err, errcap);
    if (st != SC_IO_OK) {
        free(owned);
        return st;
    }
    out->n = n;
    out->dims = dims;
    out->dtype = dtype;
    out->rows = rows;
    out->owned_ = owned;
    out->data_offset_ = offset;
    out->unchecked_ = defer && n > 0;
    if (owned != NULL || n == 0) {
        io_file_release(f);
    } else {
        out->map_ = f->map;
        out->map_len_ = f->map_len;
        out->owned_ = f->heap;
        memset(f, 0, sizeof *f);
    }
    return SC_IO_OK;
}

/* ======================================================================== */
/* Raw little-endian binary                                                 */
/* ======================================================================== */

sc_io_status io_read_raw(const char *path, io_file *f, sc_dtype dtype, int dims,
                         const sc_io_read_options *opts, sc_io_spheres *out, char *err,
                         size_t errcap) {
    const size_t item = dtype == SC_F32 ? 4 : 8;
    const size_t row = ((size_t)dims + 1) * item;
    if (f->size % row != 0) {
        size_t whole = f->size - f->size % row;
        return io_fail(err, errcap, SC_IO_ERR_TRUNCATED,
                       "%s: byte %zu: truncated file: %zu bytes is not a whole number of %zu-byte "
                       "rows (%s, %d values per sphere)",
                       path, whole, f->size, row, dtype == SC_F32 ? "f32" : "f64", dims + 1);
    }
    size_t n = f->size / row;
    size_t max = io_max_spheres(opts);
    if (n > max)
        return io_fail(err, errcap, SC_IO_ERR_TOO_MANY,
                       "%s: byte %zu: too many spheres: %zu, at most %zu", path, max * row, n, max);
    return io_adopt_rows(f, 0, n, dims, dtype, opts, out, path, err, errcap);
}

sc_io_status sc_io_check_spheres(const char *path, const sc_io_spheres *s, char *err,
                                 size_t errcap) {
    if (s == NULL || !s->unchecked_ || s->rows == NULL)
        return SC_IO_OK;
    return io_check_rows(io_display_name(path, 0), s->rows, s->dtype, s->n, s->dims,
                         s->data_offset_, err, errcap);
}
