/*
 * io_write_pairs.c: the streaming pair writers (.npy K x 2 '<u4', .csv
 * "i,j" lines, raw uint32), in bounded memory whatever K is.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ======================================================================== */
/* Pair writers                                                             */
/* ======================================================================== */

struct sc_pair_writer {
    io_sink s;
    int header_pending; /* .npy on a stream: the header waits for the total */
    sc_io_format format;
    size_t n;
    uint64_t pairs;
    int list;                     /* a neighbour list: (row, neighbour), any order, i != j */
    size_t nb;                    /* two sets: i < n, j < nb (0: one set) */
    int with_values;              /* a list's third CSV column */
    const int64_t *ids_i, *ids_j; /* sc_pair_writer_use_ids: what is written for i, j */
};

/* The .npy dtype of the pairs: row numbers, or the caller's int64 ids. */
static const char *npy_descr(const sc_pair_writer *w) {
    return w->ids_i ? "<i8" : "<u4";
}

_Static_assert(SC_IO_PAIRS_NPY_HEADER == NPY_HEADER_BYTES, "one .npy header size for pairs");

void sc_io_pairs_npy_header(unsigned char out[SC_IO_PAIRS_NPY_HEADER], uint64_t total) {
    io_npy_header(out, SC_IO_PAIRS_NPY_HEADER, "<u4", total, 2);
}

sc_io_status sc_pair_writer_open(const char *path, sc_io_format format, size_t n,
                                 sc_pair_writer **out, char *err, size_t errcap) {
    if (err && errcap)
        err[0] = '\0';
    if (out == NULL)
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL, "no writer pointer");
    *out = NULL;
    if (path == NULL)
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "cannot write output: no path");
    sc_io_format fmt = format == SC_IO_FORMAT_AUTO ? sc_io_pairs_format_for_path(path) : format;
    if (fmt == SC_IO_FORMAT_AUTO)
        return io_fail(
            err, errcap, SC_IO_ERR_ARGUMENT,
            "%s: cannot tell the pair format from the extension; use .npy, .csv or .bin, "
            "or an explicit format npy|csv|bin",
            path);
    if (fmt != SC_IO_FORMAT_NPY && fmt != SC_IO_FORMAT_CSV && fmt != SC_IO_FORMAT_BIN)
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: pairs are written as npy, csv or bin, not %s", path,
                       sc_io_format_name(fmt));
    sc_pair_writer *w = calloc(1, sizeof *w);
    if (w == NULL)
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory opening the output", path);
    sc_io_status st = io_sink_open(&w->s, path, err, errcap);
    if (st != SC_IO_OK) {
        free(w);
        return st;
    }
    w->format = fmt;
    w->n = n;
    if (fmt == SC_IO_FORMAT_NPY && !w->s.seekable) {
        /* A stream cannot be rewritten: the header, which holds the shape,
         * waits until the caller declares the total. */
        w->header_pending = 1;
    } else if (fmt == SC_IO_FORMAT_NPY) {
        /* The shape is unknown until finish(): write a header of fixed size
         * now and rewrite it in place, with the same length, at the end. */
        unsigned char h[NPY_HEADER_BYTES];
        io_npy_header(h, sizeof h, "<u4", 0, 2);
        st = io_sink_put(&w->s, h, sizeof h, err, errcap);
        if (st != SC_IO_OK) {
            io_sink_discard(&w->s);
            free(w);
            return st;
        }
    }
    *out = w;
    return SC_IO_OK;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930"
    "31323334353637383940414243444546474849505152535455565758596061"
    "62636465666768697071727374757677787980818283848586878889909192"
    "93949596979899";

