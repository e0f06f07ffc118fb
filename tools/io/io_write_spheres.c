/*
 * io_write_spheres.c: the sphere writer behind spherecollide gen.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Text: "%.17g" costs snprintf a few hundred ns a value (10^7 spheres: 11.6 s
 * on one thread), so blocks of TEXT_BLOCK values are formatted on all
 * threads into a buffer of TEXT_WIDTH bytes a value, then written in order:
 * the same bytes as one thread's. "%.17g" takes at most 24 bytes (a sign,
 * 17 digits, a point, "e-308"), a separator one more. */
enum { TEXT_BLOCK = 1 << 15, TEXT_WIDTH = 32, TEXT_BLOCKS_MAX = 64 };

static sc_io_status put_text(io_sink *s, const double *v, size_t count, size_t cols, char sep,
                             const char *path, char *err, size_t errcap) {
    int blocks = 1;
#ifdef _OPENMP
    blocks = omp_get_max_threads();
    blocks = blocks < 1 ? 1 : blocks < TEXT_BLOCKS_MAX ? blocks : TEXT_BLOCKS_MAX;
#endif
    const size_t per = (size_t)blocks * TEXT_BLOCK;
    char *buf = malloc((count < per ? count : per) * TEXT_WIDTH + 1);
    if (buf == NULL)
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: no memory for the text's buffer", path);
    size_t len[TEXT_BLOCKS_MAX];
    sc_io_status st = SC_IO_OK;
    for (size_t at = 0; at < count && st == SC_IO_OK; at += per) {
        const size_t m = count - at < per ? count - at : per;
        const int used = (int)((m + TEXT_BLOCK - 1) / TEXT_BLOCK);
#pragma omp parallel for num_threads(used) schedule(static, 1) if (used > 1)
        for (int b = 0; b < used; b++) {
            char *o = buf + (size_t)b * TEXT_BLOCK * TEXT_WIDTH;
            const size_t k0 = at + (size_t)b * TEXT_BLOCK;
            const size_t k1 = k0 + TEXT_BLOCK < at + m ? k0 + TEXT_BLOCK : at + m;
            size_t n = 0;
            for (size_t k = k0; k < k1; k++) {
                n += (size_t)snprintf(o + n, TEXT_WIDTH, "%.17g", v[k]);
                o[n++] = k % cols == cols - 1 ? '\n' : sep;
            }
            len[b] = n;
        }
        for (int b = 0; b < used && st == SC_IO_OK; b++)
            st = io_sink_put(s, buf + (size_t)b * TEXT_BLOCK * TEXT_WIDTH, len[b], err, errcap);
    }
    free(buf);
    return st;
}

sc_io_status sc_io_write_spheres(const char *path, sc_io_format format, size_t n, int dims,
                                 const double *rows, char *err, size_t errcap) {
    if (err && errcap)
        err[0] = '\0';
    if (path == NULL || (dims != 2 && dims != 3) || (n > 0 && rows == NULL))
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL, "%s: bad arguments to the sphere writer",
                       path ? path : "(null)");
    sc_io_format fmt = format;
    if (fmt == SC_IO_FORMAT_AUTO) {
        fmt = sc_io_spheres_format_for_path(path);
        if (fmt == SC_IO_FORMAT_TEXT && io_str_ieq(io_path_extension(path), "csv"))
            fmt = SC_IO_FORMAT_CSV;
    }
    if (fmt == SC_IO_FORMAT_AUTO || fmt == SC_IO_FORMAT_BIN)
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: raw binary output needs an explicit format f32 or f64", path);
    const size_t cols = (size_t)dims + 1;
    io_sink s;
    sc_io_status st = io_sink_open(&s, path, err, errcap);
    if (st != SC_IO_OK)
        return st;
    if (fmt == SC_IO_FORMAT_NPY) {
        unsigned char h[NPY_HEADER_BYTES];
        io_npy_header(h, sizeof h, "<f8", n, (unsigned)cols);
        st = io_sink_put(&s, h, sizeof h, err, errcap);
    }
    const int text = fmt == SC_IO_FORMAT_TEXT || fmt == SC_IO_FORMAT_CSV;
    if (st == SC_IO_OK && text)
        st = put_text(&s, rows, n * cols, cols, fmt == SC_IO_FORMAT_CSV ? ',' : ' ', path, err,
                      errcap);
    for (size_t k = 0; !text && k < n * cols && st == SC_IO_OK; k++) {
        double v = rows[k];
        switch (fmt) {
        case SC_IO_FORMAT_NPY:
        case SC_IO_FORMAT_F64: {
            st = io_sink_reserve(&s, 8, err, errcap);
            if (st != SC_IO_OK) /* a failed flush leaves the buffer full */
                break;
            uint64_t bits;
            memcpy(&bits, &v, 8);
            io_put_le64(s.buf + s.used, bits);
            s.used += 8;
            break;
        }
        case SC_IO_FORMAT_F32: {
            st = io_sink_reserve(&s, 4, err, errcap);
            if (st != SC_IO_OK)
                break;
            float fv = (float)v;
            uint32_t bits;
            memcpy(&bits, &fv, 4);
            io_put_le32(s.buf + s.used, bits);
            s.used += 4;
            break;
        }
        default: /* text: put_text */ break;
        }
    }
    if (st != SC_IO_OK) {
        io_sink_discard(&s);
        return st;
    }
    return io_sink_commit(&s, err, errcap);
}
