/*
 * io_write_spheres.c: the sphere writer behind spherecollide gen.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <stdio.h>
#include <string.h>

sc_io_status sc_io_write_spheres(const char *path, sc_io_format format, size_t n, int dims,
                                 const double *rows, char *err, size_t errcap)
{
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
    for (size_t k = 0; k < n * cols && st == SC_IO_OK; k++) {
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
        default: {
            st = io_sink_reserve(&s, 32, err, errcap);
            if (st != SC_IO_OK)
                break;
            char sep = (k % cols == cols - 1) ? '\n' : (fmt == SC_IO_FORMAT_CSV ? ',' : ' ');
            int l = snprintf((char *)s.buf + s.used, 32, "%.17g", v);
            s.used += (size_t)l;
            s.buf[s.used++] = (unsigned char)sep;
            break;
        }
        }
    }
    if (st != SC_IO_OK) {
        io_sink_discard(&s);
        return st;
    }
    return io_sink_commit(&s, err, errcap);
}