/* Writes v in decimal at out (no terminator); returns the length (1..10). */
static size_t utoa32(char *out, uint32_t v) {
    size_t len = v < 10u           ? 1
                 : v < 100u        ? 2
                 : v < 1000u       ? 3
                 : v < 10000u      ? 4
                 : v < 100000u     ? 5
                 : v < 1000000u    ? 6
                 : v < 10000000u   ? 7
                 : v < 100000000u  ? 8
                 : v < 1000000000u ? 9
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

/* Writes v in decimal at out (no terminator); returns the length (1..20). */
static size_t itoa64(char *out, int64_t v) {
    char tmp[24];
    size_t len = 0, at = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[len++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        out[at++] = '-';
    while (len)
        out[at++] = tmp[--len];
    return at;
}

/* Pairs checked by the caller, written as the ids of their rows: one set's
 * pair with the smaller id first (as row numbers have i < j), two sets'
 * and a list's in their order (A's or the row's id first). */
static sc_io_status write_ids(sc_pair_writer *w, const uint32_t *pairs, size_t count, char *err,
                              size_t errcap) {
    io_sink *s = &w->s;
    const int ordered = !w->list && !w->nb;
    for (size_t k = 0; k < count; k++) {
        int64_t a = w->ids_i[pairs[2 * k]], b = w->ids_j[pairs[2 * k + 1]];
        if (ordered && b < a) {
            const int64_t t = a;
            a = b;
            b = t;
        }
        sc_io_status st = io_sink_reserve(s, 48, err, errcap);
        if (st != SC_IO_OK)
            return st;
        unsigned char *p = s->buf + s->used;
        if (w->format == SC_IO_FORMAT_CSV) {
            size_t l = itoa64((char *)p, a);
            p[l++] = ',';
            l += itoa64((char *)p + l, b);
            p[l++] = '\n';
            s->used += l;
        } else {
            io_put_le64(p, (uint64_t)a);
            io_put_le64(p + 8, (uint64_t)b);
            s->used += 16;
        }
    }
    return SC_IO_OK;
}

sc_io_status sc_pair_writer_use_ids(sc_pair_writer *w, const int64_t *ids_i, const int64_t *ids_j,
                                    char *err, size_t errcap) {
    if (w == NULL || ids_i == NULL || (w->nb && ids_j == NULL) || w->pairs != 0)
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL,
                       "ids go to a pair writer before its first pair");
    w->ids_i = ids_i;
    w->ids_j = w->nb ? ids_j : ids_i;
    return SC_IO_OK;
}

sc_io_status sc_pair_writer_write(sc_pair_writer *w, const uint32_t *pairs, size_t count, char *err,
                                  size_t errcap) {
    if (w == NULL || (count > 0 && pairs == NULL))
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL, "bad arguments to the pair writer");
    io_sink *s = &w->s;
    if (w->header_pending)
        return io_fail(
            err, errcap, SC_IO_ERR_INTERNAL,
            "%s: .npy to a stream needs the pair count first (sc_pair_writer_declare_total)",
            s->name);
    /* Check the whole chunk first (a branch-free loop the compiler vectorizes),
     * then look for the culprit only if something is wrong. */
    const uint64_t n = (uint64_t)w->n;
    unsigned bad = 0;
    const uint64_t nb = (uint64_t)w->nb;
    if (w->list)
        for (size_t k = 0; k < count; k++)
            bad |= (unsigned)(pairs[2 * k] == pairs[2 * k + 1]) | (unsigned)(pairs[2 * k] >= n) |
                   (unsigned)(pairs[2 * k + 1] >= n);
    else if (nb)
        for (size_t k = 0; k < count; k++)
            bad |= (unsigned)(pairs[2 * k] >= n) | (unsigned)(pairs[2 * k + 1] >= nb);
    else
        for (size_t k = 0; k < count; k++)
            bad |= (unsigned)(pairs[2 * k] >= pairs[2 * k + 1]) | (unsigned)(pairs[2 * k + 1] >= n);
    if (bad) {
        for (size_t k = 0; k < count; k++) {
            uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
            if (nb && (i >= n || j >= nb))
                return io_fail(err, errcap, SC_IO_ERR_INTERNAL,
                               "%s: pair %llu is (%u, %u), not i < %zu and j < %zu", s->name,
                               (unsigned long long)(w->pairs + k), i, j, w->n, w->nb);
            if (!nb && (w->list ? (i == j || i >= n || j >= n) : !(i < j && j < n)))
                return io_fail(err, errcap, SC_IO_ERR_INTERNAL,
                               "%s: pair %llu is (%u, %u), not %s < n = %zu", s->name,
                               (unsigned long long)(w->pairs + k), i, j,
                               w->list ? "i != j, both" : "i < j", w->n);
        }
    }
    if (w->ids_i) {
        sc_io_status st = write_ids(w, pairs, count, err, errcap);
        if (st != SC_IO_OK)
            return st;
    } else if (w->format == SC_IO_FORMAT_CSV) {
        for (size_t k = 0; k < count; k++) {
            if (SC_IO_BUFFER_BYTES - s->used < 24) {
                sc_io_status st = io_sink_flush(s, err, errcap);
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
        sc_io_status st = io_sink_put(s, pairs, count * 2 * sizeof *pairs, err, errcap);
        if (st != SC_IO_OK)
            return st;
    } else {
        for (size_t k = 0; k < 2 * count; k++) {
            sc_io_status st = io_sink_reserve(s, 4, err, errcap);
            if (st != SC_IO_OK)
                return st;
            io_put_le32(s->buf + s->used, pairs[k]);
            s->used += 4;
        }
    }
    w->pairs += count;
    return SC_IO_OK;
}

sc_io_status sc_between_writer_open(const char *path, sc_io_format format, size_t na, size_t nb,
                                    sc_pair_writer **out, char *err, size_t errcap) {
    sc_io_status st = sc_pair_writer_open(path, format, na, out, err, errcap);
    if (st == SC_IO_OK)
        (*out)->nb = nb ? nb : 1; /* nb 0: no j is valid, and nb must stay non-zero */
    return st;
}

sc_io_status sc_list_writer_open(const char *path, sc_io_format format, size_t n, int with_values,
                                 sc_pair_writer **out, char *err, size_t errcap) {
    sc_io_format fmt =
        format == SC_IO_FORMAT_AUTO && path ? sc_io_pairs_format_for_path(path) : format;
    if (with_values && fmt != SC_IO_FORMAT_CSV && fmt != SC_IO_FORMAT_AUTO) {
        if (out)
            *out = NULL;
        return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                       "%s: a list with values is written as csv (\"i,j,value\" lines), not %s",
                       path ? path : "output", sc_io_format_name(fmt));
    }
    sc_io_status st = sc_pair_writer_open(path, fmt, n, out, err, errcap);
    if (st == SC_IO_OK) {
        (*out)->list = 1;
        (*out)->with_values = with_values;
    }
    return st;
}

/* Writes the shortest text that reads back as the same double ("%.17g" at
 * most) to out, which has room for 32 bytes; returns its length. */
static size_t dtoa_exact(char *out, double v) {
    char text[32];
    int l = 0;
    for (int prec = 15; prec <= 17; prec++) {
        l = snprintf(text, sizeof text, "%.*g", prec, v);
        if (strtod(text, NULL) == v)
            break;
    }
    memcpy(out, text, (size_t)l);
    return (size_t)l;
}

sc_io_status sc_list_writer_row(sc_pair_writer *w, uint32_t row, const uint32_t *nbr,
                                const double *values, size_t count, char *err, size_t errcap) {
    if (w == NULL || !w->list || (count > 0 && nbr == NULL) || (w->with_values && count && !values))
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL, "bad arguments to the list writer");
    uint32_t stage[2 * 512];
    for (size_t at = 0; at < count;) {
        const size_t take = count - at < 512 ? count - at : 512;
        for (size_t k = 0; k < take; k++) {
            stage[2 * k] = row;
            stage[2 * k + 1] = nbr[at + k];
        }
        if (!w->with_values) {
            sc_io_status st = sc_pair_writer_write(w, stage, take, err, errcap);
            if (st != SC_IO_OK)
                return st;
        } else {
            for (size_t k = 0; k < take; k++) {
                /* room for the whole line first, so the pair's line stays in
                 * the buffer: its '\n' becomes the ',' before the value */
                io_sink *s = &w->s;
                sc_io_status st = SC_IO_OK;
                if (SC_IO_BUFFER_BYTES - s->used < 128) /* two ids and a value */
                    st = io_sink_flush(s, err, errcap);
                if (st == SC_IO_OK)
                    st = sc_pair_writer_write(w, stage + 2 * k, 1, err, errcap);
                if (st != SC_IO_OK)
                    return st;
                char *b = (char *)s->buf + s->used;
                b[-1] = ',';
                size_t l = dtoa_exact(b, values[at + k]);
                b[l++] = '\n';
                s->used += l;
            }
        }
        at += take;
    }
    return SC_IO_OK;
}

