/*
 * sc_io.c: sphere readers (.npy, text, raw binary) and streaming pair writers
 * (.npy, .csv, raw binary) for the spherecollide tool.
 *
 * Reading maps the file (or reads it whole when it cannot be mapped) and
 * validates every value on the way, so the engine's own validation never
 * fails on a batch that came through here. Binary data that is already little
 * endian and aligned is used in place; text is parsed into doubles with the
 * exact semantics of strtod (a Clinger fast path for short decimals that gives
 * the same correctly rounded result, strtod for everything else).
 *
 * Writing goes through one "sink": a temporary file in the destination's
 * directory, one fixed buffer of SC_IO_BUFFER_BYTES, and rename() onto the
 * requested name only when everything succeeded.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sc_io.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SC_IO_BIG_ENDIAN 1
#else
#define SC_IO_BIG_ENDIAN 0
#endif

/* The decimal fast path relies on one correctly rounded double operation. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#define SC_IO_NO_FAST_PATH 1
#endif

/* ======================================================================== */
/* Status, formats, messages                                                */
/* ======================================================================== */

const char *sc_io_status_name(sc_io_status status)
{
    switch (status) {
    case SC_IO_OK: return "ok";
    case SC_IO_ERR_ARGUMENT: return "bad argument";
    case SC_IO_ERR_OPEN: return "cannot open or read file";
    case SC_IO_ERR_SYNTAX: return "non-numeric token";
    case SC_IO_ERR_COUNT: return "count of numbers not divisible";
    case SC_IO_ERR_TRUNCATED: return "truncated file";
    case SC_IO_ERR_HEADER: return "malformed .npy header";
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
    }
    return "unknown status";
}

int sc_io_exit_code(sc_io_status status)
{
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
    case SC_IO_ERR_TOO_MANY: return 5;
    case SC_IO_ERR_WRITE: return 6;
    case SC_IO_ERR_NOMEM: return 7;
    case SC_IO_ERR_INTERNAL: return 1;
    }
    return 1;
}

