/*
 * io_decimal.h: the readers' one-pass number parser (io_text.c's lines,
 * io_particles.c's atom rows), inline in each.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SC_IO_DECIMAL_H
#define SC_IO_DECIMAL_H

#include "io_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0 && defined(__BYTE_ORDER__) &&                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SC_IO_SHORT_DECIMAL 1
/* ---- short decimals, eight digits at a time ------------------------------
 * Most particle files hold short plain decimals ("844.6859"): at most 8
 * digits before the point and 8 after, no exponent. For those, the digits
 * are found and converted a word at a time, and the value is m / 10^f with
 * m the digits as an integer: when m <= 2^53 both operands are exact
 * doubles, so the one correctly rounded division gives the correctly
 * rounded value (Clinger's fast path; fast_float takes the same path for
 * such a token, so the two agree bit for bit). Anything else (a sign '+',
 * an exponent, more digits, m > 2^53, a token that does not end in a blank,
 * a comma or a line end, fewer than SHORT_ROOM bytes left) is declined,
 * NULL, and goes to fast_float. A ninth digit on either side needs no test
 * of its own: it is not such an end. The caller still checks what follows
 * the number for its own format. */
enum { SHORT_ROOM = 19 }; /* '-', 8 digits, '.', 8 digits, the byte after */

static inline uint64_t load8(const char *p) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* The byte index (0..8) of the first byte of w that is not '0'..'9'; 8 when
 * all are digits. Bytes below '0' borrow, and bytes above '9' carry, only
 * into higher bytes, that is past a byte already flagged, so the lowest
 * flag is exact. */
static inline unsigned digits_in(uint64_t w) {
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    const uint64_t below = (w - ones * '0') & ~w & high;
    const uint64_t above = ((w + ones * (127 - '9')) | w) & high;
    const uint64_t flags = below | above;
    return flags ? (unsigned)__builtin_ctzll(flags) / 8 : 8;
}

/* The value of the first k (1..8) digits of w. */
static inline uint64_t digits_value(uint64_t w, unsigned k) {
    uint64_t v = (w - 0x3030303030303030u) << (8 * (8 - k)); /* leading zero digits */
    v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFu;
    v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFu;
    return (v * 10000 + (v >> 32)) & 0xFFFFFFFFu;
}

static inline int ends_token(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',';
}

static inline const char *short_decimal(const char *p, const char *end, double *out) {
    if (end - p < SHORT_ROOM)
        return NULL;
    const int neg = *p == '-';
    p += neg;
    const uint64_t w = load8(p);
    const unsigned ni = digits_in(w);
    uint64_t m = ni ? digits_value(w, ni) : 0;
    unsigned nf = 0;
    p += ni;
    if (*p == '.') {
        const uint64_t f = load8(p + 1);
        nf = digits_in(f);
        if (ni + nf == 0)
            return NULL;
        static const uint32_t scale[9] = {1,      10,      100,      1000,     10000,
                                          100000, 1000000, 10000000, 100000000};
        if (nf)
            m = m * scale[nf] + digits_value(f, nf);
        p += 1 + nf;
    } else if (ni == 0) {
        return NULL;
    }
    if (!ends_token(*p) || m > ((uint64_t)1 << 53))
        return NULL;
    static const double divisor[9] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    const double v = (double)m / divisor[nf];
    *out = neg ? -v : v;
    return p;
}
#endif

/* Past the blanks (space, tab) from p. */
static inline const char *io_skip_blanks(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Past the line end at p: \n, \r\n or \r, nothing at the data's end. */
static inline const char *io_past_line_end(const char *p, const char *end) {
    return p < end ? p + ((*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1) : p;
}

/* A value the readers keep: io_check_value(v, is_radius) == VALUE_OK
 * (finite, within SC_MAX_ABS_VALUE, a radius not negative), inline. */
static inline int io_value_ok(double v, int is_radius) {
    return fabs(v) <= SC_MAX_ABS_VALUE && (!is_radius || v >= 0.0);
}

/* The number at p as the one-pass paths read it: a short decimal a word at
 * a time, else fast_float; returns its end, or NULL when none starts at p,
 * its value is not finite, or no decimal parser is built in (the caller's
 * general path decides those). end bounds the reads and may lie past the
 * token's line. */
static inline const char *io_scan_number(const char *p, const char *end, double *out) {
#ifdef SC_IO_SHORT_DECIMAL
    const char *q = short_decimal(p, end, out);
    if (q != NULL)
        return q;
#endif
#ifdef SC_HAVE_FAST_FLOAT
    return io_scan_decimal(p, end, out);
#else
    (void)p;
    (void)end;
    (void)out;
    return NULL;
#endif
}

#endif
