/*
 * io_common.c: status names and exit codes, formats and what a path
 * implies, one-line messages, value validation and the reader entry point.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ======================================================================== */
/* Status, formats, messages                                                */
/* ======================================================================== */

const char *sc_io_status_name(sc_io_status status) {
    switch (status) {
    case SC_IO_OK: return "ok";
    case SC_IO_ERR_ARGUMENT: return "bad argument";
    case SC_IO_ERR_OPEN: return "cannot open or read file";
    case SC_IO_ERR_SYNTAX: return "non-numeric token";
    case SC_IO_ERR_COUNT: return "count of numbers not divisible";
    case SC_IO_ERR_TRUNCATED: return "truncated file";
    case SC_IO_ERR_HEADER: return "malformed header (.npy, LAMMPS dump, XYZ, HDF5)";
    case SC_IO_ERR_DTYPE: return "unsupported dtype";
    case SC_IO_ERR_ORDER: return "unsupported Fortran order";
    case SC_IO_ERR_SHAPE: return "unsupported shape";
    case SC_IO_ERR_NON_FINITE: return "non-finite value";
    case SC_IO_ERR_NEGATIVE_RADIUS: return "negative radius";
    case SC_IO_ERR_OUT_OF_RANGE: return "value out of range";
    case SC_IO_ERR_TOO_MANY: return "too many spheres";
    case SC_IO_ERR_WRITE: return "cannot write output";
    case SC_IO_ERR_NOMEM: return "out of memory";
    case SC_IO_ERR_INTERNAL: return "internal error";
    case SC_IO_ERR_DUPLICATE_ID: return "duplicate id";
    }
    return "unknown status";
}

int sc_io_exit_code(sc_io_status status) {
    switch (status) {
    case SC_IO_OK: return 0;
    case SC_IO_ERR_ARGUMENT: return 2;
    case SC_IO_ERR_OPEN: return 3;
    case SC_IO_ERR_SYNTAX:
    case SC_IO_ERR_COUNT:
    case SC_IO_ERR_TRUNCATED:
    case SC_IO_ERR_HEADER:
    case SC_IO_ERR_DTYPE:
    case SC_IO_ERR_ORDER:
    case SC_IO_ERR_SHAPE: return 4;
    case SC_IO_ERR_NON_FINITE:
    case SC_IO_ERR_NEGATIVE_RADIUS:
    case SC_IO_ERR_OUT_OF_RANGE:
    case SC_IO_ERR_TOO_MANY:
    case SC_IO_ERR_DUPLICATE_ID: return 5;
    case SC_IO_ERR_WRITE: return 6;
    case SC_IO_ERR_NOMEM: return 7;
    case SC_IO_ERR_INTERNAL: return 1;
    }
    return 1;
}