static int ascii_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static int str_ieq(const char *a, const char *b)
{
    while (*a && *b && ascii_lower((unsigned char)*a) == ascii_lower((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

int sc_io_format_parse(const char *name, sc_io_format *out)
{
    static const struct {
        const char *name;
        sc_io_format format;
    } names[] = {{"npy", SC_IO_FORMAT_NPY}, {"txt", SC_IO_FORMAT_TEXT},
                 {"text", SC_IO_FORMAT_TEXT}, {"csv", SC_IO_FORMAT_CSV},
                 {"f32", SC_IO_FORMAT_F32}, {"f64", SC_IO_FORMAT_F64},
                 {"bin", SC_IO_FORMAT_BIN}};
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

const char *sc_io_format_name(sc_io_format format)
{
    switch (format) {
    case SC_IO_FORMAT_AUTO: return "auto";
    case SC_IO_FORMAT_NPY: return "npy";
    case SC_IO_FORMAT_TEXT: return "text";
    case SC_IO_FORMAT_CSV: return "csv";
    case SC_IO_FORMAT_F32: return "f32";
    case SC_IO_FORMAT_F64: return "f64";
    case SC_IO_FORMAT_BIN: return "bin";
    }
    return "?";
}

/* The extension of the last path component, without the dot, or "". */
static const char *path_extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return (dot && dot != base) ? dot + 1 : "";
}

sc_io_format sc_io_spheres_format_for_path(const char *path)
{
    const char *ext = path ? path_extension(path) : "";
    if (str_ieq(ext, "npy"))
        return SC_IO_FORMAT_NPY;
    if (str_ieq(ext, "f32"))
        return SC_IO_FORMAT_F32;
    if (str_ieq(ext, "f64"))
        return SC_IO_FORMAT_F64;
    if (str_ieq(ext, "bin"))
        return SC_IO_FORMAT_AUTO;
    return SC_IO_FORMAT_TEXT;
}

sc_io_format sc_io_pairs_format_for_path(const char *path)
{
    const char *ext = path ? path_extension(path) : "";
    if (str_ieq(ext, "npy"))
        return SC_IO_FORMAT_NPY;
    if (str_ieq(ext, "csv"))
        return SC_IO_FORMAT_CSV;
    if (str_ieq(ext, "bin"))
        return SC_IO_FORMAT_BIN;
    return SC_IO_FORMAT_AUTO;
}

/* Formats one message line into err; control characters (a newline in a path)
 * become '?' so that the message stays one line. Returns status. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static sc_io_status
fail(char *err, size_t errcap, sc_io_status status, const char *fmt, ...)
{
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
static const char *quote_token(const char *t, size_t len, char *buf, size_t cap)
{
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

static const char *column_name(size_t column, int dims)
{
    static const char *const names3[] = {"x", "y", "z", "r"};
    static const char *const names2[] = {"x", "y", "r"};
    return dims == 2 ? names2[column] : names3[column];
}

/* ======================================================================== */
/* Loading a file: mmap, or read() for what cannot be mapped                */
/* ======================================================================== */

typedef struct file_data {
    const unsigned char *data;
    size_t size;
    void *map;
    size_t map_len;
    unsigned char *heap;
} file_data;

static void file_data_release(file_data *f)
{
    if (f->map)
        munmap(f->map, f->map_len);
    free(f->heap);
    memset(f, 0, sizeof *f);
}

static sc_io_status read_all_fd(int fd, const char *path, file_data *f, char *err, size_t errcap)
{
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    if (buf == NULL)
        return fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory reading the file", path);
    for (;;) {
        if (len == cap) {
            unsigned char *grown = (cap > SIZE_MAX / 2) ? NULL : realloc(buf, cap * 2);
            if (grown == NULL) {
                free(buf);
                return fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory reading the file",
                            path);
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return fail(err, errcap, SC_IO_ERR_OPEN, "%s: byte %zu: cannot read: %s", path, len,
                        strerror(e));
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    f->heap = buf;
    f->data = buf;
    f->size = len;
    return SC_IO_OK;
}

static sc_io_status file_load(const char *path, file_data *f, char *err, size_t errcap)
{
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        int e = errno;
        return fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot stat: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot read: is a directory", path);
    }
    sc_io_status status = SC_IO_OK;
    if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= (uint64_t)SIZE_MAX) {
        int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
        flags |= MAP_POPULATE;
#endif
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
        if (m != MAP_FAILED) {
            posix_madvise(m, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
            f->map = m;
            f->map_len = (size_t)st.st_size;
            f->data = m;
            f->size = (size_t)st.st_size;
        } else {
            status = read_all_fd(fd, path, f, err, errcap);
        }
    } else if (S_ISREG(st.st_mode) && st.st_size == 0) {
        static const unsigned char empty[1] = {0};
        f->data = empty;
        f->size = 0;
    } else {
        status = read_all_fd(fd, path, f, err, errcap);
    }
    close(fd);
    return status;
}

/* ======================================================================== */
/* Value validation (shared by every format)                                */
/* ======================================================================== */

typedef enum value_check {
    VALUE_OK = 0,
    VALUE_NON_FINITE,
    VALUE_OUT_OF_RANGE,
    VALUE_NEGATIVE_RADIUS
} value_check;

static value_check check_value(double v, int is_radius)
{
    if (!isfinite(v))
        return VALUE_NON_FINITE;
    if (fabs(v) > SC_MAX_ABS_VALUE)
        return VALUE_OUT_OF_RANGE;
    if (is_radius && v < 0.0)
        return VALUE_NEGATIVE_RADIUS;
    return VALUE_OK;
}

static sc_io_status value_status(value_check c)
{
    switch (c) {
    case VALUE_NON_FINITE: return SC_IO_ERR_NON_FINITE;
    case VALUE_OUT_OF_RANGE: return SC_IO_ERR_OUT_OF_RANGE;
    case VALUE_NEGATIVE_RADIUS: return SC_IO_ERR_NEGATIVE_RADIUS;
    case VALUE_OK: break;
    }
    return SC_IO_OK;
}

static const char *value_problem(value_check c)
{
    switch (c) {
    case VALUE_NON_FINITE: return "non-finite value";
    case VALUE_OUT_OF_RANGE: return "value out of range (|v| > 1e150)";
    case VALUE_NEGATIVE_RADIUS: return "negative radius";
    case VALUE_OK: break;
    }
    return "ok";
}

static size_t effective_max(const sc_io_read_options *o)
{
    return (o && o->max_spheres) ? o->max_spheres : SC_MAX_SPHERES;
}

/* Validates binary rows in place; `base` is the file offset of rows[0]. */
static sc_io_status check_rows(const char *path, const void *rows, sc_dtype dtype, size_t n,
                               int dims, size_t base, char *err, size_t errcap)
{
    const size_t cols = (size_t)dims + 1;
    const size_t total = n * cols;
    const size_t item = dtype == SC_F32 ? 4 : 8;
    for (size_t k = 0; k < total; k++) {
        double v = dtype == SC_F32 ? (double)((const float *)rows)[k] : ((const double *)rows)[k];
        /* Cheap common case first: finite, in range, and not a negative radius. */
        if (fabs(v) <= SC_MAX_ABS_VALUE && (v >= 0.0 || k % cols != (size_t)dims))
            continue;
        value_check c = check_value(v, k % cols == (size_t)dims);
        if (c == VALUE_OK)
            continue;
        return fail(err, errcap, value_status(c), "%s: byte %zu: %s %.17g (sphere %zu, column %s)",
                    path, base + k * item, value_problem(c), v, k / cols,
                    column_name(k % cols, dims));
    }
    return SC_IO_OK;
}

/* Gives `out` rows of dtype at data[offset..]: in place when the platform is
 * little endian and the offset is aligned, else a byte-swapped or aligned
 * copy. Takes ownership of the file data on success. */
static sc_io_status adopt_rows(file_data *f, size_t offset, size_t n, int dims, sc_dtype dtype,
                               sc_io_spheres *out, const char *path, char *err, size_t errcap)
{
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
            return fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory (%zu bytes for %zu spheres)",
                        path, bytes, n);
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
    sc_io_status st = check_rows(path, rows, dtype, n, dims, offset, err, errcap);
    if (st != SC_IO_OK) {
        free(owned);
        return st;
    }
    out->n = n;
    out->dims = dims;
    out->dtype = dtype;
    out->rows = rows;
    out->owned_ = owned;
    if (owned != NULL || n == 0) {
        file_data_release(f);
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

static sc_io_status read_raw(const char *path, file_data *f, sc_dtype dtype, int dims,
                             const sc_io_read_options *opts, sc_io_spheres *out, char *err,
                             size_t errcap)
{
    const size_t item = dtype == SC_F32 ? 4 : 8;
    const size_t row = ((size_t)dims + 1) * item;
    if (f->size % row != 0) {
        size_t whole = f->size - f->size % row;
        return fail(err, errcap, SC_IO_ERR_TRUNCATED,
                    "%s: byte %zu: truncated file: %zu bytes is not a whole number of %zu-byte "
                    "rows (%s, %d values per sphere)",
                    path, whole, f->size, row, dtype == SC_F32 ? "f32" : "f64", dims + 1);
    }
    size_t n = f->size / row;
    size_t max = effective_max(opts);
    if (n > max)
        return fail(err, errcap, SC_IO_ERR_TOO_MANY,
                    "%s: byte %zu: too many spheres: %zu, at most %zu", path, max * row, n, max);
    return adopt_rows(f, 0, n, dims, dtype, out, path, err, errcap);
}

/* ======================================================================== */
/* NumPy .npy                                                               */
/* ======================================================================== */

/* A cursor over the header dict text; `base` is the file offset of text[0]. */
typedef struct npy_cursor {
    const char *p, *end, *start;
    size_t base;
} npy_cursor;

static size_t npy_offset(const npy_cursor *c)
{
    return c->base + (size_t)(c->p - c->start);
}

static void npy_skip_space(npy_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Reads a quoted Python string literal (no escapes needed for our keys and
 * dtype strings; a backslash is refused). */
static int npy_string(npy_cursor *c, const char **s, size_t *len)
{
    npy_skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return -1;
    char q = *c->p++;
    const char *b = c->p;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || *c->p == '\n')
            return -1;
        c->p++;
    }
    if (c->p >= c->end)
        return -1;
    *s = b;
    *len = (size_t)(c->p - b);
    c->p++;
    return 0;
}

static int npy_expect(npy_cursor *c, char ch)
{
    npy_skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 0;
    }
    return -1;
}

static int npy_word(npy_cursor *c, const char *w)
{
    size_t l = strlen(w);
    if ((size_t)(c->end - c->p) >= l && memcmp(c->p, w, l) == 0) {
        const char *after = c->p + l;
        if (after < c->end && (*after == '_' || (*after >= 'a' && *after <= 'z') ||
                               (*after >= 'A' && *after <= 'Z') || (*after >= '0' && *after <= '9')))
            return -1;
        c->p = after;
        return 0;
    }
    return -1;
}

#define NPY_MAX_DIMS 32

typedef struct npy_header {
    int have_descr, have_order, have_shape;
    char descr[32];
    int descr_is_string;
    size_t descr_offset;
    int fortran;
    size_t order_offset;
    int ndim;
    uint64_t shape[NPY_MAX_DIMS];
    int shape_overflow;
    size_t shape_offset;
} npy_header;

/* Parses "{'descr': ..., 'fortran_order': ..., 'shape': (...), }". Returns 0,
 * or -1 with *bad the file offset where parsing failed and *why filled. */
static int npy_parse_dict(npy_cursor *c, npy_header *h, size_t *bad, const char **why)
{
    memset(h, 0, sizeof *h);
    *why = "expected '{'";
    if (npy_expect(c, '{'))
        goto bad;
    for (;;) {
        npy_skip_space(c);
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            break;
        }
        const char *key;
        size_t klen;
        size_t key_at = npy_offset(c);
        *why = "expected a quoted key or '}'";
        if (npy_string(c, &key, &klen))
            goto bad;
        *why = "expected ':' after the key";
        if (npy_expect(c, ':'))
            goto bad;
        npy_skip_space(c);
        size_t value_at = npy_offset(c);
        if (klen == 5 && memcmp(key, "descr", 5) == 0) {
            *why = "duplicate key 'descr'";
            if (h->have_descr) {
                c->p = c->start + (key_at - c->base);
                goto bad;
            }
            h->have_descr = 1;
            h->descr_offset = value_at;
            const char *s;
            size_t len;
            if (c->p < c->end && (*c->p == '\'' || *c->p == '"')) {
                *why = "unterminated dtype string";
                if (npy_string(c, &s, &len))
                    goto bad;
                h->descr_is_string = 1;
                size_t l = len < sizeof h->descr - 1 ? len : sizeof h->descr - 1;
                memcpy(h->descr, s, l);
                h->descr[l] = '\0';
            } else if (c->p < c->end && *c->p == '[') {
                /* A structured dtype: skip the balanced list, report later. */
                int depth = 0;
                const char *open_at = c->p;
                do {
                    if (*c->p == '[' || *c->p == '(')
                        depth++;
                    else if (*c->p == ']' || *c->p == ')')
                        depth--;
                    c->p++;
                } while (c->p < c->end && depth > 0);
                *why = "unbalanced dtype list";
                if (depth != 0) {
                    c->p = open_at;
                    goto bad;
                }
                h->descr_is_string = 0;
                snprintf(h->descr, sizeof h->descr, "structured");
            } else {
                *why = "expected a dtype string";
                goto bad;
            }
        } else if (klen == 13 && memcmp(key, "fortran_order", 13) == 0) {
            *why = "duplicate key 'fortran_order'";
            if (h->have_order) {
                c->p = c->start + (key_at - c->base);
                goto bad;
            }
            h->have_order = 1;
            h->order_offset = value_at;
            if (npy_word(c, "True") == 0) {
                h->fortran = 1;
            } else if (npy_word(c, "False") == 0) {
                h->fortran = 0;
            } else {
                *why = "fortran_order must be True or False";
                goto bad;
            }
        } else if (klen == 5 && memcmp(key, "shape", 5) == 0) {
            *why = "duplicate key 'shape'";
            if (h->have_shape) {
                c->p = c->start + (key_at - c->base);
                goto bad;
            }
            h->have_shape = 1;
            h->shape_offset = value_at;
            *why = "shape must be a tuple of integers";
            if (npy_expect(c, '('))
                goto bad;
            for (;;) {
                npy_skip_space(c);
                if (c->p < c->end && *c->p == ')') {
                    c->p++;
                    break;
                }
                if (c->p >= c->end || *c->p < '0' || *c->p > '9')
                    goto bad;
                uint64_t v = 0;
                while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
                    unsigned d = (unsigned)(*c->p - '0');
                    if (v > (UINT64_MAX - d) / 10)
                        h->shape_overflow = 1;
                    else
                        v = v * 10 + d;
                    c->p++;
                }
                /* Python accepts 4L in old headers written by Python 2. */
                if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
                    c->p++;
                *why = "too many dimensions in shape";
                if (h->ndim >= NPY_MAX_DIMS)
                    goto bad;
                h->shape[h->ndim++] = v;
                *why = "shape must be a tuple of integers";
                npy_skip_space(c);
                if (c->p < c->end && *c->p == ',') {
                    c->p++;
                    continue;
                }
                if (c->p < c->end && *c->p == ')') {
                    c->p++;
                    break;
                }
                goto bad;
            }
        } else {
            c->p = c->start + (key_at - c->base);
            *why = "unexpected key (only 'descr', 'fortran_order' and 'shape' are allowed)";
            goto bad;
        }
        npy_skip_space(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            break;
        }
        *why = "expected ',' or '}' after a value";
        goto bad;
    }
    npy_skip_space(c);
    *why = "unexpected text after the header dict";
    if (c->p != c->end)
        goto bad;
    *why = !h->have_descr ? "missing key 'descr'"
         : !h->have_order ? "missing key 'fortran_order'"
         : !h->have_shape ? "missing key 'shape'"
                          : NULL;
    if (*why) {
        *bad = c->base;
        return -1;
    }
    return 0;
bad:
    *bad = npy_offset(c);
    return -1;
}

static uint32_t read_le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static sc_io_status read_npy(const char *path, file_data *f, const sc_io_read_options *opts,
                             sc_io_spheres *out, char *err, size_t errcap)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    const unsigned char *d = f->data;
    if (f->size < 6 || memcmp(d, magic, 6) != 0)
        return fail(err, errcap, SC_IO_ERR_HEADER,
                    "%s: byte 0: malformed .npy header: missing the \\x93NUMPY magic string", path);
    if (f->size < 8)
        return fail(err, errcap, SC_IO_ERR_HEADER,
                    "%s: byte 6: malformed .npy header: file ends inside the version", path);
    unsigned major = d[6], minor = d[7];
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        return fail(err, errcap, SC_IO_ERR_HEADER,
                    "%s: byte 6: malformed .npy header: unsupported format version %u.%u "
                    "(1.0, 2.0 and 3.0 are read)",
                    path, major, minor);
    size_t len_bytes = major == 1 ? 2 : 4;
    if (f->size < 8 + len_bytes)
        return fail(err, errcap, SC_IO_ERR_HEADER,
                    "%s: byte 8: malformed .npy header: file ends inside the header length", path);
    size_t hlen = major == 1 ? (size_t)(d[8] | d[9] << 8) : (size_t)read_le32(d + 8);
    size_t hstart = 8 + len_bytes;
    if (hlen > f->size - hstart)
        return fail(err, errcap, SC_IO_ERR_HEADER,
                    "%s: byte %zu: malformed .npy header: header length %zu runs past the end of "
                    "the file (%zu bytes)",
                    path, hstart, hlen, f->size);
    const char *text = (const char *)d + hstart;
    /* Versions 1 and 2 are latin-1 / ASCII; refuse non-ASCII bytes there. */
    for (size_t k = 0; k < hlen; k++) {
        unsigned char ch = (unsigned char)text[k];
        if (ch == 0 || (major < 3 && ch >= 0x80))
            return fail(err, errcap, SC_IO_ERR_HEADER,
                        "%s: byte %zu: malformed .npy header: unexpected byte 0x%02X", path,
                        hstart + k, ch);
    }
    npy_cursor c = {text, text + hlen, text, hstart};
    npy_header h;
    size_t bad = 0;
    const char *why = NULL;
    if (npy_parse_dict(&c, &h, &bad, &why))
        return fail(err, errcap, SC_IO_ERR_HEADER, "%s: byte %zu: malformed .npy header: %s", path,
                    bad, why);

    sc_dtype dtype;
    if (h.descr_is_string && strcmp(h.descr, "<f8") == 0) {
        dtype = SC_F64;
    } else if (h.descr_is_string && strcmp(h.descr, "<f4") == 0) {
        dtype = SC_F32;
    } else {
        char q[96];
        return fail(err, errcap, SC_IO_ERR_DTYPE,
                    "%s: byte %zu: unsupported dtype %s (only '<f4' and '<f8' are read)", path,
                    h.descr_offset, quote_token(h.descr, strlen(h.descr), q, sizeof q));
    }
    if (h.fortran)
        return fail(err, errcap, SC_IO_ERR_ORDER,
                    "%s: byte %zu: unsupported fortran_order True (write the array in C order, "
                    "e.g. numpy.ascontiguousarray)",
                    path, h.order_offset);
    int want_dims = opts ? opts->dims : 0;
    char shape_text[128];
    {
        size_t o = 0;
        shape_text[o++] = '(';
        for (int k = 0; k < h.ndim && o < sizeof shape_text - 32; k++)
            o += (size_t)snprintf(shape_text + o, sizeof shape_text - o, "%s%llu", k ? ", " : "",
                                  (unsigned long long)h.shape[k]);
        snprintf(shape_text + o, sizeof shape_text - o, "%s)", h.ndim == 1 ? "," : "");
    }
    int cols_ok = h.ndim == 2 && !h.shape_overflow &&
                  ((h.shape[1] == 4 && want_dims != 2) || (h.shape[1] == 3 && want_dims != 3));
    if (!cols_ok) {
        const char *want = want_dims == 2 ? "(N, 3) for circles"
                         : want_dims == 3 ? "(N, 4) for spheres"
                                          : "(N, 4) x,y,z,r or (N, 3) x,y,r";
        return fail(err, errcap, SC_IO_ERR_SHAPE, "%s: byte %zu: unsupported shape %s (expected %s)",
                    path, h.shape_offset, shape_text, want);
    }
    int dims = h.shape[1] == 4 ? 3 : 2;
    size_t max = effective_max(opts);
    if (h.shape[0] > (uint64_t)max)
        return fail(err, errcap, SC_IO_ERR_TOO_MANY,
                    "%s: byte %zu: too many spheres: shape %s, at most %zu", path, h.shape_offset,
                    shape_text, max);
    size_t n = (size_t)h.shape[0];
    size_t item = dtype == SC_F32 ? 4 : 8;
    size_t data_at = hstart + hlen;
    size_t avail = f->size - data_at;
    if (n > SIZE_MAX / (item * 4) || n * (size_t)(dims + 1) * item > avail) {
        size_t whole = avail / ((size_t)(dims + 1) * item);
        return fail(err, errcap, SC_IO_ERR_TRUNCATED,
                    "%s: byte %zu: truncated file: shape %s needs %zu data bytes after the header, "
                    "the file has %zu (%zu whole rows)",
                    path, f->size, shape_text, n * (size_t)(dims + 1) * item, avail, whole);
    }
    size_t need = n * (size_t)(dims + 1) * item;
    if (avail > need)
        return fail(err, errcap, SC_IO_ERR_HEADER,
                    "%s: byte %zu: malformed .npy file: %zu bytes after the data that shape %s "
                    "describes",
                    path, data_at + need, avail - need, shape_text);
    return adopt_rows(f, data_at, n, dims, dtype, out, path, err, errcap);
}

/* ======================================================================== */
/* Text                                                                     */
/* ======================================================================== */

/* Byte classes: 1 token separator (whitespace, ',', '#'), 0 token byte. */
static const unsigned char text_sep[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
                                            ['\v'] = 1, ['\f'] = 1, [','] = 1,  ['#'] = 1};

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if !defined(SC_IO_NO_FAST_PATH) && defined(__SIZEOF_INT128__)
static int bit_length128(unsigned __int128 v)
{
    uint64_t hi = (uint64_t)(v >> 64);
    if (hi)
        return 128 - __builtin_clzll(hi);
    uint64_t lo = (uint64_t)v;
    return lo ? 64 - __builtin_clzll(lo) : 0;
}

/* Correctly rounded (nearest, ties to even) m * 10^e for 0 < m < 2^64 and
 * |e| <= 19, in exact integer arithmetic: this is the common case of long
 * significands ("%.17g" output) that Clinger's path cannot take. With
 * N = m * 10^max(e,0) and D = 10^max(-e,0), q = floor(N * 2^s / D) keeps at
 * least 55 bits, and the remainder is the sticky bit below them. */
static int exact_scale(uint64_t m, int e, double *out)
{
    static const uint64_t p10[20] = {1ull,
                                     10ull,
                                     100ull,
                                     1000ull,
                                     10000ull,
                                     100000ull,
                                     1000000ull,
                                     10000000ull,
                                     100000000ull,
                                     1000000000ull,
                                     10000000000ull,
                                     100000000000ull,
                                     1000000000000ull,
                                     10000000000000ull,
                                     100000000000000ull,
                                     1000000000000000ull,
                                     10000000000000000ull,
                                     100000000000000000ull,
                                     1000000000000000000ull,
                                     10000000000000000000ull};
    if (e > 19 || e < -19)
        return -1;
    unsigned __int128 num = (unsigned __int128)m * (e > 0 ? p10[e] : 1u);
    uint64_t den = e < 0 ? p10[-e] : 1u;
    int s = 55 + bit_length128(den) - bit_length128(num);
    if (s < 0)
        s = 0;
    unsigned __int128 scaled = num << s; /* < 2^119: bit lengths add to <= 119 */
    unsigned __int128 q = scaled / den;
    int sticky = (scaled % den) != 0;
    int nb = bit_length128(q);
    int r = nb - 53; /* >= 2 by the choice of s */
    uint64_t mant = (uint64_t)(q >> r);
    int guard = (int)((q >> (r - 1)) & 1u);
    if (q & ((((unsigned __int128)1) << (r - 1)) - 1u))
        sticky = 1;
    if (guard && (sticky || (mant & 1u)))
        mant++;
    if (mant == ((uint64_t)1 << 53)) {
        mant >>= 1;
        r++;
    }
    *out = ldexp((double)mant, r - s);
    return 0;
}
#else
static int exact_scale(uint64_t m, int e, double *out)
{
    (void)m;
    (void)e;
    (void)out;
    return -1;
}
#endif

/* Clinger's fast path: a decimal whose significand fits in 53 bits and whose
 * power of ten is exact (|e| <= 22) is m * 10^e or m / 10^-e, one correctly
 * rounded operation, hence exactly what strtod returns. Anything else
 * (long significands, big exponents, hex, inf, nan, junk) returns -1 and goes
 * to strtod. */
static int parse_fast(const char *p, const char *end, double *out)
{
#ifdef SC_IO_NO_FAST_PATH
    (void)p;
    (void)end;
    (void)out;
    return -1;
#else
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    uint64_t m = 0;
    int digits = 0, exp10 = 0, any = 0;
    while (p < end && (unsigned)(*p - '0') < 10) {
        unsigned d = (unsigned)(*p - '0');
        any = 1;
        if (m != 0 || d != 0) {
            if (digits >= 19)
                return -1;
            m = m * 10 + d;
            digits++;
        }
        p++;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && (unsigned)(*p - '0') < 10) {
            unsigned d = (unsigned)(*p - '0');
            any = 1;
            if (m != 0 || d != 0) {
                if (digits >= 19)
                    return -1;
                m = m * 10 + d;
                digits++;
            }
            exp10--;
            p++;
        }
    }
    if (!any)
        return -1;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < end && (*p == '-' || *p == '+')) {
            eneg = *p == '-';
            p++;
        }
        if (p >= end || (unsigned)(*p - '0') >= 10)
            return -1;
        int e = 0;
        while (p < end && (unsigned)(*p - '0') < 10) {
            if (e > 10000)
                return -1;
            e = e * 10 + (*p - '0');
            p++;
        }
        exp10 += eneg ? -e : e;
    }
    if (p != end)
        return -1;
    if (m == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    double v;
    if (m <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        v = (double)m;
        if (exp10 >= 0)
            v *= pow10_exact[exp10];
        else
            v /= pow10_exact[-exp10];
    } else if (exact_scale(m, exp10, &v) != 0) {
        return -1;
    }
    *out = neg ? -v : v;
    return 0;
#endif
}

