/*
 * npy_rows.h: a tiny, self-contained reader of the one .npy layout the
 * comparison runners need: a C-order (N, 4) array of little-endian float64
 * ('<f8'), rows x, y, z, r, as `spherecollide gen DIST N -o FILE.npy` writes.
 * Header-only, C11 and C++17, no dependency on the library or tools/sc_io.
 *
 *   double *rows; size_t n; char err[256];
 *   if (npy_read_rows4(path, &rows, &n, err, sizeof err) != 0) { puts(err); ... }
 *   ... rows[4*k + 0..3] ...
 *   free(rows);
 *
 * It checks the magic, the version (1.0, 2.0, 3.0), the dtype, the order, the
 * shape and the data length, and that every value is finite and every radius
 * is >= 0; anything else is refused with one line in err.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SC_COMPARE_NPY_ROWS_H
#define SC_COMPARE_NPY_ROWS_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline int
npy_rows_fail(char *err, size_t errcap, const char *fmt, ...) {
    if (err && errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errcap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The text after `'key':` in the header dict, blanks skipped, or NULL. */
static inline const char *npy_rows_value(const char *hdr, const char *key) {
    const char *p = strstr(hdr, key);
    if (!p)
        return NULL;
    p += strlen(key);
    while (*p == ' ')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ')
        p++;
    return p;
}

/** Reads path into a malloc'd array of n * 4 doubles (*rows; free() it).
 *  Returns 0, or -1 with one line in err. */
static inline int npy_read_rows4(const char *path, double **rows, size_t *n, char *err,
                                 size_t errcap) {
    *rows = NULL;
    *n = 0;
    {
        const uint16_t probe = 1;
        unsigned char lo;
        memcpy(&lo, &probe, 1);
        if (lo != 1)
            return npy_rows_fail(err, errcap, "%s: this reader needs a little-endian host", path);
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return npy_rows_fail(err, errcap, "%s: cannot open", path);
    unsigned char pre[12];
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        fclose(f);
        return npy_rows_fail(err, errcap, "%s: not a .npy file (bad magic)", path);
    }
    unsigned major = pre[6];
    size_t hlen;
    if (major == 1) {
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
    } else if (major == 2 || major == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            fclose(f);
            return npy_rows_fail(err, errcap, "%s: truncated header", path);
        }
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)pre[10] << 16) |
               ((size_t)pre[11] << 24);
    } else {
        fclose(f);
        return npy_rows_fail(err, errcap, "%s: unsupported .npy version %u", path, major);
    }
    if (hlen == 0 || hlen > (1u << 20)) {
        fclose(f);
        return npy_rows_fail(err, errcap, "%s: implausible header length %zu", path, hlen);
    }
    char *hdr = (char *)malloc(hlen + 1);
    if (!hdr || fread(hdr, 1, hlen, f) != hlen) {
        free(hdr);
        fclose(f);
        return npy_rows_fail(err, errcap, "%s: truncated header", path);
    }
    hdr[hlen] = 0;
    const char *d = npy_rows_value(hdr, "'descr'");
    const char *fo = npy_rows_value(hdr, "'fortran_order'");
    const char *sh = npy_rows_value(hdr, "'shape'");
    int bad_dtype = !d || strncmp(d, "'<f8'", 5) != 0;
    int bad_order = !fo || strncmp(fo, "False", 5) != 0;
    unsigned long long count = 0, cols = 0;
    int bad_shape = 1;
    if (sh && *sh == '(') {
        char *end;
        count = strtoull(sh + 1, &end, 10);
        while (*end == ' ')
            end++;
        if (end != sh + 1 && *end == ',') {
            const char *c = end + 1;
            while (*c == ' ')
                c++;
            cols = strtoull(c, &end, 10);
            while (*end == ' ' || *end == ',')
                end++;
            bad_shape = !(end != c && *end == ')' && cols == 4);
        }
    }
    free(hdr);
    if (bad_dtype || bad_order || bad_shape) {
        fclose(f);
        return npy_rows_fail(err, errcap, "%s: need a C-order (N, 4) '<f8' array (%s)", path,
                             bad_dtype   ? "dtype"
                             : bad_order ? "order"
                                         : "shape");
    }
    if (count > (unsigned long long)UINT32_MAX) {
        fclose(f);
        return npy_rows_fail(err, errcap, "%s: %llu rows exceed 32-bit indices", path, count);
    }
    size_t values = (size_t)count * 4;
    double *data = (double *)malloc(values ? values * sizeof(double) : sizeof(double));
    if (!data) {
        fclose(f);
        return npy_rows_fail(err, errcap, "%s: out of memory for %llu rows", path, count);
    }
    if (fread(data, sizeof(double), values, f) != values) {
        free(data);
        fclose(f);
        return npy_rows_fail(err, errcap, "%s: data shorter than %llu rows", path, count);
    }
    fclose(f);
    for (size_t k = 0; k < values; k++) {
        if (!isfinite(data[k]) || (k % 4 == 3 && !(data[k] >= 0.0))) {
            free(data);
            return npy_rows_fail(err, errcap, "%s: row %zu: non-finite value or negative radius",
                                 path, k / 4);
        }
    }
    *rows = data;
    *n = (size_t)count;
    return 0;
}

#endif /* SC_COMPARE_NPY_ROWS_H */
