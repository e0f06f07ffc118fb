/*
 * io_text.c: the text reader and its number parser (strtod semantics:
 * Clinger's fast path and an exact 128-bit path for common decimals, strtod
 * for the rest).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The decimal fast path relies on one correctly rounded double operation. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#define SC_IO_NO_FAST_PATH 1
#endif

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

sc_io_status io_read_text(const char *path, const io_file *f, const sc_io_read_options *opts,
                              sc_io_spheres *out, char *err, size_t errcap)
{
    const int dims = (opts && opts->dims == 2) ? 2 : 3;
    const size_t cols = (size_t)dims + 1;
    const size_t max = io_max_spheres(opts);
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
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory", path);
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
                st = io_fail(err, errcap, SC_IO_ERR_SYNTAX, "%s: line %zu: non-numeric token %s",
                          path, line, io_quote(t, len, q, sizeof q));
                goto done;
            }
            if (tr == TOKEN_OVERFLOW) {
                st = io_fail(err, errcap, SC_IO_ERR_OUT_OF_RANGE,
                          "%s: line %zu: %s %s (sphere %zu, column %s)", path, line,
                          io_value_problem(VALUE_OUT_OF_RANGE), io_quote(t, len, q, sizeof q),
                          count / cols, io_column_name(count % cols, dims));
                goto done;
            }
            int is_radius = count % cols == (size_t)dims;
            if (!(fabs(v) <= SC_MAX_ABS_VALUE) || (is_radius && v < 0.0)) {
                io_value_check vc = io_check_value(v, is_radius);
                if (vc != VALUE_OK) {
                    st = io_fail(err, errcap, io_value_status(vc),
                              "%s: line %zu: %s %s (sphere %zu, column %s)", path, line,
                              io_value_problem(vc), io_quote(t, len, q, sizeof q), count / cols,
                              io_column_name(count % cols, dims));
                    goto done;
                }
            }
            if (count == cap) {
                size_t ncap = cap * 2;
                double *grown = ncap > SIZE_MAX / sizeof *vals ? NULL
                                                               : realloc(vals, ncap * sizeof *vals);
                if (grown == NULL) {
                    st = io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: line %zu: out of memory after %zu numbers",
                              path, line, count);
                    goto done;
                }
                vals = grown;
                cap = ncap;
            }
            vals[count++] = v;
            if (count / cols > max) {
                st = io_fail(err, errcap, SC_IO_ERR_TOO_MANY,
                          "%s: line %zu: too many spheres: more than %zu (token %s)", path, line,
                          max, io_quote(t, len, q, sizeof q));
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
                st = io_fail(err, errcap, SC_IO_ERR_SYNTAX,
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
        st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                  "%s: line %zu: %zu numbers in all, not a multiple of %zu (%s); the last sphere "
                  "is incomplete after token %s",
                  path, last_line, count, cols, dims == 2 ? "x y r" : "x y z r",
                  io_quote(last_tok, last_len, q, sizeof q));
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