#define TOKEN_MAX 4096

typedef enum token_result { TOKEN_OK = 0, TOKEN_SYNTAX, TOKEN_OVERFLOW } token_result;

/* Parses one token with strtod semantics. TOKEN_OVERFLOW: a finite literal
 * too large for a double (strtod's ERANGE with HUGE_VAL). */
static token_result parse_token(const char *t, size_t len, double *out)
{
    if (parse_fast(t, t + len, out) == 0)
        return TOKEN_OK;
    char buf[TOKEN_MAX];
    if (len >= sizeof buf)
        return TOKEN_SYNTAX;
    /* strtod skips leading white space and accepts what our tokenizer never
     * produces, so the token must be consumed entirely. */
    memcpy(buf, t, len);
    buf[len] = '\0';
    char *endp = NULL;
    errno = 0;
    double v = strtod(buf, &endp);
    if (len == 0 || endp != buf + len)
        return TOKEN_SYNTAX;
    if (errno == ERANGE && isinf(v))
        return TOKEN_OVERFLOW;
    *out = v;
    return TOKEN_OK;
}

static sc_io_status read_text(const char *path, const file_data *f, const sc_io_read_options *opts,
                              sc_io_spheres *out, char *err, size_t errcap)
{
    const int dims = (opts && opts->dims == 2) ? 2 : 3;
    const size_t cols = (size_t)dims + 1;
    const size_t max = effective_max(opts);
    const char *p = (const char *)f->data;
    const char *end = p + f->size;
    /* A UTF-8 byte order mark, as some Windows tools write. */
    if (f->size >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;

    size_t cap = f->size / 8 + 64, count = 0, line = 1;
    if (cap > (size_t)1 << 24)
        cap = (size_t)1 << 24;
    double *vals = malloc(cap * sizeof *vals);
    if (vals == NULL)
        return fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory", path);
    int comma_pending = 0; /* a comma since the last token, on this line */
    size_t last_line = 0;
    const char *last_tok = NULL;
    size_t last_len = 0;
    char q[128];
    sc_io_status st = SC_IO_OK;

    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (!text_sep[c]) {
            const char *t = p;
            while (p < end && !text_sep[(unsigned char)*p])
                p++;
            size_t len = (size_t)(p - t);
            double v;
            token_result tr = parse_token(t, len, &v);
            if (tr == TOKEN_SYNTAX) {
                st = fail(err, errcap, SC_IO_ERR_SYNTAX, "%s: line %zu: non-numeric token %s",
                          path, line, quote_token(t, len, q, sizeof q));
                goto done;
            }
            if (tr == TOKEN_OVERFLOW) {
                st = fail(err, errcap, SC_IO_ERR_OUT_OF_RANGE,
                          "%s: line %zu: %s %s (sphere %zu, column %s)", path, line,
                          value_problem(VALUE_OUT_OF_RANGE), quote_token(t, len, q, sizeof q),
                          count / cols, column_name(count % cols, dims));
                goto done;
            }
            int is_radius = count % cols == (size_t)dims;
            if (!(fabs(v) <= SC_MAX_ABS_VALUE) || (is_radius && v < 0.0)) {
                value_check vc = check_value(v, is_radius);
                if (vc != VALUE_OK) {
                    st = fail(err, errcap, value_status(vc),
                              "%s: line %zu: %s %s (sphere %zu, column %s)", path, line,
                              value_problem(vc), quote_token(t, len, q, sizeof q), count / cols,
                              column_name(count % cols, dims));
                    goto done;
                }
            }
            if (count == cap) {
                size_t ncap = cap * 2;
                double *grown = ncap > SIZE_MAX / sizeof *vals ? NULL
                                                               : realloc(vals, ncap * sizeof *vals);
                if (grown == NULL) {
                    st = fail(err, errcap, SC_IO_ERR_NOMEM, "%s: line %zu: out of memory after %zu numbers",
                              path, line, count);
                    goto done;
                }
                vals = grown;
                cap = ncap;
            }
            vals[count++] = v;
            if (count / cols > max) {
                st = fail(err, errcap, SC_IO_ERR_TOO_MANY,
                          "%s: line %zu: too many spheres: more than %zu (token %s)", path, line,
                          max, quote_token(t, len, q, sizeof q));
                goto done;
            }
            last_tok = t;
            last_len = len;
            last_line = line;
            comma_pending = 0;
            continue;
        }
        switch (c) {
        case '\n':
            line++;
            comma_pending = 0;
            p++;
            break;
        case '\r':
            line++;
            comma_pending = 0;
            p++;
            if (p < end && *p == '\n')
                p++;
            break;
        case ',':
            if (comma_pending) {
                st = fail(err, errcap, SC_IO_ERR_SYNTAX,
                          "%s: line %zu: non-numeric token \"\" (empty field between commas)", path,
                          line);
                goto done;
            }
            comma_pending = 1;
            p++;
            break;
        case '#':
            while (p < end && *p != '\n' && *p != '\r')
                p++;
            break;
        default: /* blank */
            p++;
            break;
        }
    }
    if (count % cols != 0) {
        st = fail(err, errcap, SC_IO_ERR_COUNT,
                  "%s: line %zu: %zu numbers in all, not a multiple of %zu (%s); the last sphere "
                  "is incomplete after token %s",
                  path, last_line, count, cols, dims == 2 ? "x y r" : "x y z r",
                  quote_token(last_tok, last_len, q, sizeof q));
        goto done;
    }
done:
    if (st != SC_IO_OK) {
        free(vals);
        return st;
    }
    if (count == 0) {
        free(vals);
        vals = NULL;
    } else {
        /* Into a 64-byte aligned block of the exact size: each (x, y, z, r)
         * record then sits in one cache line, which the engine's gather
         * reads at random (see sc_spheres_rows_f64). Kept as is when that
         * memory is not to be had. */
        void *aligned = NULL;
        if (posix_memalign(&aligned, 64, count * sizeof *vals) == 0) {
            memcpy(aligned, vals, count * sizeof *vals);
            free(vals);
            vals = aligned;
        }
    }
    out->n = count / cols;
    out->dims = dims;
    out->dtype = SC_F64;
    out->rows = vals;
    out->owned_ = vals;
    return SC_IO_OK;
}

