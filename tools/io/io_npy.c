/*
 * io_npy.c: the .npy reader (versions 1.0, 2.0, 3.0; (N,4) or (N,3),
 * '<f4' or '<f8', C order) and the version 1.0 header the writers emit.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* NumPy .npy                                                               */
/* ======================================================================== */

/* A cursor over the header dict text; `base` is the file offset of text[0]. */
typedef struct npy_cursor {
    const char *p, *end, *start;
    size_t base;
} npy_cursor;

static size_t npy_offset(const npy_cursor *c) {
    return c->base + (size_t)(c->p - c->start);
}

static void npy_skip_space(npy_cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Reads a quoted Python string literal (no escapes needed for our keys and
 * dtype strings; a backslash is refused). */
static int npy_string(npy_cursor *c, const char **s, size_t *len) {
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

static int npy_expect(npy_cursor *c, char ch) {
    npy_skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 0;
    }
    return -1;
}

static int npy_word(npy_cursor *c, const char *w) {
    size_t l = strlen(w);
    if ((size_t)(c->end - c->p) >= l && memcmp(c->p, w, l) == 0) {
        const char *after = c->p + l;
        if (after < c->end &&
            (*after == '_' || (*after >= 'a' && *after <= 'z') ||
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
/* One function, though long: a small recursive-descent parser of one
 * dictionary literal, a branch per key and per token kind, each setting
 * the offset and the reason a refusal reports. */
static int npy_parse_dict(npy_cursor *c, npy_header *h, size_t *bad, const char **why) {
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
    *why = !h->have_descr   ? "missing key 'descr'"
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

static uint32_t read_le32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

sc_io_status io_read_npy(const char *path, io_file *f, const sc_io_read_options *opts,
                         sc_io_spheres *out, char *err, size_t errcap) {
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    const unsigned char *d = f->data;
    if (f->size < 6 || memcmp(d, magic, 6) != 0)
        return io_fail(err, errcap, SC_IO_ERR_HEADER,
                       "%s: byte 0: malformed .npy header: missing the \\x93NUMPY magic string",
                       path);
    if (f->size < 8)
        return io_fail(err, errcap, SC_IO_ERR_HEADER,
                       "%s: byte 6: malformed .npy header: file ends inside the version", path);
    unsigned major = d[6], minor = d[7];
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        return io_fail(err, errcap, SC_IO_ERR_HEADER,
                       "%s: byte 6: malformed .npy header: unsupported format version %u.%u "
                       "(1.0, 2.0 and 3.0 are read)",
                       path, major, minor);
    size_t len_bytes = major == 1 ? 2 : 4;
    if (f->size < 8 + len_bytes)
        return io_fail(err, errcap, SC_IO_ERR_HEADER,
                       "%s: byte 8: malformed .npy header: file ends inside the header length",
                       path);
    size_t hlen = major == 1 ? (size_t)(d[8] | d[9] << 8) : (size_t)read_le32(d + 8);
    size_t hstart = 8 + len_bytes;
    if (hlen > f->size - hstart)
        return io_fail(
            err, errcap, SC_IO_ERR_HEADER,
            "%s: byte %zu: malformed .npy header: header length %zu runs past the end of "
            "the file (%zu bytes)",
            path, hstart, hlen, f->size);
    const char *text = (const char *)d + hstart;
    /* Versions 1 and 2 are latin-1 / ASCII; refuse non-ASCII bytes there. */
    for (size_t k = 0; k < hlen; k++) {
        unsigned char ch = (unsigned char)text[k];
        if (ch == 0 || (major < 3 && ch >= 0x80))
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: byte %zu: malformed .npy header: unexpected byte 0x%02X", path,
                           hstart + k, ch);
    }
    npy_cursor c = {text, text + hlen, text, hstart};
    npy_header h;
    size_t bad = 0;
    const char *why = NULL;
    if (npy_parse_dict(&c, &h, &bad, &why))
        return io_fail(err, errcap, SC_IO_ERR_HEADER, "%s: byte %zu: malformed .npy header: %s",
                       path, bad, why);

    sc_dtype dtype;
    if (h.descr_is_string && strcmp(h.descr, "<f8") == 0) {
        dtype = SC_F64;
    } else if (h.descr_is_string && strcmp(h.descr, "<f4") == 0) {
        dtype = SC_F32;
    } else {
        char q[96];
        return io_fail(err, errcap, SC_IO_ERR_DTYPE,
                       "%s: byte %zu: unsupported dtype %s (only '<f4' and '<f8' are read)", path,
                       h.descr_offset, io_quote(h.descr, strlen(h.descr), q, sizeof q));
    }
    if (h.fortran)
        return io_fail(err, errcap, SC_IO_ERR_ORDER,
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
        const char *want = want_dims == 2   ? "(N, 3) for circles"
                           : want_dims == 3 ? "(N, 4) for spheres"
                                            : "(N, 4) x,y,z,r or (N, 3) x,y,r";
        return io_fail(err, errcap, SC_IO_ERR_SHAPE,
                       "%s: byte %zu: unsupported shape %s (expected %s)", path, h.shape_offset,
                       shape_text, want);
    }
    int dims = h.shape[1] == 4 ? 3 : 2;
    size_t max = io_max_spheres(opts);
    if (h.shape[0] > (uint64_t)max)
        return io_fail(err, errcap, SC_IO_ERR_TOO_MANY,
                       "%s: byte %zu: too many spheres: shape %s, at most %zu", path,
                       h.shape_offset, shape_text, max);
    size_t n = (size_t)h.shape[0];
    size_t item = dtype == SC_F32 ? 4 : 8;
    size_t data_at = hstart + hlen;
    size_t avail = f->size - data_at;
    if (n > SIZE_MAX / (item * 4) || n * (size_t)(dims + 1) * item > avail) {
        size_t whole = avail / ((size_t)(dims + 1) * item);
        return io_fail(
            err, errcap, SC_IO_ERR_TRUNCATED,
            "%s: byte %zu: truncated file: shape %s needs %zu data bytes after the header, "
            "the file has %zu (%zu whole rows)",
            path, f->size, shape_text, n * (size_t)(dims + 1) * item, avail, whole);
    }
    size_t need = n * (size_t)(dims + 1) * item;
    if (avail > need)
        return io_fail(err, errcap, SC_IO_ERR_HEADER,
                       "%s: byte %zu: malformed .npy file: %zu bytes after the data that shape %s "
                       "describes",
                       path, data_at + need, avail - need, shape_text);
    return io_adopt_rows(f, data_at, n, dims, dtype, opts, out, path, err, errcap);
}

/* ======================================================================== */
/* .npy headers written here                                                */
/* ======================================================================== */

/* Version 1.0 header of exactly `total` bytes (a multiple of 64): magic,
 * version, length, the dict padded with spaces, '\n'. */
void io_npy_header(unsigned char *out, size_t total, const char *descr, uint64_t rows,
                   unsigned cols) {
    memset(out, ' ', total);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    size_t hlen = total - 10;
    out[8] = (unsigned char)(hlen & 0xff);
    out[9] = (unsigned char)(hlen >> 8);
    char dict[160];
    int l = snprintf(dict, sizeof dict,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%llu, %u), }", descr,
                     (unsigned long long)rows, cols);
    memcpy(out + 10, dict, (size_t)l);
    out[total - 1] = '\n';
}

/* Room for the longest shape (20 digits) with the total a multiple of 64. */
#define NPY_HEADER_BYTES 128

void io_put_le32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}

void io_put_le64(unsigned char *b, uint64_t v) {
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(v >> (8 * k));
}