static int ascii_lower(int c) {
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

int io_str_ieq(const char *a, const char *b) {
    while (*a && *b && ascii_lower((unsigned char)*a) == ascii_lower((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

int sc_io_format_parse(const char *name, sc_io_format *out) {
    static const struct {
        const char *name;
        sc_io_format format;
    } names[] = {{"npy", SC_IO_FORMAT_NPY},   {"txt", SC_IO_FORMAT_TEXT},
                 {"text", SC_IO_FORMAT_TEXT}, {"csv", SC_IO_FORMAT_CSV},
                 {"f32", SC_IO_FORMAT_F32},   {"f64", SC_IO_FORMAT_F64},
                 {"bin", SC_IO_FORMAT_BIN},   {"lammps", SC_IO_FORMAT_LAMMPS},
                 {"xyz", SC_IO_FORMAT_XYZ},   {"hdf5", SC_IO_FORMAT_HDF5}};
    if (name == NULL || out == NULL)
        return -1;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if (strcmp(name, names[k].name) == 0) {
            *out = names[k].format;
            return 0;
        }
    }
    return -1;
}

const char *sc_io_format_name(sc_io_format format) {
    switch (format) {
    case SC_IO_FORMAT_AUTO: return "auto";
    case SC_IO_FORMAT_NPY: return "npy";
    case SC_IO_FORMAT_TEXT: return "text";
    case SC_IO_FORMAT_CSV: return "csv";
    case SC_IO_FORMAT_F32: return "f32";
    case SC_IO_FORMAT_F64: return "f64";
    case SC_IO_FORMAT_BIN: return "bin";
    case SC_IO_FORMAT_LAMMPS: return "lammps";
    case SC_IO_FORMAT_XYZ: return "xyz";
    case SC_IO_FORMAT_HDF5: return "hdf5";
    }
    return "?";
}

/* The extension of the last path component, without the dot, or "". */
const char *io_path_extension(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return (dot && dot != base) ? dot + 1 : "";
}

/* The extension that names the format: before a last ".gz" (gzip data is
 * found by its bytes and inflated first). */
static const char *format_extension(const char *path, char *buf, size_t cap) {
    const char *ext = io_path_extension(path);
    if (!io_str_ieq(ext, "gz"))
        return ext;
    const size_t stem = (size_t)(ext - 1 - path);
    if (stem >= cap)
        return "";
    memcpy(buf, path, stem);
    buf[stem] = '\0';
    return io_path_extension(buf);
}

sc_io_format sc_io_spheres_format_for_path(const char *path) {
    char stem[4096];
    const char *ext = path ? format_extension(path, stem, sizeof stem) : "";
    if (io_str_ieq(ext, "npy"))
        return SC_IO_FORMAT_NPY;
    if (io_str_ieq(ext, "f32"))
        return SC_IO_FORMAT_F32;
    if (io_str_ieq(ext, "f64"))
        return SC_IO_FORMAT_F64;
    if (io_str_ieq(ext, "bin"))
        return SC_IO_FORMAT_AUTO;
    if (io_str_ieq(ext, "dump") || io_str_ieq(ext, "lammpstrj"))
        return SC_IO_FORMAT_LAMMPS;
    if (io_str_ieq(ext, "xyz") || io_str_ieq(ext, "extxyz"))
        return SC_IO_FORMAT_XYZ;
    if (io_str_ieq(ext, "h5") || io_str_ieq(ext, "hdf5") || io_str_ieq(ext, "hdf"))
        return SC_IO_FORMAT_HDF5;
    return SC_IO_FORMAT_TEXT;
}

sc_io_format sc_io_pairs_format_for_path(const char *path) {
    const char *ext = path ? io_path_extension(path) : "";
    if (io_str_ieq(ext, "npy"))
        return SC_IO_FORMAT_NPY;
    if (io_str_ieq(ext, "csv"))
        return SC_IO_FORMAT_CSV;
    if (io_str_ieq(ext, "bin"))
        return SC_IO_FORMAT_BIN;
    return SC_IO_FORMAT_AUTO;
}

/* Formats one message line into err; control characters (a newline in a path)
 * become '?' so that the message stays one line. Returns status. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
sc_io_status
io_fail(char *err, size_t errcap, sc_io_status status, const char *fmt, ...) {
    if (err != NULL && errcap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errcap, fmt, ap);
        va_end(ap);
        for (char *c = err; *c; c++) {
            if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
                *c = '?';
        }
    }
    return status;
}

/* Quotes a token for a message: printable ASCII as is, '"' and '\\' escaped,
 * other bytes as \xHH; at most about 40 characters, then "...". */
const char *io_quote(const char *t, size_t len, char *buf, size_t cap) {
    size_t o = 0;
    buf[o++] = '"';
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)t[k];
        if (o + 8 >= cap || k >= 40) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        if (c == '"' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            buf[o++] = (char)c;
        } else {
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02X", c);
        }
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

const char *io_display_name(const char *path, int output) {
    if (path != NULL && strcmp(path, "-") == 0)
        return output ? "standard output" : "standard input";
    return path ? path : "(null)";
}

const char *io_column_name(size_t column, int dims) {
    static const char *const names3[] = {"x", "y", "z", "r"};
    static const char *const names2[] = {"x", "y", "r"};
    return dims == 2 ? names2[column] : names3[column];
}

/* ======================================================================== */
/* Value validation (shared by every format)                                */
/* ======================================================================== */

io_value_check io_check_value(double v, int is_radius) {
    if (!isfinite(v))
        return VALUE_NON_FINITE;
    if (fabs(v) > SC_MAX_ABS_VALUE)
        return VALUE_OUT_OF_RANGE;
    if (is_radius && v < 0.0)
        return VALUE_NEGATIVE_RADIUS;
    return VALUE_OK;
}

sc_io_status io_value_status(io_value_check c) {
    switch (c) {
    case VALUE_NON_FINITE: return SC_IO_ERR_NON_FINITE;
    case VALUE_OUT_OF_RANGE: return SC_IO_ERR_OUT_OF_RANGE;
    case VALUE_NEGATIVE_RADIUS: return SC_IO_ERR_NEGATIVE_RADIUS;
    case VALUE_OK: break;
    }
    return SC_IO_OK;
}

const char *io_value_problem(io_value_check c) {
    switch (c) {
    case VALUE_NON_FINITE: return "non-finite value";
    case VALUE_OUT_OF_RANGE: return "value out of range (|v| > 1e150)";
    case VALUE_NEGATIVE_RADIUS: return "negative radius";
    case VALUE_OK: break;
    }
    return "ok";
}

size_t io_max_spheres(const sc_io_read_options *o) {
    return (o && o->max_spheres) ? o->max_spheres : SC_MAX_SPHERES;
}

/* ======================================================================== */
/* Reader entry point                                                       */
/* ======================================================================== */

sc_io_status sc_io_read_spheres(const char *path, const sc_io_read_options *opts,
                                sc_io_spheres *out, char *err, size_t errcap) {
    return sc_io_read_spheres_slice(path, opts, 0, 1, out, err, errcap);
}

sc_io_status sc_io_read_spheres_slice(const char *path, const sc_io_read_options *opts,
                                      size_t slice, size_t slices, sc_io_spheres *out, char *err,
                                      size_t errcap) {
    if (err && errcap)
        err[0] = '\0';
    if (out == NULL || path == NULL)
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL, "%s: no output struct or path",
                       path ? path : "(null)");
    memset(out, 0, sizeof *out);
    if (opts && opts->dims != 0 && opts->dims != 2 && opts->dims != 3)
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT, "%s: dims must be 2 or 3, not %d", path,
                       opts->dims);
    sc_io_format fmt = (opts && opts->format != SC_IO_FORMAT_AUTO)
                           ? opts->format
                           : sc_io_spheres_format_for_path(path);
    if (fmt == SC_IO_FORMAT_CSV)
        fmt = SC_IO_FORMAT_TEXT;
    if (fmt == SC_IO_FORMAT_AUTO)
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: raw binary input needs an explicit format f32 or f64", path);
    if (fmt == SC_IO_FORMAT_BIN)
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: format bin is for pairs; raw sphere input is f32 or f64", path);
    if (fmt == SC_IO_FORMAT_HDF5 && opts && opts->frame != 0)
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: a frame is for LAMMPS dumps and XYZ files", path);
    if (opts && opts->ids && fmt != SC_IO_FORMAT_LAMMPS && fmt != SC_IO_FORMAT_XYZ &&
        fmt != SC_IO_FORMAT_TEXT) /* text may turn out to be a dump, below */
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: ids are read from LAMMPS dumps (the id column) and extended XYZ "
                       "files (an id property), not %s input",
                       path, sc_io_format_name(fmt));
    if (fmt == SC_IO_FORMAT_HDF5) { /* the library reads the file itself */
        if (strcmp(path, "-") == 0)
            return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                           "standard input: HDF5 cannot be read from a stream; name the file");
        const sc_io_status hs = io_read_hdf5(path, opts, slice, slices, out, err, errcap);
        if (hs != SC_IO_OK) {
            memset(out, 0, sizeof *out);
            return hs;
        }
        out->format = fmt; /* total and first: the reader's */
        return SC_IO_OK;
    }
    io_file f;
    sc_io_status st = io_file_load(path, &f, err, errcap);
    if (st != SC_IO_OK)
        return st;
    int dims = (opts && opts->dims == 2) ? 2 : 3;
    if (fmt == SC_IO_FORMAT_TEXT && io_looks_lammps(&f))
        fmt = SC_IO_FORMAT_LAMMPS; /* a dump under another name */
    if (opts && opts->frame != 0 && fmt != SC_IO_FORMAT_LAMMPS && fmt != SC_IO_FORMAT_XYZ) {
        io_file_release(&f);
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: a frame is for LAMMPS dumps and XYZ files, not %s input", path,
                       sc_io_format_name(fmt));
    }
    if (opts && opts->ids && fmt != SC_IO_FORMAT_LAMMPS && fmt != SC_IO_FORMAT_XYZ) {
        io_file_release(&f);
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: ids are read from LAMMPS dumps (the id column) and extended XYZ "
                       "files (an id property), not %s input",
                       path, sc_io_format_name(fmt));
    }
    switch (fmt) {
    case SC_IO_FORMAT_LAMMPS: st = io_read_lammps(path, &f, opts, out, err, errcap); break;
    case SC_IO_FORMAT_XYZ: st = io_read_xyz(path, &f, opts, out, err, errcap); break;
    case SC_IO_FORMAT_NPY: st = io_read_npy(path, &f, opts, out, err, errcap); break;
    case SC_IO_FORMAT_F32: st = io_read_raw(path, &f, SC_F32, dims, opts, out, err, errcap); break;
    case SC_IO_FORMAT_F64: st = io_read_raw(path, &f, SC_F64, dims, opts, out, err, errcap); break;
    default: st = io_read_text(path, &f, opts, out, err, errcap); break;
    }
    io_file_release(&f); /* no-op when the rows adopted the mapping */
    if (st != SC_IO_OK) {
        memset(out, 0, sizeof *out);
        return st;
    }
    out->format = fmt;
    out->first = 0;
    out->total = out->n;
    return SC_IO_OK;
}

void io_give_rows(sc_io_spheres *out, double *rows, size_t n, int dims) {
    out->n = n;
    out->dims = dims;
    out->dtype = SC_F64;
    out->rows = n ? rows : NULL;
    out->owned_ = rows;
}

void sc_io_spheres_free(sc_io_spheres *s) {
    if (s == NULL)
        return;
    if (s->map_)
        munmap(s->map_, s->map_len_);
    free(s->owned_);
    free(s->owned_ids_);
    memset(s, 0, sizeof *s);
}