/* ======================================================================== */
/* Reader entry point                                                       */
/* ======================================================================== */

sc_io_status sc_io_read_spheres(const char *path, const sc_io_read_options *opts,
                                sc_io_spheres *out, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (out == NULL || path == NULL)
        return fail(err, errcap, SC_IO_ERR_INTERNAL, "%s: no output struct or path",
                    path ? path : "(null)");
    memset(out, 0, sizeof *out);
    if (opts && opts->dims != 0 && opts->dims != 2 && opts->dims != 3)
        return fail(err, errcap, SC_IO_ERR_ARGUMENT, "%s: dims must be 2 or 3, not %d", path,
                    opts->dims);
    sc_io_format fmt = (opts && opts->format != SC_IO_FORMAT_AUTO)
                           ? opts->format
                           : sc_io_spheres_format_for_path(path);
    if (fmt == SC_IO_FORMAT_CSV)
        fmt = SC_IO_FORMAT_TEXT;
    if (fmt == SC_IO_FORMAT_AUTO)
        return fail(err, errcap, SC_IO_ERR_ARGUMENT,
                    "%s: raw binary input needs an explicit format f32 or f64", path);
    if (fmt == SC_IO_FORMAT_BIN)
        return fail(err, errcap, SC_IO_ERR_ARGUMENT,
                    "%s: format bin is for pairs; raw sphere input is f32 or f64", path);
    file_data f;
    sc_io_status st = file_load(path, &f, err, errcap);
    if (st != SC_IO_OK)
        return st;
    int dims = (opts && opts->dims == 2) ? 2 : 3;
    switch (fmt) {
    case SC_IO_FORMAT_NPY: st = read_npy(path, &f, opts, out, err, errcap); break;
    case SC_IO_FORMAT_F32: st = read_raw(path, &f, SC_F32, dims, opts, out, err, errcap); break;
    case SC_IO_FORMAT_F64: st = read_raw(path, &f, SC_F64, dims, opts, out, err, errcap); break;
    default: st = read_text(path, &f, opts, out, err, errcap); break;
    }
    file_data_release(&f); /* no-op when the rows adopted the mapping */
    if (st != SC_IO_OK) {
        memset(out, 0, sizeof *out);
        return st;
    }
    out->format = fmt;
    return SC_IO_OK;
}