uint64_t sc_pair_writer_count(const sc_pair_writer *w) {
    return w ? w->pairs : 0;
}

const char *sc_pair_writer_temp_path(const sc_pair_writer *w) {
    return w ? w->s.temp_path : NULL;
}

int sc_pair_writer_needs_total(const sc_pair_writer *w) {
    return w != NULL && w->header_pending;
}

sc_io_status sc_pair_writer_declare_total(sc_pair_writer *w, uint64_t total, char *err,
                                          size_t errcap) {
    if (w == NULL || !w->header_pending)
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL, "no .npy header waits for a total");
    unsigned char h[NPY_HEADER_BYTES];
    io_npy_header(h, sizeof h, npy_descr(w), total, 2);
    w->header_pending = 0;
    return io_sink_put(&w->s, h, sizeof h, err, errcap);
}

sc_io_status sc_pair_writer_finish(sc_pair_writer *w, uint64_t total, char *err, size_t errcap) {
    if (w == NULL)
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL, "no pair writer to finish");
    sc_io_status st = SC_IO_OK;
    if (total != w->pairs) {
        st = io_fail(err, errcap, SC_IO_ERR_INTERNAL,
                     "%s: the search reported %llu pairs but %llu were written", w->s.name,
                     (unsigned long long)total, (unsigned long long)w->pairs);
    }
    if (st == SC_IO_OK)
        st = io_sink_flush(&w->s, err, errcap);
    if (st == SC_IO_OK && w->header_pending) /* a stream that got no pairs */
        st = sc_pair_writer_declare_total(w, w->pairs, err, errcap);
    if (st == SC_IO_OK && w->format == SC_IO_FORMAT_NPY && w->s.seekable) {
        unsigned char h[NPY_HEADER_BYTES];
        io_npy_header(h, sizeof h, npy_descr(w), w->pairs, 2);
        st = io_sink_rewrite(&w->s, 0, h, sizeof h, err, errcap);
    }
    if (st == SC_IO_OK)
        st = io_sink_commit(&w->s, err, errcap);
    else
        io_sink_discard(&w->s);
    free(w);
    return st;
}

void sc_pair_writer_abort(sc_pair_writer *w) {
    if (w == NULL)
        return;
    io_sink_discard(&w->s);
    free(w);
}
