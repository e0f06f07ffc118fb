/*
 * io_text.c: the text reader and its number parser (strtod semantics:
 * Clinger's fast path and an exact 128-bit path for common decimals, strtod
 * for the rest).
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "io_decimal.h"
#include "io_internal.h"
#include "io_runs.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <simde/x86/sse2.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The decimal fast path relies on one correctly rounded double operation. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#define SC_IO_NO_FAST_PATH 1
#endif

/* ======================================================================== */
/* Text                                                                     */
/* ======================================================================== */

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if !defined(SC_IO_NO_FAST_PATH) && defined(__SIZEOF_INT128__)
static int bit_length128(unsigned __int128 v) {
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
static int exact_scale(uint64_t m, int e, double *out) {
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
static int exact_scale(uint64_t m, int e, double *out) {
    (void)m;
    (void)e;
    (void)out;
    return -1;
}
#endif

/* Appends the decimal digits at *p to the significand m (leading zeros are
 * not significant digits); returns how many digits it read, or -1 when m
 * would need more than 19 significant digits. */
static int take_digits(const char **p, const char *end, uint64_t *m, int *digits) {
    const char *q = *p;
    for (; q < end && (unsigned)(*q - '0') < 10; q++) {
        const unsigned d = (unsigned)(*q - '0');
        if (*m != 0 || d != 0) {
            if (*digits >= 19)
                return -1;
            *m = *m * 10 + d;
            (*digits)++;
        }
    }
    const int n = (int)(q - *p);
    *p = q;
    return n;
}

/* Clinger's fast path: a decimal whose significand fits in 53 bits and whose
 * power of ten is exact (|e| <= 22) is m * 10^e or m / 10^-e, one correctly
 * rounded operation, hence exactly what strtod returns. Anything else
 * (long significands, big exponents, hex, inf, nan, junk) returns -1 and goes
 * to strtod. */
static int parse_fast(const char *p, const char *end, double *out) {
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
    int n = take_digits(&p, end, &m, &digits);
    if (n < 0)
        return -1;
    any = n > 0;
    if (p < end && *p == '.') {
        p++;
        n = take_digits(&p, end, &m, &digits);
        if (n < 0)
            return -1;
        any |= n > 0;
        exp10 = -n;
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

/* Parses one token with strtod semantics (a token of any length). TOKEN_OVERFLOW: a
 * finite literal too large for a double (strtod's ERANGE with HUGE_VAL). */
static token_result parse_token(const char *t, size_t len, double *out) {
    if (len == 0)
        return TOKEN_SYNTAX;
#ifdef SC_HAVE_FAST_FLOAT
    if (io_parse_decimal(t, t + len, out) == 0)
        return TOKEN_OK;
#endif
    if (parse_fast(t, t + len, out) == 0)
        return TOKEN_OK;
    char small[TOKEN_MAX];
    char *buf = len < sizeof small ? small : malloc(len + 1);
    if (buf == NULL)
        return TOKEN_SYNTAX;
    /* strtod skips leading white space and accepts what our tokenizer never
     * produces, so the token must be consumed entirely. */
    memcpy(buf, t, len);
    buf[len] = '\0';
    char *endp = NULL;
    errno = 0;
    double v = strtod(buf, &endp);
    const int whole = endp == buf + len;
    const int range = errno == ERANGE && isinf(v);
    if (buf != small)
        free(buf);
    if (!whole)
        return TOKEN_SYNTAX;
    if (range)
        return TOKEN_OVERFLOW;
    *out = v;
    return TOKEN_OK;
}

int io_parse_number(const char *t, size_t len, double *out) {
    const token_result r = parse_token(t, len, out);
    return r == TOKEN_OK ? 0 : r == TOKEN_SYNTAX ? 1 : 2;
}

/* ---- lines and fields ----------------------------------------------------------
 *
 * A line ends at \n, \r\n or \r; '#' starts a comment to the end of the line.
 * A line holding a comma is split at commas (blanks around a field are
 * trimmed; one trailing comma is allowed; two commas in a row make an empty
 * field); any other line is split at blanks (space, tab, \v, \f). */

typedef struct text_line {
    const char *p, *end; /* content, comment removed */
    int commas;
} text_line;

static int is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* The next line from *pos; returns 0 at the end of the data. */
static int next_line(const char **pos, const char *end, text_line *l) {
    const char *p = *pos;
    if (p >= end)
        return 0;
    const char *q = p;
    while (q < end && *q != '\n' && *q != '\r')
        q++;
    const char *hash = memchr(p, '#', (size_t)(q - p));
    l->p = p;
    l->end = hash ? hash : q;
    l->commas = memchr(l->p, ',', (size_t)(l->end - l->p)) != NULL;
    if (q < end && *q == '\r' && q + 1 < end && q[1] == '\n')
        q++;
    *pos = q < end ? q + 1 : q;
    return 1;
}

/* The next field of a line, or 0 when there is none left. */
static int next_field(const char **cur, const text_line *l, const char **t, size_t *len) {
    const char *p = *cur;
    if (!l->commas) {
        while (p < l->end && is_blank(*p))
            p++;
        if (p >= l->end)
            return 0;
        const char *b = p;
        while (p < l->end && !is_blank(*p))
            p++;
        *t = b;
        *len = (size_t)(p - b);
        *cur = p;
        return 1;
    }
    if (p > l->end)
        return 0;
    const char *b = p;
    while (p < l->end && *p != ',')
        p++;
    const char *e = p;
    while (b < e && is_blank(*b))
        b++;
    while (e > b && is_blank(e[-1]))
        e--;
    /* after the last comma: a field only if something is there */
    if (p >= l->end && b == e && *cur != l->p && (*cur)[-1] == ',') {
        *cur = l->end + 1;
        return 0;
    }
    *t = b;
    *len = (size_t)(e - b);
    *cur = p < l->end ? p + 1 : l->end + 1;
    return 1;
}

static int line_is_empty(const text_line *l) {
    for (const char *p = l->p; p < l->end; p++)
        if (!is_blank(*p))
            return 0;
    return 1;
}

/* ---- a header line of column names ---------------------------------------------- */

enum { COL_X, COL_Y, COL_Z, COL_R, COL_NAMES };
#define HEADER_MAX_COLUMNS 4096

/* A column name: letters, digits, '_', '-', '.', ' ' inside, optionally in
 * double quotes; empty is allowed (pandas writes an unnamed index column). */
static int name_token(const char *t, size_t len, const char **name, size_t *nlen) {
    if (len >= 2 && t[0] == '"' && t[len - 1] == '"') {
        t++;
        len -= 2;
    }
    for (size_t k = 0; k < len; k++) {
        const unsigned char c = (unsigned char)t[k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (k > 0 && ((c >= '0' && c <= '9') || c == '-' || c == '.' || c == ' '))))
            return 0;
    }
    *name = t;
    *nlen = len;
    return 1;
}

static int column_of(const char *name, size_t len) {
    static const char *const names[][2] = {{"x", NULL}, {"y", NULL}, {"z", NULL}, {"r", "radius"}};
    for (int c = 0; c < COL_NAMES; c++)
        for (int a = 0; a < 2; a++) {
            const char *w = names[c][a];
            if (w && strlen(w) == len) {
                size_t k = 0;
                while (k < len && (name[k] | 0x20) == w[k])
                    k++;
                if (k == len)
                    return c;
            }
        }
    return -1;
}

typedef struct layout {
    int header; /* columns come from a header line */
    size_t header_line;
    size_t fields;            /* fields per line (header mode) */
    long field_of[COL_NAMES]; /* field index of x, y, z, r, or -1 */
} layout;

/* Tries the line as a header. Returns 0 when it is not a header at all (the
 * caller reports the first non-number); else 1, with *st SC_IO_OK and *lay
 * set, or an error (message written) for a header that names too little. */
static int parse_header(const char *path, const text_line *l, size_t line, int dims_opt,
                        layout *lay, sc_io_status *st, char *err, size_t errcap) {
    memset(lay, 0, sizeof *lay);
    for (int c = 0; c < COL_NAMES; c++)
        lay->field_of[c] = -1;
    const char *cur = l->p, *t;
    size_t len, k = 0;
    char q[128];
    while (next_field(&cur, l, &t, &len)) {
        const char *name;
        size_t nlen;
        if (!name_token(t, len, &name, &nlen))
            return 0;
        const int c = column_of(name, nlen);
        if (c >= 0 && lay->field_of[c] >= 0) {
            *st =
                io_fail(err, errcap, SC_IO_ERR_SYNTAX, "%s: line %zu: header names column %s twice",
                        path, line, io_quote(name, nlen, q, sizeof q));
            return 1;
        }
        if (c >= 0)
            lay->field_of[c] = (long)k;
        if (++k > HEADER_MAX_COLUMNS) {
            *st = io_fail(err, errcap, SC_IO_ERR_SYNTAX, "%s: line %zu: more than %d columns", path,
                          line, HEADER_MAX_COLUMNS);
            return 1;
        }
    }
    if (lay->field_of[COL_X] < 0 && lay->field_of[COL_Y] < 0 && lay->field_of[COL_R] < 0)
        return 0; /* names, but none of ours: not taken as a header */
    static const char *const need[] = {"x", "y", "z", "r"};
    for (int c = 0; c < COL_NAMES; c++) {
        if (c == COL_Z)
            continue;
        if (lay->field_of[c] < 0) {
            *st = io_fail(err, errcap, SC_IO_ERR_SYNTAX,
                          "%s: line %zu: the header names no column %s (it needs x, y, %sr)", path,
                          line, need[c], dims_opt == 2 ? "" : "z if 3-D, ");
            return 1;
        }
    }
    if (dims_opt == 2 && lay->field_of[COL_Z] >= 0) {
        *st = io_fail(err, errcap, SC_IO_ERR_SYNTAX,
                      "%s: line %zu: the header names a z column, but --2d reads circles (x, y, r)",
                      path, line);
        return 1;
    }
    lay->header = 1;
    lay->header_line = line;
    lay->fields = k;
    *st = SC_IO_OK;
    return 1;
}

/* ---- the reader -------------------------------------------------------------- */

typedef struct values {
    double *v;
    size_t count, cap;
} values;

static int values_push(values *vs, double v) {
    if (vs->count == vs->cap) {
        size_t ncap = vs->cap ? 2 * vs->cap : 1024;
        double *grown =
            ncap > SIZE_MAX / sizeof *vs->v ? NULL : realloc(vs->v, ncap * sizeof *vs->v);
        if (grown == NULL)
            return -1;
        vs->v = grown;
        vs->cap = ncap;
    }
    vs->v[vs->count++] = v;
    return 0;
}

typedef enum text_mode { MODE_UNKNOWN, MODE_FLAT, MODE_ROWS, MODE_HEADER } text_mode;

/* A header's line, read in one pass (fast_fields): where each of its `fields` fields
 * goes. slot[f] is the value's place in the sphere (0..dims, the radius at
 * dims), or -1 for a field the header does not name, which is skipped
 * unread, as the general path skips it. */
enum { MAP_FIELDS = 64 };
typedef struct field_map {
    size_t fields, dims;
    signed char slot[MAP_FIELDS];
} field_map;

/* The separator after a field that ends at p: the position past it, or
 * NULL when it does not agree with the line's separators so far (*commas:
 * -1 none seen yet, 0 blanks, 1 commas). A line with a comma is split at
 * commas, its fields trimmed of blanks, and nothing after the last comma is
 * no field (next_field): every separator of such a line must hold one
 * comma, and every separator of any other line blanks only. At a line end,
 * the position of the line end (a comma may end the line). */
static inline const char *separator(const char *p, const char *end, int *commas) {
    p = io_skip_blanks(p, end);
    if (p < end && *p == ',') {
        if (*commas == 0)
            return NULL;
        *commas = 1;
        p = io_skip_blanks(p + 1, end);
    } else if (p < end && *p != '\n' && *p != '\r') {
        if (*commas == 1)
            return NULL;
        *commas = 0;
    }
    return p;
}

/* The number of a field at p of a one-pass line: its end, or NULL unless
 * the number is the whole field (a blank, a comma or a line end after it)
 * and a value the readers keep (a radius when is_radius). */
static inline const char *line_number(const char *p, const char *end, int is_radius, double *x) {
    const char *q = io_scan_number(p, end, x);
    if (q == NULL ||
        (q < end && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r' && *q != ',') ||
        !io_value_ok(*x, is_radius))
        return NULL;
    return q;
}

#ifdef SC_HAVE_FAST_FLOAT
/* The common line, read in one pass: decimals that fast_float takes whole,
 * each valid for its column, separated by blanks (space, tab) or by commas
 * with blanks around them (CSV; one comma may end the line), ending at \n,
 * \r\n, \r or the end of the data. The decimal parser is handed the
 * position itself; the token ends where the number does, and only the byte
 * after it is checked, so the line is not scanned first for its end, its
 * comment or its commas. Returns how many values it read into v (at most
 * `want`; 0 for an empty line) and moves *pos past the line; -1 for
 * anything else (a comma in a line separated by blanks or the reverse, an
 * empty field, '#', another blank, a token that is not such a number, a bad
 * value, more than `want` values), *pos unmoved: the general path then
 * reads the line and words any error. *tok, *tok_len: the last
 * token read. `col` is the column of v[0]; the radius is column `dims`. */
static int fast_line(const char **pos, const char *end, double *v, size_t want, size_t col,
                     size_t cols, size_t dims, const char **tok, size_t *tok_len) {
    const char *p = *pos;
    size_t k = 0;
    int commas = -1; /* the line's separators: unknown, 0 blanks, 1 commas */
    p = io_skip_blanks(p, end);
    while (p < end && *p != '\n' && *p != '\r') {
        if (k == want)
            return -1;
        double x;
        const char *q = line_number(p, end, col == dims, &x);
        if (q == NULL)
            return -1;
        col = col + 1 == cols ? 0 : col + 1;
        *tok = p;
        *tok_len = (size_t)(q - p);
        v[k++] = x;
        if ((p = separator(q, end, &commas)) == NULL)
            return -1;
    }
    *pos = io_past_line_end(p, end);
    return (int)k;
}

/* fast_line for a header's lines: every field in place, separated as
 * fast_line's are; returns dims + 1 (the sphere is in v), 0 for an empty
 * line, or -1 (*pos unmoved) for anything else, including a skipped field
 * that is empty or holds a byte the general path reads otherwise ('#',
 * '\v', '\f'), and a line with another number of fields. */
static int fast_fields(const char **pos, const char *end, double *v, const field_map *map,
                       const char **tok, size_t *tok_len) {
    const char *p = *pos;
    int commas = -1;
    p = io_skip_blanks(p, end);
    if (p == end || *p == '\n' || *p == '\r') {
        *pos = io_past_line_end(p, end);
        return 0;
    }
    for (size_t f = 0; f < map->fields; f++) {
        if (p == end || *p == '\n' || *p == '\r')
            return -1; /* fewer fields */
        const int slot = map->slot[f];
        const char *q = p;
        if (slot >= 0) {
            double x;
            if ((q = line_number(p, end, (size_t)slot == map->dims, &x)) == NULL)
                return -1;
            v[slot] = x;
        } else {
            while (q < end && *q != ' ' && *q != '\t' && *q != ',' && *q != '\n' && *q != '\r') {
                if (*q == '#' || *q == '\v' || *q == '\f')
                    return -1;
                q++;
            }
            if (q == p)
                return -1;
        }
        *tok = p;
        *tok_len = (size_t)(q - p);
        if ((p = separator(q, end, &commas)) == NULL)
            return -1;
    }
    if (p < end && *p != '\n' && *p != '\r')
        return -1; /* more fields */
    *pos = io_past_line_end(p, end);
    return (int)map->dims + 1;
}
#endif

size_t io_line_ends(const char *b, const char *e) {
    size_t n = 0;
    const char *p = b;
    /* per-byte counts, summed every 255 blocks before a byte could wrap */
    const simde__m128i nl = simde_mm_set1_epi8('\n'), cr = simde_mm_set1_epi8('\r'),
                       zero = simde_mm_setzero_si128();
    while (e - p > 16) {
        simde__m128i acc = zero;
        for (int k = 0; k < 255 && e - p > 16; k++, p += 16) {
            const simde__m128i x = simde_mm_loadu_si128((const simde__m128i *)(const void *)p);
            const simde__m128i y =
                simde_mm_loadu_si128((const simde__m128i *)(const void *)(p + 1));
            const simde__m128i r = simde_mm_cmpeq_epi8(x, cr);
            /* '\n' and '\r' count one each (the masks are -1), "\r\n" one */
            acc = simde_mm_sub_epi8(acc, simde_mm_cmpeq_epi8(x, nl));
            acc = simde_mm_sub_epi8(acc, r);
            acc = simde_mm_add_epi8(acc, simde_mm_and_si128(r, simde_mm_cmpeq_epi8(y, nl)));
        }
        const simde__m128i s = simde_mm_sad_epu8(acc, zero);
        n += (size_t)simde_mm_cvtsi128_si32(s) +
             (size_t)simde_mm_cvtsi128_si32(simde_mm_srli_si128(s, 8));
    }
    for (; p < e; p++)
        n += *p == '\n' || (*p == '\r' && (p + 1 == e || p[1] != '\n'));
    return n;
}

#if defined(SC_HAVE_FAST_FLOAT) && defined(_OPENMP)
/* ---- the fast path on several threads ------------------------------------
 * Once the layout is known (one number a line, or one sphere a line) and at
 * least SPLIT_MIN bytes remain (sc_io_read_options.text_split_bytes), the
 * rest is cut into one piece per thread at line ends (each at least
 * PIECE_MIN bytes), and each piece is read by read_piece into its own
 * stretch of the reserved values: right after the most the pieces before
 * it can hold (`want` values a line, and a value per two bytes), which
 * pieces of plain lines fill, so a clean file's values land in place. The
 * pieces' values then move down behind the ones before where a piece held
 * fewer, in file order, so the values are the serial reader's. A piece
 * stops at a line fast_line declines; what it read before that line is
 * kept and the serial reader goes on from there, so every line is counted
 * and every error worded as the serial reader does. With one number a line
 * a piece cannot check radii (where its numbers fall among the columns is
 * known only once the pieces before it are counted) nor the sphere limit:
 * a piece that breaks either is read again by the serial reader, whole.
 * With one thread, or under SPLIT_MIN bytes, the rest is one piece, read on
 * the calling thread by the same loop. SPLIT_MIN: where a second thread's
 * start takes milliseconds (the VM of docs/one-shot.md, "Text input", has
 * the figures), it and the first touch of a second stretch cost more than
 * the second thread saves on a few MB of lines. */
enum { PIECE_MIN = IO_PIECE_MIN, SPLIT_MIN = IO_SPLIT_MIN, PIECES_MAX = IO_PIECES_MAX };

typedef struct piece {
    const char *begin, *end; /* whole lines */
    double *v;               /* its stretch of the values */
    size_t count, lines;     /* values and lines read, before stop */
    const char *stop;        /* end, or the first line fast_line declined */
    const char *tok;         /* the last value's token, its length and line */
    size_t tok_len, tok_line;
} piece;

static void read_piece(piece *pc, size_t want, size_t cols, size_t dims, const field_map *map) {
    /* locals only until the end: the pieces share cache lines */
    const char *p = pc->begin, *const end = pc->end, *tok = NULL;
    double *const v = pc->v;
    size_t count = 0, lines = 0, tok_len = 0, tok_line = 0;
#ifdef SC_LINE_RUN
    /* Runs of the plainest lines at a time, each odd line read below; where
     * runs average under 4 lines (blanks around the fields, tabs, long
     * decimals) it stops trying. */
    size_t run_tries = 0, run_lines = 0;
    int runs = 1;
    /* A header's lines too, each field where the header puts it. */
    /* the radius's column; none for one number a line (the pieces' merge tests it) */
    const size_t rcol = map ? map->dims : want == 1 ? SIZE_MAX : dims;
#endif
    while (p < end) {
#ifdef SC_LINE_RUN
        if (runs) {
            size_t taken;
            p = io_line_run(p, end, v + count, map ? map->fields : want, map ? map->slot : NULL,
                            want, rcol, SIZE_MAX, IO_RUN_COMMAS, &taken, &tok, &tok_len);
            count += taken * want;
            lines += taken;
            tok_line = taken ? lines : tok_line;
            run_tries++;
            run_lines += taken;
            runs = run_tries < 16 || run_lines >= 4 * run_tries;
            if (p >= end)
                break;
        }
#endif
        double row[COL_NAMES];
        const char *q = p;
        /* one number a line: col 0 of a single column, so no radius test */
        const int k = map         ? fast_fields(&q, end, row, map, &tok, &tok_len)
                      : want == 1 ? fast_line(&q, end, row, 1, 0, 1, 1, &tok, &tok_len)
                                  : fast_line(&q, end, row, want, 0, cols, dims, &tok, &tok_len);
        if (k < 0 || (k != 0 && (size_t)k != want))
            break;
        lines++;
        if (k > 0) {
            for (size_t c = 0; c < want; c++)
                v[count + c] = row[c];
            count += want;
            tok_line = lines;
        }
        p = q;
    }
    pc->stop = p;
    pc->count = count;
    pc->lines = lines;
    pc->tok = tok;
    pc->tok_len = tok_len;
    pc->tok_line = tok_line;
}

/* Cuts [pos, end) into pieces (at most max_pieces, each at least PIECE_MIN
 * bytes) ending at line ends, with their values' stretches from v on.
 * Returns how many (one, on one thread, where the rest is under split_min
 * bytes or one thread is asked for: the one-pass reader in its own loop). */
static int cut_pieces(const char *pos, const char *end, double *v, int max_pieces, size_t split_min,
                      piece *pcs) {
    const size_t bytes = (size_t)(end - pos);
    size_t n = bytes < split_min ? 1 : bytes / PIECE_MIN;
    n = n < (size_t)max_pieces ? n : (size_t)max_pieces;
    if (n < 1)
        n = 1;
    const char *b = pos;
    int made = 0;
    for (size_t c = 0; c < n && b < end; c++) {
        const char *e = c + 1 == n ? end : pos + bytes * (c + 1) / n;
        if (e < b)
            e = b;
        while (e < end && e[-1] != '\n')
            e++;
        pcs[made].begin = b;
        pcs[made].end = e;
        pcs[made].v = v;
        v += (size_t)(e - b) / 2 + 1;
        made++;
        b = e;
    }
    return made;
}
#endif

/* One number: parsed and validated for column `col` of sphere `sphere`
 * (the column's name is looked up only for a message). */
static sc_io_status take_number(const char *path, size_t line, const char *t, size_t len,
                                int is_radius, size_t col, int dims, size_t sphere, double *v,
                                char *err, size_t errcap) {
    char q[128];
    token_result tr = parse_token(t, len, v);
    if (tr == TOKEN_SYNTAX) {
        if (len == 0)
            return io_fail(err, errcap, SC_IO_ERR_SYNTAX,
                           "%s: line %zu: non-numeric token \"\" (empty field between commas)",
                           path, line);
        return io_fail(err, errcap, SC_IO_ERR_SYNTAX, "%s: line %zu: non-numeric token %s", path,
                       line, io_quote(t, len, q, sizeof q));
    }
    if (tr != TOKEN_OVERFLOW && fabs(*v) <= SC_MAX_ABS_VALUE && (!is_radius || *v >= 0.0))
        return SC_IO_OK; /* the common case, without the checker's calls */
    io_value_check vc = tr == TOKEN_OVERFLOW ? VALUE_OUT_OF_RANGE : io_check_value(*v, is_radius);
    if (vc != VALUE_OK)
        return io_fail(err, errcap, io_value_status(vc),
                       "%s: line %zu: %s %s (sphere %zu, column %s)", path, line,
                       io_value_problem(vc), io_quote(t, len, q, sizeof q), sphere,
                       io_column_name(col, dims));
    return SC_IO_OK;
}

/* One function, though long: the text reader is one pass over the bytes
 * (byte order mark, header, the layout the first rows show, runs, pieces on
 * threads, the line-by-line loop, the last row), and every step shares the
 * cursor, the value store and the state that words an error by line and
 * column; split, each piece would take most of them as arguments and the
 * fast paths would lose them from registers. */
sc_io_status io_read_text(const char *path, const io_file *f, const sc_io_read_options *opts,
                          sc_io_spheres *out, char *err, size_t errcap) {
    path = io_display_name(path, 0);
    const int dims_opt = opts ? opts->dims : 0;
    int dims = dims_opt == 2 ? 2 : 3;
    size_t cols = (size_t)dims + 1;
    const size_t max = io_max_spheres(opts);
    const char *pos = (const char *)f->data;
    const char *end = pos + f->size;
    /* A UTF-8 byte order mark, as some Windows tools write. */
    if (f->size >= 3 && memcmp(pos, "\xEF\xBB\xBF", 3) == 0)
        pos += 3;
    /* A number takes at least two bytes (a digit and a separator), so
     * size / 2 + 1 values always fit: reserved at once (64-byte aligned;
     * 2 MiB aligned with huge pages advised from 2 MiB on),
     * the values are neither moved while they grow nor copied at the end,
     * and the pages a file never fills are never touched. At most
     * VALUES_RESERVE, and no more than the sphere limit lets a file hold
     * (four values a sphere, and a few more before the reader notices);
     * past that, or when the reservation fails, the array grows. */
    values vs = {NULL, 0, 0};
    {
        enum { VALUES_RESERVE = 1 << 27 };
        /* and a value more per piece of the threaded fast path */
        size_t bound =
            f->size / 2 + 1 + 64 < VALUES_RESERVE ? f->size / 2 + 1 + 64 : VALUES_RESERVE;
        if (max < VALUES_RESERVE / 4 && bound > 4 * max + 128)
            bound = 4 * max + 128;
        void *p = NULL;
        const size_t bytes = bound * sizeof *vs.v;
        const size_t align = bytes >= ((size_t)2 << 20) ? (size_t)2 << 20 : 64;
        if (posix_memalign(&p, align, bytes) == 0) {
            vs.v = p;
            vs.cap = bound;
#ifdef MADV_HUGEPAGE
            /* The caller's page policy, the library's for its scratch
             * (sc_huge_pages: what a fresh page costs differs between
             * machines and VMs, docs/one-shot.md). */
            if (align > 64)
                (void)madvise(p, bytes - bytes % align,
                              opts && opts->huge_pages ? MADV_HUGEPAGE
                                                       : MADV_NOHUGEPAGE); /* advice only */
#endif
        }
    }
    text_mode mode = MODE_UNKNOWN;
    layout lay;
    size_t line = 0, first_line = 0, last_line = 0;
    char q[128];
    const char *last_tok = "", *t;
    size_t last_len = 0, len;
    sc_io_status st = SC_IO_OK;
    text_line l;
    size_t flat_col = 0, flat_sphere = 0; /* MODE_FLAT: where the next value goes */
    field_map hmap;                       /* MODE_HEADER: where each field goes */
    const field_map *header_map = NULL;   /* &hmap once the header is read, if it fits */
    /* vs.count / cols > max implies vs.count > max_values: the division only
     * then (cols is 3 or 4; a header may still change it from 4 to 3) */
    const size_t max_values = max <= SIZE_MAX / 4 ? max * 3 : max;
    static const char *const names3 = "x y z r", *const names2 = "x y r";

    int threads = opts && opts->threads > 0 ? opts->threads : 0;
    while (st == SC_IO_OK) {
#if defined(SC_HAVE_FAST_FLOAT) && defined(_OPENMP)
        /* Once the layout is known, the rest on several threads (once). */
        if ((mode == MODE_FLAT || mode == MODE_ROWS || header_map) && threads >= 0) {
            if (threads == 0)
                threads = omp_get_num_procs();
            threads = threads < PIECES_MAX ? threads : PIECES_MAX;
            piece pcs[PIECES_MAX];
            const size_t want = mode == MODE_FLAT ? 1 : cols;
            const size_t room = vs.cap - vs.count;
            /* The pieces' worst case, a value per two bytes, fits the
             * reservation unless the reservation was capped (VALUES_RESERVE,
             * 2^28 bytes of lines: a text file of 10^7 spheres; or the
             * sphere limit); then their line ends must say that their
             * values fit, or the serial reader grows the values as it goes. */
            const int worst_fits = room >= (size_t)(end - pos) / 2 + PIECES_MAX + 1;
            int np = cut_pieces(pos, end, vs.v + vs.count, threads,
                                opts && opts->text_split_bytes ? opts->text_split_bytes : SPLIT_MIN,
                                pcs);
            threads = -1; /* the serial reader from here on */
            /* Each piece's values go right after the most that the pieces
             * before it can hold: no more than `want` a line (and than a
             * value per two bytes), which a piece of plain lines fills, so
             * that the values of a clean file are read into their place and
             * not moved after. Line ends are counted first, in every piece
             * but the last (nothing comes after it), and in the last too
             * where the worst case does not fit (it may end without one).
             * dynamic: a thread that starts late (waking a core can take
             * milliseconds) finds its piece taken, not waited for */
            const int counted = worst_fits ? np - 1 : np;
            if (counted > 0) {
                size_t most[PIECES_MAX], total = 0;
#pragma omp parallel for num_threads(counted) schedule(dynamic, 1)
                for (int c = 0; c < counted; c++) {
                    const size_t bytes = (size_t)(pcs[c].end - pcs[c].begin);
                    const size_t lines = io_line_ends(pcs[c].begin, pcs[c].end) + (c == np - 1);
                    most[c] = lines * want < bytes / 2 + 1 ? lines * want : bytes / 2 + 1;
                }
                for (int c = 1; c < np; c++)
                    pcs[c].v = pcs[c - 1].v + most[c - 1];
                for (int c = 0; c < counted; c++)
                    total += most[c];
                if (!worst_fits && total > room)
                    np = 0; /* the serial reader, which grows the values */
            }
            if (np > 0) {
                if (np == 1)
                    read_piece(&pcs[0], want, cols, (size_t)dims, header_map);
                else {
#pragma omp parallel for num_threads(np) schedule(dynamic, 1)
                    for (int c = 0; c < np; c++)
                        read_piece(&pcs[c], want, cols, (size_t)dims, header_map);
                }
                for (int c = 0; c < np; c++) {
                    const piece *pc = &pcs[c];
                    int again =
                        vs.count + pc->count > max_values && (vs.count + pc->count) / cols > max;
                    /* the radii among one-a-line values: every cols-th from the first */
                    const size_t r0 = ((size_t)dims + cols - flat_col) % cols;
                    for (size_t j = r0; mode == MODE_FLAT && j < pc->count && !again; j += cols)
                        again = !(pc->v[j] >= 0.0);
                    if (again) /* the serial reader words it */
                        break;
                    if (pc->v != vs.v + vs.count)
                        memmove(vs.v + vs.count, pc->v, pc->count * sizeof *vs.v);
                    vs.count += pc->count;
                    if (pc->count > 0) {
                        last_tok = pc->tok;
                        last_len = pc->tok_len;
                        last_line = line + pc->tok_line;
                    }
                    line += pc->lines;
                    pos = pc->stop;
                    if (mode == MODE_FLAT) {
                        flat_sphere += (flat_col + pc->count) / cols;
                        flat_col = (flat_col + pc->count) % cols;
                    }
                    if (pc->stop != pc->end)
                        break;
                }
                continue;
            }
        }
#endif
#ifdef SC_HAVE_FAST_FLOAT
        /* Once the layout is known, whole lines take the fast path; a line
         * it declines is read again by the general path below. */
        if ((mode == MODE_FLAT || mode == MODE_ROWS || header_map) && vs.cap - vs.count >= cols) {
            const size_t want = mode == MODE_FLAT ? 1 : cols;
            const size_t col = mode == MODE_FLAT ? flat_col : 0;
            double row[COL_NAMES];
            const char *p2 = pos, *tok = last_tok;
            size_t tok_len = last_len;
            const int k = pos >= end   ? -1
                          : header_map ? fast_fields(&p2, end, row, header_map, &tok, &tok_len)
                                       : fast_line(&p2, end, row, want, col, cols, (size_t)dims,
                                                   &tok, &tok_len);
            if (k == 0 || (size_t)k == want) {
                pos = p2;
                line++;
                if (k == 0)
                    continue;
                for (size_t c = 0; c < want; c++) /* (a memcpy of `want` is a libc call) */
                    vs.v[vs.count + c] = row[c];
                vs.count += want;
                last_tok = tok;
                last_len = tok_len;
                last_line = line;
                if (mode == MODE_FLAT && ++flat_col == cols) {
                    flat_col = 0;
                    flat_sphere++;
                }
                if (vs.count > max_values && vs.count / cols > max)
                    st = io_fail(err, errcap, SC_IO_ERR_TOO_MANY,
                                 "%s: line %zu: too many spheres: more than %zu", path, line, max);
                continue;
            }
        }
#endif
        if (!next_line(&pos, end, &l))
            break;
        line++;
        if (line_is_empty(&l))
            continue;
        const char *cur = l.p;
        if (mode == MODE_UNKNOWN) {
            /* The first line with content decides: a header of names, one
             * number per line, or one sphere per line. */
            int all_numbers = 1;
            size_t fields = 0;
            const char *c2 = l.p;
            double v;
            while (all_numbers && next_field(&c2, &l, &t, &len)) {
                fields++;
                all_numbers = parse_token(t, len, &v) != TOKEN_SYNTAX;
            }
            if (!all_numbers) {
                if (!parse_header(path, &l, line, dims_opt, &lay, &st, err, errcap))
                    st = take_number(path, line, t, len, 0, 0, dims, 0, &v, err, errcap);
                if (st != SC_IO_OK)
                    break;
                mode = MODE_HEADER;
                if (lay.field_of[COL_Z] < 0) {
                    dims = 2;
                    cols = 3;
                }
                /* The header's lines take the fast path too (a line it
                 * declines still gets the header's messages), with each
                 * field put where the loop below puts it. */
                if (lay.fields <= MAP_FIELDS) {
                    hmap.fields = lay.fields;
                    hmap.dims = (size_t)dims;
                    for (size_t fi = 0; fi < lay.fields; fi++)
                        hmap.slot[fi] = -1;
                    for (int c = 0; c < COL_NAMES; c++)
                        if (lay.field_of[c] >= 0 && (c != COL_Z || dims == 3))
                            hmap.slot[lay.field_of[c]] =
                                (signed char)(dims == 2 && c == COL_R ? 2 : c);
                    header_map = &hmap;
                }
                continue;
            }
            mode = fields == 1 ? MODE_FLAT : MODE_ROWS;
            first_line = line;
        }
        /* Values of this line. */
        size_t k = 0;
        const size_t sphere = mode == MODE_FLAT ? flat_sphere : vs.count / cols;
        double row[COL_NAMES];
        while (st == SC_IO_OK && next_field(&cur, &l, &t, &len)) {
            double v = 0.0;
            if (mode == MODE_HEADER) {
                int c = -1;
                for (int a = 0; a < COL_NAMES; a++)
                    if (lay.field_of[a] == (long)k)
                        c = a;
                if (c >= 0 && (c != COL_Z || dims == 3)) {
                    const int slot = dims == 2 && c == COL_R ? 2 : c;
                    st = take_number(path, line, t, len, c == COL_R, (size_t)slot, dims, sphere, &v,
                                     err, errcap);
                    row[slot] = v;
                }
            } else if (mode == MODE_FLAT) { /* flat_col, flat_sphere: vs.count % cols, / cols */
                st = take_number(path, line, t, len, flat_col == (size_t)dims, flat_col, dims,
                                 flat_sphere, &v, err, errcap);
                if (++flat_col == cols) {
                    flat_col = 0;
                    flat_sphere++;
                }
                if (st == SC_IO_OK && values_push(&vs, v) != 0)
                    st = io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: line %zu: out of memory", path,
                                 line);
            } else if (k < cols) { /* one sphere per line */
                st = take_number(path, line, t, len, k == (size_t)dims, k, dims, sphere, &v, err,
                                 errcap);
                row[k] = v;
            }
            last_tok = t;
            last_len = len;
            k++;
        }
        if (st != SC_IO_OK)
            break;
        last_line = line;
        if (mode == MODE_FLAT && k != 1) {
            st = io_fail(
                err, errcap, SC_IO_ERR_COUNT,
                "%s: line %zu: %zu values on a line, but the lines from line %zu on hold one "
                "number each",
                path, line, k, first_line);
            break;
        }
        if (mode == MODE_ROWS && k != cols && line == first_line) { /* the layout's own line */
            st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                         "%s: line %zu: %zu values on a line, but a sphere has %zu (%s)%s", path,
                         line, k, cols, dims == 2 ? names2 : names3,
                         dims == 3 && k == 3 ? "; for circles (x y r) use --2d, or name the "
                                               "columns in a header line"
                                             : "; name the columns in a header line to pick them");
            break;
        }
        if (mode == MODE_ROWS && k != cols) {
            st = io_fail(
                err, errcap, SC_IO_ERR_COUNT,
                "%s: line %zu: %zu values on a line, but a sphere has %zu (%s), as on line %zu",
                path, line, k, cols, dims == 2 ? names2 : names3, first_line);
            break;
        }
        if (mode == MODE_HEADER && k != lay.fields) {
            st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                         "%s: line %zu: %zu fields, but the header on line %zu names %zu", path,
                         line, k, lay.header_line, lay.fields);
            break;
        }
        if (mode == MODE_ROWS || mode == MODE_HEADER)
            for (size_t c = 0; c < cols && st == SC_IO_OK; c++)
                if (values_push(&vs, row[c]) != 0)
                    st = io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: line %zu: out of memory", path,
                                 line);
        if (st == SC_IO_OK && vs.count > max_values && vs.count / cols > max)
            st = io_fail(err, errcap, SC_IO_ERR_TOO_MANY,
                         "%s: line %zu: too many spheres: more than %zu", path, line, max);
    }
    if (st == SC_IO_OK && vs.count % cols != 0)
        st =
            io_fail(err, errcap, SC_IO_ERR_COUNT,
                    "%s: line %zu: %zu numbers in all, not a multiple of %zu (%s); the last sphere "
                    "is incomplete after token %s",
                    path, last_line, vs.count, cols, dims == 2 ? names2 : names3,
                    io_quote(last_tok, last_len, q, sizeof q));
    if (st != SC_IO_OK) {
        free(vs.v);
        return st;
    }
    double *rows = NULL;
    if (vs.count > 0) {
        /* Into a 64-byte aligned block of the exact size: each (x, y, z, r)
         * record then sits in one cache line, which the engine's gather
         * reads at random (see sc_spheres_rows_f64). Kept as is when that
         * memory is not to be had. */
        void *aligned = NULL;
        if ((uintptr_t)vs.v % 64 == 0) { /* the reservation held them all */
            rows = vs.v;
        } else if (posix_memalign(&aligned, 64, vs.count * sizeof *vs.v) == 0) {
            memcpy(aligned, vs.v, vs.count * sizeof *vs.v);
            free(vs.v);
            rows = aligned;
        } else {
            rows = vs.v;
        }
    } else {
        free(vs.v);
    }
    out->n = vs.count / cols;
    out->dims = dims;
    out->dtype = SC_F64;
    out->rows = rows;
    out->owned_ = rows;
    return SC_IO_OK;
}