void sc_io_spheres_free(sc_io_spheres *s)
{
    if (s == NULL)
        return;
    if (s->map_)
        munmap(s->map_, s->map_len_);
    free(s->owned_);
    memset(s, 0, sizeof *s);
}

/* ======================================================================== */
/* Output sink: temporary file, one fixed buffer, rename on success         */
/* ======================================================================== */

typedef struct sink {
    int fd;
    char *final_path;
    char *temp_path;
    unsigned char *buf;
    size_t used;
    uint64_t written; /* bytes handed to write() */
} sink;

/* Checks shared by sc_io_check_writable and sink_open. */
static sc_io_status check_target(const char *path, char *err, size_t errcap)
{
    if (path == NULL || path[0] == '\0')
        return fail(err, errcap, SC_IO_ERR_WRITE, "cannot write output: empty path");
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: is a directory", path);
        if (access(path, W_OK) != 0) {
            int e = errno;
            return fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s", path, strerror(e));
        }
    }
    const char *slash = strrchr(path, '/');
    if (slash != NULL && slash[1] == '\0')
        return fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: no file name", path);
    return SC_IO_OK;
}

sc_io_status sc_io_check_writable(const char *path, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    sc_io_status st = check_target(path, err, errcap);
    if (st != SC_IO_OK)
        return st;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (slash == NULL) {
        snprintf(dir, sizeof dir, ".");
    } else if (slash == path) {
        snprintf(dir, sizeof dir, "/");
    } else {
        size_t l = (size_t)(slash - path);
        if (l >= sizeof dir)
            return SC_IO_OK; /* let the writer's open() decide */
        memcpy(dir, path, l);
        dir[l] = '\0';
    }
    struct stat st2;
    if (stat(dir, &st2) != 0) {
        int e = errno;
        return fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s (directory %s)", path,
                    strerror(e), dir);
    }
    if (!S_ISDIR(st2.st_mode))
        return fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s is not a directory", path,
                    dir);
    if (access(dir, W_OK | X_OK) != 0) {
        int e = errno;
        return fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s (directory %s)", path,
                    strerror(e), dir);
    }
    return SC_IO_OK;
}

static sc_io_status sink_open(sink *s, const char *path, char *err, size_t errcap)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    sc_io_status chk = check_target(path, err, errcap);
    if (chk != SC_IO_OK)
        return chk;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    size_t plen = strlen(path);
    s->final_path = malloc(plen + 1);
    s->temp_path = malloc(plen + 64);
    s->buf = malloc(SC_IO_BUFFER_BYTES);
    if (!s->final_path || !s->temp_path || !s->buf) {
        free(s->final_path);
        free(s->temp_path);
        free(s->buf);
        memset(s, 0, sizeof *s);
        s->fd = -1;
        return fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory opening the output", path);
    }
    memcpy(s->final_path, path, plen + 1);
    static atomic_uint serial; /* distinguishes writers within one process */
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned k = atomic_fetch_add_explicit(&serial, 1u, memory_order_relaxed);
        snprintf(s->temp_path, plen + 64, "%.*s.%s.tmp.%ld.%u", (int)dirlen, path, base,
                 (long)getpid(), k);
        s->fd = open(s->temp_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (s->fd >= 0 || errno != EEXIST)
            break;
    }
    if (s->fd < 0) {
        int e = errno;
        free(s->final_path);
        free(s->temp_path);
        free(s->buf);
        memset(s, 0, sizeof *s);
        s->fd = -1;
        if (dirlen > 0)
            return fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s (directory %.*s)",
                        path, strerror(e), (int)(dirlen > 1 ? dirlen - 1 : dirlen), path);
        return fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s", path, strerror(e));
    }
    return SC_IO_OK;
}

static int write_fully(int fd, const unsigned char *b, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        b += w;
        len -= (size_t)w;
    }
    return 0;
}

static sc_io_status sink_flush(sink *s, char *err, size_t errcap)
{
    if (s->used == 0)
        return SC_IO_OK;
    if (write_fully(s->fd, s->buf, s->used) != 0) {
        int e = errno;
        return fail(err, errcap, SC_IO_ERR_WRITE, "%s: byte %llu: cannot write: %s",
                    s->final_path, (unsigned long long)s->written, strerror(e));
    }
    s->written += s->used;
    s->used = 0;
    return SC_IO_OK;
}

/* Room for at least `need` (<= SC_IO_BUFFER_BYTES) more bytes in the buffer. */
static sc_io_status sink_reserve(sink *s, size_t need, char *err, size_t errcap)
{
    if (SC_IO_BUFFER_BYTES - s->used >= need)
        return SC_IO_OK;
    return sink_flush(s, err, errcap);
}

static sc_io_status sink_put(sink *s, const void *data, size_t len, char *err, size_t errcap)
{
    const unsigned char *b = data;
    /* Large pieces skip the copy: flush what is buffered, write them as is. */
    if (len >= SC_IO_BUFFER_BYTES / 2 && len > SC_IO_BUFFER_BYTES - s->used) {
        sc_io_status st = sink_flush(s, err, errcap);
        if (st != SC_IO_OK)
            return st;
        if (write_fully(s->fd, b, len) != 0) {
            int e = errno;
            return fail(err, errcap, SC_IO_ERR_WRITE, "%s: byte %llu: cannot write: %s",
                        s->final_path, (unsigned long long)s->written, strerror(e));
        }
        s->written += len;
        return SC_IO_OK;
    }
    while (len > 0) {
        if (s->used == SC_IO_BUFFER_BYTES) {
            sc_io_status st = sink_flush(s, err, errcap);
            if (st != SC_IO_OK)
                return st;
        }
        size_t take = SC_IO_BUFFER_BYTES - s->used;
        if (take > len)
            take = len;
        memcpy(s->buf + s->used, b, take);
        s->used += take;
        b += take;
        len -= take;
    }
    return SC_IO_OK;
}

static void sink_discard(sink *s)
{
    if (s->fd >= 0)
        close(s->fd);
    if (s->temp_path)
        unlink(s->temp_path);
    free(s->final_path);
    free(s->temp_path);
    free(s->buf);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

/* Flushes, closes and renames; discards on any failure. */
static sc_io_status sink_commit(sink *s, char *err, size_t errcap)
{
    sc_io_status st = sink_flush(s, err, errcap);
    if (st != SC_IO_OK) {
        sink_discard(s);
        return st;
    }
    int fd = s->fd;
    s->fd = -1;
    if (close(fd) != 0) {
        int e = errno;
        st = fail(err, errcap, SC_IO_ERR_WRITE, "%s: byte %llu: cannot write: %s", s->final_path,
                  (unsigned long long)s->written, strerror(e));
        sink_discard(s);
        return st;
    }
    if (rename(s->temp_path, s->final_path) != 0) {
        int e = errno;
        st = fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: rename from %s failed: %s",
                  s->final_path, s->temp_path, strerror(e));
        sink_discard(s);
        return st;
    }
    free(s->temp_path);
    s->temp_path = NULL; /* renamed: nothing to unlink */
    sink_discard(s);
    return SC_IO_OK;
}

/* ======================================================================== */
/* .npy headers written here                                                */
/* ======================================================================== */

/* Version 1.0 header of exactly `total` bytes (a multiple of 64): magic,
 * version, length, the dict padded with spaces, '\n'. */
static void npy_header_bytes(unsigned char *out, size_t total, const char *descr, uint64_t rows,
                             unsigned cols)
{
    memset(out, ' ', total);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    size_t hlen = total - 10;
    out[8] = (unsigned char)(hlen & 0xff);
    out[9] = (unsigned char)(hlen >> 8);
    char dict[160];
    int l = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu, %u), }",
                     descr, (unsigned long long)rows, cols);
    memcpy(out + 10, dict, (size_t)l);
    out[total - 1] = '\n';
}

/* Room for the longest shape (20 digits) with the total a multiple of 64. */
#define NPY_HEADER_BYTES 128

/* ======================================================================== */
/* Sphere writer                                                            */
/* ======================================================================== */

static void put_le32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}

static void put_le64(unsigned char *b, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(v >> (8 * k));
}

sc_io_status sc_io_write_spheres(const char *path, sc_io_format format, size_t n, int dims,
                                 const double *rows, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (path == NULL || (dims != 2 && dims != 3) || (n > 0 && rows == NULL))
        return fail(err, errcap, SC_IO_ERR_INTERNAL, "%s: bad arguments to the sphere writer",
                    path ? path : "(null)");
    sc_io_format fmt = format;
    if (fmt == SC_IO_FORMAT_AUTO) {
        fmt = sc_io_spheres_format_for_path(path);
        if (fmt == SC_IO_FORMAT_TEXT && str_ieq(path_extension(path), "csv"))
            fmt = SC_IO_FORMAT_CSV;
    }
    if (fmt == SC_IO_FORMAT_AUTO || fmt == SC_IO_FORMAT_BIN)
        return fail(err, errcap, SC_IO_ERR_ARGUMENT,
                    "%s: raw binary output needs an explicit format f32 or f64", path);
    const size_t cols = (size_t)dims + 1;
    sink s;
    sc_io_status st = sink_open(&s, path, err, errcap);
    if (st != SC_IO_OK)
        return st;
    if (fmt == SC_IO_FORMAT_NPY) {
        unsigned char h[NPY_HEADER_BYTES];
        npy_header_bytes(h, sizeof h, "<f8", n, (unsigned)cols);
        st = sink_put(&s, h, sizeof h, err, errcap);
    }
    for (size_t k = 0; k < n * cols && st == SC_IO_OK; k++) {
        double v = rows[k];
        switch (fmt) {
        case SC_IO_FORMAT_NPY:
        case SC_IO_FORMAT_F64: {
            st = sink_reserve(&s, 8, err, errcap);
            uint64_t bits;
            memcpy(&bits, &v, 8);
            put_le64(s.buf + s.used, bits);
            s.used += 8;
            break;
        }
        case SC_IO_FORMAT_F32: {
            st = sink_reserve(&s, 4, err, errcap);
            float fv = (float)v;
            uint32_t bits;
            memcpy(&bits, &fv, 4);
            put_le32(s.buf + s.used, bits);
            s.used += 4;
            break;
        }
        default: {
            st = sink_reserve(&s, 32, err, errcap);
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
        sink_discard(&s);
        return st;
    }
    return sink_commit(&s, err, errcap);
}

/* ======================================================================== */
/* Pair writers                                                             */
/* ======================================================================== */

struct sc_pair_writer {
    sink s;
    sc_io_format format;
    size_t n;
    uint64_t pairs;
};

sc_io_status sc_pair_writer_open(const char *path, sc_io_format format, size_t n,
                                 sc_pair_writer **out, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (out == NULL)
        return fail(err, errcap, SC_IO_ERR_INTERNAL, "no writer pointer");
    *out = NULL;
    if (path == NULL)
        return fail(err, errcap, SC_IO_ERR_WRITE, "cannot write output: no path");
    sc_io_format fmt = format == SC_IO_FORMAT_AUTO ? sc_io_pairs_format_for_path(path) : format;
    if (fmt == SC_IO_FORMAT_AUTO)
        return fail(err, errcap, SC_IO_ERR_ARGUMENT,
                    "%s: cannot tell the pair format from the extension; use .npy, .csv or .bin, "
                    "or an explicit format npy|csv|bin",
                    path);
    if (fmt != SC_IO_FORMAT_NPY && fmt != SC_IO_FORMAT_CSV && fmt != SC_IO_FORMAT_BIN)
        return fail(err, errcap, SC_IO_ERR_ARGUMENT, "%s: pairs are written as npy, csv or bin, not %s",
                    path, sc_io_format_name(fmt));
    sc_pair_writer *w = calloc(1, sizeof *w);
    if (w == NULL)
        return fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory opening the output", path);
    sc_io_status st = sink_open(&w->s, path, err, errcap);
    if (st != SC_IO_OK) {
        free(w);
        return st;
    }
    w->format = fmt;
    w->n = n;
    if (fmt == SC_IO_FORMAT_NPY) {
        /* The shape is unknown until finish(): write a header of fixed size
         * now and rewrite it in place, with the same length, at the end. */
        unsigned char h[NPY_HEADER_BYTES];
        npy_header_bytes(h, sizeof h, "<u4", 0, 2);
        st = sink_put(&w->s, h, sizeof h, err, errcap);
        if (st != SC_IO_OK) {
            sink_discard(&w->s);
            free(w);
            return st;
        }
    }
    *out = w;
    return SC_IO_OK;
}

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930"
                                     "31323334353637383940414243444546474849505152535455565758596061"
                                     "62636465666768697071727374757677787980818283848586878889909192"
                                     "93949596979899";

/* Writes v in decimal at out (no terminator); returns the length (1..10). */
static size_t utoa32(char *out, uint32_t v)
{
    size_t len = v < 10u          ? 1
               : v < 100u         ? 2
               : v < 1000u        ? 3
               : v < 10000u       ? 4
               : v < 100000u      ? 5
               : v < 1000000u     ? 6
               : v < 10000000u    ? 7
               : v < 100000000u   ? 8
               : v < 1000000000u  ? 9
                                  : 10;
    char *p = out + len;
    while (v >= 100u) {
        unsigned d = (v % 100u) * 2u;
        v /= 100u;
        *--p = digit_pairs[d + 1];
        *--p = digit_pairs[d];
    }
    if (v >= 10u) {
        *--p = digit_pairs[v * 2u + 1];
        *--p = digit_pairs[v * 2u];
    } else {
        *--p = (char)('0' + v);
    }
    return len;
}

sc_io_status sc_pair_writer_write(sc_pair_writer *w, const uint32_t *pairs, size_t count,
                                  char *err, size_t errcap)
{
    if (w == NULL || (count > 0 && pairs == NULL))
        return fail(err, errcap, SC_IO_ERR_INTERNAL, "bad arguments to the pair writer");
    sink *s = &w->s;
    /* Check the whole chunk first (a branch-free loop the compiler vectorizes),
     * then look for the culprit only if something is wrong. */
    const uint64_t n = (uint64_t)w->n;
    unsigned bad = 0;
    for (size_t k = 0; k < count; k++)
        bad |= (unsigned)(pairs[2 * k] >= pairs[2 * k + 1]) | (unsigned)(pairs[2 * k + 1] >= n);
    if (bad) {
        for (size_t k = 0; k < count; k++) {
            uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
            if (!(i < j && j < n))
                return fail(err, errcap, SC_IO_ERR_INTERNAL,
                            "%s: pair %llu is (%u, %u), not i < j < n = %zu", s->final_path,
                            (unsigned long long)(w->pairs + k), i, j, w->n);
        }
    }
    if (w->format == SC_IO_FORMAT_CSV) {
        for (size_t k = 0; k < count; k++) {
            if (SC_IO_BUFFER_BYTES - s->used < 24) {
                sc_io_status st = sink_flush(s, err, errcap);
                if (st != SC_IO_OK)
                    return st;
            }
            char *b = (char *)s->buf + s->used;
            size_t l = utoa32(b, pairs[2 * k]);
            b[l++] = ',';
            l += utoa32(b + l, pairs[2 * k + 1]);
            b[l++] = '\n';
            s->used += l;
        }
    } else if (!SC_IO_BIG_ENDIAN) {
        sc_io_status st = sink_put(s, pairs, count * 2 * sizeof *pairs, err, errcap);
        if (st != SC_IO_OK)
            return st;
    } else {
        for (size_t k = 0; k < 2 * count; k++) {
            sc_io_status st = sink_reserve(s, 4, err, errcap);
            if (st != SC_IO_OK)
                return st;
            put_le32(s->buf + s->used, pairs[k]);
            s->used += 4;
        }
    }
    w->pairs += count;
    return SC_IO_OK;
}

uint64_t sc_pair_writer_count(const sc_pair_writer *w)
{
    return w ? w->pairs : 0;
}

const char *sc_pair_writer_temp_path(const sc_pair_writer *w)
{
    return w ? w->s.temp_path : NULL;
}

sc_io_status sc_pair_writer_finish(sc_pair_writer *w, uint64_t total, char *err, size_t errcap)
{
    if (w == NULL)
        return fail(err, errcap, SC_IO_ERR_INTERNAL, "no pair writer to finish");
    sc_io_status st = SC_IO_OK;
    if (total != w->pairs) {
        st = fail(err, errcap, SC_IO_ERR_INTERNAL,
                  "%s: the search reported %llu pairs but %llu were written", w->s.final_path,
                  (unsigned long long)total, (unsigned long long)w->pairs);
    }
    if (st == SC_IO_OK)
        st = sink_flush(&w->s, err, errcap);
    if (st == SC_IO_OK && w->format == SC_IO_FORMAT_NPY) {
        unsigned char h[NPY_HEADER_BYTES];
        npy_header_bytes(h, sizeof h, "<u4", w->pairs, 2);
        size_t done = 0;
        while (done < sizeof h) {
            ssize_t r = pwrite(w->s.fd, h + done, sizeof h - done, (off_t)done);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                int e = r == 0 ? EIO : errno;
                st = fail(err, errcap, SC_IO_ERR_WRITE, "%s: byte %zu: cannot rewrite the .npy header: %s",
                          w->s.final_path, done, strerror(e));
                break;
            }
            done += (size_t)r;
        }
    }
    if (st == SC_IO_OK)
        st = sink_commit(&w->s, err, errcap);
    else
        sink_discard(&w->s);
    free(w);
    return st;
}

void sc_pair_writer_abort(sc_pair_writer *w)
{
    if (w == NULL)
        return;
    sink_discard(&w->s);
    free(w);
}
